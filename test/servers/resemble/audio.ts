/**
 * A request's audio stream: tagged PCM (see ../audio-tag.ts) in the requested precision, optionally
 * behind a WAV header, plus where each character's audio begins so frames can carry timestamps.
 */
import { synthesizeTaggedPcm16 } from '../audio-tag.js';
import type { AudioTimestamps } from './frames.js';
import type { Precision } from './options.js';
import type { SynthesisSpec } from './request.js';
import { buildWavHeader, type WavFormat, type WavLabel } from './wav-header.js';

export interface RenderedAudio {
  /** Header (if any) followed by the samples: exactly the bytes the client receives. */
  bytes: Buffer;
  headerBytes: number;
  bytesPerSample: number;
  sampleRate: number;
  msPerChar: number;
  /** Code points of `data` (markup included: the audio length counts them too). */
  chars: string[];
  /** Offset in `bytes` where each char's audio begins. */
  charStartBytes: number[];
}

const BYTES_PER_SAMPLE: Record<Precision, number> = { PCM_16: 2, PCM_24: 3, PCM_32: 4, MULAW: 1 };

const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;

/** G.711 µ-law of one 16-bit sample. */
export function linearToMulaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(Math.abs(sample), MULAW_CLIP) + MULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = sign | (exponent << 4) | mantissa;
  return ~magnitude & 0xff;
}

/**
 * Widens the tagged 16-bit samples so the tag survives: PCM_24 = s·2⁸, PCM_32 = s·2¹⁶ (signed
 * integers; whether Resemble's PCM_32 is integer or float is UNCONFIRMED), MULAW = G.711.
 */
function encode(pcm16: Buffer, precision: Precision): Buffer {
  if (precision === 'PCM_16') return pcm16;
  const samples = pcm16.length / 2;
  const out = Buffer.alloc(samples * BYTES_PER_SAMPLE[precision]);
  for (let i = 0; i < samples; i++) {
    const s = pcm16.readInt16LE(i * 2);
    if (precision === 'PCM_24') out.writeIntLE(s * 256, i * 3, 3);
    else if (precision === 'PCM_32') out.writeInt32LE(s * 65536, i * 4);
    else out[i] = linearToMulaw(s);
  }
  return out;
}

function wavFormat(sampleRate: number, precision: Precision): WavFormat {
  return precision === 'MULAW'
    ? { sampleRate, formatCode: 7, bitsPerSample: 8 }
    : { sampleRate, formatCode: 1, bitsPerSample: BYTES_PER_SAMPLE[precision] * 8 };
}

export function renderAudio(spec: SynthesisSpec, msPerChar: number): RenderedAudio {
  const pcm16 = synthesizeTaggedPcm16(spec.data, spec.sampleRate, msPerChar);
  const samples = encode(pcm16, spec.precision);
  const bytesPerSample = BYTES_PER_SAMPLE[spec.precision];
  const totalSamples = pcm16.length / 2;
  const chars = [...spec.data];
  const charStartSamples = chars.map((_, i) =>
    Math.min(totalSamples - 1, Math.floor((i * msPerChar * spec.sampleRate) / 1000)),
  );
  let header: Buffer = Buffer.alloc(0);
  if (spec.wavHeader) {
    const labels: WavLabel[] = chars.map((text, i) => ({
      sampleOffset: charStartSamples[i],
      sampleLength: (charStartSamples[i + 1] ?? totalSamples) - charStartSamples[i],
      purpose: 'grph',
      text,
    }));
    header = buildWavHeader(wavFormat(spec.sampleRate, spec.precision), labels);
  }
  return {
    bytes: Buffer.concat([header, samples]),
    headerBytes: header.length,
    bytesPerSample,
    sampleRate: spec.sampleRate,
    msPerChar,
    chars,
    charStartBytes: charStartSamples.map((s) => header.length + s * bytesPerSample),
  };
}

/** Audio time (ms) of the stream's first `streamBytes` bytes; header bytes take no time. */
export function audioMsBefore(audio: RenderedAudio, streamBytes: number): number {
  const sampleBytes = Math.max(0, streamBytes - audio.headerBytes);
  return (sampleBytes / audio.bytesPerSample / audio.sampleRate) * 1000;
}

/**
 * Timings of the characters whose audio starts inside bytes [start, end), in seconds from the start
 * of the request's audio. Phonemes are not modelled: `phon_*` repeat the graphemes.
 */
export function timestampsFor(audio: RenderedAudio, start: number, end: number): AudioTimestamps {
  const graphChars: string[] = [];
  const graphTimes: Array<[number, number]> = [];
  const seconds = audio.msPerChar / 1000;
  audio.charStartBytes.forEach((offset, i) => {
    if (offset < start || offset >= end) return;
    graphChars.push(audio.chars[i]);
    graphTimes.push([round(i * seconds), round((i + 1) * seconds)]);
  });
  return {
    graph_chars: graphChars,
    graph_times: graphTimes,
    phon_chars: [...graphChars],
    phon_times: graphTimes.map(([a, b]) => [a, b]),
  };
}

function round(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}
