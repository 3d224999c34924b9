/**
 * Acknowledgement audio shared by a worker's job processes. LiveKit Agents forks a fresh job
 * process for every call, and each one would otherwise synthesize the same few phrases again:
 * billed characters and a provider connection per call, and the process's CPU (0.1–0.2
 * CPU-second with a provider, up to half of one with the embedded voice). The first process that
 * synthesizes a phrase writes its frames here; the rest read them back.
 *
 * The worker makes the directory (private, 0700) before it forks any job process, hands its path
 * down in the environment, and removes it when it exits: the configuration, and so the voice, is
 * fixed for that time, which is why a key names only the voice's provider, its rate, its channels
 * and the phrase.
 *
 * File format (little-endian): the 8-byte magic, sample rate, channels, frame count and key length
 * (u32 each), the key (UTF-8), each frame's samples per channel (u32), then the 16-bit samples. A
 * file that does not match it, or its key, is read as absent and written again.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { log } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';

export interface AckAudioKey {
  /** Which configured voice made it: the provider's configuration name (`resemble`, `local`, …). */
  readonly voice: string;
  readonly sampleRate: number;
  readonly channels: number;
  readonly text: string;
}

export interface AckAudioStore {
  /** The frames stored under `key`, or undefined when there are none (or they cannot be read). */
  read(key: AckAudioKey): Promise<AudioFrame[] | undefined>;
  /** Stores `frames` under `key`; a failure is logged, never thrown (the phrase stays in memory). */
  write(key: AckAudioKey, frames: readonly AudioFrame[]): Promise<void>;
}

const MAGIC = Buffer.from('FWACK001', 'latin1');
const HEADER_BYTES = MAGIC.length + 4 * 4;

function keyText(key: AckAudioKey): string {
  return JSON.stringify([key.voice, key.sampleRate, key.channels, key.text]);
}

export function encodeAckAudio(key: AckAudioKey, frames: readonly AudioFrame[]): Buffer {
  const keyBytes = Buffer.from(keyText(key), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(key.sampleRate, 8);
  header.writeUInt32LE(key.channels, 12);
  header.writeUInt32LE(frames.length, 16);
  header.writeUInt32LE(keyBytes.length, 20);
  const lengths = Buffer.alloc(frames.length * 4);
  const samples: Buffer[] = [];
  frames.forEach((frame, i) => {
    if (frame.sampleRate !== key.sampleRate || frame.channels !== key.channels) {
      throw new Error(`frame ${i} is ${frame.sampleRate} Hz × ${frame.channels}, not the key's ${key.sampleRate} Hz × ${key.channels}`);
    }
    lengths.writeUInt32LE(frame.samplesPerChannel, i * 4);
    const data = frame.data.subarray(0, frame.samplesPerChannel * frame.channels);
    samples.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  return Buffer.concat([header, keyBytes, lengths, ...samples]);
}

/** The frames in `bytes` when they were stored under `key`; undefined for anything else. */
export function decodeAckAudio(key: AckAudioKey, bytes: Buffer): AudioFrame[] | undefined {
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const sampleRate = bytes.readUInt32LE(8);
  const channels = bytes.readUInt32LE(12);
  const frameCount = bytes.readUInt32LE(16);
  const keyLength = bytes.readUInt32LE(20);
  const lengthsAt = HEADER_BYTES + keyLength;
  const samplesAt = lengthsAt + frameCount * 4;
  if (samplesAt > bytes.length) return undefined;
  if (bytes.toString('utf8', HEADER_BYTES, lengthsAt) !== keyText(key) || sampleRate !== key.sampleRate || channels !== key.channels) return undefined;
  const perChannel = Array.from({ length: frameCount }, (_, i) => bytes.readUInt32LE(lengthsAt + i * 4));
  const total = perChannel.reduce((sum, n) => sum + n * channels * 2, 0);
  if (samplesAt + total !== bytes.length) return undefined;
  const frames: AudioFrame[] = [];
  let at = samplesAt;
  for (const samplesPerChannel of perChannel) {
    const data = new Int16Array(samplesPerChannel * channels);
    // Copied, not viewed: the file's buffer need not be 2-byte aligned, and each frame owns its data.
    Buffer.from(data.buffer).set(bytes.subarray(at, at + data.byteLength));
    at += data.byteLength;
    frames.push(new AudioFrame(data, sampleRate, channels, samplesPerChannel));
  }
  return frames;
}

/** A store in `dir` (which must exist), one file per phrase named by its key's hash. */
export function diskAckStore(dir: string): AckAudioStore {
  const fileOf = (key: AckAudioKey) => join(dir, `${createHash('sha256').update(keyText(key)).digest('hex').slice(0, 32)}.pcm`);
  return {
    async read(key) {
      let bytes: Buffer;
      try {
        bytes = await readFile(fileOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log().warn({ error: (error as Error).message }, 'stored acknowledgement unreadable: synthesizing it');
        return undefined;
      }
      const frames = decodeAckAudio(key, bytes);
      if (!frames) log().warn({ bytes: bytes.length }, 'stored acknowledgement malformed: synthesizing it');
      return frames;
    },
    async write(key, frames) {
      const file = fileOf(key);
      // Written whole, then renamed: processes that prewarm together may store the same phrase at
      // once, and a reader must never see half a file.
      const partial = `${file}.${process.pid}.partial`;
      try {
        await writeFile(partial, encodeAckAudio(key, frames));
        await rename(partial, file);
      } catch (error) {
        log().warn({ error: (error as Error).message }, 'acknowledgement not stored: other job processes will synthesize it again');
        await rm(partial, { force: true }).catch(() => {});
      }
    },
  };
}
