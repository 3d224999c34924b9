#!/usr/bin/env bash
# What `npm test` needs beyond node_modules, one line per component. Each script installs its
# component when it is missing (apt-get, npm -g, go install, pip: root or sudo where the system is
# touched) and only checks when it is there, so a second run takes a few seconds. A component that
# cannot be had fails the run here, before any suite starts, naming it and saying why.
set -uo pipefail
cd "$(dirname "$0")/.."

missing=()
need() {
  local what="$1"
  shift
  "$@" || missing+=("$what ($*)")
}

need "headless Chromium: test/web/browser, test/e2e/browser-page" bash scripts/ensure-chromium.sh
need "PM2: test/e2e/agent-cartesia" bash scripts/ensure-pm2.sh
need "livekit-server, Redis, iproute2: test/e2e" bash scripts/livekit/install.sh
need "the Python peers' venv: test/peers" bash scripts/peers/ensure-venv.sh
need "the Smart Turn model: test/turn/smart-turn" bash scripts/peers/ensure-smart-turn.sh

if [ "${#missing[@]}" -gt 0 ]; then
  echo "npm test: cannot run every suite; these components could not be installed (the reason is above each):" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  exit 1
fi
