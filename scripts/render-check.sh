#!/usr/bin/env bash
# Renders the weekly HTML page in headless Chromium (Debian: apt-get install -y chromium) and
# fails when the screenshot is blank: too few non-white pixels or too few colours (a page that
# did not render, an empty body, charts that drew nothing).
#   scripts/render-check.sh [OUT.png] [--db FILE] [--week 2026-W46] [--html PAGE]
# Without --db it writes a small demo corpus (3 weeks, 600 devices) in a temporary folder;
# --html checks a given page instead of the weekly report (e.g. to see the check fail).
set -euo pipefail
cd "$(dirname "$0")/.."

out=docs/weekly.png
db=""
html=""
week=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --week) week=(--week "$2"); shift 2 ;;
    --html) html=$(realpath "$2"); shift 2 ;;
    -h|--help) sed -n 2,7p "$0"; exit 0 ;;
    *) out=$1; shift ;;
  esac
done

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "render-check: no chromium (apt-get install -y chromium)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$html" ]; then
  swift build -q
  bin=.build/debug/pushlog
  if [ -z "$db" ]; then
    "$bin" demo "$work/demo" --devices 600 --weeks 3 --no-report >/dev/null 2>&1
    db="$work/demo/pushlog.db"
  fi
  html="$work/weekly.html"
  "$bin" --db "$db" report weekly "${week[@]}" -o "$html"
fi

mkdir -p "$(dirname "$out")"
# --no-sandbox: CI runs as root. A tall window: the whole page, charts and tables, in one image.
"$chrome" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
  --window-size=1200,2000 --screenshot="$out" "file://$html" >/dev/null 2>&1

python3 - "$out" <<'PY'
import struct, sys, zlib

def pixels(path):
    """Decodes an 8-bit RGB/RGBA PNG (what Chromium writes) into rows of pixel tuples."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"unexpected PNG type {depth}/{ctype}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows

w, h, rows = pixels(sys.argv[1])
inked = sum(1 for r in rows for p in r if min(p) < 235)
colours = len({p for r in rows[::4] for p in r[::4]})
share = inked / (w * h)
print(f"render-check: {sys.argv[1]}: {w}x{h}, {share:.1%} inked, {colours} colours")
if share < 0.02 or colours < 24:
    sys.exit("render-check: the page looks blank")
PY
