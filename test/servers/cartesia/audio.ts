/**
 * Turns the shared tagged PCM16 "speech" into the encoding a request asked for, and wraps it in a
 * WAV header for `/tts/bytes` with `container: "wav"`.
 */
import { synthesizeAudiblePcm16, synthesizeTaggedPcm16 } from '../audio-tag.js';
import type { Encoding } from './validate.js';
import { linearToMulaw } from '../../helpers/g711.js';

export function bytesPerSample(encoding: Encoding): number {
  switch (encoding) {
    case 'pcm_s16le':
      return 2;
    case 'pcm_f32le':
      return 4;
    case 'pcm_mulaw':
    case 'pcm_alaw':
      return 1;
  }
}

const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function linearToAlaw(sample: number): number {
  let pcm = sample >> 3;
  let mask: number;
  if (pcm >= 0) {
    mask = 0xd5;
  } else {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  const segment = ALAW_SEGMENT_ENDS.findIndex((end) => pcm <= end);
  if (segment < 0) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (pcm >> 1) & 0x0f : (pcm >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

function encodePcm16(pcm16: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'pcm_s16le') return pcm16;
  const samples = pcm16.length / 2;
  const out = Buffer.allocUnsafe(samples * bytesPerSample(encoding));
  for (let i = 0; i < samples; i++) {
    const s = pcm16.readInt16LE(i * 2);
    if (encoding === 'pcm_f32le') out.writeFloatLE(s / 32768, i * 4);
    else out[i] = encoding === 'pcm_mulaw' ? linearToMulaw(s) : linearToAlaw(s);
  }
  return out;
}

/** Whether a transcript piece produces audio: whitespace-only pieces (e.g. a closing " ") do not. */
export function isSilentPiece(text: string): boolean {
  return text.trim().length === 0;
}

/**
 * The audio of one transcript piece, tagged by its exact text (see audio-tag.ts), or audible at
 * the tone `toneFor` hands it (called once per voiced piece, only for the audible voice).
 */
export function synthesizePiece(
  text: string,
  encoding: Encoding,
  sampleRate: number,
  options: { msPerChar: number; audio: 'tagged' | 'audible' },
  toneFor: (text: string) => number,
): Buffer {
  if (isSilentPiece(text)) return Buffer.alloc(0);
  const pcm16 =
    options.audio === 'audible'
      ? synthesizeAudiblePcm16(text, sampleRate, options.msPerChar, toneFor(text))
      : synthesizeTaggedPcm16(text, sampleRate, options.msPerChar);
  return encodePcm16(pcm16, encoding);
}

const WAV_FORMAT_TAGS: Record<Encoding, number> = {
  pcm_s16le: 1,
  pcm_f32le: 3,
  pcm_alaw: 6,
  pcm_mulaw: 7,
};

/** A canonical 44-byte RIFF/WAVE header for mono audio of `dataBytes` bytes. */
export function wavHeader(encoding: Encoding, sampleRate: number, dataBytes: number): Buffer {
  const width = bytesPerSample(encoding);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(WAV_FORMAT_TAGS[encoding], 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * width, 28);
  header.writeUInt16LE(width, 32);
  header.writeUInt16LE(width * 8, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
