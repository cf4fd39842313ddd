#!/usr/bin/env python3
"""Checks that Queries/clickhouse/*.sql give pushlog's figures.

Writes the demo corpus (pushlog demo), exports it with `pushlog export` (twice, so the load must
dedupe), loads it into an in-process ClickHouse (chdb) with Queries/clickhouse/schema.sql, runs
every section of every ClickHouse report with the same parameters as `pushlog report NAME
--format json --reveal-tokens`, and compares every figure: equal, rates within 1e-9. Ranges: all
data, and ranges that cut through days. A difference names the report, section, row and column;
the exit status is 1 when there is any. --self-test alters one figure and expects the comparison
to catch it.
"""
import argparse, json, math, os, random, re, sqlite3, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERIES = os.path.join(ROOT, "Queries", "clickhouse")


def clickhouse_reports(catalog):
    """The catalog's reports that have a ClickHouse version (Queries/clickhouse/NAME.sql): those
    compared here. Found from the folder, so a new one is compared without being listed."""
    return [r for r in catalog if os.path.exists(os.path.join(QUERIES, r + ".sql"))]
OPEN_SINCE, OPEN_UNTIL = "1900-01-01 00:00:00.000", "2299-12-31 23:59:59.999"


def statements(sql):
    """The statements of a file, comments dropped (schema.sql)."""
    body = re.sub(r"--[^\n]*", "", sql)
    return [s.strip() for s in re.split(r";\s*(?:\n|$)", body) if s.strip()]


def sections(path):
    """(name, statement) for each `-- section: NAME` of a report file, the `-- common:` block put
    in front of each section's own WITH, as pushlog does (ReportDefinition.merge)."""
    out, name, lines, common, in_common = [], None, [], [], False
    for line in open(path, encoding="utf-8"):
        m = re.match(r"--\s*section:\s*(\S+)", line)
        if m:
            in_common = False
            if name:
                out.append((name, "".join(lines)))
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
        elif line.startswith("-- common:"):
            in_common = True
        elif in_common and not line.strip().startswith("--"):
            common.append(line)
    if name:
        out.append((name, "".join(lines)))
    shared = "".join(common).strip()
    merged = []
    for n, s in out:
        s = re.sub(r";\s*$", "", s.strip())
        if shared:
            body = s.split("\n")
            i = next(i for i, l in enumerate(body) if not l.strip().startswith("--"))
            if body[i].upper().startswith("WITH "):
                body[i] = shared + ",\n" + body[i][5:]
                s = "WITH " + "\n".join(body)
            else:
                s = "WITH " + shared + "\n" + s
        merged.append((n, s))
    return merged


def header_params(path):
    """{param: default} from the `-- param:` lines (`NAME TYPE [= DEFAULT]`, or `NAME[=DEFAULT]`)."""
    out = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"--\s*param:\s*(\w+)(?:=(\S+)|[ ](?:time|week|int|text|enum\([^)]*\))(?:\s*=\s*(\S+))?)?", line)
        if m:
            out[m.group(1)] = m.group(2) or m.group(3) or ""
    return out


def by_values(report):
    """Every `--by` value pushlog's report takes (its `-- param: by enum(...)` line), default first."""
    for line in open(os.path.join(ROOT, "Queries", report + ".sql"), encoding="utf-8"):
        m = re.match(r"--\s*param:\s*by\s+enum\(([^)]*)\)(?:\s*=\s*(\S+))?", line)
        if m:
            values = m.group(1).split(",")
            return sorted(values, key=lambda v: v != m.group(2))
    return []


# --rule values the hygiene checks are run with (one of each kind: per response, per retry, per token).
RULES = ["missing_push_type", "non_retryable_retried", "malformed_token", "background_priority_10"]


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"clickhouse-check: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


