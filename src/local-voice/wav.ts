/** The 44-byte RIFF/WAVE header for 16-bit mono PCM. */
export function wavHeader(sampleRate: number, dataBytes: number | 'streaming'): Buffer {
  // Streamed WAV (length unknown up front) uses 0xFFFFFFFF sizes, as Resemble does on HTTP streams.
  const dataSize = dataBytes === 'streaming' ? 0xffffffff : dataBytes;
  const riffSize = dataBytes === 'streaming' ? 0xffffffff : 36 + dataBytes;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(riffSize, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataSize, 40);
  return header;
}

/** A complete WAV file holding 16-bit mono samples. */
export function encodeWav(samples: Int16Array, sampleRate: number): Buffer {
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  return Buffer.concat([wavHeader(sampleRate, data.length), data]);
}

/** Reads back what {@link encodeWav} wrote (16-bit mono PCM only). */
export function decodeWav(file: Buffer): { sampleRate: number; samples: Int16Array } {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  let offset = 12;
  let sampleRate = 0;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      if (file.readUInt16LE(offset + 8) !== 1 || file.readUInt16LE(offset + 10) !== 1 || file.readUInt16LE(offset + 22) !== 16) {
        throw new Error('only 16-bit mono PCM is supported');
      }
      sampleRate = file.readUInt32LE(offset + 12);
    } else if (id === 'data') {
      const bytes = file.subarray(offset + 8, offset + 8 + Math.min(size, file.length - offset - 8));
      const copy = new Int16Array(Math.floor(bytes.length / 2));
      for (let i = 0; i < copy.length; i++) copy[i] = bytes.readInt16LE(i * 2);
      return { sampleRate, samples: copy };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}
