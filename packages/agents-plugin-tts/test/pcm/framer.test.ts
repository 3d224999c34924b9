import { AudioByteStream, initializeLogger } from '@livekit/agents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PcmFramer } from '../../src/pcm/framer.js';

initializeLogger({ pretty: false, level: 'warn' });

const samplesOf = (frames: { data: Int16Array; samplesPerChannel: number }[]) =>
  frames.flatMap((f) => Array.from(f.data.subarray(0, f.samplesPerChannel)));

describe('PcmFramer of bytes', () => {
  it('cuts whole frames across writes and flushes the rest as one shorter frame', () => {
    const splitter = new PcmFramer(24000, 1, 4);
    const pcm = Buffer.from(new Int16Array([1, -2, 3, -4, 5, -6, 7, -8, 9, -10]).buffer);
    const first = splitter.write(pcm.subarray(0, 5)); // 2.5 samples: a split sample waits
    expect(first).toHaveLength(0);
    const second = splitter.write(pcm.subarray(5));
    expect(second.map((f) => f.samplesPerChannel)).toEqual([4, 4]);
    expect(samplesOf(second)).toEqual([1, -2, 3, -4, 5, -6, 7, -8]);
    const rest = splitter.flush();
    expect(rest.map((f) => [f.samplesPerChannel, f.sampleRate, f.channels])).toEqual([[2, 24000, 1]]);
    expect(samplesOf(rest)).toEqual([9, -10]);
    expect(splitter.flush()).toEqual([]);
  });

  it('never lets a later write change an emitted frame', () => {
    const splitter = new PcmFramer(16000, 1, 2);
    const [frame] = splitter.write(Buffer.from(new Int16Array([11, 12]).buffer));
    splitter.write(Buffer.from(new Int16Array([13, 14, 15]).buffer));
    expect(Array.from(frame!.data)).toEqual([11, 12]);
  });

  it('produces exactly the frames AudioByteStream does, for any split of the bytes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 400 }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 50 }),
        (samples, cuts, frameSamples) => {
          const bytes = Buffer.from(new Int16Array(samples).buffer);
          const ours = new PcmFramer(24000, 1, frameSamples);
          const theirs = new AudioByteStream(24000, 1, frameSamples);
          const a: number[][] = [];
          const b: number[][] = [];
          let offset = 0;
          for (let k = 0; offset < bytes.length; k++) {
            // Even-sized pieces, as the driver's PCM reassembler hands them over.
            const size = cuts[k % cuts.length]! * 2;
            const piece = bytes.subarray(offset, offset + size);
            offset += size;
            a.push(...ours.write(piece).map((f) => Array.from(f.data.subarray(0, f.samplesPerChannel))));
            b.push(...theirs.write(piece).map((f) => Array.from(f.data.subarray(0, f.samplesPerChannel))));
          }
          a.push(...ours.flush().map((f) => Array.from(f.data.subarray(0, f.samplesPerChannel))));
          b.push(...theirs.flush().map((f) => Array.from(f.data.subarray(0, f.samplesPerChannel))));
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('PcmFramer with longer frames for audio in hand', () => {
  it('hands an 85 ms block over as one 80 ms frame and holds the 5 ms rest', () => {
    const framer = PcmFramer.ofDuration(24000, 20, 100);
    const frames = framer.write(new Int16Array(2040));
    expect(frames.map((f) => f.samplesPerChannel)).toEqual([1920]);
    expect(framer.write(new Int16Array(360)).map((f) => f.samplesPerChannel)).toEqual([480]);
    expect(framer.flush()).toEqual([]);
  });

  it('emits every whole unit at once, in as few frames as the longest allows, every sample once (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1200 }), { minLength: 1, maxLength: 16 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 3 }),
        (blocks, unit, maxUnits, extra) => {
          // A longest frame that is not a whole number of units rounds down to one.
          const framer = new PcmFramer(16000, 1, unit, unit * maxUnits + Math.min(extra, unit - 1));
          let next = 0;
          let written = 0;
          let emitted = 0;
          const all: number[] = [];
          for (const n of blocks) {
            const frames = framer.write(Int16Array.from({ length: n }, () => next++ % 30000));
            written += n;
            for (const f of frames) {
              expect(f.samplesPerChannel % unit).toBe(0);
              expect(f.samplesPerChannel).toBeLessThanOrEqual(unit * maxUnits);
              all.push(...f.data.subarray(0, f.samplesPerChannel));
              emitted += f.samplesPerChannel;
            }
            // Only a write's last frame may be shorter than the longest: no more frames than needed.
            for (const f of frames.slice(0, -1)) expect(f.samplesPerChannel).toBe(unit * maxUnits);
            // Nothing waits for audio that has not come: less than one unit is ever held back.
            expect(emitted).toBe(Math.floor(written / unit) * unit);
          }
          for (const f of framer.flush()) all.push(...f.data.subarray(0, f.samplesPerChannel));
          expect(all).toEqual(Array.from({ length: written }, (_, i) => i % 30000));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never lets a later write change an emitted frame', () => {
    const framer = new PcmFramer(16000, 1, 2, 6);
    const [frame] = framer.write(Int16Array.from([1, 2, 3, 4, 5]));
    framer.write(Int16Array.from([6, 7, 8, 9, 10, 11, 12]));
    expect(Array.from(frame!.data)).toEqual([1, 2, 3, 4]);
  });

  it('refuses a longest frame shorter than the shortest', () => {
    expect(() => new PcmFramer(16000, 1, 320, 160)).toThrow(/maxSamplesPerFrame/);
  });
});

describe('PcmFramer of samples', () => {
  it('cuts frames of exactly the asked length from blocks of any size, the rest flushed once (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(8000, 16000, 24000, 48000),
        fc.integer({ min: 1, max: 100 }),
        (blocks, rate, frameMs) => {
          const framer = PcmFramer.ofDuration(rate, frameMs);
          const frameSamples = Math.round((rate * frameMs) / 1000);
          let next = 0;
          const all: number[] = [];
          const frames = blocks.flatMap((n) => framer.write(Int16Array.from({ length: n }, () => next++ % 30000)));
          for (const f of frames) expect(f.samplesPerChannel).toBe(frameSamples);
          const rest = framer.flush();
          const total = blocks.reduce((a, b) => a + b, 0);
          expect(rest.map((f) => f.samplesPerChannel)).toEqual(total % frameSamples ? [total % frameSamples] : []);
          for (const f of [...frames, ...rest]) all.push(...f.data.subarray(0, f.samplesPerChannel));
          expect(all).toEqual(Array.from({ length: total }, (_, i) => i % 30000));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads a sample view at its own offset', () => {
    const framer = new PcmFramer(16000, 1, 3);
    const backing = Int16Array.from([9, 9, 1, 2, 3, 9]);
    const [frame] = framer.write(backing.subarray(2, 5));
    expect(Array.from(frame!.data)).toEqual([1, 2, 3]);
  });
});
