"""Which texts a frame of the bench servers' tagged audio came from (test/servers/audio-tag.ts).

Every sample of one request's audio has magnitude tagForText(text); the bench maps these tags
back to the texts the server received, which is how stale audio after a barge-in is counted.
"""

import numpy as np


def frame_tags(pcm16: bytes | memoryview) -> list[int]:
    """The distinct non-zero sample magnitudes of a 16-bit PCM frame, ascending (at most 16:
    more means the audio is no longer the servers' tagged audio, e.g. after resampling)."""
    samples = np.frombuffer(pcm16, dtype=np.int16)
    if samples.size == 0:
        return []
    magnitudes = np.unique(np.abs(samples.astype(np.int32)))
    return [int(m) for m in magnitudes[magnitudes != 0][:16]]
