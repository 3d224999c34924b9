"""Word timings of recorded English turns for bench:turn --human (bench/turn/timed-words.ts).

For every NAME.wav (16-bit mono PCM) of each directory given that has no NAME.words.json yet,
runs PocketSphinx's US English model over the whole recording and writes NAME.words.json:
[[word, startMs, endMs], ...] from the file's start. Silences, noise tokens and sentence marks are
left out; alternative pronunciations ("was(2)") are written as their word.

PocketSphinx is an old, small recogniser: on clean read speech most words are right, on noisy
or spontaneous speech many are not. What matters to the bench is which words come before each
pause, so its errors are counted as such in the report that uses them, never corrected by hand.
"""
import json
import os
import re
import sys
import wave

from pocketsphinx import Decoder

SKIP = re.compile(r"^(<s>|</s>|<sil>|\[.*\]|\+\+.*\+\+)$")
VARIANT = re.compile(r"\(\d+\)$")
FRAMES_PER_SECOND = 100


def words_of(path):
    with wave.open(path) as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{path}: only 16-bit mono PCM")
        rate, audio = w.getframerate(), w.readframes(w.getnframes())
    decoder = Decoder(samprate=rate, loglevel="FATAL")
    decoder.start_utt()
    decoder.process_raw(audio, full_utt=True)
    decoder.end_utt()
    out = []
    for seg in decoder.seg():
        if SKIP.match(seg.word):
            continue
        start = round(seg.start_frame * 1000 / FRAMES_PER_SECOND)
        end = round((seg.end_frame + 1) * 1000 / FRAMES_PER_SECOND)
        out.append([VARIANT.sub("", seg.word), start, end])
    return out


def main(dirs):
    if not dirs:
        print("usage: words.py DIR [DIR ...]", file=sys.stderr)
        return 2
    written = 0
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.lower().endswith(".wav"):
                continue
            target = os.path.join(d, name[:-4] + ".words.json")
            if os.path.exists(target):
                continue
            words = words_of(os.path.join(d, name))
            if not words:
                print(f"{name}: no word recognised, nothing written", file=sys.stderr)
                continue
            with open(target, "w", encoding="utf-8") as f:
                json.dump(words, f)
            written += 1
    print(f"wrote {written} word-timed transcripts")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
