#!/usr/bin/env bash
# Runs the unit suites (vitest project `unit`) on another Node release line than the machine's,
# e.g. `bash scripts/test-on-node.sh 24`. That Node comes first on PATH, so whatever the suites
# spawn (`node`, `npx`, tsx) runs on it too. Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "$0")/.."

line="${1:-24}"
shift || true
node_bin="$(bash scripts/ensure-node.sh "$line")"
export PATH="$(dirname "$node_bin"):$PATH"
echo "unit suites on Node $(node --version)"
exec node node_modules/vitest/vitest.mjs run --project unit "$@"
