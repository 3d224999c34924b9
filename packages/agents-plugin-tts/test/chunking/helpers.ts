import { type Chunk, type ChunkerOptions, type Chunker, SpeechSanitizer, createChunker } from '../../src/chunking/index.js';

/** Cuts `text` at the given offsets (any order, duplicates and out-of-range ignored). */
export function splitAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const at of points) {
    parts.push(text.slice(from, at));
    from = at;
  }
  parts.push(text.slice(from));
  return parts;
}

/** One delta per UTF-16 code unit: the harshest split. */
export function unitDeltas(text: string): string[] {
  return Array.from({ length: text.length }, (_, k) => text[k]);
}

export function feed(chunker: Chunker, deltas: readonly string[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const delta of deltas) chunks.push(...chunker.push(delta));
  return chunks;
}

/** Chunks of a whole reply fed as `deltas` (default: the reply in one delta), ended. */
export function chunksOf(reply: string, options?: ChunkerOptions, deltas: readonly string[] = [reply]): Chunk[] {
  const chunker = createChunker(options);
  const chunks = feed(chunker, deltas);
  chunks.push(...chunker.end());
  return chunks;
}

export function textsOf(reply: string, options?: ChunkerOptions, deltas?: readonly string[]): string[] {
  return chunksOf(reply, options, deltas).map((c) => c.text);
}

export interface Kept {
  chars: string;
  raws: number[];
}

/** Runs the streaming sanitizer alone and records every kept character with its raw offset. */
export function sanitizeStreamed(deltas: readonly string[]): Kept {
  let chars = '';
  const raws: number[] = [];
  const sanitizer = new SpeechSanitizer((c, raw) => {
    chars += c;
    raws.push(raw);
  });
  for (const delta of deltas) sanitizer.write(delta);
  sanitizer.end();
  return { chars, raws };
}

export const withoutWhitespace = (text: string): string => text.replace(/\s+/g, '');
