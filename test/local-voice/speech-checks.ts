// Cheap acoustic checks that tell speech from silence or noise-free placeholders.

export function samplesOf(pcm: Buffer): Int16Array {
  const samples = new Int16Array(Math.floor(pcm.length / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2);
  return samples;
}

export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

/** Share of 20 ms windows whose RMS is above `threshold`: speech is voiced most of the time. */
export function voicedShare(samples: Int16Array, sampleRate: number, threshold = 300): number {
  const window = Math.round(sampleRate * 0.02);
  let voiced = 0;
  let total = 0;
  for (let i = 0; i + window <= samples.length; i += window) {
    total++;
    if (rms(samples.subarray(i, i + window)) > threshold) voiced++;
  }
  return total === 0 ? 0 : voiced / total;
}

/**
 * Duration bounds for a text spoken at a normal rate: Korean by syllable, English by letter.
 * Deliberately wide (about 3x either side of eSpeak's rate) — they catch truncation or runaway
 * audio, not prosody.
 */
export function plausibleSeconds(text: string): { min: number; max: number } {
  const syllables = (text.match(/[\uac00-\ud7af]/gu) ?? []).length;
  const letters = (text.match(/[A-Za-z]/g) ?? []).length;
  return { min: syllables * 0.06 + letters * 0.02, max: 0.5 + syllables * 0.5 + letters * 0.2 };
}
