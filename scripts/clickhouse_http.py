#!/usr/bin/env python3
"""A ClickHouse HTTP port in front of chDB (ClickHouse in-process), for tests.

It stands in for a ClickHouse server's HTTP interface (port 8123) where no server runs: CI and
a laptop run `pushlog --clickhouse http://...` against it with the real engine. It speaks the
part of the interface pushlog uses, as the server does:
  - the query in the POST body, or in `query=` with the body as the data of an INSERT;
  - `param_NAME=VALUE` query parameters for `{NAME:Type}` placeholders;
  - `database=`, `default_format=`, and any other URL key as a query-level setting
    (`readonly=1`, `insert_deduplication_token=...`, ...);
  - `session_id=` (with `session_timeout=`, 60 seconds by default): the requests of one session
    run on one connection, one at a time (a second one at once is refused, code 373), so its
    temporary tables last from one request to the next; the connection keeps the settings of
    the session's first request, and closes once the session is idle past its timeout
    (`session_check=1`: a session that does not exist is an error, code 372);
  - basic auth (`Authorization: Basic`) or `X-ClickHouse-User`/`X-ClickHouse-Key`, checked
    against --user/--password, or --reader's user, whose every request runs with `readonly=1`
    (a server's read-only profile);
  - errors as HTTP 500 with the text `Code: N. DB::Exception: ...` and the header
    `X-ClickHouse-Exception-Code: N` (401 with code 516 for a wrong password);
  - an HTTP/1.1 request's answer in chunks (`Transfer-Encoding: chunked`), as the server sends it;
  - `GET /ping` answers `Ok.`.
chDB hosts one engine per process: every request runs on a connection of its own to the one
data path. Queries, inserts and `CREATE OR REPLACE` of a table, view or function run at once, as
on a server; anything else (CREATE DATABASE, DROP, ALTER, ...) runs alone, after the requests in
flight. Not a server to deploy.

  scripts/clickhouse_http.py [--port 0] [--path DIR] [--user U --password P] [--reader U:P]
                             [--port-file F] [--fault-file F]
--port 0 picks a free port; the port is printed on stdout as `listening on PORT` (and written to
--port-file), after which requests are served until SIGTERM/SIGINT.

For the exactly-once checks, --fault-file names a file that, while it exists, holds one line
`MODE SECONDS PREFIX`: a request whose `insert_deduplication_token` starts with PREFIX (for
PREFIX `has:TEXT`, holds TEXT; for `data:TEXT`, an insert whose data holds TEXT) is held SECONDS before it runs (`before`: a
busy server still working on an insert whose client is gone), run and then held before its answer
(`after`), or read and dropped without an answer or running (`drop`: a connection lost on the
way). `forget 0 -`: every session ends after each of its requests, as when a balancer sends the
next request of a session to another replica.
"""
import argparse, base64, os, re, signal, sys, tempfile, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# URL keys that are not settings.
RESERVED = {"query", "database", "default_format", "user", "password", "session_id", "session_timeout", "session_check",
            "query_id", "compress", "decompress", "buffer_size", "wait_end_of_query"}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A statement that reads, inserts, replaces, copies, swaps, drops or deletes from one table, view
# or function (as the kept facts' rebuild does, a few at once), or makes or drops a session's
# temporary table, after any leading comments.
SHARED = re.compile(r"^(?:\s|--[^\n]*\n|/\*.*?\*/)*(?:SELECT|WITH|EXPLAIN|SHOW|DESCRIBE|DESC|EXISTS|INSERT"
                    r"|CREATE\s+OR\s+REPLACE\s+(?:TABLE|VIEW|FUNCTION)|CREATE\s+TABLE\s+\S+\s+CLONE\s+AS|(?:CREATE|DROP)\s+TEMPORARY\s+TABLE"
                    r"|EXCHANGE\s+TABLES|DROP\s+TABLE|DELETE\s+FROM)\b", re.I | re.S)


class Gate:
    """Many shared requests at once, or one exclusive one; a waiting exclusive one holds new
    shared ones back."""

    def __init__(self):
        self.cond = threading.Condition()
        self.readers = 0
        self.writing = False
        self.writers_waiting = 0

    def enter(self, shared):
        with self.cond:
            if shared:
                self.cond.wait_for(lambda: not self.writing and self.writers_waiting == 0)
                self.readers += 1
            else:
                self.writers_waiting += 1
                self.cond.wait_for(lambda: not self.writing and self.readers == 0)
                self.writers_waiting -= 1
                self.writing = True

    def leave(self, shared):
        with self.cond:
            if shared:
                self.readers -= 1
            else:
                self.writing = False
            self.cond.notify_all()