class ClickHouse:
    def __init__(self, rows_files):
        from chdb import session
        self.s = session.Session()
        # One engine per process: start from an empty database for each corpus.
        self.s.query("DROP DATABASE IF EXISTS pushlog SYNC")
        for st in statements(open(os.path.join(QUERIES, "schema.sql"), encoding="utf-8").read()):
            self.s.query(st)
        for f in rows_files:
            self.s.query(f"INSERT INTO pushlog.records FROM INFILE '{f}' FORMAT JSONEachRow")
        # The facts the reports read, rebuilt from the records as a load by hand does it.
        for st in statements(open(os.path.join(QUERIES, "facts.sql"), encoding="utf-8").read()):
            self.s.query(st)

    def rows(self, sql, params):
        sql += "\nSETTINGS output_format_json_quote_64bit_integers = 0, output_format_json_quote_denormals = 1"
        res = self.s.query(sql, "JSON", params=params)
        text = res.bytes().decode() if hasattr(res, "bytes") else str(res)
        return json.loads(text)["data"] if text.strip() else []

    def scalar(self, sql, params=None):
        res = self.s.query(sql + " FORMAT JSONCompact SETTINGS output_format_json_quote_64bit_integers = 0", params=params or {})
        return json.loads(str(res))["data"][0][0]


def close(a, b, column):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-9)
    return a == b


def canonical(row):
    return json.dumps({k: (round(v, 9) if isinstance(v, float) else v) for k, v in row.items()}, sort_keys=True)


# The ORDER BY columns of sections whose rows can tie on them (SQL leaves the order of tied rows
# open in both engines). Such rows may come in another order; the sort columns must still read
# the same, row by row. Every other section must match row by row.
SORT_KEYS = {
    ("errors", "summary"): ["responses"],
    ("errors", "by_bucket"): ["bucket", "responses"],
    ("env-mismatch", "by_pair"): ["responses"],
    ("env-mismatch", "by_app_version"): ["bad_device_token", "responses"],
    ("weekly", "top_reasons"): ["responses"],
    ("weekly", "worst_app_versions"): ["error_rate", "responses"],
}


def same_rows(report, name, a, b):
    """Equal row by row, or equal as multisets with the sort columns equal row by row."""
    if len(a) != len(b):
        return False
    if all(set(x) == set(y) and all(close(x[k], y[k], k) for k in x) for x, y in zip(a, b)):
        return True
    keys = SORT_KEYS.get((report, name))
    if not keys or not all(all(close(x.get(k), y.get(k), k) for k in keys) for x, y in zip(a, b)):
        return False
    return sorted(map(canonical, a)) == sorted(map(canonical, b))


def unobservable(doc):
    """The figures pushlog's notes call not observable (the records lack what they need): pushlog
    empties them, above the engine, so the ClickHouse SQL's own figure there is not compared."""
    names = set()
    for note in doc.get("notes", []):
        m = re.search(r"not observable: ([^()]+) \(", note)
        if m:
            names.update(n.strip() for n in m.group(1).split(","))
    return names


def filled(report):
    """The sections of a KPI page's `-- fill:` lines (Queries/REPORT.sql): pushlog shows their days
    before the data's first record and after its last as gaps, above the engine."""
    path = os.path.join(ROOT, "Queries", report + ".sql")
    if not os.path.exists(path):
        return set()
    return {l.split()[2].split(".")[0] for l in open(path, encoding="utf-8") if l.startswith("-- fill:")}


