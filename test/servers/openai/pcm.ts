/** 16-bit PCM helpers: what arrived (duration, energy) and the WAV files of the HTTP path. */

/** Little-endian 16-bit samples of a byte buffer (an odd trailing byte is dropped). */
export function pcm16(bytes: Buffer): Int16Array {
  const samples = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
  return samples;
}

/** Root mean square, full scale = 1. */
export function rms(samples: Int16Array, start = 0, end = samples.length): number {
  if (end <= start) return 0;
  let sum = 0;
  for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / (end - start)) / 32768;
}

export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Int16Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (Buffer.from silently skips garbage, OpenAI does not). */
export function decodeBase64(text: string): Buffer | undefined {
  return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}

export interface WavAudio {
  sampleRate: number;
  channels: number;
  /** First channel only: enough to measure what arrived. */
  samples: Int16Array;
}

/** A RIFF/WAVE file of 16-bit PCM (any chunk order, extra chunks skipped), or undefined. */
export function parseWav(file: Buffer): WavAudio | undefined {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  let offset = 12;
  let format: { sampleRate: number; channels: number; bits: number; tag: number } | undefined;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= file.length) {
      format = { tag: file.readUInt16LE(body), channels: file.readUInt16LE(body + 2), sampleRate: file.readUInt32LE(body + 4), bits: file.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!format || format.tag !== 1 || format.bits !== 16 || format.channels < 1) return undefined;
      const data = file.subarray(body, Math.min(file.length, body + size));
      const frames = Math.floor(data.length / (2 * format.channels));
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = data.readInt16LE(i * 2 * format.channels);
      return { sampleRate: format.sampleRate, channels: format.channels, samples };
    }
    offset = body + size + (size & 1);
  }
  return undefined;
}
