#!/usr/bin/env bash
# Smart Turn v3.2 (the audio end-of-turn model of TURN_DETECTOR=combined, BSD-2-Clause) taken out of
# the pipecat-ai wheel on PyPI — the package that ships it — at install time, never from a model hub
# while a call runs. Writes models/smart-turn-v3.2-cpu.onnx (or $1) and checks both the wheel and
# the model against pinned digests. Idempotent: a model with the right digest is left alone.
# Needs pip (python3 -m pip); exits non-zero with one line saying why.
set -euo pipefail
cd "$(dirname "$0")/../.."

WHEEL_VERSION=1.14.0
WHEEL_SHA256=0352f504b44e78bdf524e45af4bc759601c835b9b7dc195efe5e03384b974a44
MODEL_IN_WHEEL=pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx
MODEL_SHA256=2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f
TARGET="${1:-models/smart-turn-v3.2-cpu.onnx}"
PYTHON="${PEERS_PYTHON:-python3}"

if [ -f "$TARGET" ] && [ "$(sha256sum "$TARGET" | cut -d' ' -f1)" = "$MODEL_SHA256" ]; then
  echo "smart turn: $TARGET up to date"
  exit 0
fi
if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  echo "smart turn: '$PYTHON -m pip' does not work here (Debian: apt-get install python3-pip)" >&2
  exit 1
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
echo "smart turn: downloading pipecat-ai==$WHEEL_VERSION from PyPI for its model..."
"$PYTHON" -m pip download --disable-pip-version-check --no-input -q --no-deps "pipecat-ai==$WHEEL_VERSION" -d "$scratch"
wheel="$scratch/pipecat_ai-$WHEEL_VERSION-py3-none-any.whl"
if [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$WHEEL_SHA256" ]; then
  echo "smart turn: $wheel does not match its pinned sha256" >&2
  exit 1
fi
mkdir -p "$(dirname "$TARGET")"
"$PYTHON" -c 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$wheel" "$MODEL_IN_WHEEL" "$scratch/model.onnx"
if [ "$(sha256sum "$scratch/model.onnx" | cut -d' ' -f1)" != "$MODEL_SHA256" ]; then
  echo "smart turn: the model in the wheel does not match its pinned sha256" >&2
  exit 1
fi
mv "$scratch/model.onnx" "$TARGET"
echo "smart turn: $TARGET ready ($(stat -c %s "$TARGET") bytes)"
