#!/bin/sh
# Makes sure PM2 is installed the way docs/operations.md tells operators to: one global npm
# install of the version the project tests (test/e2e/pm2-drain.test.ts runs the worker under it).
# Idempotent: does nothing when that version is already on PATH.
set -eu

PM2_VERSION=7.0.4

# Read from the installed package: `pm2 --version` would start a PM2 daemon.
installed_version() {
  node -p "require('$(npm root -g)/pm2/package.json').version" 2>/dev/null || true
}

if command -v pm2 >/dev/null 2>&1 && [ "$(installed_version)" = "$PM2_VERSION" ]; then
  echo "pm2: $PM2_VERSION"
  exit 0
fi

if [ "$(id -u)" -ne 0 ] && [ ! -w "$(npm prefix -g)" ]; then
  echo "pm2: $PM2_VERSION not installed; run as root (or fix npm's global prefix) to 'npm install -g pm2@$PM2_VERSION'" >&2
  exit 1
fi

echo "pm2: installing pm2@$PM2_VERSION globally..."
npm install -g --no-fund --no-audit "pm2@$PM2_VERSION" >/dev/null
echo "pm2: $(installed_version)"
