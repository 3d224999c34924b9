/**
 * The acknowledgement audio a worker's job processes share (src/ack/audio-store.ts): what is
 * written is read back sample for sample, frame for frame, and anything else — another phrase's
 * file, a torn or foreign file — reads as absent, so the phrase is synthesized instead.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initializeLogger } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AckAudioKey, decodeAckAudio, diskAckStore, encodeAckAudio } from '../../src/ack/audio-store.js';

const KEY: AckAudioKey = { voice: 'resemble', sampleRate: 24000, channels: 1, text: '네, 확인해 볼게요.' };

function frame(samples: number[], sampleRate = KEY.sampleRate, channels = KEY.channels): AudioFrame {
  return new AudioFrame(Int16Array.from(samples), sampleRate, channels, samples.length / channels);
}

const shape = (frames: readonly AudioFrame[]) =>
  frames.map((f) => ({ rate: f.sampleRate, channels: f.channels, perChannel: f.samplesPerChannel, samples: Array.from(f.data.subarray(0, f.samplesPerChannel * f.channels)) }));

describe('encodeAckAudio / decodeAckAudio', () => {
  it('gives back every frame as it was stored, for any frames, key and phrase', () => {
    const keys = fc.record({
      voice: fc.constantFrom('resemble', 'cartesia', 'local'),
      sampleRate: fc.constantFrom(8000, 16000, 24000, 44100, 48000),
      channels: fc.constantFrom(1, 2),
      text: fc.string({ unit: 'grapheme', maxLength: 40 }),
    });
    const frameSamples = fc.array(fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 64 }), { maxLength: 12 });
    fc.assert(
      fc.property(keys, frameSamples, (key, lists) => {
        const frames = lists.map((l) => frame(key.channels === 2 ? [...l, ...l] : l, key.sampleRate, key.channels));
        const decoded = decodeAckAudio(key, encodeAckAudio(key, frames));
        expect(decoded && shape(decoded)).toEqual(shape(frames));
      }),
    );
  });

  it('reads a file made for another phrase, voice, rate or channel count as absent', () => {
    const bytes = encodeAckAudio(KEY, [frame([1, 2, 3])]);
    for (const other of [{ text: '잠시만요.' }, { voice: 'local' }, { sampleRate: 16000 }, { channels: 2 }]) {
      expect(decodeAckAudio({ ...KEY, ...other }, bytes)).toBeUndefined();
    }
  });

  it('reads every torn, padded or foreign file as absent', () => {
    const bytes = encodeAckAudio(KEY, [frame([1, 2, 3]), frame([4, 5])]);
    for (let cut = 0; cut < bytes.length; cut += 1) expect(decodeAckAudio(KEY, bytes.subarray(0, cut))).toBeUndefined();
    expect(decodeAckAudio(KEY, Buffer.concat([bytes, Buffer.from([0])]))).toBeUndefined();
    const foreign = Buffer.from(bytes);
    foreign[0] = 0x00;
    expect(decodeAckAudio(KEY, foreign)).toBeUndefined();
  });

  it('refuses frames that do not match the key, naming them', () => {
    expect(() => encodeAckAudio(KEY, [frame([1, 2]), frame([1, 2], 16000)])).toThrow(/frame 1 is 16000 Hz × 1, not the key's 24000 Hz × 1/);
  });
});

describe('diskAckStore', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'error' }));
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const freshDir = () => {
    dir = mkdtempSync(join(tmpdir(), 'ack-store-test-'));
    return dir;
  };

  it('lets another store on the same directory (another job process) read what one wrote', async () => {
    const path = freshDir();
    const frames = [frame([0, 100, -100]), frame([32767, -32768])];
    expect(await diskAckStore(path).read(KEY)).toBeUndefined();
    await diskAckStore(path).write(KEY, frames);
    const read = await diskAckStore(path).read(KEY);
    expect(read && shape(read)).toEqual(shape(frames));
    expect(readdirSync(path).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('keeps one file per phrase and voice', async () => {
    const path = freshDir();
    const store = diskAckStore(path);
    await store.write(KEY, [frame([1])]);
    await store.write({ ...KEY, text: '잠시만요.' }, [frame([2])]);
    await store.write({ ...KEY, voice: 'local' }, [frame([3])]);
    await store.write(KEY, [frame([4])]);
    expect(readdirSync(path)).toHaveLength(3);
    expect(shape((await store.read(KEY))!)[0]!.samples).toEqual([4]);
  });

  it('reads a malformed file as absent and loses nothing when it cannot write', async () => {
    const path = freshDir();
    const store = diskAckStore(path);
    await store.write(KEY, [frame([1, 2])]);
    for (const name of readdirSync(path)) writeFileSync(join(path, name), 'not audio');
    expect(await store.read(KEY)).toBeUndefined();
    rmSync(path, { recursive: true, force: true });
    await expect(store.write(KEY, [frame([1, 2])])).resolves.toBeUndefined();
    expect(await store.read(KEY)).toBeUndefined();
  });
});
