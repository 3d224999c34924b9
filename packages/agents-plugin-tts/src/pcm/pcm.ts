/**
 * Per-track PCM_16 reassembly: providers may split a sample across two frames (odd-length frames)
 * and may prefix a track's first bytes with a RIFF/WAVE header (with `cue `/`LIST` metadata and
 * placeholder sizes), so neither a fixed 44-byte skip nor frame-at-a-time decoding is safe.
 */
export class Pcm16Reassembler {
  #carry: Buffer | null = null;
  #head: Buffer | null = Buffer.alloc(0); // null once we know whether a RIFF header is present
  #droppedBytes = 0;

  /** Bytes discarded at `end()` because a track finished on half a sample. */
  get droppedBytes(): number {
    return this.#droppedBytes;
  }

  /** Returns whole samples (an even number of bytes, possibly zero). */
  push(bytes: Buffer): Buffer {
    let data: Buffer = bytes;
    if (this.#head !== null) {
      const head = Buffer.concat([this.#head, data]);
      const parsed = stripRiffHeader(head);
      if (parsed === 'need-more') {
        this.#head = head;
        return EMPTY;
      }
      this.#head = null;
      data = parsed;
    }
    if (this.#carry) {
      data = Buffer.concat([this.#carry, data]);
      this.#carry = null;
    }
    if (data.length % 2 === 1) {
      this.#carry = data.subarray(data.length - 1);
      data = data.subarray(0, data.length - 1);
    }
    return data;
  }

  /** Ends the track: a header-sized prefix that never completed is audio after all. */
  end(): Buffer {
    let rest: Buffer = EMPTY;
    if (this.#head && this.#head.length > 0) {
      const pending = this.#head;
      this.#head = null;
      rest = pending.subarray(0, pending.length - (pending.length % 2));
      if (pending.length % 2) this.#droppedBytes += 1;
    }
    if (this.#carry) {
      this.#droppedBytes += this.#carry.length;
      this.#carry = null;
    }
    return rest;
  }
}

const EMPTY: Buffer = Buffer.alloc(0);
const RIFF = 0x46464952; // 'RIFF' little-endian
const WAVE = 0x45564157; // 'WAVE'
const DATA = 0x61746164; // 'data'

/**
 * If `buf` starts with a RIFF/WAVE header, returns the bytes after the `data` chunk header;
 * returns `buf` unchanged when it is plain PCM, or 'need-more' when the header is incomplete.
 */
export function stripRiffHeader(buf: Buffer): Buffer | 'need-more' {
  if (buf.length < 4) return isRiffPrefix(buf) ? 'need-more' : buf;
  if (buf.readUInt32LE(0) !== RIFF) return buf;
  if (buf.length < 12) return 'need-more';
  if (buf.readUInt32LE(8) !== WAVE) return buf;
  let offset = 12;
  while (true) {
    if (buf.length < offset + 8) return 'need-more';
    const id = buf.readUInt32LE(offset);
    if (id === DATA) return buf.subarray(offset + 8);
    const size = buf.readUInt32LE(offset + 4);
    // Chunk bodies are padded to an even length; a streamed header may use 0xFFFFFFFF sizes only
    // for RIFF/data, never for the metadata chunks we skip here.
    offset += 8 + size + (size % 2);
  }
}

function isRiffPrefix(buf: Buffer): boolean {
  return 'RIFF'.startsWith(buf.toString('latin1'));
}

/** Little-endian PCM16 bytes as samples: a view when aligned, else a copy (Node hosts are little-endian). */
export function pcmSamples(bytes: Uint8Array): Int16Array {
  const whole = bytes.length - (bytes.length % 2);
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, whole / 2);
  return new Int16Array(Uint8Array.prototype.slice.call(bytes, 0, whole).buffer);
}

/** Samples as their little-endian bytes, without a copy. */
export function pcmBytes(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}
