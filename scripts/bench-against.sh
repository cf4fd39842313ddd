#!/usr/bin/env bash
# The guard against a slower change (scripts/bench.sh --against REV runs it): this build and REV,
# each ingesting the same corpus into its own database, timed in turn (REV, then this build, three
# rounds; medians), so a drift of the machine's speed hits both alike. One table: each figure for
# REV and for this build, and their ratio (this build / REV; above 1 is slower). With pip's
# duckdb installed, DuckDB's read_json of the same files once, the peer in the same run.
#   scripts/bench-against.sh REV BIN CORPUS OUT
set -euo pipefail
rev=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "bench.sh: --against: no commit named '$1'" >&2; exit 2; }
bin=$2; corpus=$3; out=$4

# REV's build, in a worktree kept under OUT (the second run reuses it).
base="$out/against-${rev:0:12}"
[ -d "$base" ] || git worktree add --detach --quiet "$base" "$rev"
echo "bench: building ${rev:0:12} in $base" >&2
swift build -c release --package-path "$base" >&2
old="$base/.build/release/pushlog"

oldDB="$out/against-old.db"; newDB="$out/against-new.db"
seconds() {  # seconds of one run, its output discarded
  /usr/bin/time -f "%e" -o "$out/t.txt" "$@" > /dev/null 2> "$out/err.txt" || { cat "$out/err.txt" >&2; exit 1; }
  tail -1 "$out/t.txt"
}
median() { sort -n | sed -n 2p; }
fresh() { rm -f "$1" "$1-wal" "$1-shm" "$1.lock"; }
rows=()
row() { rows+=("$1|$2|$3"); }  # what | REV's seconds | this build's seconds

# Ingest: three rounds, each build into a fresh database; the last databases stay for the reports.
: > "$out/a"; : > "$out/b"
for _ in 1 2 3; do
  fresh "$oldDB"; seconds "$old" --db "$oldDB" ingest --quiet "$corpus" >> "$out/a"
  fresh "$newDB"; seconds "$bin" --db "$newDB" ingest --quiet "$corpus" >> "$out/b"
done
# The peer in the same run: DuckDB's read_json into a table (no indexes, no dedupe), when installed.
duck=""
if python3 -c "import duckdb" 2>/dev/null; then
  rm -f "$out/duck.db"
  duck=$(python3 - "$corpus" "$out/duck.db" <<'PY'
import duckdb, glob, sys, time
con = duckdb.connect(sys.argv[2])
con.execute("SET threads=2")
files = sorted(glob.glob(sys.argv[1] + "/*/*.gz"))
t = time.time()
con.execute(f"CREATE TABLE ev AS SELECT * FROM read_json({files!r}, format='newline_delimited', union_by_name=true, ignore_errors=true)")
print(f"{time.time() - t:.2f}")
PY
)
  rm -f "$out/duck.db"
fi
records=$("$bin" --db "$newDB" query --format csv "SELECT (SELECT count(*) FROM sends) + (SELECT count(*) FROM registers) + (SELECT count(*) FROM settings) + (SELECT count(*) FROM receipts) + (SELECT count(*) FROM unregisters)" | tail -1 | tr -d '\r')
cp "$out/b" "$out/ingest-b"
row "ingest ($records records)" "$(median < "$out/a")" "$(median < "$out/b")"

# A day of new files into the loaded database (a copy each time, so every run adds the same day).
extra="$out/extra"
[ -d "$extra/provider" ] || "$bin" --db "$out/extra.db" demo "$extra" --devices 500 --weeks 2 --seed 7 --no-report --quiet
fresh "$out/extra.db"
day=$(ls "$extra/provider" | tail -1 | sed 's/sends-//')
: > "$out/a"; : > "$out/b"
for _ in 1 2 3; do
  for side in old new; do
    if [ $side = old ]; then b=$old; src=$oldDB; else b=$bin; src=$newDB; fi
    fresh "$out/day.db"; cp "$src" "$out/day.db"
    s=$(seconds "$b" --db "$out/day.db" ingest --quiet "$extra/provider/sends-$day" "$extra/app/events-$day")
    [ $side = old ] && echo "$s" >> "$out/a" || echo "$s" >> "$out/b"
  done
