#!/usr/bin/env python3
"""Runs the pushlog CLI against ClickHouse (`--clickhouse URL`) and checks it says what SQLite says.

Starts scripts/clickhouse_http.py (a ClickHouse HTTP port in front of chDB) on a free port, or
uses the server $PUSHLOG_TEST_CLICKHOUSE names (its databases pushlog_check_* are dropped and
recreated). For each corpus (the demo, and fixtures with rejects and edge cases):
  - `pushlog --clickhouse URL ingest` the same files as `pushlog --db FILE ingest`, twice (the
    second run must skip every file), then `sources` on both engines: records per kind, rejects
    and lines equal file by file;
  - every report the ClickHouse engine has, with its options (ranges cutting days and hours,
    --by, --topic, --env, --unit, --budget, --compare previous, --fail-if): the JSON of both
    engines, figure by figure (counts equal, rates within 1e-9), and the exit codes equal;
  - `query` (read-only: a write fails with the server's message), an unknown report option, an
    unreachable server (exit 1, the password masked).
Then a kill -9 during a ClickHouse ingest (small batches, merges stopped so a duplicate block
would show), a re-run, and exact counts: raw rows, rows after FINAL, rejects, and the reports.
Then what a terminal (a pseudo-terminal) shows of an ingest and of a rebuild of the kept facts.
--self-test alters one figure and expects the comparison to catch it. Exit 1 on any difference.
"""
import argparse, base64, json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import clickhouse_check as cc  # noqa: E402  (the figure comparison the query check uses)

USER, PASSWORD = "pushlog", "s3cret word"


class Server:
    """The HTTP front on chDB, or the server $PUSHLOG_TEST_CLICKHOUSE names."""

    def __init__(self, tmp):
        self.proc = None
        given = os.environ.get("PUSHLOG_TEST_CLICKHOUSE")
        if given:
            u = urllib.parse.urlsplit(given)
            self.base, self.user, self.password = f"{u.scheme}://{u.hostname}:{u.port or 8123}", u.username or "default", urllib.parse.unquote(u.password or "")
            return
        port_file = os.path.join(tmp, "port")
        self.fault_file = os.path.join(tmp, "fault")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "clickhouse_http.py"), "--port-file", port_file,
                                      "--path", os.path.join(tmp, "chdb"), "--user", USER, "--password", PASSWORD,
                                      "--fault-file", self.fault_file],
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "front.log"), "w"))
        for _ in range(600):
            if os.path.exists(port_file) or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(port_file):
            sys.exit("clickhouse-cli-check: the HTTP front did not start: " + open(os.path.join(tmp, "front.log")).read()[-2000:])
        self.base, self.user, self.password = f"http://127.0.0.1:{open(port_file).read().strip()}", USER, PASSWORD

    def url(self, database, password=None):
        u = urllib.parse.urlsplit(self.base)
        pw = urllib.parse.quote(self.password if password is None else password, safe="")
        return f"{u.scheme}://{urllib.parse.quote(self.user, safe='')}:{pw}@{u.hostname}:{u.port}/{database}"

    def query(self, sql, database=None):
        q = {"default_format": "JSONCompact"} | ({"database": database} if database else {})
        req = urllib.request.Request(self.base + "/?" + urllib.parse.urlencode(q), data=sql.encode(),
                                     headers={"Authorization": "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode()).decode()})
        body = urllib.request.urlopen(req, timeout=600).read().decode()
        return json.loads(body)["data"] if body.strip() else []

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def run(cmd, env=None, ok=(0,)):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode not in ok:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-800:]}")
    return r


