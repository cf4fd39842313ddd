#!/usr/bin/env python3
"""Checks that the kept facts a ClickHouse ingest brings up to date key by key (only what a load
touched) equal, table by table and row by row, the facts rebuilt from the whole history.

The demo corpus's lines, shuffled, minus a sample of them, are the first load; the sample,
in small loads, follows (so receipts arrive after the pushes they answer or before them,
registrations and settings after the sends whose token facts and runs they change, 410s after
later sends), then a file of lines already loaded from other files (the same records, another
source): `pushlog --clickhouse URL ingest` one file per run, as cron would (two of them at once,
with a report beside them: one update at a time), with
$PUSHLOG_CLICKHOUSE_TOUCHED_ROWS at 0 so that a corpus this small is brought up to date key by key.
Each later load must have been (kept_state.built = 'touched'), not rebuilt whole. Then every kept
table is read, the kept state dropped, the whole rebuild run (a report finds the facts out of
date), every table read again and compared. Last, the records truncated by hand and one more
small load: it must rebuild the whole history. --self-test changes kept rows before the
comparison and expects it to be caught. Exit 1 on any difference.
  scripts/clickhouse_touched_check.py [--pushlog PATH] [--devices N] [--weeks N] [--loads N]
"""
import argparse, gzip, glob, json, os, random, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from clickhouse_cli_check import Server, run  # noqa: E402


def kept_tables(server, db):
    rows = server.query(f"SELECT name FROM system.tables WHERE database = '{db}' AND engine LIKE '%MergeTree' "
                        "AND startsWith(name, 'kept_') AND name NOT IN ('kept_pending', 'kept_state') ORDER BY name")
    return [r[0] for r in rows]


def read_tables(server, db):
    return {t: sorted(json.dumps(r) for r in server.query(f"SELECT * FROM `{db}`.`{t}`")) for t in kept_tables(server, db)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pushlog", default=os.path.join(ROOT, ".build", "debug", "pushlog"))
    ap.add_argument("--devices", type=int, default=3000)
    ap.add_argument("--weeks", type=int, default=2)
    ap.add_argument("--loads", type=int, default=8)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="pushlog-touched-")
    server = Server(tmp)
    problems = []
    try:
        corpus = os.path.join(tmp, "corpus")
        run([a.pushlog, "--db", os.path.join(tmp, "demo.db"), "demo", corpus, "--devices", str(a.devices),
             "--weeks", str(a.weeks), "--no-report", "--quiet"])
        lines = []
        for f in sorted(glob.glob(os.path.join(corpus, "*", "*.gz"))):
            lines += gzip.open(f, "rt").read().splitlines()
        random.Random(7).shuffle(lines)
        files = []

        def write(name, part):
            path = os.path.join(tmp, "loads", name + ".ndjson.gz")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with gzip.open(path, "wt") as g:
                g.write("\n".join(part) + "\n")
            files.append(path)

        rest = lines[:len(lines) * 3 // 100]
        write("load-000", lines[len(rest):])
        for i in range(a.loads):
            write(f"load-{i + 1:03d}", rest[i * len(rest) // a.loads:(i + 1) * len(rest) // a.loads])
        write("again", random.Random(8).sample(lines[len(rest):], 300))

        db = "pushlog_check_touched"
        server.query(f"DROP DATABASE IF EXISTS `{db}`")
        ch = server.url(db)
        built = []
        env = dict(os.environ, PUSHLOG_CLICKHOUSE_TOUCHED_ROWS="0")
        together = files[-3:-1]  # two loads at once, and a report beside them
        for path in files:
            if path in together:
                if path != together[0]:
                    continue
                procs = [subprocess.Popen([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", f], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for f in together]
                procs.append(subprocess.Popen([a.pushlog, "--clickhouse", ch, "report", "gone", "--format", "json"], env=env,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
                for p in procs:
                    _, err = p.communicate(timeout=600)
                    if p.returncode != 0:
                        problems.append(f"{' '.join(p.args[3:])} beside another load exited {p.returncode}: {err.strip()[-300:]}")
            else:
                run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", path], env=env)
            built.append(server.query(f"SELECT built FROM `{db}`.kept_state")[0][0])
        touched = built[1:].count("touched")
        print(f"clickhouse-touched-check: {len(lines)} lines in {len(files)} files, {len(built)} rounds; after the first, "
              f"{touched} of {len(built) - 1} brought up to date key by key (two loads and a report at once in one)")
        if built[0] != "whole" or touched < len(built) - 1:
            problems.append(f"the loads were built {built}: the first whole, every later one key by key expected")
        if server.query(f"EXISTS TABLE `{db}`.kept_lock")[0][0] != 0:
            problems.append("a run left kept_lock behind")

        if a.self_test:  # as a key-by-key update that missed a token would leave it
            server.query(f"ALTER TABLE `{db}`.kept_gone DELETE WHERE token IN (SELECT any(token) FROM `{db}`.kept_gone) "
                         "SETTINGS mutations_sync = 2")
        after_loads = read_tables(server, db)
        server.query(f"DROP TABLE `{db}`.kept_state")
        run([a.pushlog, "--clickhouse", ch, "report", "gone", "--format", "json"])
        if server.query(f"SELECT built FROM `{db}`.kept_state")[0][0] != "whole":
            problems.append("the rebuild after the kept state was dropped was not a whole one")
        whole = read_tables(server, db)
        if sorted(after_loads) != sorted(whole):
            problems.append(f"kept tables differ: {sorted(set(after_loads) ^ set(whole))}")
        rows = 0
        for t in sorted(set(after_loads) & set(whole)):
            got, want = after_loads[t], whole[t]
            rows += len(want)
            if got != want:
                extra = sorted(set(got) - set(want))[:3]
                missing = sorted(set(want) - set(got))[:3]
                problems.append(f"{t}: {len(got)} rows key by key, {len(want)} rebuilt whole; "
                                f"only key by key: {extra}; only whole: {missing}")
        print(f"clickhouse-touched-check: {len(whole)} kept tables, {rows} rows compared")

        # Records removed by hand (a TRUNCATE: the parts the facts were built from are gone): the
        # next load must rebuild the whole history, not bring the removed rows' facts along.
        server.query(f"TRUNCATE TABLE `{db}`.records")
        write("after-truncate", rest[:50])
        run([a.pushlog, "--clickhouse", ch, "ingest", "--quiet", files[-1]], env=env)
        after = server.query(f"SELECT built, (SELECT count() FROM `{db}`.kept_sends) FROM `{db}`.kept_state")[0]
        if after[0] != "whole":
            problems.append(f"a load after the records were truncated was built {after[0]!r}, not whole")
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if a.self_test:
        if not problems:
            sys.exit("clickhouse-touched-check --self-test: a changed kept row was not caught")
        print("clickhouse-touched-check --self-test: the changed row was caught")
        return
    for p in problems:
        print("clickhouse-touched-check: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
