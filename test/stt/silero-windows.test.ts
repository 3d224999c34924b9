/**
 * The Silero plugin's windowing, run through the real model: frames whose sizes do not line up
 * with its 512-sample (32 ms at 16 kHz) window must neither lose audio nor leave a complete window
 * waiting for the next frame.
 *
 * Each frame is pushed only after the stream has finished with the previous one (it asks its input
 * for the next frame only once every window it can run has run), so what has been judged after
 * each frame is exact, not a matter of timing.
 *
 * `@livekit/agents-plugin-silero` 1.9.0 rebuilt the audio left over after a window with
 * `samplesPerChannel = data.length / 2`, a line ported from Python where `data` is bytes; here it
 * is already mono Int16 samples. The samples themselves were kept (windows, timestamps and the
 * frames handed on were right), but the loop sums `samplesPerChannel` to decide whether a window
 * is complete, so complete windows waited for the next frame. patches/ fixes it.
 */
import { initializeLogger } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { AudioFrame } from '@livekit/rtc-node';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import { MODEL_RATE, SteppedStream, modelSamplesAfterEach } from '../helpers/stepped-vad.js';

initializeLogger({ pretty: false, level: 'error' });

const WINDOW = 512;

/** `samples` cut into consecutive frames of the given sizes, repeated until all are used. */
function cut(samples: Int16Array, rate: number, sizes: readonly number[]): AudioFrame[] {
  const frames: AudioFrame[] = [];
  for (let offset = 0, i = 0; offset < samples.length; i++) {
    const size = Math.min(sizes[i % sizes.length]!, samples.length - offset);
    frames.push(new AudioFrame(samples.slice(offset, offset + size), rate, 1, size));
    offset += size;
  }
  return frames;
}

/** Low noise with a tone burst in it, so the model has something to judge (any signal will do here). */
function signal(rate: number, ms: number): Int16Array {
  const out = new Int16Array(Math.round((rate * ms) / 1000));
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const t = i / rate;
    const tone = t > 0.3 && t < 0.9 ? 8000 * Math.sin(2 * Math.PI * 220 * t) : 0;
    out[i] = Math.round(tone + ((seed % 200) - 100));
  }
  return out;
}

function concat(frames: AudioFrame[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, f) => n + f.data.length, 0));
  let offset = 0;
  for (const f of frames) {
    out.set(f.data, offset);
    offset += f.data.length;
  }
  return out;
}

describe('Silero windows over frames that do not line up with them', () => {
  let vad: silero.VAD;

  beforeAll(async () => {
    vad = (await withTimeout(silero.VAD.load(), 15_000, 'Silero load')) as silero.VAD;
  }, 20_000);

  // 10 ms and 20 ms are what rooms and phones deliver; the odd sizes straddle the window.
  const cases: { rate: number; sizes: number[] }[] = [
    { rate: 16000, sizes: [160] },
    { rate: 16000, sizes: [320] },
    { rate: 16000, sizes: [1600] },
    { rate: 16000, sizes: [333, 7, 1000, 511, 513] },
    { rate: 48000, sizes: [480] },
    { rate: 48000, sizes: [960] },
    { rate: 48000, sizes: [997, 1536, 31, 2048] },
  ];

  for (const { rate, sizes } of cases) {
    it(`runs every complete window as soon as its audio is in, and hands on every input sample once (${rate} Hz, frames of ${sizes.join('/')})`, async () => {
      const audio = signal(rate, 1500);
      const frames = cut(audio, rate, sizes);
      const modelSamples = modelSamplesAfterEach(frames);
      const stepped = new SteppedStream(vad.stream());
      const judged: number[] = [];
      for (const frame of frames) {
        await stepped.push(frame);
        judged.push(stepped.windows().length);
      }
      stepped.close();

      const windows = stepped.windows();
      windows.forEach((w, i) => {
        expect(w.samplesIndex).toBe((i + 1) * WINDOW);
        expect(w.timestamp).toBeCloseTo(((i + 1) * WINDOW * 1000) / MODEL_RATE, 6);
        for (const f of w.frames) expect(f.samplesPerChannel).toBe(f.data.length);
      });
      // The input-rate audio attached to the windows is the input, in order, none lost or repeated.
      const handedOn = concat(windows.flatMap((w) => w.frames));
      const ratio = rate / MODEL_RATE;
      expect(handedOn.length).toBe(Math.trunc(windows.length * WINDOW * ratio + 1e-9));
      expect(handedOn).toEqual(audio.subarray(0, handedOn.length));
      // After each frame, every window whose audio has arrived has been run: none left waiting.
      const waiting = modelSamples.map((n, i) => n - judged[i]! * WINDOW);
      expect(judged, `model-rate samples left unjudged after each frame: ${waiting.join(' ')}`).toEqual(modelSamples.map((n) => Math.floor(n / WINDOW)));
    }, 30_000);
  }

  it('says the same thing, window for window, however 16 kHz audio is cut into frames', async () => {
    const audio = signal(MODEL_RATE, 1500);
    const reference = new SteppedStream(vad.stream());
    for (const frame of cut(audio, MODEL_RATE, [WINDOW])) await reference.push(frame);
    reference.close();
    const summary = (s: SteppedStream) => s.events.map((e) => `${e.type}@${e.samplesIndex}:${e.probability.toFixed(6)}`);
    const expected = summary(reference);
    expect(expected.length).toBeGreaterThan(40);

    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 8 }), async (sizes) => {
        const stepped = new SteppedStream(vad.stream());
        for (const frame of cut(audio, MODEL_RATE, sizes)) await stepped.push(frame);
        stepped.close();
        expect(summary(stepped)).toEqual(expected);
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
