#!/usr/bin/env bash
# Word-timed transcripts of recorded English turns: bash bench/turn/transcribe/run.sh DIR [DIR ...]
# writes NAME.words.json beside each NAME.wav that has none (bench/turn/transcribe/words.py), in a
# virtual environment of its own (.venv-transcribe/, exactly requirements.txt), never the system's.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
VENV="$root/.venv-transcribe"
REQUIREMENTS="$root/bench/turn/transcribe/requirements.txt"
STAMP="$VENV/.requirements.sha256"
wanted="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if ! [ -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$wanted" ]; then
  echo "transcribe: building $VENV from $REQUIREMENTS..." >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$REQUIREMENTS"
  echo "$wanted" > "$STAMP"
fi
exec "$VENV/bin/python" "$root/bench/turn/transcribe/words.py" "$@"
