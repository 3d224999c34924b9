/**
 * The two framework helpers every input frame passes through, as patched in `patches/`:
 * `mergeFrames` (Silero joins its pending frames with it on every 32 ms window) and
 * `AudioByteStream.write` (the OpenAI STT re-frames every input frame with it). @livekit/agents
 * 1.9.0 built both by spreading the whole buffer into a new array element by element; the patch
 * copies each input once. These tests hold the patched helpers to what the originals returned:
 * the same samples in the same order, the same frame boundaries, the same errors.
 */
import { AudioByteStream, initializeLogger, mergeFrames } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

initializeLogger({ pretty: false, level: 'error' });

const sampleArray = fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 700 });

function frameOf(samples: number[], sampleRate = 24_000, channels = 1): AudioFrame {
  return new AudioFrame(Int16Array.from(samples), sampleRate, channels, samples.length / channels);
}

describe('mergeFrames (patched)', () => {
  it('joins the frames’ samples in order and sums their lengths', () => {
    fc.assert(
      fc.property(fc.array(sampleArray, { minLength: 1, maxLength: 12 }), (chunks) => {
        const merged = mergeFrames(chunks.map((c) => frameOf(c)));
        expect(Array.from(merged.data)).toEqual(chunks.flat());
        expect(merged.samplesPerChannel).toBe(chunks.flat().length);
        expect(merged.sampleRate).toBe(24_000);
        expect(merged.channels).toBe(1);
      }),
    );
  });

  it('keeps interleaved stereo samples and counts samples per channel', () => {
    const merged = mergeFrames([frameOf([1, -1, 2, -2], 48_000, 2), frameOf([3, -3], 48_000, 2)]);
    expect(Array.from(merged.data)).toEqual([1, -1, 2, -2, 3, -3]);
    expect(merged.samplesPerChannel).toBe(3);
  });

  it('reads a frame that is a view into a larger buffer, not the whole buffer', () => {
    const backing = Int16Array.from([9, 9, 1, 2, 3, 9]);
    const view = new AudioFrame(backing.subarray(2, 5), 16_000, 1, 3);
    expect(Array.from(mergeFrames([view, frameOf([4], 16_000)]).data)).toEqual([1, 2, 3, 4]);
  });

  it('refuses an empty list and frames that do not match the first', () => {
    expect(() => mergeFrames([])).toThrow('buffer is empty');
    expect(() => mergeFrames([frameOf([1], 16_000), frameOf([2], 24_000)])).toThrow('sample rate mismatch');
    expect(() => mergeFrames([frameOf([1, 1], 16_000, 2), frameOf([2], 16_000, 1)])).toThrow('channel count mismatch');
  });
});

describe('AudioByteStream.write (patched)', () => {
  it('cuts any sequence of writes into whole frames as soon as they are complete, losing and reordering nothing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 20 }),
        fc.boolean(),
        (samplesPerFrame, writes, asViews) => {
          const stream = new AudioByteStream(8_000, 1, samplesPerFrame);
          const bytesPerFrame = samplesPerFrame * 2;
          const out: number[] = [];
          let written = 0;
          for (const bytes of writes) {
            // A view into a larger buffer (what a decoder hands over) must give its own bytes only.
            const input = asViews ? new Uint8Array([7, ...bytes, 7]).subarray(1, bytes.length + 1) : bytes;
            const frames = stream.write(input);
            written += bytes.length;
            expect(out.length / 2 + frames.reduce((n, f) => n + f.samplesPerChannel, 0)).toBe(Math.floor(written / bytesPerFrame) * samplesPerFrame);
            for (const frame of frames) {
              expect(frame.samplesPerChannel).toBe(samplesPerFrame);
              out.push(...new Uint8Array(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength));
            }
          }
          const all = writes.flatMap((b) => Array.from(b));
          const rest = stream.flush();
          if (written % 2 === 0) for (const frame of rest) out.push(...new Uint8Array(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength));
          // An odd byte left over cannot make a sample: flush drops the incomplete remainder, as the original did.
          const expected = written % 2 === 0 ? all : all.slice(0, Math.floor(written / bytesPerFrame) * bytesPerFrame);
          expect(out).toEqual(expected);
        },
      ),
    );
  });

  it('takes an ArrayBuffer as well as a view', () => {
    const stream = new AudioByteStream(8_000, 1, 2);
    const frames = stream.write(Int16Array.from([5, -6, 7]).buffer);
    expect(frames).toHaveLength(1);
    expect(Array.from(frames[0]!.data)).toEqual([5, -6]);
    expect(Array.from(stream.flush()[0]!.data)).toEqual([7]);
  });
});
