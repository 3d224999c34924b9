"""Writes test/turn/fixtures/smart-turn-reference.json: Smart Turn v3's input features for a short
synthetic signal, computed by pipecat's own code (pipecat-ai in .venv-peers: its numpy copy of
transformers' WhisperFeatureExtractor), for the TypeScript front end to be checked against.

    bash scripts/peers/ensure-venv.sh && .venv-peers/bin/python scripts/peers/smart-turn-fixture.py

With --probability it writes nothing and prints the bundled ONNX model's answer for the signal as
JSON ({"probability": p}). The tests ask for it on the machine they run on: onnxruntime's int8
kernels differ from CPU to CPU (AVX2 against AVX-512 VNNI moved this answer from 0.0067 to
0.0103), while on one CPU Python's and Node's builds agree to a few 1e-4.

The signal is built from a formula both sides evaluate (test/turn/smart-turn-signal.ts): no audio
is stored, only numbers computed from it.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from pipecat.audio.turn.smart_turn import _whisper_features as wf
from pipecat.audio.turn.smart_turn.data import __file__ as data_init

SAMPLE_RATE = 16000
FRAMES = [0, 399, 600, 700, 750, 770, 780, 790, 795, 799]


def signal() -> np.ndarray:
    """1.2 s of a harmonic 'vowel' with a 50 ms onset and 100 ms fade, noise under it, 0.3 s of silence."""
    n = int(1.6 * SAMPLE_RATE)
    state = 2463534242
    out = np.zeros(n, dtype=np.float64)
    for i in range(n):
        t = i / SAMPLE_RATE
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        noise = state / 4294967296.0 - 0.5
        env = min(1.0, t / 0.05) * (1.0 if t < 1.2 else max(0.0, 1.0 - (t - 1.2) / 0.1))
        voice = sum((0.3 / h) * math.sin(2 * math.pi * h * 150 * t + h) for h in range(1, 7))
        out[i] = env * voice + 0.01 * noise
    return out.astype(np.float32)


def main() -> None:
    x = signal()
    window = np.pad(x, (8 * SAMPLE_RATE - x.size, 0))
    features = wf.compute_whisper_log_mel_features(window, do_normalize=True)
    if "--probability" in sys.argv[1:]:
        model = Path(data_init).parent / "smart-turn-v3.2-cpu.onnx"
        session = ort.InferenceSession(str(model))
        probability = float(session.run(None, {"input_features": features[None, :, :]})[0][0].item())
        print(json.dumps({"probability": probability}))
        return
    fixture = {
        "source": "pipecat-ai 1.14.0: pipecat/audio/turn/smart_turn/_whisper_features.py, smart-turn-v3.2-cpu.onnx",
        "signalSamples": int(x.size),
        "signalSum": float(np.sum(x.astype(np.float64))),
        "shape": list(features.shape),
        "min": float(features.min()),
        "max": float(features.max()),
        "mean": float(features.mean(dtype=np.float64)),
        "frames": {str(f): [round(float(v), 6) for v in features[:, f]] for f in FRAMES},
    }
    out = Path(__file__).resolve().parents[2] / "test/turn/fixtures/smart-turn-reference.json"
    frames = fixture.pop("frames")
    body = json.dumps(fixture, indent=1)[:-2]
    rows = ",\n".join(f'  "{f}": {json.dumps(v)}' for f, v in frames.items())
    out.write_text(f'{body},\n "frames": {{\n{rows}\n }}\n}}\n')
    print(f"wrote {out}: features {features.min():.3f}..{features.max():.3f}")


if __name__ == "__main__":
    main()