def compare(report, label, want, got, problems, hidden=frozenset()):
    gaps = filled(report)
    for name, rows in want.items():
        if name not in got:
            problems.append(f"{report} [{label}] section {name}: missing in ClickHouse")
            continue
        have = got[name]
        if same_rows(report, name, rows, have):
            continue  # equal, or equal but for the order of rows that tie on the ORDER BY
        if len(rows) != len(have):
            problems.append(f"{report} [{label}] {name}: {len(rows)} rows in pushlog, {len(have)} in ClickHouse")
        for i, (w, h) in enumerate(zip(rows, have)):
            key = next(iter(w.values()), None)
            if name in gaps and all(v is None for v in list(w.values())[1:]):
                continue  # a day outside the data: a gap, whatever the SQL counted there
            for col, v in w.items():
                if v is None and (col in hidden or (w.get("metric") in hidden and col in ("this_week", "last_week", "change"))):
                    continue
                if col not in h:
                    problems.append(f"{report} [{label}] {name} row {i + 1} ({key}): column {col} missing in ClickHouse")
                elif not close(v, h[col], col):
                    problems.append(f"{report} [{label}] {name} row {i + 1} ({key}) column {col}: pushlog {v!r}, ClickHouse {h[col]!r}")
            for col in h:
                if col not in w:
                    problems.append(f"{report} [{label}] {name}: column {col} only in ClickHouse")
    for name in got:
        if name not in want:
            problems.append(f"{report} [{label}] section {name}: only in ClickHouse")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pushlog", default=os.path.join(ROOT, ".build", "debug", "pushlog"))
    ap.add_argument("--devices", type=int, default=150)
    ap.add_argument("--weeks", type=int, default=3)
    ap.add_argument("--self-test", action="store_true", help="alter one figure; succeed only if the check catches it")
    ap.add_argument("--only", help="comma-separated reports")
    a = ap.parse_args()
    catalog = [r["name"] for r in json.loads(run([a.pushlog, "reports", "--format", "json"]))["sections"]["reports"]]
    reports = a.only.split(",") if a.only else clickhouse_reports(catalog)
    for r in sorted(set(catalog) - set(clickhouse_reports(catalog))):
        print(f"clickhouse-check: note: report {r} is written once (no Queries/clickhouse/{r}.sql): ClickHouse runs its one text, "
              "compared through pushlog by clickhouse_cli_check.py and SharedReportTests")
    with tempfile.TemporaryDirectory(prefix="pushlog-ch-") as tmp:
        db, logs = os.path.join(tmp, "demo.db"), os.path.join(tmp, "logs")
        run([a.pushlog, "--db", db, "demo", logs, "--no-report", "--devices", str(a.devices), "--weeks", str(a.weeks)])
        # Edge cases the demo lacks (split request/response, transport errors, malformed tokens).
        # In path order: rows loaded from an export have no `sources` rows saying which file pushlog
        # read first, so ClickHouse takes (source path, line) as the order records were stored in.
        fixtures = [os.path.join(ROOT, "Tests", "Fixtures", f) for f in sorted(("canonical.ndjson", "reports.ndjson", "trust.ndjson", "hygiene.ndjson", "tokens.ndjson", "export.ndjson"))]
        fixtures = [f for f in fixtures if os.path.exists(f)]
        extra = os.path.join(tmp, "fixtures.db")
        if fixtures:
            run([a.pushlog, "--db", extra, "ingest", "--quiet"] + fixtures)
        corpora = [("demo", db, [logs])] + ([("fixtures", extra, fixtures)] if fixtures else [])
        # Logs that lack headers, payloads and ids: the hygiene rules are 'not observable' there.
        bare = os.path.join(ROOT, "Tests", "Fixtures", "hygiene-bare.ndjson")
        if os.path.exists(bare):
            run([a.pushlog, "--db", os.path.join(tmp, "bare.db"), "ingest", "--quiet", bare])
            corpora.append(("bare", os.path.join(tmp, "bare.db"), [bare]))
        problems, checked, runs = [], 0, 0
        for corpus, dbpath, inputs in corpora:
            rows = os.path.join(tmp, corpus + ".ndjson")
            with open(rows, "w") as out:
                subprocess.run([a.pushlog, "export", "--quiet"] + inputs, stdout=out, check=True)
            ch = ClickHouse([rows, rows])  # loaded twice: the figures must not change
            lo, hi = ch.scalar("SELECT min(time_ms) FROM pushlog.events"), ch.scalar("SELECT max(time_ms) FROM pushlog.events")
            # All data; then ranges that start and end inside a day and inside an hour (fractions of
            # the corpus' span, plus odd minutes and milliseconds).
            span = hi - lo
            ranges = [(None, None), (lo + span * 15 // 100 + 27 * 60000 + 123, hi - span * 15 // 100 - 11 * 60000),
                      (lo + span * 30 // 100 + 7 * 60000, lo + span * 70 // 100 + 45 * 60000 + 1)]
            ranges = [r for r in ranges if r[0] is None or r[0] < r[1]]  # a corpus of an hour has no room for some
            for report in reports:
                path = os.path.join(QUERIES, report + ".sql")
                if not os.path.exists(path):
                    problems.append(f"{report}: {path} is missing")
                    continue
                declared = header_params(path)
                topic = ch.scalar("SELECT coalesce((SELECT topic FROM pushlog.responses WHERE topic IS NOT NULL "
                                  "GROUP BY topic ORDER BY count() DESC, topic LIMIT 1), '')")
                # Each range with the report's defaults, then each option it takes with another value.
                cases = [(since, until, {}) for since, until in ranges]
                # Every --by value but the default (the cases above run that one).
                extra = {"by": [v for v in by_values(report) if v != declared.get("by")],
                         "topic": [topic] if topic else [], "env": ["sandbox", "production"],
                         "unit": ["user"], "budget": ["1"], "rule": RULES}
                for k, values in extra.items():
                    if k in declared:
                        cases += [(ranges[-1][0], ranges[-1][1], {k: v}) for v in values]
                if report == "weekly":
                    cases = [(w, None, o) for w in (1, 2) for o in [{}] + [c[2] for c in cases if c[2]]]
                if report == "explain":
                    # All data last: explain answers it with no figures, which --self-test needs.
                    cases = explain_cases(ch, corpus, ranges[1:]) + [(None, None, {})]
                for since, until, options in cases:
                    args, params = [], {}
                    if report == "weekly":
                        # The last complete week, then the one before.
                        start = ch.scalar(f"SELECT pushlog_bucket_start({hi}, 'week') - {since} * 604800000")
                        week = ch.scalar(f"SELECT pushlog_iso_week({start})")
                        args, label = ["--week", week], week
                        # The page's own sections run on the week's bounds, as the page runs them.
                        params["since"], params["until"] = ms_text(start), ms_text(start + 604800000)
                    else:
                        if since is not None:
                            args += ["--since", str(since), "--until", str(until)]
                        params["since"] = ms_text(since) if since is not None else OPEN_SINCE
                        params["until"] = ms_text(until) if until is not None else OPEN_UNTIL
                        label = "all data" if since is None else f"{ms_text(since)} .. {ms_text(until)}"
                    for k, v in declared.items():
                        if k in ("topic", "env"):
                            params[k] = ""
                        elif k not in params and k in ("by", "budget", "unit", "rule", "metric", "baseline"):
                            params[k] = v
                    if report == "explain":
                        params["limit"] = "10"  # pushlog's default for every report
                    for k, v in options.items():
                        args += ["--" + k, v]
                        params[k] = v
                        label += f" --{k} {v}"
                    doc = json.loads(run([a.pushlog, "--db", dbpath, "report", report, "--format", "json", "--reveal-tokens"] + args))
                    want, hidden = doc["sections"], unobservable(doc)
                    got = {}
                    for name, sql in sections(path):
                        if name == "by_bucket" and params.get("by") == "":
                            continue  # a report whose by_bucket needs --by (env-mismatch, silent) prints none without it
                        try:
                            got[name] = ch.rows(sql, params)
                        except Exception as e:  # a ClickHouse error is a failed check, with its message
                            problems.append(f"{report} [{corpus} {label}] {name}: ClickHouse error: {str(e).splitlines()[0][:400]}")
                    if report == "weekly":
                        # The page's KPIs, -- weeks: and -- trend: sections are its reports' rows, each
                        # compared above as that report; its sections that only feed the KPIs are
                        # compared through the page (clickhouse_cli_check.py, after a real ingest).
                        want = {k: v for k, v in want.items() if k in got}
                        got = {k: v for k, v in got.items() if k in want}
                    if a.self_test:
                        # The same comparison must pass as it is and fail with one figure changed.
                        clean, altered = [], []
                        compare(report, f"{corpus} {label}", want, got, clean)
                        alter(got)
                        compare(report, f"{corpus} {label}", want, got, altered)
                        ok = not clean and altered
                        print(f"clickhouse-check --self-test: {report} [{corpus} {label}]: "
                              + (f"the altered figure was caught: {altered[0]}" if ok else f"FAILED (clean: {clean[:3]}, altered: {altered[:3]})"))
                        return 0 if ok else 1
                    compare(report, f"{corpus} {label}", want, got, problems, hidden)
                    checked += sum(len(r) for r in want.values())
                    runs += 1
        rounding_problems, rounded = rounding(ch)
        problems += rounding_problems
        for p in problems:
            print("clickhouse-check: " + p, file=sys.stderr)
        if problems:
            print(f"clickhouse-check: {len(problems)} differences", file=sys.stderr)
            return 1
        print(f"clickhouse-check: {checked} rows agree ({len(reports)} reports, {runs} runs with their options, {len(corpora)} corpora); "
              f"pushlog_round equals SQLite's round() on {rounded} values")
        return 0


# What explain compares, and against what (its --metric and --baseline values).
EXPLAIN_METRICS = ["errors", "gone", "volume", "throttled", "latency"]
EXPLAIN_BASELINES = ["previous", "week"]
EXPLAIN_MAX_MS = 92 * 86400000


def explain_cases(ch, corpus, ranges):
    """explain's windows, each with every metric and baseline: the hour `pushlog explain --at`
    gives around the demo's incident (other corpora: their busiest hour), two hours across its
    start, and the ranges cut to the 92 days explain answers (longer than a week, so the week
    before overlaps the window)."""
    hour = 3600000
    if corpus == "demo":
        # The demo plants it on the Tuesday of the last whole week, from 14:10 (DemoGenerator).
        last_week = ch.scalar("SELECT pushlog_bucket_start(max(time_ms), 'week') - 604800000 FROM pushlog.events")
        start = last_week + 86400000 + 14 * hour
    else:
        start = ch.scalar("SELECT intDiv(time_ms, 3600000) * 3600000 AS h FROM pushlog.responses GROUP BY h "
                          "ORDER BY count() DESC, h LIMIT 1")
    windows = [(start, start + hour), (start - hour // 2, start + 3 * hour // 2)]
    windows += [(since, min(until, since + EXPLAIN_MAX_MS)) for since, until in ranges]
    return [(since, until, {"metric": m, "baseline": b}) for since, until in windows
            for m in EXPLAIN_METRICS for b in EXPLAIN_BASELINES]


def rounding(ch):
    """pushlog_round against SQLite's round() on numbers shaped as the reports compute them:
    averages and medians of milliseconds in seconds, rates, shares; computed, so many sit a few
    units in the last place below a half (92.83449999999999). Returns (problems, values checked)."""
    rnd = random.Random(7)
    values = []
    for _ in range(4000):
        a, b = rnd.randint(0, 10**6), rnd.randint(0, 10**6)
        values += [(a / 1000 + b / 1000) / 2, a / 1000 * 0.1 + b / 7000, sum(rnd.randint(0, 999) / 1000 for _ in range(7)) / 7,
                   rnd.randint(0, 10**6) / rnd.randint(1, 10**6), -a / 2000, rnd.random() * 10 ** rnd.randint(-8, 9)]
    db = sqlite3.connect(":memory:")
    problems = []
    for n in (0, 1, 2, 3, 6):
        want = [db.execute("SELECT round(?, ?)", (v, n)).fetchone()[0] for v in values]
        got = ch.scalar(f"SELECT groupArray(pushlog_round(x, {n})) FROM (SELECT arrayJoin({{v:Array(Float64)}}) AS x)",
                        {"v": "[" + ",".join(repr(v) for v in values) + "]"})
        bad = [(v, w, g) for v, w, g in zip(values, want, got) if not math.isclose(w, g, rel_tol=1e-12, abs_tol=1e-12)]
        if bad:
            problems.append(f"pushlog_round(x, {n}) differs from SQLite's round() for {len(bad)} of {len(values)} values, "
                            f"e.g. {bad[0][0]!r}: SQLite {bad[0][1]!r}, ClickHouse {bad[0][2]!r}")
    return problems, len(values) * 5


def ms_text(ms):
    import datetime
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def alter(got):
    """Adds 1 to the first number of the first non-empty section (the self-test)."""
    for rows in got.values():
        for row in rows:
            for k, v in row.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    row[k] = v + 1
                    return


if __name__ == "__main__":
    sys.exit(main())
