import { AudioFrame, AudioResamplerQuality } from '@livekit/rtc-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PcmResampler, resampleClip } from '../../src/pcm/resample.js';

const RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;
const tone = (n: number, period = 5) => Int16Array.from({ length: n }, (_, k) => Math.round(Math.sin(k / period) * 10000));
const flat = (blocks: Int16Array[]) => blocks.flatMap((b) => Array.from(b));

/** All of `input` through one resampler, cut at `cuts` (sample counts, repeated). */
function resampleInPieces(input: Int16Array, inputRate: number, outputRate: number, cuts: number[]): number[] {
  const r = new PcmResampler(outputRate);
  const out: Int16Array[] = [];
  for (let at = 0, k = 0; at < input.length; k++) {
    const size = cuts[k % cuts.length]!;
    out.push(...r.push(input.slice(at, at + size), inputRate));
    at += size;
  }
  out.push(...r.flush());
  return flat(out);
}

describe('PcmResampler', () => {
  it('passes audio already at the output rate through unchanged and holds nothing back', () => {
    const r = new PcmResampler(24000);
    const input = tone(480);
    expect(flat(r.push(input, 24000))).toEqual(Array.from(input));
    expect(r.flush()).toEqual([]);
  });

  /** Input rate, output rate, input length and how the input is cut into pushes. */
  const resampleCase = [
    fc.constantFrom(...RATES),
    fc.constantFrom(...RATES),
    fc.integer({ min: 1, max: 3000 }),
    fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 6 }),
  ] as const;

  it('gives the duration at the output rate, to a sample, however the input is cut (property)', () => {
    fc.assert(
      fc.property(
        ...resampleCase,
        (inputRate, outputRate, n, cuts) => {
          const out = resampleInPieces(tone(n), inputRate, outputRate, cuts);
          expect(Math.abs(out.length - (n * outputRate) / inputRate)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('loses no sample across pushes: pieces give what one push gives (property)', () => {
    fc.assert(
      fc.property(
        ...resampleCase,
        (inputRate, outputRate, n, cuts) => {
          const input = tone(n);
          const whole = resampleInPieces(input, inputRate, outputRate, [n]);
          const pieces = resampleInPieces(input, inputRate, outputRate, cuts);
          expect(pieces.length).toBe(whole.length);
          // The native filter rounds a little differently per call; a lost or repeated sample would be thousands off.
          const worst = pieces.reduce((m, v, i) => Math.max(m, Math.abs(v - whole[i]!)), 0);
          expect(worst).toBeLessThanOrEqual(4);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('resamples a sub-view of a larger buffer from its own samples, not from the buffer start', () => {
    const signal = tone(2400);
    const backing = new Int16Array(400 + signal.length).fill(30000);
    backing.set(signal, 400);
    const view = backing.subarray(400);
    const fromView = new PcmResampler(48000);
    const fromCopy = new PcmResampler(48000);
    const a = flat([...fromView.push(view, 24000), ...fromView.flush()]);
    const b = flat([...fromCopy.push(signal.slice(), 24000), ...fromCopy.flush()]);
    expect(a.length).toBe(b.length);
    // Two native filters round by a unit or two apart; audio read from the wrong bytes is thousands off.
    expect(a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0)).toBeLessThanOrEqual(4);
    expect(Array.from(view)).toEqual(Array.from(signal)); // the caller's view is left as it was
  });

  it('drains the old rate before a new one starts: nothing of either is lost', () => {
    const r = new PcmResampler(24000);
    const first = flat(r.push(tone(1600), 16000));
    const second = flat([...r.push(tone(4800), 48000), ...r.flush()]);
    expect(first.length + second.length).toBe(2400 + 2400);
  });

  it('keeps a clip`s duration when converting 22.05 kHz to 48 kHz', () => {
    const r = new PcmResampler(48000, { quality: AudioResamplerQuality.HIGH });
    const out = flat([...r.push(tone(22050), 22050), ...r.flush()]);
    expect(out.length).toBe(48000);
  });
});

describe('resampleClip', () => {
  const frame = (samples: Int16Array, rate: number) => new AudioFrame(samples, rate, 1, samples.length);

  it('returns the same frames when the clip is already at the output rate', () => {
    const frames = [frame(tone(240), 24000), frame(tone(240), 24000)];
    const out = resampleClip(frames, 24000);
    expect(out).toEqual(frames);
  });

  it('converts every frame of a clip to the output rate, the filter`s tail included', () => {
    const frames = [frame(tone(2205), 22050), frame(tone(2205), 22050), frame(tone(1103), 22050)];
    const out = resampleClip(frames, 16000);
    expect(out.every((f) => f.sampleRate === 16000 && f.samplesPerChannel > 0)).toBe(true);
    const total = out.reduce((n, f) => n + f.samplesPerChannel, 0);
    expect(Math.abs(total - (5513 * 16000) / 22050)).toBeLessThanOrEqual(1);
  });

  it('keeps frames at the output rate in place between frames it converts', () => {
    const atRate = frame(tone(160), 16000);
    const out = resampleClip([frame(tone(480), 48000), atRate, frame(tone(480), 48000)], 16000);
    expect(out).toContain(atRate);
    expect(out.reduce((n, f) => n + f.samplesPerChannel, 0)).toBe(160 * 3);
  });
});
