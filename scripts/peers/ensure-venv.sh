#!/usr/bin/env bash
# The Python peers' virtual environment (bench/peers/README.md): .venv-peers/ at the repository
# root, built from bench/peers/python/requirements.txt (every package pinned), never the system
# Python's site-packages. Idempotent: a venv whose stamp matches the requirements is left alone.
# Exits non-zero with one line saying why when it cannot build the venv.
set -euo pipefail
cd "$(dirname "$0")/../.."

VENV=.venv-peers
REQUIREMENTS=bench/peers/python/requirements.txt
STAMP="$VENV/.requirements.sha256"
PYTHON="${PEERS_PYTHON:-python3}"

wanted="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$wanted" ]; then
  echo "peers venv: $VENV up to date"
  exit 0
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "peers venv: no $PYTHON on PATH (the Python peers need Python >= 3.11)" >&2
  exit 1
fi
# pipecat-ai 1.14 requires Python >= 3.11.
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "peers venv: $("$PYTHON" --version 2>&1) is too old (pipecat-ai needs >= 3.11)" >&2
  exit 1
fi

# Debian's python3 ships venv's ensurepip separately (python3-venv); install it only when missing.
probe="$(mktemp -d)"
if ! "$PYTHON" -m venv "$probe/venv" >/dev/null 2>&1; then
  if [ "$(command -v "$PYTHON")" = /usr/bin/python3 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    echo "peers venv: '$PYTHON -m venv' does not work; installing Debian's python3-venv"
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  fi
  if ! "$PYTHON" -m venv "$probe/venv" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "peers venv: '$PYTHON -m venv' does not work here (Debian: apt-get install python3-venv)" >&2
    exit 1
  fi
fi
rm -rf "$probe"

echo "peers venv: building $VENV from $REQUIREMENTS ($("$PYTHON" --version 2>&1))..."
started=$SECONDS
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$REQUIREMENTS"
echo "$wanted" > "$STAMP"
echo "peers venv: ready in $((SECONDS - started)) s"
