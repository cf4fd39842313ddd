#!/usr/bin/env bash
# The pushlog benchmark: builds a gzipped corpus with the demo generator, then measures ingest
# records/s and peak RSS, unchanged re-ingest, every report's latency and a trace lookup, and —
# when installed — DuckDB (pip `duckdb`) and the sqlite3 shell on the same rows.
#
#   scripts/bench.sh [--devices N] [--weeks N] [--out DIR] [--quick] [--no-peers] [--clickhouse]
#   scripts/bench.sh --against REV [--devices N] [--weeks N] [--out DIR]
#
# Defaults: 20000 devices over 8 weeks (about 2.5 M records). --quick: a tiny corpus, no peers
# (the CI smoke run). --no-peers: pushlog only (the 25 M-record scale run). Nothing here asserts a
# time; it prints numbers for BENCHMARKS.md. --clickhouse: the same corpus ingested into ClickHouse
# too (chDB behind scripts/clickhouse_http.py, or the server $PUSHLOG_TEST_CLICKHOUSE names: its
# database pushlog_bench is dropped first), and each report timed on both engines, interleaved.
# --against REV: the guard against a slower change. Builds REV in a worktree of its own
# (kept under DIR, so a second run does not build it again), ingests the same corpus with both
# builds, and times the ingest, a day added to the loaded database and every report, each build
# in turn (three runs each, medians), into one table with the ratio of this build to REV. It also
# times churn and weekly while a writer holds DB.lock and on a copied database without one.
set -euo pipefail
cd "$(dirname "$0")/.."
devices=20000; weeks=8; out=bench-out; quick=0; peers=1; clickhouse=0; against=
while [ $# -gt 0 ]; do
  case "$1" in
    --devices) devices=$2; shift 2;;
    --weeks) weeks=$2; shift 2;;
    --out) out=$2; shift 2;;
    --quick) quick=1; shift;;
    --no-peers) peers=0; shift;;
    --clickhouse) clickhouse=1; shift;;
    --against) against=$2; shift 2;;
    *) echo "bench.sh: unknown option $1 (use --devices N --weeks N --out DIR --quick --no-peers --clickhouse --against REV)" >&2; exit 2;;
  esac
done
[ $quick = 1 ] && { out="${out}-quick"; peers=0; }

swift build -c release >&2
bin=.build/release/pushlog
mkdir -p "$out"
corpus="$out/corpus-$devices-$weeks"
if [ ! -d "$corpus/provider" ]; then
  echo "bench: generating corpus ($devices devices, $weeks weeks) in $corpus" >&2
  "$bin" --db "$out/gen.db" demo "$corpus" --devices "$devices" --weeks "$weeks" --no-report --quiet
  rm -f "$out/gen.db" "$out/gen.db-wal" "$out/gen.db-shm"
fi
db="$out/bench.db"
rm -f "$db" "$db-wal" "$db-shm"

if [ -n "$against" ]; then
  exec scripts/bench-against.sh "$against" "$bin" "$corpus" "$out"
fi

