#!/usr/bin/env bash
# Provisions what the real-LiveKit tests (test/e2e) need: livekit-server built from the Go module
# proxy, Redis, iproute2 and HAProxy from Debian. Idempotent: a second run only checks versions.
#
# The binary lives in the git-ignored .lk/bin of this clone. The Go module and build caches stay
# where Go keeps them by default (GOMODCACHE=~/go/pkg/mod, GOCACHE=~/.cache/go-build), outside
# the clone, so another clone or a rebuild on the same machine reuses them.
set -euo pipefail
cd "$(dirname "$0")/../.."

LIVEKIT_VERSION=1.13.5
CACHE_DIR="$PWD/.lk"
BIN="$CACHE_DIR/bin/livekit-server"

say() { echo "livekit-install: $*"; }
fail() { echo "livekit-install: $*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else fail "need root (or sudo) for: $*"
  fi
}

# Installing redis-server would start a system Redis on 127.0.0.1:6379 that nobody tracks; the
# stack runs its own inside a network namespace. policy-rc.d is Debian's switch for "do not
# start services from package scripts", used only while our apt-get runs.
apt_install() {
  command -v apt-get >/dev/null 2>&1 || fail "apt-get is unavailable; install these yourself: $*"
  local policy=/usr/sbin/policy-rc.d placed=0
  if [ ! -e "$policy" ]; then
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
    placed=1
  fi
  local status=0
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 || {
    # A clean machine may have no (or stale) package lists: refresh once and try again.
    as_root apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  } || status=$?
  [ "$placed" -eq 1 ] && as_root rm -f "$policy"
  [ "$status" -eq 0 ] || fail "apt-get install $* failed (exit $status)"
}

missing=()
command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || missing+=(redis-server)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
# The one URL in front of a multi-node stack (npm run stack -- up --nodes N).
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing from Debian: ${missing[*]}"
  apt_install "${missing[@]}"
fi
say "$(redis-server --version | cut -d' ' -f1-3), $(ip -V), $(haproxy -v | head -1 | cut -d' ' -f1-3)"

if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qx "livekit-server version $LIVEKIT_VERSION"; then
  say "livekit-server $LIVEKIT_VERSION already in $BIN"
  exit 0
fi

command -v go >/dev/null 2>&1 || fail "Go is not installed: livekit-server v$LIVEKIT_VERSION is built with 'go install' (its go.mod needs go 1.26)"
say "building livekit-server v$LIVEKIT_VERSION with $(go version | cut -d' ' -f3) (GOMODCACHE=$(go env GOMODCACHE), GOCACHE=$(go env GOCACHE))"

# Built into a private folder and moved into place, so an interrupted build never leaves a
# half-written binary that a later run would trust.
staging="$CACHE_DIR/bin/.staging-$$"
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging"
started=$(date +%s)
# -modcacherw: module files stay writable, so `go clean -modcache` or rm -rf can remove them.
GOFLAGS=-modcacherw CGO_ENABLED=0 GOBIN="$staging" \
  go install -trimpath "github.com/livekit/livekit-server/cmd/server@v$LIVEKIT_VERSION"
elapsed=$(( $(date +%s) - started ))
# The command's folder is named `server`; the name people know is livekit-server.
mv -f "$staging/server" "$BIN"

version="$("$BIN" --version)"
[ "$version" = "livekit-server version $LIVEKIT_VERSION" ] || fail "built binary reports '$version'"
size=$(stat -c %s "$BIN")
say "built $version in ${elapsed}s, $((size / 1000000)).$(( (size / 100000) % 10 )) MB ($size bytes) -> $BIN"
