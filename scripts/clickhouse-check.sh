#!/usr/bin/env bash
# Checks that Queries/clickhouse/*.sql give the figures of pushlog's own reports on the demo
# corpus (scripts/clickhouse_check.py does the work). Installs chdb (ClickHouse in-process) with
# pip when it is missing. First proves the check can fail (--self-test alters one figure), then
# runs it. Then the CLI itself on ClickHouse (`pushlog --clickhouse URL`, through
# scripts/clickhouse_http.py in front of chDB): ingest, sources, every report and option, query,
# errors and a kill -9 during ingest, against the SQLite engine (scripts/clickhouse_cli_check.py).
# Then loads brought up to date key by key against the whole rebuild (scripts/clickhouse_touched_check.py).
# Exit 1 on any difference.
#   scripts/clickhouse-check.sh [--pushlog PATH] [--devices N] [--weeks N] [--only gone,errors]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c "import chdb" 2>/dev/null; then
  python3 -m pip install --quiet chdb
fi
[ -x .build/debug/pushlog ] || swift build
python3 scripts/clickhouse_check.py --self-test --only gone "$@"
python3 scripts/clickhouse_check.py "$@"
python3 scripts/clickhouse_cli_check.py --self-test --only gone "$@"
python3 scripts/clickhouse_cli_check.py "$@"
# Loads brought up to date key by key leave the kept facts the whole rebuild gives (its own
# corpus sizes; only --pushlog is passed on).
given=()
while [ $# -gt 0 ]; do
  if [ "$1" = --pushlog ] && [ $# -gt 1 ]; then given=(--pushlog "$2"); shift; fi
  shift
done
python3 scripts/clickhouse_touched_check.py --self-test --devices 500 --loads 3 "${given[@]}"
python3 scripts/clickhouse_touched_check.py "${given[@]}"
