#!/usr/bin/env bash
# Builds the libFuzzer harnesses (Fuzz/FuzzTargets.swift + PushLogKit's sources, with
# AddressSanitizer) and runs each target for SECONDS (default 600), seeded from Tests/Fixtures.
# A crash leaves its input in fuzz-out/TARGET/ (or $FUZZ_OUT/TARGET/) and makes the script exit
# 1; turn it into a fixture and a fix.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: json logfmt csv document sns gorush time stream detect
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(json logfmt csv document sns gorush time stream detect)
out=${FUZZ_OUT:-fuzz-out}   # another folder lets two campaigns run side by side
mkdir -p "$out"
bin=$out/pushlog-fuzz
if [ ! -x "$bin" ] || [ -n "$(find Sources/PushLogKit Fuzz Queries -newer "$bin" \( -name '*.swift' -o -name '*.sql' -o -name '*.format' \) | head -1)" ]; then
  # SwiftPM compiles the catalog, its ClickHouse SQL and the line formats in with the
  # EmbedFolders plugin; this build is plain swiftc, so it runs the plugin's tool itself.
  embedded=$out/EmbeddedFiles.swift
  swiftc -O Sources/EmbedFiles/main.swift -o "$out/embed-files"
  "$out/embed-files" "$embedded" BuiltInQueries Queries sql ClickHouseSQL Queries/clickhouse sql \
    BuiltInDefinitions Sources/PushLogKit/Formats/Definitions format
  # The flags the package ships with (release: -O, bounds and overflow checks kept), plus ASan;
  # swiftc's default (Swift 5) language mode, as the harness keeps its parser in a global.
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name PushLogFuzz \
    -I Sources/CSQLite -I Sources/CZlib -lsqlite3 -lz \
    $(find Sources/PushLogKit -name '*.swift' -not -path '*/Reports/Queries/*') "$embedded" Fuzz/FuzzTargets.swift -o "$bin" 2>&1 | grep -v "warning: Cannot export" || true
fi
status=0
for t in "${targets[@]}"; do
  corpus=$out/$t/corpus
  mkdir -p "$corpus"
  case $t in
    time) printf '2026-11-02T14:00:00.1235+01:30' > "$corpus/seed1"; printf '1762092000123456' > "$corpus/seed2"; printf -- '-2h' > "$corpus/seed3";;
    stream) cp Tests/Fixtures/*.gz "$corpus/" ;;
    csv) cp Tests/Fixtures/same.csv Tests/Fixtures/apple-metrics.csv "$corpus/" ;;
    logfmt) cp Tests/Fixtures/same.logfmt "$corpus/" ;;
    gorush) cp Tests/Fixtures/gorush.log Tests/Fixtures/gorush-terminal.log Tests/Fixtures/gorush-api.log "$corpus/" ;;
    detect) cp Tests/Fixtures/*.log Tests/Fixtures/*.ndjson Tests/Fixtures/*.json "$corpus/" ;;
    sns) cp Tests/Fixtures/sns.ndjson "$corpus/" ;;
    document) cp Tests/Fixtures/pretty.json Tests/Fixtures/array.json "$corpus/" ;;
    *) cp Tests/Fixtures/canonical.ndjson Tests/Fixtures/aliases.ndjson Tests/Fixtures/reports.ndjson Tests/Fixtures/bad-lines.ndjson "$corpus/" ;;
  esac
  echo "fuzz: $t for ${secs}s" >&2
  # SWIFT_BACKTRACE off: a Swift trap then reaches libFuzzer as a plain crash with its input saved.
  if SWIFT_BACKTRACE=enable=no PUSHLOG_FUZZ_TARGET=$t "$bin" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
       -artifact_prefix="$out/$t/" "$corpus" > "$out/$t/log.txt" 2>&1; then
    echo "fuzz: $t: no crash in ${secs}s ($(grep -o 'Done [0-9]* runs' "$out/$t/log.txt" | tail -1))" >&2
  else
    echo "fuzz: $t: CRASH — see $out/$t/log.txt and the crash-* file there" >&2
    status=1
  fi
done
exit $status