class Engine:
    """The chDB engine behind the port: one data path; queries, inserts and replacements at once,
    other DDL alone."""

    def __init__(self, path):
        from chdb import state
        self.state = state
        self.path = path
        self.gate = Gate()
        # Kept open: the engine lives as long as one connection does. With a server's default
        # background pool (chDB's own is two threads), which runs a mutation's parts at once.
        self.main = state.connect(path + "?background_pool_size=16")
        self.tmp = tempfile.mkdtemp(prefix="pushlog-chhttp-")
        # session id -> {"conn", "busy", "used", "timeout"}
        self.sessions = {}
        self.sessions_lock = threading.Lock()

    def connect(self, settings):
        # A connection string's keys are query-level settings of that connection only, as the
        # server's URL settings apply to one request.
        return self.state.connect(self.path + ("?" + urllib.parse.urlencode(settings) if settings else ""))

    def session(self, sid, timeout, check, settings):
        """The session's connection, marked busy; sessions idle past their timeout are closed.
        With `check`, a session that does not exist is an error (372) instead of a new one."""
        with self.sessions_lock:
            now = time.monotonic()
            for k, s in list(self.sessions.items()):
                if not s["busy"] and now - s["used"] > s["timeout"]:
                    s["conn"].close()
                    del self.sessions[k]
            s = self.sessions.get(sid)
            if s is None and check:
                raise ValueError(f"Code: 372. DB::Exception: Session {sid} not found. (SESSION_NOT_FOUND)")
            if s is None:
                s = self.sessions[sid] = {"conn": self.connect(settings), "busy": False, "used": now, "timeout": timeout}
            if s["busy"]:
                raise ValueError(f"Code: 373. DB::Exception: Session {sid} is locked by a concurrent client. (SESSION_IS_LOCKED)")
            s["busy"] = True
            s["timeout"] = timeout
            return s

    def forget(self, sid):
        with self.sessions_lock:
            s = self.sessions.pop(sid, None)
            if s:
                s["conn"].close()

    def release(self, s):
        with self.sessions_lock:
            s["busy"], s["used"] = False, time.monotonic()

    def run(self, sql, fmt, params, settings, data, session=None):
        shared = bool(SHARED.match(sql))
        self.gate.enter(shared)
        try:
            s = self.session(*session, settings) if session else None
            conn = s["conn"] if s else self.connect(settings)
            try:
                body = None
                if data is not None:
                    sql, body = self.insert_from_file(sql, data)
                try:
                    res = conn.query(sql, fmt, params=params or None)
                finally:
                    if body:
                        os.unlink(body)
                return res.bytes() if hasattr(res, "bytes") else str(res).encode()
            finally:
                if s:
                    self.release(s)
                else:
                    conn.close()
        finally:
            self.gate.leave(shared)

    def insert_from_file(self, sql, data):
        """`INSERT ... FORMAT F` with the request body as its data (chDB reads data from a file)."""
        m = re.search(r"\bFORMAT\s+(\w+)\s*;?\s*$", sql, re.I)
        if not m or not re.match(r"\s*INSERT\b", sql, re.I):
            raise ValueError("Code: 62. DB::Exception: the body holds data, so the query must be INSERT ... FORMAT F. (SYNTAX_ERROR)")
        fd, f = tempfile.mkstemp(dir=self.tmp, prefix="body-")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        return sql[: m.start()] + f"FROM INFILE '{f}' FORMAT {m.group(1)}", f


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    engine: Engine = None
    user, password = "default", ""
    reader = None  # (user, password) of the read-only user, if any
    fault_file = None

    def fault(self, token, data):
        """The fault the --fault-file asks for this request: (mode, seconds) or None."""
        try:
            mode, seconds, prefix = open(self.fault_file).read().split()
        except (TypeError, OSError, ValueError):
            return None
        if prefix.startswith("data:"):
            hit = data is not None and prefix[5:].encode() in data
        elif prefix.startswith("has:"):
            hit = prefix[4:] in token
        else:
            hit = token.startswith(prefix)
        return (mode, float(seconds)) if hit else None

    def forgetting(self):
        try:
            return open(self.fault_file).read().split()[0] == "forget"
        except (OSError, IndexError):
            return False

    def log_message(self, *a):
        pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path in ("/ping", "/"):
            if not urllib.parse.parse_qs(url.query).get("query"):
                return self.reply(200, b"Ok.\n")
        self.handle_query(b"")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        self.handle_query(body)

    def reply(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if self.request_version == "HTTP/1.1":
            # As the server answers HTTP/1.1: chunked (it starts sending before it knows the length).
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(body), 65536):
                part = body[i:i + 65536]
                self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, message):
        m = re.search(r"Code: (\d+)\.", message)
        code = m.group(1) if m else "1001"
        text = message if m else f"Code: {code}. DB::Exception: {message}"
        text = text.split("\n\nThe above exception")[0].strip()
        self.reply(status, (text + "\n").encode(), [("X-ClickHouse-Exception-Code", code), ("Content-Type", "text/plain; charset=UTF-8")])

    def authorized(self):
        """"user", "reader" (the read-only one), or None."""
        user, key = self.headers.get("X-ClickHouse-User"), self.headers.get("X-ClickHouse-Key")
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            try:
                user, _, key = base64.b64decode(auth[6:]).decode().partition(":")
            except Exception:
                return None
        given = (user or "default", key or "")
        return "user" if given == (self.user, self.password) else "reader" if given == self.reader else None

    def handle_query(self, body):
        who = self.authorized()
        if not who:
            return self.error(401, f"Code: 516. DB::Exception: {self.user}: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)")
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query, keep_blank_values=True)
        one = {k: v[-1] for k, v in q.items()}
        if "query" in one:
            sql, data = one["query"], (body if body else None)
        else:
            sql, data = body.decode("utf-8", "replace"), None
        if not sql.strip():
            return self.error(400, "Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)")
        params = {k[6:]: v for k, v in one.items() if k.startswith("param_")}
        settings = {k: v for k, v in one.items() if not k.startswith("param_") and k not in RESERVED}
        if not all(IDENT.match(k) for k in settings):
            return self.error(400, "Code: 115. DB::Exception: Unknown setting. (UNKNOWN_SETTING)")
        if who == "reader":
            settings["readonly"] = "1"
        fmt = one.get("default_format") or "TabSeparated"
        m = re.search(r"\bFORMAT\s+(\w+)\s*;?\s*$", sql, re.I)
        if m and data is None and not re.match(r"\s*INSERT\b", sql, re.I):
            fmt, sql = m.group(1), sql[: m.start()]  # chDB takes the output format apart from the query
        if one.get("database"):
            if not IDENT.match(one["database"]):
                return self.error(400, "Code: 81. DB::Exception: Database name is not an identifier. (UNKNOWN_DATABASE)")
            settings.setdefault("database", one["database"])
        fault = self.fault(settings.get("insert_deduplication_token", ""), data) if self.fault_file else None
        if fault and fault[0] == "drop":
            self.close_connection = True
            return
        if fault and fault[0] == "before":
            time.sleep(fault[1])  # outside the gate: other requests, DDL too, go on meanwhile
        try:
            session = ((one["session_id"], float(one.get("session_timeout") or 60), one.get("session_check") == "1")
                       if one.get("session_id") else None)
            out = self.engine.run(sql, fmt, params, settings, data, session)
        except Exception as e:
            return self.error(500, str(e))
        if fault and fault[0] == "after":
            time.sleep(fault[1])
        if session and self.fault_file and self.forgetting():
            self.engine.forget(session[0])
        self.reply(200, out, [("Content-Type", "text/plain; charset=UTF-8"), ("X-ClickHouse-Format", fmt)])


def main():
    ap = argparse.ArgumentParser(description="A ClickHouse HTTP port in front of chDB, for tests.")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--path", help="chDB data directory (default: a new temporary one)")
    ap.add_argument("--user", default="default")
    ap.add_argument("--password", default="")
    ap.add_argument("--reader", help="USER:PASSWORD of a user whose requests all run with readonly=1")
    ap.add_argument("--port-file", help="write the port here once listening")
    ap.add_argument("--fault-file", help="hold or drop some inserts while this file exists (see above)")
    a = ap.parse_args()
    path = a.path or tempfile.mkdtemp(prefix="pushlog-chdb-")
    Handler.engine = Engine(path)
    Handler.user, Handler.password = a.user, a.password
    Handler.reader = tuple(a.reader.split(":", 1)) if a.reader else None
    Handler.fault_file = a.fault_file
    server = ThreadingHTTPServer((a.host, a.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        os.replace(a.port_file + ".tmp", a.port_file)
    print(f"listening on {port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
