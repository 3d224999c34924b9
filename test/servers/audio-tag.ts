/**
 * Deterministic "speech" shared by the protocol test servers.
 *
 * Every sample of one request's audio has the same magnitude, derived from the request's text, and
 * alternating sign (an audible square wave, not DC). A test that reads the client's output can
 * therefore tell, sample by sample, which chunk of text produced it — even across reconnects —
 * which is how "each chunk voiced exactly once, in order, and nothing stale" is asserted.
 */

const MIN_TAG = 1000;
const TAG_RANGE = 30000;

/** FNV-1a over UTF-16 code units: stable, fast, no dependencies. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Magnitude (1000..30999) that identifies a piece of text in the synthesized audio. */
export function tagForText(text: string): number {
  return MIN_TAG + (fnv1a(text) % TAG_RANGE);
}

/** Number of samples a text produces at `sampleRate`, given `msPerChar` of audio per character. */
export function samplesForText(text: string, sampleRate: number, msPerChar: number): number {
  const chars = Math.max(1, [...text].length);
  return Math.max(2, Math.round((chars * msPerChar * sampleRate) / 1000));
}

/**
 * The audible voice's pitches: 20 tones 25 Hz apart (150–625 Hz), far below Opus's cut-off and
 * far enough apart for a zero-crossing estimate through a room. A server hands them out in turn
 * (one per voiced piece) and says which piece got which, so tones stay apart however a client
 * cuts its text.
 */
export const AUDIBLE_TONES_HZ: readonly number[] = Array.from({ length: 20 }, (_, i) => 150 + 25 * i);

/**
 * The same length of audio as `synthesizeTaggedPcm16(text…)`, as a speech-band tone at `hz`, at a
 * speech-like level (-12 dBFS). The tagged square wave sits at half the sample rate, which a lossy
 * codec (Opus through a LiveKit room) removes; this one survives, though no longer sample by
 * sample attributable.
 */
export function synthesizeAudiblePcm16(text: string, sampleRate: number, msPerChar: number, hz: number): Buffer {
  const n = samplesForText(text, sampleRate, msPerChar);
  const out = Buffer.allocUnsafe(n * 2);
  const amplitude = 0.25 * 32767;
  for (let i = 0; i < n; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate)), i * 2);
  return out;
}

/** Signed 16-bit little-endian PCM for `text`: `samplesForText` samples of ±tag. */
export function synthesizeTaggedPcm16(text: string, sampleRate: number, msPerChar: number): Buffer {
  const tag = tagForText(text);
  const n = samplesForText(text, sampleRate, msPerChar);
  const out = Buffer.allocUnsafe(n * 2);
  for (let i = 0; i < n; i++) out.writeInt16LE(i % 2 === 0 ? tag : -tag, i * 2);
  return out;
}

/**
 * Splits a run of samples into consecutive runs of equal magnitude: `[{tag, samples}]`.
 * Silence (0) is reported as tag 0 so gaps are visible too.
 */
export function tagRuns(samples: Int16Array): Array<{ tag: number; samples: number }> {
  const runs: Array<{ tag: number; samples: number }> = [];
  for (const s of samples) {
    const tag = Math.abs(s);
    const last = runs[runs.length - 1];
    if (last && last.tag === tag) last.samples++;
    else runs.push({ tag, samples: 1 });
  }
  return runs;
}

/**
 * The voiced runs only: silence (e.g. a 1-sample `final` marker frame) is skipped, so runs of the
 * same tag split by it merge. This is "what was heard, in order" for the provider tests.
 */
export function heardRuns(samples: Int16Array): Array<{ tag: number; samples: number }> {
  const runs: Array<{ tag: number; samples: number }> = [];
  for (const s of samples) {
    const tag = Math.abs(s);
    if (tag === 0) continue;
    const last = runs[runs.length - 1];
    if (last && last.tag === tag) last.samples++;
    else runs.push({ tag, samples: 1 });
  }
  return runs;
}
