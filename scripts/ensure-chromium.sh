#!/bin/sh
# Makes sure headless Chromium is available for the browser test (test/web/browser.test.ts).
# Idempotent: does nothing when /usr/bin/chromium (or $CHROMIUM_PATH) already runs.
# Installs Debian's `chromium` package otherwise (needs root or sudo, and apt).
set -eu

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ] && "$CHROMIUM" --version >/dev/null 2>&1; then
  echo "chromium: $("$CHROMIUM" --version 2>/dev/null)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium: $CHROMIUM not found and apt-get is unavailable; install Chromium and set CHROMIUM_PATH" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "chromium: $CHROMIUM not found; run as root (or with sudo) to install the 'chromium' package" >&2
  exit 1
fi

echo "chromium: installing Debian package 'chromium'..."
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null

if ! "$CHROMIUM" --version >/dev/null 2>&1; then
  echo "chromium: installed, but $CHROMIUM still does not run" >&2
  exit 1
fi
echo "chromium: $("$CHROMIUM" --version 2>/dev/null)"
