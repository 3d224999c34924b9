export type {
  BoundaryDetector,
  BoundaryHit,
  BoundaryKind,
  BoundaryScanner,
  Chunk,
  ChunkPolicy,
  ChunkReason,
  Chunker,
  ChunkerOptions,
  PendingText,
} from './types.js';
export { CHUNK_POLICIES } from './types.js';
export { createChunker } from './chunker.js';
export { DEFAULT_CHUNKER_OPTIONS, UNIT_MAX_CHUNK_CHARS } from './options.js';
export { DEFAULT_ABBREVIATIONS, type BoundaryDetectorOptions, createBoundaryDetector } from './boundaries.js';
export { SpeechSanitizer, type SanitizedCharSink, sanitizeForSpeech } from './sanitize.js';
export { normalizeForSpeech, toSsml, type SpeechOptions } from './speech/index.js';
export {
  HANGUL_BLOCKS,
  HANGUL_CHARACTER_CLASS,
  type HangulBlock,
  containsHangul,
  countHangul,
  hangulBlockOf,
  isHangul,
  isHangulSyllable,
  languageOf,
  syllableIndex,
} from './speech/language.js';