def report_cases(report, pushlog, db, ch_url, topic, lo, hi):
    """(label, args) for each run: all data, ranges inside days and hours, each option."""
    span = hi - lo
    ranges = [None, (lo + span * 15 // 100 + 27 * 60000 + 123, hi - span * 15 // 100 - 11 * 60000),
              (lo + span * 30 // 100 + 7 * 60000, lo + span * 70 // 100 + 45 * 60000 + 1)]
    ranges = [r for r in ranges if r is None or r[0] < r[1]]
    help_text = run([pushlog, "reports", "--format", "json"]).stdout
    declared = {r["name"]: r["parameters"].split() for r in json.loads(help_text)["sections"]["reports"]}[report]
    if report == "explain":
        return explain_cases(lo, hi, ranges)
    cases = []
    if report == "weekly":
        for extra in [[], ["--env", "production"], ["--unit", "user"], ["--budget", "1"]] + ([["--topic", topic]] if topic else []):
            cases.append((" ".join(extra) or "default week", extra))
            cases.append(("week before " + " ".join(extra), ["--week", "PREV"] + extra))
        return cases
    for r in ranges:
        args = [] if r is None else ["--since", str(r[0]), "--until", str(r[1])]
        cases.append(("all data" if r is None else f"{r[0]}..{r[1]}", args))
    last = ["--since", str(ranges[-1][0]), "--until", str(ranges[-1][1])] if ranges[-1] else []
    # Every --by value the report takes (time units and dimensions), each with --compare previous too.
    by_values = cc.by_values(report)
    options = {"by": by_values, "topic": [topic] if topic else [], "env": ["sandbox", "production"], "unit": ["user"],
               "budget": ["1"], "rule": cc.RULES}
    for k, values in options.items():
        if k in declared:
            cases += [(f"--{k} {v}", last + [f"--{k}", v]) for v in values]
    if "since" in declared:
        # --compare previous over whole days (a range of whole buckets), and a --fail-if each way.
        day = 86400000
        s, u = (lo // day + 3) * day, (lo // day + 10) * day
        compare = ["--since", str(s), "--until", str(u), "--compare", "previous"]
        cases.append(("--compare previous", compare))
        cases += [(f"--compare previous --by {v}", compare + ["--by", v]) for v in by_values]
    return cases


def explain_cases(lo, hi, ranges):
    """explain's windows (as clickhouse_check.py picks them: the hour around the demo's incident on
    the Tuesday of the last whole week, two hours across its start, the ranges cut to 92 days), each
    with every metric and baseline; and all data, which explain answers with no rows."""
    day, week, hour = 86400000, 604800000, 3600000
    last_week = (hi + 3 * day) // week * week - 3 * day - week
    start = last_week + day + 14 * hour
    windows = [(start, start + hour), (start - hour // 2, start + 3 * hour // 2)]
    windows += [(r[0], min(r[1], r[0] + cc.EXPLAIN_MAX_MS)) for r in ranges if r is not None]
    cases = [("all data", [])]
    for s, u in windows:
        for m in cc.EXPLAIN_METRICS:
            for b in cc.EXPLAIN_BASELINES:
                cases.append((f"{s}..{u} --metric {m} --baseline {b}",
                              ["--since", str(s), "--until", str(u), "--metric", m, "--baseline", b]))
    return cases


def weekly_prev(pushlog, db):
    doc = json.loads(run([pushlog, "--db", db, "report", "weekly", "--format", "json"]).stdout)
    week = dict(doc["params"])["week"] if isinstance(doc["params"], list) else doc["params"]["week"]
    y, w = int(week[:4]), int(week[6:])
    import datetime
    monday = datetime.date.fromisocalendar(y, w, 1) - datetime.timedelta(days=7)
    iy, iw, _ = monday.isocalendar()
    return f"{iy}-W{iw:02d}"


def fail_if(report, doc):
    """A --fail-if on the first numeric summary (or KPI) column, true and false."""
    sec = doc["sections"].get("summary") or []
    if not sec:
        return []
    for k, v in sec[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return [(f"--fail-if {k} >= {v}", ["--fail-if", f"{k} >= {v}"]), (f"--fail-if {k} > {v}", ["--fail-if", f"{k} > {v}"])]
    return []


def check_corpus(a, server, tmp, name, inputs, problems, counts):
    db = os.path.join(tmp, name + ".db")
    chdb = "pushlog_check_" + name
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    ch = server.url(chdb)
    run([a.pushlog, "--db", db, "ingest", "--quiet"] + inputs, ok=(0, 1))
    first = run([a.pushlog, "--clickhouse", ch, "ingest", "--format", "json"] + inputs, ok=(0, 1))
    again = json.loads(run([a.pushlog, "--clickhouse", ch, "ingest", "--format", "json"] + inputs, ok=(0, 1)).stdout)
    if again["totals"]["records"]:
        problems.append(f"{name}: a second ClickHouse ingest of the same files read records again: {again['totals']['records']}")
    # sources: what each engine read from each file.
    sq = {r["path"]: r for r in json.loads(run([a.pushlog, "--db", db, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    chs = {r["path"]: r for r in json.loads(run([a.pushlog, "--clickhouse", ch, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    for path, r in sq.items():
        c = chs.get(path)
        if c is None:
            problems.append(f"{name} sources: {path} missing on ClickHouse")
            continue
        for col in ("records", "send", "request", "response", "register", "settings", "receipt", "unregister", "rejects", "lines", "complete"):
            if r.get(col) != c.get(col):
                problems.append(f"{name} sources {path} {col}: SQLite {r.get(col)!r}, ClickHouse {c.get(col)!r}")
    counts["sources"] += len(sq)
    # Apple's delivery metrics (reconcile reads them): the same rows on both engines.
    apple = json.loads(run([a.pushlog, "--db", db, "query", "SELECT day, push_type, status, count FROM apple_metrics ORDER BY 1, 2, 3",
                            "--format", "json"]).stdout)["sections"]["result"]
    theirs = server.query("SELECT day, push_type, status, count FROM apple_metrics FINAL ORDER BY 1, 2, 3", chdb)
    if [[r["day"], r["push_type"], r["status"], int(r["count"])] for r in apple] != [[d, p, st, int(n)] for d, p, st, n in theirs]:
        problems.append(f"{name} apple_metrics: SQLite {len(apple)} rows, ClickHouse {len(theirs)} rows, not the same")
    counts["apple_metrics"] = counts.get("apple_metrics", 0) + len(apple)
    # Tokens that are not hex (malformed, masked, short) are masked by their text, as on SQLite.
    irregular = [r[0] for r in server.query("SELECT DISTINCT token FROM records WHERE (token_malformed = 1 OR token_masked = 1 "
                                            "OR length(token) < 32) AND length(token) >= 4", chdb)]
    listing = "SELECT DISTINCT token FROM records WHERE token <> '' ORDER BY token"
    shown = [r["token"] for r in json.loads(run([a.pushlog, "--clickhouse", ch, "query", listing, "--format", "json"]).stdout)["sections"]["result"]]
    revealed = [r["token"] for r in json.loads(run([a.pushlog, "--clickhouse", ch, "query", listing, "--format", "json",
                                                    "--reveal-tokens"]).stdout)["sections"]["result"]]
    for t in irregular:
        if any(t in x for x in shown) or t not in revealed:
            problems.append(f"{name}: token {t!r} shown in full by query without --reveal-tokens (or missing with it)")
    counts["masked"] += len(irregular)
    # Reports.
    lo = server.query("SELECT min(time_ms), max(time_ms) FROM events WHERE kind NOT IN ('receipt', 'unregister')", chdb)[0]
    lo, hi = int(lo[0]), int(lo[1])
    topic = server.query("SELECT coalesce((SELECT topic FROM responses WHERE topic IS NOT NULL GROUP BY topic ORDER BY count() DESC, topic LIMIT 1), '')", chdb)[0][0]
    # The catalog's reports with a ClickHouse version (Queries/clickhouse/NAME.sql), found from the folder.
    catalog = [r["name"] for r in json.loads(run([a.pushlog, "reports", "--format", "json"]).stdout)["sections"]["reports"]]
    reports = a.only.split(",") if a.only else [r for r in catalog if os.path.exists(os.path.join(ROOT, "Queries", "clickhouse", r + ".sql"))]
    prev = weekly_prev(a.pushlog, db) if "weekly" in reports else None
    for report in reports:
        cases = report_cases(report, a.pushlog, db, ch, topic, lo, hi)
        base = json.loads(run([a.pushlog, "--db", db, "report", report, "--format", "json"]).stdout)
        cases += fail_if(report, base)
        for label, args in cases:
            args = [prev if x == "PREV" else x for x in args]
            s = subprocess.run([a.pushlog, "--db", db, "report", report, "--format", "json"] + args, capture_output=True, text=True)
            c = subprocess.run([a.pushlog, "--clickhouse", ch, "report", report, "--format", "json"] + args, capture_output=True, text=True)
            where = f"{name} {report} [{label}]"
            if s.returncode != c.returncode:
                problems.append(f"{where}: exit {s.returncode} on SQLite, {c.returncode} on ClickHouse: {c.stderr.strip()[:300]}")
                continue
            if not s.stdout.strip():
                continue
            want, got = json.loads(s.stdout), json.loads(c.stdout)
            if a.self_test:
                clean, altered = [], []
                cc.compare(report, where, want["sections"], got["sections"], clean)
                cc.alter(got["sections"])
                cc.compare(report, where, want["sections"], got["sections"], altered)
                ok = not clean and altered
                print(f"clickhouse-cli-check --self-test: {where}: " + (f"the altered figure was caught: {altered[0]}" if ok else f"FAILED (clean: {clean[:3]}, altered: {altered[:3]})"))
                raise SystemExit(0 if ok else 1)
            if want.get("params") != got.get("params"):
                problems.append(f"{where}: params differ: SQLite {want.get('params')}, ClickHouse {got.get('params')}")
            # What a figure cannot show, and what share it covers, is said the same on both.
            if want.get("notes") != got.get("notes"):
                problems.append(f"{where}: notes differ: SQLite {want.get('notes')}, ClickHouse {got.get('notes')}")
            before = len(problems)
            cut_ties(report, want["sections"], got["sections"])
            cc.compare(report, where, want["sections"], got["sections"], problems)
            # The rejects KPI is compared too: ClickHouse ingest fills its sources table.
            counts["rows"] += sum(len(v) for v in want["sections"].values())
            counts["runs"] += 1
            if len(problems) > before:
                continue
    return ch, chdb, db


# Sections cut by LIMIT after ORDER BY a count: rows that tie with the last row may be any of
# the tied ones in either engine (SQLite takes them in its grouping order), so those rows are
# compared by count only.
LIMITED = {("weekly", "top_reasons"): ("responses", 10)}


def cut_ties(report, want, got):
    for (r, name), (col, limit) in LIMITED.items():
        a, b = want.get(name), got.get(name)
        if r != report or a is None or b is None or len(a) < limit or len(a) != len(b):
            continue
        last = a[-1][col]
        want[name] = [x for x in a if x[col] != last] + [{col: last}] * sum(1 for x in a if x[col] == last)
        got[name] = [x for x in b if x[col] != last] + [{col: last}] * sum(1 for x in b if x[col] == last)


def check_commands(a, server, ch, chdb, db, problems):
    # query: figures through ad-hoc SQL, read-only, one-line server errors.
    s = run([a.pushlog, "--db", db, "query", "SELECT count(*) AS n FROM sends WHERE status IS NOT NULL", "--format", "json"])
    c = run([a.pushlog, "--clickhouse", ch, "query", "SELECT count() AS n FROM responses", "--format", "json"])
    if json.loads(s.stdout)["sections"]["result"] != json.loads(c.stdout)["sections"]["result"]:
        problems.append(f"query: responses {s.stdout.strip()} on SQLite, {c.stdout.strip()} on ClickHouse")
    w = subprocess.run([a.pushlog, "--clickhouse", ch, "query", "DROP TABLE records"], capture_output=True, text=True)
    if w.returncode != 1 or "readonly" not in w.stderr.lower() or len(w.stderr.strip().splitlines()) != 1:
        problems.append(f"query DROP TABLE: want exit 1 and one line naming readonly, got {w.returncode}: {w.stderr!r}")
    if not server.query("EXISTS TABLE records", chdb)[0][0]:
        problems.append("query DROP TABLE: the table is gone")
    e = subprocess.run([a.pushlog, "--clickhouse", ch, "query", "SELECT nosuch FROM responses"], capture_output=True, text=True)
    if e.returncode != 1 or "Code: 47" not in e.stderr or len(e.stderr.strip().splitlines()) != 1:
        problems.append(f"query with an unknown column: want exit 1 and the server's message on one line, got {e.returncode}: {e.stderr!r}")
    # A wrong password: the server's message, the password never shown.
    bad = server.url(chdb, password="wrong-pass")
    e = subprocess.run([a.pushlog, "--clickhouse", bad, "report", "gone"], capture_output=True, text=True)
    if server.proc and (e.returncode != 1 or "516" not in e.stderr or "wrong-pass" in e.stderr):
        problems.append(f"wrong password: want exit 1, code 516, password masked; got {e.returncode}: {e.stderr!r}")
    # An unreachable server: exit 1 naming the URL, password masked.
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    dead = f"http://{USER}:topsecret@127.0.0.1:{port}/pushlog"
    e = subprocess.run([a.pushlog, "--clickhouse", dead, "report", "gone"], capture_output=True, text=True)
    if e.returncode != 1 or "topsecret" in e.stderr or f"127.0.0.1:{port}" not in e.stderr:
        problems.append(f"unreachable server: want exit 1 naming the URL with the password masked; got {e.returncode}: {e.stderr!r}")
    # Usage errors stay usage errors (exit 2) on ClickHouse.
    e = subprocess.run([a.pushlog, "--clickhouse", ch, "report", "gone", "--unit", "user"], capture_output=True, text=True)
    if e.returncode != 2:
        problems.append(f"report gone --unit user: want exit 2 on ClickHouse, got {e.returncode}: {e.stderr!r}")
    # Why a report is empty, said on stderr as SQLite says it: a range outside the data, a topic
    # or env that never occurs (with --fail-if: not checked, exit 4).
    for args in (["gone", "--since", "2099-01-01"], ["errors", "--until", "1999-01-01"], ["silent", "--topic", "no.such.topic"],
                 ["opt-out", "--env", "nowhere"], ["gone", "--since", "2099-01-01", "--fail-if", "gone_rate > 0.01"]):
        on_sqlite = subprocess.run([a.pushlog, "--db", db, "report"] + args + ["--format", "json"], capture_output=True, text=True)
        on_ch = subprocess.run([a.pushlog, "--clickhouse", ch, "report"] + args + ["--format", "json"], capture_output=True, text=True)
        if (on_sqlite.returncode, on_sqlite.stderr) != (on_ch.returncode, on_ch.stderr) or not on_sqlite.stderr:
            problems.append(f"report {' '.join(args)}: SQLite exit {on_sqlite.returncode} {on_sqlite.stderr!r}, "
                            f"ClickHouse exit {on_ch.returncode} {on_ch.stderr!r}")
    # A database with no pushlog tables, or none at all: every command says in one line what to
    # run, as SQLite says it of a missing file; then, with the tables but no records, the weekly
    # page of zeros, exit 0 as on SQLite.
    server.query("CREATE DATABASE IF NOT EXISTS nopushlog")
    for database, said in (("nopushlog", "no pushlog tables"), ("nosuchdb", "no ClickHouse database 'nosuchdb'")):
        for args in (["report", "gone"], ["report", "weekly"], ["trace", "abc"], ["metrics"], ["sources"], ["rejects"],
                     ["schema"], ["query", "SELECT 1"]):
            e = subprocess.run([a.pushlog, "--clickhouse", server.url(database)] + args, capture_output=True, text=True)
            if e.returncode != 1 or said not in e.stderr or "ingest" not in e.stderr or len(e.stderr.strip().splitlines()) != 1:
                problems.append(f"{' '.join(args)} on database {database}: want exit 1 and one line saying to ingest; "
                                f"got {e.returncode}: {e.stderr!r}")
    empty_file = os.path.join(os.path.dirname(db), "nothing.ndjson")
    open(empty_file, "w").close()
    run([a.pushlog, "--clickhouse", server.url("emptypushlog"), "ingest", "--quiet", empty_file], ok=(0, 1))
    empty_db = os.path.join(os.path.dirname(db), "empty-sqlite.db")
    run([a.pushlog, "--db", empty_db, "ingest", "--quiet", empty_file], ok=(0, 1))
    on_sqlite = subprocess.run([a.pushlog, "--db", empty_db, "report", "weekly", "--format", "json"], capture_output=True, text=True)
    on_ch = subprocess.run([a.pushlog, "--clickhouse", server.url("emptypushlog"), "report", "weekly", "--format", "json"],
                           capture_output=True, text=True)
    if on_sqlite.returncode != 0 or on_ch.returncode != on_sqlite.returncode:
        problems.append(f"report weekly on an empty database: SQLite exit {on_sqlite.returncode}, ClickHouse exit {on_ch.returncode} "
                        f"{on_ch.stderr.strip()[:300]!r}")
    # The environment variable works as --clickhouse does.
    env = dict(os.environ, PUSHLOG_CLICKHOUSE=ch)
    c2 = run([a.pushlog, "query", "SELECT count() AS n FROM responses", "--format", "json"], env=env)
    if c2.stdout != c.stdout:
        problems.append("$PUSHLOG_CLICKHOUSE: query output differs from --clickhouse")


def killed_after(pushlog, ch, inputs, env, delay):
    """Starts a ClickHouse ingest of `inputs` and kills it with SIGKILL after `delay` seconds;
    1 if it was still running (killed), 0 if it had ended."""
    p = subprocess.Popen([pushlog, "--clickhouse", ch, "ingest", "--quiet"] + inputs, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    killed = p.poll() is None
    if killed:
        p.send_signal(signal.SIGKILL)
    p.wait()
    return int(killed)


def check_kill(a, server, tmp, inputs, problems):
    """kill -9 during a ClickHouse ingest, then a re-run: exact counts, no block twice."""
    chdb = "pushlog_check_kill"
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    ch = server.url(chdb)
    ref = os.path.join(tmp, "kill-ref.db")
    run([a.pushlog, "--db", ref, "ingest", "--quiet"] + inputs, ok=(0, 1))
    want = json.loads(run([a.pushlog, "--db", ref, "sources", "--format", "json"]).stdout)["sections"]["sources"]
    want_records, want_rejects = sum(r["records"] for r in want), sum(r["rejects"] for r in want)
    env = dict(os.environ, PUSHLOG_CLICKHOUSE_BATCH="37")
    # The schema first (an ingest of nothing creates it), then merges stopped: a batch inserted
    # twice would stay a second part, and the raw count would show it.
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", os.path.join(tmp, "empty.ndjson")], ok=(0, 1))
    server.query(f"SYSTEM STOP MERGES {chdb}.records")
    kills = sum(killed_after(a.pushlog, ch, inputs, env, delay) for delay in (0.4, 0.9, 1.7))
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet"] + inputs, env=env, ok=(0, 1))
    raw = int(server.query("SELECT count() FROM records", chdb)[0][0])
    final = int(server.query("SELECT count() FROM records FINAL", chdb)[0][0])
    rejects = int(server.query("SELECT count() FROM rejects", chdb)[0][0])
    done = server.query("SELECT countIf(complete = 0), count() FROM sources FINAL WHERE path NOT LIKE '%empty.ndjson'", chdb)[0]
    print(f"clickhouse-cli-check: kill -9: {kills} ingests killed, then a re-run: {raw} rows ({final} after FINAL), "
          f"{rejects} rejects; SQLite: {want_records} records, {want_rejects} rejects")
    if kills == 0:
        problems.append("kill -9: every ingest ended before the kill (no interruption tested)")
    if raw != want_records or final != want_records or rejects != want_rejects or int(done[0]) != 0:
        problems.append(f"kill -9 then re-run: {raw} raw rows, {final} after FINAL, {rejects} rejects, {done[0]} files incomplete; "
                        f"want {want_records} records and {want_rejects} rejects")
    for report in ("gone", "errors"):
        s = json.loads(run([a.pushlog, "--db", ref, "report", report, "--format", "json"]).stdout)
        c = json.loads(run([a.pushlog, "--clickhouse", ch, "report", report, "--format", "json"]).stdout)
        cc.compare(report, "after kill -9", s["sections"], c["sections"], problems)
    # A row the kept facts do not hold yet: the next report checks the facts while its sections
    # run, rebuilds them, and runs its sections again, so it counts the row.
    server.query("INSERT INTO records (kind, time_ms, line_hash, source, line, token, status, reason, category) "
                 "SELECT 'send', max(time_ms), '0123456789abcdef', 'by-hand', 1, 'ab' || repeat('0', 62), 410, 'Unregistered', 'token-gone' "
                 "FROM records WHERE kind = 'send'", chdb)
    before = json.loads(run([a.pushlog, "--db", ref, "report", "gone", "--format", "json"]).stdout)["sections"]["summary"][0]
    after = json.loads(run([a.pushlog, "--clickhouse", ch, "report", "gone", "--format", "json"]).stdout)["sections"]["summary"][0]
    if (after["responses"], after["gone"]) != (before["responses"] + 1, before["gone"] + 1):
        problems.append(f"report gone after a row added by hand: {after['responses']} responses, {after['gone']} gone; "
                        f"want {before['responses'] + 1} and {before['gone'] + 1} (facts read before they were rebuilt)")
    server.query(f"SYSTEM START MERGES {chdb}.records")


def check_listings(a, checked, problems, counts):
    """tokens, trace, metrics and rejects: each with its options on both engines, the output
    compared exactly (stdout, stderr and exit code; masked and revealed; error cases)."""
    import sqlite3
    for name, ch, chdb, db in checked:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        sql = lambda q: [r[0] for r in con.execute(q)]  # noqa: E731
        lo, hi = con.execute("SELECT min(time_ms), max(time_ms) FROM sends").fetchone()
        mid = (lo + hi) // 2 + 7 * 60000 + 123
        after = hi + 86400000
        cases = []
        kinds = ["--gone", "--superseded", "--bad", "--mismatched"]
        for kind in kinds + [" ".join(kinds)]:
            k = kind.split()
            cases += [["tokens"] + k + ["--format", "json"], ["tokens"] + k + ["--format", "json", "--reveal-tokens"],
                      ["tokens"] + k + ["--since", str(mid), "--format", "json", "--reveal-tokens"]]
        cases += [["tokens"] + kinds + ["--format", f] for f in ("tsv", "csv", "markdown", "html", "table", "ndjson")]
        cases += [["tokens", "--gone", "--bad", "--format", "lines", "--reveal-tokens"], ["tokens", "--gone", "--format", "lines"],
                  ["tokens", "--gone", "--since", str(after)], ["tokens"]]
        cases += [["metrics"], ["metrics", "--since", str(mid)], ["metrics", "--since", str(lo + 3600000), "--until", str(mid), "--budget", "1"],
                  ["metrics", "--since", str(after)]]
        files = sql("SELECT path FROM sources WHERE id IN (SELECT source_id FROM rejects) ORDER BY id")
        cases += [["rejects", "--format", "json"], ["rejects", "--limit", "0", "--format", "json"], ["rejects", "--limit", "2"],
                  ["rejects", "--source", "no-such-file.log"], ["rejects", "--format", "tsv", "--limit", "0"]]
        cases += [["rejects", "--source", f, "--format", "json"] for f in files[:2]]
        cases += [["rejects", "--source", os.path.basename(f), "--limit", "3"] for f in files[:2]]
        # trace: every kind of key, as people copy them from outputs and logs.
        keys = []
        for q in ("SELECT token FROM tokens WHERE id IN (SELECT token_id FROM token_facts WHERE first_410 IS NOT NULL) ORDER BY token LIMIT 2",
                  "SELECT token FROM tokens WHERE id IN (SELECT token_id FROM token_runs WHERE superseded_at IS NOT NULL) ORDER BY token LIMIT 2",
                  "SELECT token FROM tokens WHERE malformed = 1 OR length(token) < 32 ORDER BY token LIMIT 3",
                  "SELECT name FROM devices WHERE id IN (SELECT device_id FROM settings) ORDER BY name LIMIT 2",
                  "SELECT name FROM users ORDER BY name LIMIT 2",
                  "SELECT name FROM users WHERE id IN (SELECT user_id FROM registers WHERE device_id IS NULL) ORDER BY name LIMIT 1",
                  "SELECT lower(hex(apns_id)) FROM sends WHERE length(apns_id) = 16 AND kind = 2 AND status = 410 ORDER BY time_ms LIMIT 1",
                  "SELECT lower(hex(apns_id)) FROM receipts WHERE length(apns_id) = 16 ORDER BY time_ms LIMIT 1",
                  "SELECT apns_id FROM sends WHERE typeof(apns_id) = 'text' ORDER BY time_ms LIMIT 1"):
            keys += [k for k in sql(q) if k]
        full = []
        for k in keys:
            if len(k) == 32 and all(c in "0123456789abcdef" for c in k) and k in sql("SELECT lower(hex(apns_id)) FROM sends WHERE length(apns_id) = 16 UNION SELECT lower(hex(apns_id)) FROM receipts"):
                uuid = f"{k[:8]}-{k[8:12]}-{k[12:16]}-{k[16:20]}-{k[20:]}"
                full += [uuid, uuid.upper(), k[:8]]
            else:
                full.append(k)
        tokens = [k for k in keys if k in sql("SELECT token FROM tokens")]
        for t in tokens[:2]:
            full += [t[:10], t[:8] + "…" + t[-4:]]
        full += ["zz-no-such-key", "a", "0"]
        for k in full:
            cases += [["trace", k, "--format", "json"], ["trace", k, "--format", "json", "--reveal-tokens"]]
        cases += [["trace", full[0], "--format", f] for f in ("tsv", "markdown")] + [["trace"]]
        con.close()
        for args in cases:
            s = subprocess.run([a.pushlog, "--db", db] + args, capture_output=True, text=True)
            c = subprocess.run([a.pushlog, "--clickhouse", ch] + args, capture_output=True, text=True)
            where = f"{name} {' '.join(args)}"
            outs = [s.stdout, c.stdout]
            if args[0] == "metrics":  # the ages are relative to the moment each ran
                outs = ["".join(l for l in o.splitlines(True) if not l.startswith("pushlog_seconds_since_newest_record{")) for o in outs]
            if s.returncode != c.returncode or s.stderr != c.stderr:
                problems.append(f"{where}: exit {s.returncode} on SQLite, {c.returncode} on ClickHouse; stderr {s.stderr.strip()[:300]!r} / {c.stderr.strip()[:300]!r}")
            elif outs[0] != outs[1]:
                la, lb = outs[0].splitlines(), outs[1].splitlines()
                i = next((i for i in range(min(len(la), len(lb))) if la[i] != lb[i]), min(len(la), len(lb)))
                problems.append(f"{where}: output differs at line {i + 1} of {len(la)}/{len(lb)}: SQLite "
                                f"{(la[i] if i < len(la) else '<end>')[:300]!r}, ClickHouse {(lb[i] if i < len(lb) else '<end>')[:300]!r}")
            counts["listings"] += 1
    # report --watch: the first frame on both engines (its header line holds the time), and the
    # refusal of -o, with the same exit code.
    name, ch, chdb, db = checked[0]
    frames = []
    for engine in (["--db", db], ["--clickhouse", ch]):
        p = subprocess.Popen([a.pushlog] + engine + ["report", "gone", "--by", "week", "--format", "tsv", "--watch", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(4)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        blocks = out.split("\n# 20")
        frames.append((p.returncode, blocks[0].split("\n", 1)[-1], len(blocks), err))
    if frames[0][0] != 0 or frames[0][:2] != frames[1][:2] or frames[1][2] < 2 or frames[0][3] != frames[1][3]:
        problems.append(f"report --watch: SQLite exit {frames[0][0]}, {frames[0][2]} frames; ClickHouse exit {frames[1][0]}, "
                        f"{frames[1][2]} frames; first frames equal: {frames[0][1] == frames[1][1]}; stderr {frames[1][3][-300:]!r}")
    s_, c_ = (subprocess.run([a.pushlog] + e + ["report", "gone", "--watch", "-o", "x.csv"], capture_output=True, text=True)
              for e in (["--db", db], ["--clickhouse", ch]))
    if (s_.returncode, s_.stderr) != (c_.returncode, c_.stderr):
        problems.append(f"report --watch -o: SQLite exit {s_.returncode} {s_.stderr!r}, ClickHouse exit {c_.returncode} {c_.stderr!r}")
    counts["listings"] += 2


def check_direct_ingest(a, server, tmp, logs, fixtures, problems):
    """The ingest straight from the parser, under kill -9 at many points (small batches, so most
    kills land between a batch's insert and its progress row or inside an insert), a file that
    grew, gzip files, and rejected lines: the records (raw rows, merges stopped, and after FINAL),
    the `rejects` rows and each file's `sources` row equal what the SQLite ingest stores."""
    chdb = "pushlog_check_direct"
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    ch = server.url(chdb)
    work = os.path.join(tmp, "direct")
    os.makedirs(work, exist_ok=True)
    # A plain file that grows between two ingests (its first half, then the whole), of records
    # no other input holds.
    other = os.path.join(work, "other")
    run([a.pushlog, "--db", os.path.join(work, "gen.db"), "demo", other, "--no-report", "--devices", "40", "--weeks", "2",
         "--seed", "11"])
    day = sorted(os.listdir(os.path.join(other, "provider")))[-1]
    import gzip as gz
    lines = gz.open(os.path.join(other, "provider", day), "rt").read().splitlines(True)
    grown = os.path.join(work, "grown.ndjson")
    open(grown, "w").writelines(lines[: len(lines) // 2])
    rejecting = [f for f in fixtures if os.path.basename(f) in ("bad-lines.ndjson", "rejects-per-occurrence.ndjson")]
    inputs = [logs, grown] + fixtures
    ref = os.path.join(tmp, "direct-ref.db")
    run([a.pushlog, "--db", ref, "ingest", "--quiet"] + inputs, ok=(0, 1))
    env = dict(os.environ, PUSHLOG_CLICKHOUSE_BATCH="23")
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", os.path.join(tmp, "empty.ndjson")], ok=(0, 1))
    server.query(f"SYSTEM STOP MERGES {chdb}.records")
    kills, partial, announced = 0, 0, 0
    for delay in (0.15, 0.3, 0.5, 0.8, 1.1, 1.5, 2.0, 2.6):
        kills += killed_after(a.pushlog, ch, inputs, env, delay)
        # A file left half sent: the kill landed inside a file, between or during its batches.
        partial += int(server.query("SELECT count() FROM sources FINAL WHERE complete = 0 AND batches_done > 0", chdb)[0][0])
        # A block of several files' last rows announced and not settled: the kill landed between
        # its announcement and its members' final rows (the next run sends it again).
        announced += int(server.query("SELECT uniqExact(pending_block) FROM sources FINAL WHERE pending_block != ''", chdb)[0][0])
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet"] + inputs, env=env, ok=(0, 1))
    want = sum(r["records"] for r in json.loads(run([a.pushlog, "--db", ref, "sources", "--format", "json"]).stdout)["sections"]["sources"])
    raw = int(server.query("SELECT count() FROM records", chdb)[0][0])
    final = int(server.query("SELECT count() FROM records FINAL", chdb)[0][0])
    print(f"clickhouse-cli-check: direct ingest: {kills} kills ({partial} times a file was left half sent, {announced} times a "
          f"shared block announced and not settled), then a re-run: "
          f"{raw} rows ({final} after FINAL); SQLite {want}")
    if kills < 4 or partial == 0:
        problems.append(f"direct ingest: only {kills} kills, {partial} inside a file: the kills did not interrupt enough")
    if raw != want or final != want:
        problems.append(f"direct ingest after kill -9: {raw} raw rows, {final} after FINAL; want {want}")
    # The file grows; both engines read it again.
    open(grown, "w").writelines(lines)
    run([a.pushlog, "--db", ref, "ingest", "--quiet", grown])
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", grown], env=env)
    want = sum(r["records"] for r in json.loads(run([a.pushlog, "--db", ref, "sources", "--format", "json"]).stdout)["sections"]["sources"])
    raw = int(server.query("SELECT count() FROM records", chdb)[0][0])
    final = int(server.query("SELECT count() FROM records FINAL", chdb)[0][0])
    if final != want or raw != want:
        problems.append(f"direct ingest of a grown file (read on from where it ended): {raw} raw rows, {final} after FINAL, "
                        f"SQLite {want}")
    # Each file's sources row: what SQLite keeps of it.
    cols = ("format", "send", "request", "response", "register", "settings", "receipt", "unregister", "rejects", "skipped",
            "ignored", "lines", "complete", "error")
    sq = {r["path"]: r for r in json.loads(run([a.pushlog, "--db", ref, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    chs = {r["path"]: r for r in json.loads(run([a.pushlog, "--clickhouse", ch, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    for path, r in sq.items():
        c = chs.get(path)
        if r["format"] == "refused":
            continue
        if c is None:
            problems.append(f"direct ingest: {path} has no sources row on ClickHouse")
            continue
        for col in cols:
            if r.get(col) != c.get(col):
                problems.append(f"direct ingest sources {path} {col}: SQLite {r.get(col)!r}, ClickHouse {c.get(col)!r}")
    for path in (grown, rejecting[0] if rejecting else grown):
        s = json.loads(run([a.pushlog, "--db", ref, "query", "SELECT min(first_time_ms) AS lo, max(last_time_ms) AS hi FROM sources "
                            f"WHERE path = '{path}'", "--format", "json"]).stdout)["sections"]["result"][0]
        c = server.query(f"SELECT first_time_ms, last_time_ms FROM sources FINAL WHERE path = '{path}'", chdb)[0]
        if [s["lo"], s["hi"]] != [None if v is None else int(v) for v in c]:
            problems.append(f"direct ingest sources {path} time span: SQLite {s}, ClickHouse {c}")
    # Rejected lines: the same rows (file, line, reason, text, line hash) as SQLite's table.
    q = ("SELECT s.path AS source, j.line AS line, j.reason AS reason, j.text AS text, printf('%016x', j.line_hash) AS line_hash "
         "FROM rejects j JOIN sources s ON s.id = j.source_id ORDER BY 1, 2, 5")
    want_rejects = [tuple(r.values()) for r in json.loads(run([a.pushlog, "--db", ref, "query", q, "--format", "json",
                                                               "--reveal-tokens"]).stdout)["sections"]["result"]]
    got_rejects = [(r[0], int(r[1]), r[2], r[3], r[4]) for r in server.query(
        "SELECT source, line, reason, text, line_hash FROM rejects FINAL ORDER BY 1, 2, 5", chdb)]
    if want_rejects != got_rejects or not rejecting or not any(r[0] in rejecting for r in got_rejects):
        problems.append(f"direct ingest rejects: SQLite {len(want_rejects)} rows, ClickHouse {len(got_rejects)}; "
                        f"first difference {next((x for x in zip(want_rejects, got_rejects) if x[0] != x[1]), None)}")
    raw_rejects = int(server.query("SELECT count() FROM rejects", chdb)[0][0])
    if raw_rejects != len(want_rejects):
        problems.append(f"direct ingest rejects: {raw_rejects} raw rows for {len(want_rejects)} rejected lines (a block twice)")
    server.query(f"SYSTEM START MERGES {chdb}.records")



def faulted_ingest(a, server, ch, chdb, inputs, env, fault, reached):
    """Starts a ClickHouse ingest of `inputs` with the front's `fault` line in force; returns the
    process once the query `reached` counts a row (or the run ended, or a minute went by), and
    that count."""
    with open(server.fault_file, "w") as f:
        f.write(fault + "\n")
    p = subprocess.Popen([a.pushlog, "--clickhouse", ch, "ingest", "--quiet"] + inputs, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen, deadline = 0, time.time() + 60
    while not seen and p.poll() is None and time.time() < deadline:
        time.sleep(0.05)
        seen = int(server.query(reached, chdb)[0][0])
    return p, seen


def check_first_batch(a, server, tmp, inputs, problems):
    """A run killed after a read's first batch arrived and before its progress row (the front
    holds the answer to the first batch of a read from a file's start): the re-run finds those
    records stored from the same file and lines, and counts them as the file's records, not as
    duplicates. Each file's `sources` counts equal SQLite's."""
    if server.proc is None:
        print("clickhouse-cli-check: first batch: skipped on a real server (the fault is the front's)")
        return
    chdb = "pushlog_check_first_batch"
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    ch = server.url(chdb)
    ref = os.path.join(tmp, "first-ref.db")
    run([a.pushlog, "--db", ref, "ingest", "--quiet"] + inputs, ok=(0, 1))
    env = dict(os.environ, PUSHLOG_CLICKHOUSE_BATCH="31")
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", os.path.join(tmp, "empty.ndjson")], ok=(0, 1))
    p, stored = faulted_ingest(a, server, ch, chdb, inputs, env, "after 30 has::from:0:0:", "SELECT count() FROM records")
    time.sleep(0.3)
    p.send_signal(signal.SIGKILL)
    p.wait()
    os.remove(server.fault_file)
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet"] + inputs, env=env, ok=(0, 1))
    cols = ("send", "request", "response", "register", "settings", "receipt", "unregister", "duplicates", "rejects", "complete")
    sq = {r["path"]: r for r in json.loads(run([a.pushlog, "--db", ref, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    chs = {r["path"]: r for r in json.loads(run([a.pushlog, "--clickhouse", ch, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    wrong = [f"{path} {col}: SQLite {r.get(col)!r}, ClickHouse {chs.get(path, {}).get(col)!r}"
             for path, r in sq.items() if r["format"] != "refused" for col in cols if r.get(col) != chs.get(path, {}).get(col)]
    print(f"clickhouse-cli-check: a read's first batch in, its progress row not (run exit {p.returncode}, {stored} records "
          f"stored), then a re-run: {len(sq) - len({w.split()[0] for w in wrong})} of {len(sq)} files' counts as SQLite's")
    if not stored or p.returncode != -9:
        problems.append(f"first batch: the run was not killed with its first batch stored (exit {p.returncode}, {stored} rows)")
    problems.extend("first batch in, progress row not: sources " + w for w in wrong)
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")


def check_shared_blocks(a, server, tmp, inputs, problems):
    """A block of several files' last rows, stopped at each point between its announcement and
    its members' final rows, then a re-run: exact raw counts and complete sources rows. The front
    holds or drops the block's insert (--fault-file), so the kill lands there every time:
      - before: the run killed while the server has not yet run the insert; the re-run sends the
        block again at once, and the first insert, run later, is dropped;
      - after: the insert ran, the run killed before its final rows;
      - drop: the request lost on the way (the run fails); the re-run sends it;
      - after, with one of its files deleted before the re-run: the others are sent again (and
        dropped), the deleted one's rows stay in, its row stays incomplete.
    A file arrives before the re-run and is read first, so the re-run's own blocks hold other
    files than the stopped one's. Last, the announcement itself held: a run given one of the
    block's files reads it on, the announcement then lands, and the next run must still send
    the other members' rows."""
    if server.proc is None:
        print("clickhouse-cli-check: shared blocks: skipped on a real server (the faults are the front's)")
        return
    arrived = os.path.join(ROOT, "Tests", "Fixtures", "pinpoint.ndjson")
    ref = os.path.join(tmp, "shared-ref.db")
    run([a.pushlog, "--db", ref, "ingest", "--quiet", arrived] + inputs, ok=(0, 1))
    want = sum(r["records"] for r in json.loads(run([a.pushlog, "--db", ref, "sources", "--format", "json"]).stdout)["sections"]["sources"])
    env = dict(os.environ, PUSHLOG_CLICKHOUSE_BATCH="29")
    for mode in ("before", "after", "drop", "after-gone"):
        chdb = f"pushlog_check_shared_{mode.replace('-', '_')}"
        server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
        ch = server.url(chdb)
        run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", os.path.join(tmp, "empty.ndjson")], ok=(0, 1))
        server.query(f"SYSTEM STOP MERGES {chdb}.records")
        p, announced = faulted_ingest(a, server, ch, chdb, inputs, env, f"{mode.split('-')[0]} 4 shared:",
                                      "SELECT count() FROM sources FINAL WHERE pending_block != ''")
        if mode != "drop":
            time.sleep(0.3)  # the block's request reaches the front
            p.send_signal(signal.SIGKILL)
        p.wait()
        members = [r[0] for r in server.query("SELECT path FROM sources FINAL WHERE pending_block != '' ORDER BY path", chdb)]
        announced = len(members)
        os.remove(server.fault_file)
        gone = members[-1] if mode == "after-gone" and members else None
        aside = os.path.join(tmp, "aside")
        if gone:
            os.rename(gone, aside)
        try:
            run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", arrived] + inputs, env=env, ok=(0, 1))
        finally:
            if gone:
                os.rename(aside, gone)
        time.sleep(4.5)  # the held insert, if any, has run
        raw = int(server.query("SELECT count() FROM records", chdb)[0][0])
        final = int(server.query("SELECT count() FROM records FINAL", chdb)[0][0])
        left = server.query("SELECT countIf(complete = 0), countIf(pending_block != '') FROM sources FINAL "
                            "WHERE path NOT LIKE '%empty.ndjson'", chdb)[0]
        print(f"clickhouse-cli-check: shared block stopped {mode} its insert ({announced} files announced, run exit "
              f"{p.returncode}), then a re-run: {raw} rows ({final} after FINAL); SQLite {want}")
        if not announced:
            problems.append(f"shared block {mode}: no block was announced before the run ended (nothing tested)")
        if raw != want or final != want or int(left[0]) != (1 if gone else 0) or int(left[1]):
            problems.append(f"shared block stopped {mode} its insert, then a re-run: {raw} raw rows, {final} after FINAL, "
                            f"{left[0]} files incomplete, {left[1]} blocks unsettled; want {want}")
        server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    chdb = "pushlog_check_shared_announcement"
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    ch = server.url(chdb)
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", os.path.join(tmp, "empty.ndjson")], ok=(0, 1))
    server.query(f"SYSTEM STOP MERGES {chdb}.records")
    with open(server.fault_file, "w") as f:
        f.write("before 5 data:shared:\n")
    held = time.time()
    p = subprocess.Popen([a.pushlog, "--clickhouse", ch, "ingest", "--quiet"] + inputs, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The inserts go one after another: once `sources` stops growing, the queue waits on the
    # held announcement.
    seen, still = -1, 0
    while still < 10 and p.poll() is None and time.time() < held + 60:
        time.sleep(0.1)
        n = int(server.query("SELECT count() FROM sources", chdb)[0][0])
        seen, still = n, (still + 1 if n == seen else 0)
    held = time.time()
    p.send_signal(signal.SIGKILL)
    p.wait()
    os.remove(server.fault_file)
    first = min(os.path.join(d, n) for d, _, names in os.walk(inputs[0]) for n in names)
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", first], env=env, ok=(0, 1))
    time.sleep(max(0.0, held + 6.0 - time.time()))  # the held announcement has landed
    named = int(server.query("SELECT count() FROM sources FINAL WHERE pending_block != ''", chdb)[0][0])
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", arrived] + inputs, env=env, ok=(0, 1))
    raw = int(server.query("SELECT count() FROM records", chdb)[0][0])
    final = int(server.query("SELECT count() FROM records FINAL", chdb)[0][0])
    print(f"clickhouse-cli-check: shared block whose announcement was held: {named} members still named it after a run read "
          f"another, then a re-run: {raw} rows ({final} after FINAL); SQLite {want}")
    if not named:
        problems.append("shared block announcement held: no member named the block when the re-run started (nothing tested)")
    if raw != want or final != want:
        problems.append(f"shared block announcement held, then a re-run: {raw} raw rows, {final} after FINAL; want {want}")
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")


def check_follow(a, server, tmp, problems):
    """`ingest --follow` into ClickHouse: a plain file growing line by line and a gzip file
    arriving, the follow killed with kill -9 half-way and started again, then stopped: raw rows
    (merges stopped) and rows after FINAL equal an ingest of the final files into SQLite, and so
    do the files' sources rows."""
    chdb = "pushlog_check_follow"
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    ch = server.url(chdb)
    work = os.path.join(tmp, "follow")
    live_dir = os.path.join(work, "live")
    os.makedirs(live_dir, exist_ok=True)
    other = os.path.join(work, "other")
    run([a.pushlog, "--db", os.path.join(work, "gen.db"), "demo", other, "--no-report", "--devices", "40", "--weeks", "2",
         "--seed", "23"])
    import gzip as gz
    days = sorted(os.listdir(os.path.join(other, "provider")))
    lines = gz.open(os.path.join(other, "provider", days[-1]), "rt").read().splitlines(True)
    live = os.path.join(live_dir, "sends.ndjson")
    open(live, "w").writelines(lines[: len(lines) // 4])
    run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", os.path.join(tmp, "empty.ndjson")], ok=(0, 1))
    server.query(f"SYSTEM STOP MERGES {chdb}.records")
    env = dict(os.environ, PUSHLOG_CLICKHOUSE_BATCH="17")
    cmd = [a.pushlog, "--clickhouse", ch, "ingest", "--follow", "--interval", "0.2", "--quiet", live_dir]

    def grow(upto, steps, pause):
        start = sum(1 for _ in open(live))
        for i in range(1, steps + 1):
            with open(live, "a") as f:
                f.writelines(lines[start + (upto - start) * (i - 1) // steps: start + (upto - start) * i // steps])
            time.sleep(pause)

    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    grow(len(lines) * 2 // 3, 12, 0.15)
    p.send_signal(signal.SIGKILL)
    p.wait()
    grow(len(lines) * 3 // 4, 3, 0.05)  # written while nothing follows
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    grow(len(lines), 8, 0.15)
    shutil.copy(os.path.join(other, "app", sorted(os.listdir(os.path.join(other, "app")))[-1]), os.path.join(live_dir, "events.ndjson.gz"))
    ref = os.path.join(work, "ref.db")
    run([a.pushlog, "--db", ref, "ingest", "--quiet", live_dir])
    sq = {r["path"]: r for r in json.loads(run([a.pushlog, "--db", ref, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    want = sum(r["records"] for r in sq.values())
    final = 0
    for _ in range(150):  # the gzip file is read once it stopped changing for a round
        final = int(server.query("SELECT count() FROM records FINAL", chdb)[0][0])
        if final >= want:
            break
        time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    if p.wait(60) != 0:
        problems.append(f"ingest --follow stopped by SIGTERM: exit {p.returncode}")
    raw = int(server.query("SELECT count() FROM records", chdb)[0][0])
    final = int(server.query("SELECT count() FROM records FINAL", chdb)[0][0])
    print(f"clickhouse-cli-check: ingest --follow, killed and started again: {raw} rows ({final} after FINAL); SQLite {want}")
    if raw != want or final != want:
        problems.append(f"ingest --follow killed and restarted: {raw} raw rows, {final} after FINAL; want {want}")
    chs = {r["path"]: r for r in json.loads(run([a.pushlog, "--clickhouse", ch, "sources", "--format", "json"]).stdout)["sections"]["sources"]}
    for path, r in sq.items():
        for col in ("records", "send", "response", "register", "settings", "receipt", "rejects", "lines", "complete"):
            if r.get(col) != (chs.get(path) or {}).get(col):
                problems.append(f"ingest --follow sources {path} {col}: SQLite {r.get(col)!r}, ClickHouse {(chs.get(path) or {}).get(col)!r}")
    server.query(f"SYSTEM START MERGES {chdb}.records")


def check_refused(a, server, tmp, problems):
    """A file that is not a log, in a folder and named: what each run says and its exit code are
    SQLite's (a refusal is said once while the file is unchanged, and again after it changes; a
    named one is a problem, exit 1, every time), run after run, so cron's mail is the same."""
    chdb = "pushlog_check_refused"
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    work = os.path.join(tmp, "refused")
    os.makedirs(work, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "Tests", "Fixtures", "canonical.ndjson"), work)
    junk = os.path.join(work, "notes.log")
    open(junk, "w").write("meeting notes\nnot a log line\n")
    sqlite = ["--db", os.path.join(tmp, "refused.db")]
    steps = [("folder", [work]), ("folder again", [work]), ("named", [junk]), ("named again", [junk]), ("changed", None),
             ("folder after the change", [work]), ("folder unchanged", [work])]
    for name, paths in steps:
        if paths is None:
            open(junk, "a").write("more notes\n")
            continue
        got = []
        for store in (sqlite, ["--clickhouse", server.url(chdb)]):
            r = subprocess.run([a.pushlog] + store + ["ingest", "--quiet"] + paths, capture_output=True, text=True)
            got.append((r.returncode, r.stderr))
        if got[0] != got[1]:
            problems.append(f"refused file, {name}: SQLite {got[0]!r}, ClickHouse {got[1]!r}")
    print("clickhouse-cli-check: a file that is not a log, in a folder and named, changed: the same lines and exit codes run after run")


def on_terminal(cmd, stdout_too=True):
    """Runs `cmd` with stderr (and stdout, unless `stdout_too` is false: then a pipe) on a new
    pseudo-terminal, as in an operator's shell; its exit code, what the terminal showed, stdout."""
    import pty, threading
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave if stdout_too else subprocess.PIPE, stderr=slave,
                         env=dict(os.environ, TERM="xterm"))
    os.close(slave)
    shown = bytearray()

    def drain():
        while True:
            try:
                b = os.read(master, 65536)
            except OSError:  # EIO: every end of the terminal is closed
                return
            if not b:
                return
            shown.extend(b)

    t = threading.Thread(target=drain)
    t.start()
    out = p.stdout.read().decode() if p.stdout else ""
    code = p.wait(600)
    t.join(60)
    os.close(master)
    return code, shown.decode(errors="replace"), out


def check_terminal(a, server, tmp, logs, problems):
    """What a terminal shows of the ClickHouse ingest and of a rebuild of the kept facts: the
    progress line then its rebuild phase, the notice a report prints before it rebuilds, and
    nothing of either off a terminal (cron) or with --quiet."""
    chdb = "pushlog_check_terminal"
    server.query(f"DROP DATABASE IF EXISTS {chdb} SYNC")
    ch = server.url(chdb)
    notice = "rebuilding the kept facts from the records (the whole history)"
    code, shown, _ = on_terminal([a.pushlog, "--clickhouse", ch, "ingest", logs])
    if code != 0 or "\r\x1b[Kingest: " not in shown or f"records read; {notice}" not in shown or "total: " not in shown:
        problems.append(f"ingest on a terminal: exit {code}, no progress line with its rebuild phase or no total: {shown[-600:]!r}")
    stale = f"TRUNCATE TABLE {chdb}.kept_state"
    server.query(stale)
    code, shown, _ = on_terminal([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", logs])
    if code != 0 or shown.strip():
        problems.append(f"ingest --quiet on a terminal, facts out of date: exit {code}, showed {shown[-600:]!r} (want nothing)")
    server.query(stale)
    report = [a.pushlog, "--clickhouse", ch, "report", "gone", "--format", "json"]
    code, shown, there = on_terminal(report, stdout_too=False)
    if code != 0 or notice not in shown:
        problems.append(f"report, facts out of date, stderr on a terminal: exit {code}, stderr {shown[-600:]!r} (want the notice)")
    code, shown, again = on_terminal(report, stdout_too=False)
    if code != 0 or shown.strip():
        problems.append(f"report, facts fresh, stderr on a terminal: exit {code}, stderr {shown[-600:]!r} (want nothing)")
    server.query(stale)
    r = subprocess.run(report, capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        problems.append(f"report, facts out of date, no terminal: exit {r.returncode}, stderr {r.stderr[-600:]!r} (want nothing)")
    if not (there == again == r.stdout) or not there.startswith("{"):
        problems.append("report gone: the JSON differs between a run that rebuilt the facts and one that did not")
    print("clickhouse-cli-check: on a terminal: the ingest's progress line and rebuild phase, the report's rebuild notice; "
          "off a terminal and with --quiet nothing")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pushlog", default=os.path.join(ROOT, ".build", "debug", "pushlog"))
    ap.add_argument("--devices", type=int, default=150)
    ap.add_argument("--weeks", type=int, default=3)
    ap.add_argument("--only", help="comma-separated reports")
    ap.add_argument("--self-test", action="store_true", help="alter one figure; succeed only if the check catches it")
    a = ap.parse_args()
    try:
        import chdb  # noqa: F401
    except ImportError:
        if not os.environ.get("PUSHLOG_TEST_CLICKHOUSE"):
            print("clickhouse-cli-check: SKIPPED: python3 has no chdb (pip install chdb) and $PUSHLOG_TEST_CLICKHOUSE names no server")
            return 0
    with tempfile.TemporaryDirectory(prefix="pushlog-chcli-") as tmp:
        open(os.path.join(tmp, "empty.ndjson"), "w").close()
        server = Server(tmp)
        try:
            logs = os.path.join(tmp, "logs")
            run([a.pushlog, "--db", os.path.join(tmp, "gen.db"), "demo", logs, "--no-report", "--devices", str(a.devices), "--weeks", str(a.weeks)])
            fixtures = [os.path.join(ROOT, "Tests", "Fixtures", f) for f in
                        ("canonical.ndjson", "reports.ndjson", "trust.ndjson", "hygiene.ndjson", "tokens.ndjson", "export.ndjson",
                         "bad-lines.ndjson", "rejects-per-occurrence.ndjson", "gorush.log", "sns.ndjson", "apple-metrics.csv",
                         "rpush.log", "rpush-field.log", "parse-server.log")]
            fixtures = [f for f in fixtures if os.path.exists(f)]
            problems, counts = [], {"rows": 0, "runs": 0, "sources": 0, "masked": 0, "listings": 0}
            corpora = [("demo", [logs]), ("fixtures", fixtures)]
            if a.self_test:
                corpora = corpora[:1]
            ch = chdb_name = db = None
            checked = []
            for name, inputs in corpora:
                got = check_corpus(a, server, tmp, name, inputs, problems, counts)
                checked.append((name,) + got)
                if name == "demo":
                    ch, chdb_name, db = got
            if not a.self_test:
                check_commands(a, server, ch, chdb_name, db, problems)
                check_kill(a, server, tmp, [logs] + fixtures, problems)
                check_direct_ingest(a, server, tmp, logs, fixtures, problems)
                check_first_batch(a, server, tmp, [logs] + fixtures, problems)
                check_shared_blocks(a, server, tmp, [logs] + fixtures, problems)
                check_follow(a, server, tmp, problems)
                check_terminal(a, server, tmp, logs, problems)
                check_refused(a, server, tmp, problems)
                check_listings(a, checked, problems, counts)
        finally:
            server.stop()
    for p in problems:
        print("clickhouse-cli-check: " + p, file=sys.stderr)
    if problems:
        print(f"clickhouse-cli-check: {len(problems)} differences", file=sys.stderr)
        return 1
    print(f"clickhouse-cli-check: `pushlog --clickhouse` agrees with SQLite: {counts['rows']} rows in {counts['runs']} report runs, "
          f"{counts['sources']} files' sources, {counts['masked']} irregular tokens masked, query/errors/readonly, kill -9 resume, the direct ingest under kill -9, --follow, "
          f"{counts['listings']} runs of tokens/trace/metrics/rejects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