timev() { /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@"; }

echo "== pushlog $($bin --version | cut -d' ' -f2), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "corpus: $corpus ($(du -sh "$corpus" | cut -f1) gzipped, $(ls "$corpus"/*/* | wc -l) files)"

timev "$bin" --db "$db" ingest --quiet --format json "$corpus" > "$out/ingest.json"
read -r secs rss < "$out/time.txt"
records=$(python3 -c "import json;d=json.load(open('$out/ingest.json'))['totals'];print(sum(d['records'].values()))")
final=$(python3 -c "import json;d=json.load(open('$out/ingest.json'))['totals'];print(d['finalize_seconds'])")
rate=$(python3 -c "print(int($records/$secs))")
echo "ingest: $records records in ${secs}s = $rate records/s end to end (of which indexes and derived facts ${final}s); peak RSS $((rss / 1024)) MB"
dbbytes=$(stat -c %s "$db"); gzbytes=$(du -cb "$corpus"/*/* | tail -1 | cut -f1)
echo "database: $dbbytes bytes = $((dbbytes / records)) bytes per record (target: 120), $(python3 -c "print(round($dbbytes / $gzbytes, 2))")x the gzipped input"
if [ $quick = 0 ] && command -v sqlite3 >/dev/null; then
  echo "  by table and index (MB): $(sqlite3 "$db" "SELECT group_concat(name || ' ' || mb, ', ') FROM (SELECT name, round(sum(pgsize) / 1048576.0, 1) AS mb FROM dbstat GROUP BY name HAVING mb >= 1 ORDER BY 2 DESC)")"
fi

timev "$bin" --db "$db" ingest --quiet "$corpus"
read -r resecs _ < "$out/time.txt"
echo "re-ingest unchanged: ${resecs}s ($(python3 -c "print(round(100*$resecs/$secs, 2))")% of the first)"

# A small new day into the large database: only the touched tokens and devices are re-derived.
extra="$out/extra"
[ -d "$extra/provider" ] || "$bin" --db "$out/extra.db" demo "$extra" --devices 500 --weeks 2 --seed 7 --no-report --quiet
rm -f "$out/extra.db" "$out/extra.db-wal" "$out/extra.db-shm" "$out/extra.db.lock"
day=$(ls "$extra/provider" | tail -1 | sed 's/sends-//')
timev "$bin" --db "$db" ingest --quiet "$extra/provider/sends-$day" "$extra/app/events-$day"
read -r s _ < "$out/time.txt"
echo "incremental ingest of one more day ($(zcat "$extra/provider/sends-$day" "$extra/app/events-$day" | wc -l) records) into it: ${s}s"

# Each report three times: the median, so one hiccup of a noisy machine does not make the figure.
median3() {
  for _ in 1 2 3; do timev "$@" > /dev/null; cut -d' ' -f1 < "$out/time.txt"; done | sort -n | sed -n 2p
}
week=$($bin --db "$db" query --format csv "SELECT iso_week(max(time_ms) - 7*86400000) FROM sends" | tail -1 | tr -d '\r')
last=$($bin --db "$db" query --format csv "SELECT iso_week(max(time_ms)) FROM sends" | tail -1 | tr -d '\r')
for r in gone churn env-mismatch silent opt-out errors hygiene weekly; do
  s=$(median3 "$bin" --db "$db" report "$r" --format json)
  if [ "$r" = weekly ]; then  # weekly takes its week, not a range
    w=$(median3 "$bin" --db "$db" report "$r" --week "$week" --format json)
  else
    w=$(median3 "$bin" --db "$db" report "$r" --since "$week" --until "$last" --format json)
  fi
  echo "report $r (median of 3): ${s}s over all data, ${w}s for one week"
done
tok=$($bin --db "$db" query --format csv --reveal-tokens "SELECT substr(token, 1, 12) FROM tokens WHERE id = (SELECT max(id) / 2 FROM tokens)" | tail -1 | tr -d '\r')
timev "$bin" --db "$db" trace "$tok" > /dev/null
read -r s _ < "$out/time.txt"
echo "trace $tok…: ${s}s (process start included)"

# export: the same files as rows (TSV to /dev/null), and the parse alone, its bound.
timev "$bin" export --quiet --format TSVWithNames "$corpus" > /dev/null
read -r s _ < "$out/time.txt"
timev "$bin" export --parse-only "$corpus" 2> /dev/null
read -r p _ < "$out/time.txt"
echo "export: $records records in ${s}s = $(python3 -c "print(int($records/$s))") records/s (parse alone: ${p}s)"

if [ $clickhouse = 1 ]; then
  # ClickHouse: ingest the same corpus, then each report on both engines, one after the other
  # in each round (the load of the machine hits both alike), median of 3 rounds after three
  # untimed runs on each: a server's times settle after a few runs of the same query (it loads
  # a new table's marks and indexes, and compiles an expression it has seen three times), as on
  # a server that has been up; SQLite's pages are as warm from the ingest.
  if [ -n "${PUSHLOG_TEST_CLICKHOUSE:-}" ]; then
    ch="${PUSHLOG_TEST_CLICKHOUSE%/}/pushlog_bench"
    "$bin" --clickhouse "$ch" query "SELECT 1" > /dev/null
    python3 - "$ch" <<'PY'
import base64, sys, urllib.parse, urllib.request
u = urllib.parse.urlsplit(sys.argv[1])
req = urllib.request.Request(f"{u.scheme}://{u.hostname}:{u.port or 8123}/", data=b"DROP DATABASE IF EXISTS pushlog_bench SYNC",
    headers={"Authorization": "Basic " + base64.b64encode(f"{urllib.parse.unquote(u.username or 'default')}:{urllib.parse.unquote(u.password or '')}".encode()).decode()})
urllib.request.urlopen(req).read()
PY
  else
    rm -rf "$out/chdb" "$out/ch.port"
    python3 scripts/clickhouse_http.py --port-file "$out/ch.port" --path "$out/chdb" --user bench --password bench \
      > /dev/null 2> "$out/ch-front.log" &
    front=$!
    trap 'kill $front 2>/dev/null || true' EXIT
    for _ in $(seq 600); do [ -s "$out/ch.port" ] && break; sleep 0.1; done
    ch="http://bench:bench@127.0.0.1:$(cat "$out/ch.port")/pushlog_bench"
  fi
  timev "$bin" --clickhouse "$ch" ingest --quiet "$corpus"
  read -r chsecs chrss < "$out/time.txt"
  echo "clickhouse ingest: $records records in ${chsecs}s = $(python3 -c "print(int($records/$chsecs))") records/s (SQLite: ${secs}s; the facts rebuild included); peak RSS of pushlog $((chrss / 1024)) MB"
  # The server goes on merging the load's parts for a while; the reports are timed after that
  # (a report during it shares the cores with the merges), and the wait is printed.
  waited=0
  while merging=$("$bin" --clickhouse "$ch" query "SELECT count() FROM system.merges" | tail -1) && [ "$merging" != 0 ] && [ $waited -lt 300 ]; do
    sleep 1; waited=$((waited + 1))
  done
  # A user that may not read system.merges: the query fails and the reports are timed at once.
  echo "clickhouse: background merges of the load went on ${waited}s after the ingest"
  for r in gone churn env-mismatch silent opt-out errors hygiene weekly; do
    args=(report "$r" --format json); [ "$r" = weekly ] && args+=(--week "$week")
    for _ in 1 2 3; do "$bin" --db "$db" "${args[@]}" > /dev/null; "$bin" --clickhouse "$ch" "${args[@]}" > /dev/null; done
    for _ in 1 2 3; do
      timev "$bin" --db "$db" "${args[@]}" > /dev/null; cut -d' ' -f1 < "$out/time.txt" >> "$out/sq.$r"
      timev "$bin" --clickhouse "$ch" "${args[@]}" > /dev/null; cut -d' ' -f1 < "$out/time.txt" >> "$out/ch.$r"
    done
    echo "report $r (median of 3, interleaved, after 3 warm-up runs): SQLite $(sort -n "$out/sq.$r" | sed -n 2p)s, ClickHouse $(sort -n "$out/ch.$r" | sed -n 2p)s"
    rm -f "$out/sq.$r" "$out/ch.$r"
  done
fi

if [ $peers = 1 ]; then
  if python3 -c "import duckdb" 2>/dev/null; then
    rm -f "$out/duck.db"
    python3 - "$corpus" "$out/duck.db" "$rate" <<'PY'
import duckdb, sys, time, glob
corpus, path, ours = sys.argv[1], sys.argv[2], int(sys.argv[3])
con = duckdb.connect(path)
con.execute("SET threads=2")
t = time.time()
n = 0
files = sorted(glob.glob(corpus + "/*/*.gz"))
con.execute(f"CREATE TABLE ev AS SELECT * FROM read_json({files!r}, format='newline_delimited', union_by_name=true, ignore_errors=true)")
n = con.execute("SELECT count(*) FROM ev").fetchone()[0]
s = time.time() - t
print(f"duckdb read_json: {n} rows in {s:.2f}s = {int(n/s)} rows/s (2 threads, no indexes, no dedupe)")
print(f"ratio pushlog / duckdb: {ours / (n / s):.2f}x (target: 1.5x)")
con.close()
import os
size = os.path.getsize(path)
print(f"duckdb table: {size} bytes = {size // n} bytes per row")
PY
  else
    echo "duckdb: not installed (pip install duckdb) — skipped"
  fi
  if command -v sqlite3 >/dev/null; then
    "$bin" --db "$db" query --format csv "SELECT time_ms, kind, token_id, apns_id, env, topic, push_type, priority, status, reason, apns_ts, latency_ms FROM sends_v" > "$out/sends.csv"
    rm -f "$out/shell.db"
    n=$(($(wc -l < "$out/sends.csv") - 1))
    start=$(date +%s.%N)
    sqlite3 "$out/shell.db" ".mode csv" ".import $out/sends.csv sends"
    end=$(date +%s.%N)
    python3 -c "s=$end-$start; print(f'sqlite3 .import csv: $n rows in {s:.2f}s = {int($n/s)} rows/s (no indexes); ratio pushlog / sqlite3: {$rate / ($n/s):.2f}x')"

    # The storage floor: SQLite alone copying pushlog's own rows (already parsed: no JSON, no
    # gzip, no binding) into an empty pushlog schema with the identity keys, same pragmas, then
    # building the same secondary indexes. No ingest into this schema can be faster.
    rm -f "$out/floor.db" "$out/floor.db-wal" "$out/floor.db-shm" "$out/floor.db.lock"
    mkdir -p "$out/empty"
    "$bin" --db "$out/floor.db" ingest --quiet "$out/empty"
    idx=$(sqlite3 "$out/floor.db" "SELECT group_concat(sql || ';', char(10)) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('sends', 'registers', 'settings', 'receipts', 'unregisters', 'rejects')")
    drops=$(sqlite3 "$out/floor.db" "SELECT group_concat('DROP INDEX ' || name || ';', char(10)) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('sends', 'registers', 'settings', 'receipts', 'unregisters', 'rejects')")
    sqlite3 "$out/floor.db" "$drops"
    start=$(date +%s.%N)
    sqlite3 "$out/floor.db" "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768; ATTACH '$db' AS src; BEGIN;
      INSERT INTO main.tokens SELECT * FROM src.tokens WHERE 1;
      $(for t in topics envs push_types reasons app_versions os_versions devices users labels; do echo "INSERT OR IGNORE INTO main.$t SELECT * FROM src.$t WHERE 1;"; done)
      $(for t in sends registers settings receipts unregisters; do echo "INSERT INTO main.$t SELECT * FROM src.$t WHERE 1;"; done)
      COMMIT;" > /dev/null
    mid=$(date +%s.%N)
    sqlite3 "$out/floor.db" "PRAGMA threads=1; PRAGMA cache_size=-16384; BEGIN; $idx COMMIT;" > /dev/null
    end=$(date +%s.%N)
    python3 -c "
n=$records; l=$mid-$start; i=$end-$mid
print(f'storage floor (sqlite3 copying the parsed rows into the schema): load {l:.2f}s + indexes {i:.2f}s = {l+i:.2f}s = {int(n/(l+i))} records/s at most; pushlog at {$rate * (l+i) / n:.0%} of it')"
  fi
fi
