#!/usr/bin/env bash
# Installs pushlog like a Unix tool: the binary, its man page and the bash, zsh and fish
# completions where those shells look for them.
#
#   scripts/install.sh [PREFIX]        PREFIX defaults to /usr/local ($DESTDIR is honoured)
#
# $PUSHLOG_BIN installs a binary already built instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-/usr/local}"
root="${DESTDIR:-}$prefix"

if [ -n "${PUSHLOG_BIN:-}" ]; then
  bin="$PUSHLOG_BIN"
else
  bin=".build/release/pushlog"
  # A release binary newer than every source (as `swift run -c release` leaves it) is installed
  # as it is; otherwise it is built first.
  if [ ! -x "$bin" ] || [ -n "$(find Sources Queries Plugins Package.swift -newer "$bin" -type f 2>/dev/null | head -1)" ]; then
    swift build -c release --product pushlog >&2
    bin="$(swift build -c release --show-bin-path)/pushlog"
  else
    echo "install: $bin is up to date" >&2
  fi
fi

install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
  "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
install -m 0755 "$bin" "$root/bin/pushlog"
"$bin" help --man > "$root/share/man/man1/pushlog.1"
"$bin" completion bash > "$root/share/bash-completion/completions/pushlog"
"$bin" completion zsh > "$root/share/zsh/site-functions/_pushlog"
"$bin" completion fish > "$root/share/fish/vendor_completions.d/pushlog.fish"
chmod 0644 "$root/share/man/man1/pushlog.1" "$root/share/bash-completion/completions/pushlog" \
  "$root/share/zsh/site-functions/_pushlog" "$root/share/fish/vendor_completions.d/pushlog.fish"
echo "installed pushlog $("$bin" --version | awk '{print $NF}') in $root (bin, man page, bash/zsh/fish completions)" >&2