done
fresh "$out/day.db"
row "ingest of one more day" "$(median < "$out/a")" "$(median < "$out/b")"

# Each report over all data and over one week; one untimed run each first (warm pages).
week=$("$bin" --db "$newDB" query --format csv "SELECT iso_week(max(time_ms) - 7*86400000) FROM sends" | tail -1 | tr -d '\r')
last=$("$bin" --db "$newDB" query --format csv "SELECT iso_week(max(time_ms)) FROM sends" | tail -1 | tr -d '\r')
timed() {  # timed LABEL DB-OF-REV DB-OF-THIS-BUILD ARGS...
  local label=$1 a=$2 b=$3; shift 3
  "$old" --db "$a" "$@" > /dev/null; "$bin" --db "$b" "$@" > /dev/null
  : > "$out/a"; : > "$out/b"
  for _ in 1 2 3; do
    seconds "$old" --db "$a" "$@" >> "$out/a"
    seconds "$bin" --db "$b" "$@" >> "$out/b"
  done
  row "$label" "$(median < "$out/a")" "$(median < "$out/b")"
}
for r in gone churn env-mismatch silent opt-out errors hygiene; do
  timed "report $r" "$oldDB" "$newDB" report "$r" --format json
  timed "report $r, one week" "$oldDB" "$newDB" report "$r" --since "$week" --until "$last" --format json
done
timed "report weekly --week $week" "$oldDB" "$newDB" report weekly --week "$week" --format json
timed "report gone --by day --compare previous" "$oldDB" "$newDB" report gone --since "$week" --until "$last" --by day --compare previous --format json
timed "trace" "$oldDB" "$newDB" trace "$("$bin" --db "$newDB" query --format csv --reveal-tokens "SELECT substr(token, 1, 12) FROM tokens WHERE id = (SELECT max(id) / 2 FROM tokens)" | tail -1 | tr -d '\r')"

# As incidents and forensics meet it: a writer holding DB.lock (as `ingest --follow` does), and
# a copy of the database in a folder of its own, without DB.lock.
flock -x "$oldDB.lock" sleep 3600 & oldHolder=$!
flock -x "$newDB.lock" sleep 3600 & newHolder=$!
trap 'kill $oldHolder $newHolder 2>/dev/null || true' EXIT
sleep 0.2
timed "report churn, a writer holds DB.lock" "$oldDB" "$newDB" report churn --format json
timed "report weekly, a writer holds DB.lock" "$oldDB" "$newDB" report weekly --week "$week" --format json
kill $oldHolder $newHolder 2>/dev/null || true
mkdir -p "$out/copy-old" "$out/copy-new"
cp "$oldDB" "$out/copy-old/pushlog.db"; cp "$newDB" "$out/copy-new/pushlog.db"
timed "report churn, a copied database" "$out/copy-old/pushlog.db" "$out/copy-new/pushlog.db" report churn --format json
timed "report weekly, a copied database" "$out/copy-old/pushlog.db" "$out/copy-new/pushlog.db" report weekly --week "$week" --format json
rm -rf "$out/copy-old" "$out/copy-new"

echo "== this build ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Queries Package.swift || echo ', uncommitted changes')) against ${rev:0:12}, $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "corpus: $corpus; medians of 3, the two builds in turn"
if [ -n "$duck" ]; then
  b=$(median < "$out/ingest-b")
  echo "DuckDB read_json of the same files in this run: ${duck}s; this build's ingest at $(python3 -c "print(f'{$duck / $b:.2f}')")x its speed"
fi
echo
echo "| | ${rev:0:12} s | this build s | ratio |"
echo "|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r what a b <<< "$r"
  printf '| %s | %s | %s | %s |\n' "$what" "$a" "$b" "$(python3 -c "print(f'{$b / $a:.2f}' if $a > 0 else '-')")"
done
