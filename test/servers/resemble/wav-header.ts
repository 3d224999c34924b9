/**
 * The RIFF/WAVE header Resemble puts before streamed audio (docs/providers.md A.11): `fmt `, optional
 * `cue ` + `LIST`/`adtl`/`ltxt` timing metadata, then `data` with 0xFFFFFFFF placeholder sizes
 * (the total length is unknown while streaming). `readWavHeader` walks it back for tests.
 */

export interface WavLabel {
  /** First sample of the labelled span. */
  sampleOffset: number;
  sampleLength: number;
  /** `grph` = grapheme, `phon` = phoneme. */
  purpose: 'grph' | 'phon';
  text: string;
}

export interface WavFormat {
  sampleRate: number;
  /** 1 = integer PCM, 7 = G.711 µ-law. */
  formatCode: 1 | 7;
  bitsPerSample: number;
}

const STREAMING_SIZE = 0xffffffff;

function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  const pad = body.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0);
  return Buffer.concat([head, body, pad]);
}

function fmtChunk(format: WavFormat): Buffer {
  const blockAlign = format.bitsPerSample / 8;
  // Non-PCM formats carry a cbSize field (WAVEFORMATEX).
  const body = Buffer.alloc(format.formatCode === 1 ? 16 : 18);
  body.writeUInt16LE(format.formatCode, 0);
  body.writeUInt16LE(1, 2);
  body.writeUInt32LE(format.sampleRate, 4);
  body.writeUInt32LE(format.sampleRate * blockAlign, 8);
  body.writeUInt16LE(blockAlign, 12);
  body.writeUInt16LE(format.bitsPerSample, 14);
  return chunk('fmt ', body);
}

function cueChunk(labels: WavLabel[]): Buffer {
  const body = Buffer.alloc(4 + 24 * labels.length);
  body.writeUInt32LE(labels.length, 0);
  labels.forEach((label, i) => {
    const at = 4 + 24 * i;
    body.writeUInt32LE(i + 1, at); // cue id
    body.writeUInt32LE(label.sampleOffset, at + 4); // play-order position
    body.write('data', at + 8, 'ascii');
    body.writeUInt32LE(0, at + 12); // chunk start
    body.writeUInt32LE(0, at + 16); // block start
    body.writeUInt32LE(label.sampleOffset, at + 20);
  });
  return chunk('cue ', body);
}

function adtlList(labels: WavLabel[]): Buffer {
  const ltxts = labels.map((label, i) => {
    const text = Buffer.from(label.text, 'utf8');
    const body = Buffer.alloc(20 + text.length);
    body.writeUInt32LE(i + 1, 0);
    body.writeUInt32LE(label.sampleLength, 4);
    body.write(label.purpose, 8, 'ascii');
    // country, language, dialect, code page: left 0
    text.copy(body, 20);
    return chunk('ltxt', body);
  });
  return chunk('LIST', Buffer.concat([Buffer.from('adtl', 'ascii'), ...ltxts]));
}

/** Header bytes to put before the first sample; the stream's data follows directly. */
export function buildWavHeader(format: WavFormat, labels: WavLabel[] = []): Buffer {
  const parts = [Buffer.from('WAVE', 'ascii'), fmtChunk(format)];
  if (labels.length > 0) parts.push(cueChunk(labels), adtlList(labels));
  const dataHead = Buffer.alloc(8);
  dataHead.write('data', 0, 'ascii');
  dataHead.writeUInt32LE(STREAMING_SIZE, 4);
  const riffHead = Buffer.alloc(8);
  riffHead.write('RIFF', 0, 'ascii');
  riffHead.writeUInt32LE(STREAMING_SIZE, 4);
  return Buffer.concat([riffHead, ...parts, dataHead]);
}

export interface ParsedWavHeader extends WavFormat {
  /** Offset of the first sample (= header length). */
  dataOffset: number;
  riffSize: number;
  dataSize: number;
  labels: WavLabel[];
}

/** Walks the chunks up to `data`; throws on anything that is not a RIFF/WAVE stream. */
export function readWavHeader(bytes: Buffer): ParsedWavHeader {
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE stream');
  }
  let format: WavFormat | undefined;
  const cueOffsets = new Map<number, number>();
  const labels: WavLabel[] = [];
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('ascii', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'data') {
      if (!format) throw new Error('data chunk before fmt chunk');
      return { ...format, dataOffset: body, riffSize: bytes.readUInt32LE(4), dataSize: size, labels };
    }
    if (id === 'fmt ') {
      format = {
        formatCode: bytes.readUInt16LE(body) as 1 | 7,
        sampleRate: bytes.readUInt32LE(body + 4),
        bitsPerSample: bytes.readUInt16LE(body + 14),
      };
    } else if (id === 'cue ') {
      const count = bytes.readUInt32LE(body);
      for (let i = 0; i < count; i++) {
        cueOffsets.set(bytes.readUInt32LE(body + 4 + 24 * i), bytes.readUInt32LE(body + 4 + 24 * i + 20));
      }
    } else if (id === 'LIST' && bytes.toString('ascii', body, body + 4) === 'adtl') {
      let sub = body + 4;
      while (sub < body + size) {
        const subSize = bytes.readUInt32LE(sub + 4);
        if (bytes.toString('ascii', sub, sub + 4) === 'ltxt') {
          const cueId = bytes.readUInt32LE(sub + 8);
          labels.push({
            sampleOffset: cueOffsets.get(cueId) ?? 0,
            sampleLength: bytes.readUInt32LE(sub + 12),
            purpose: bytes.toString('ascii', sub + 16, sub + 20) as 'grph' | 'phon',
            text: bytes.toString('utf8', sub + 28, sub + 8 + subSize),
          });
        }
        sub += 8 + subSize + (subSize % 2);
      }
    }
    at = body + size + (size % 2);
  }
  throw new Error('no data chunk in header');
}
