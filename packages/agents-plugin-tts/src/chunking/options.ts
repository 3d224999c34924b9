import { createBoundaryDetector } from './boundaries.js';
import { type BoundaryDetector, CHUNK_POLICIES, type ChunkPolicy, type ChunkerOptions } from './types.js';

/** Resemble rejects requests over 3,000 characters; a whole unit must still fit in one. */
export const UNIT_MAX_CHUNK_CHARS = 3000;

export const DEFAULT_CHUNKER_OPTIONS = {
  policy: 'asymmetric' as ChunkPolicy,
  firstChunkMinWords: 1,
  firstClauseWords: 3,
  firstChunkMaxWords: 8,
  firstChunkMaxChars: 25,
  minSentenceChars: 12,
  /** Cartesia's recommended upper bound; long enough for any natural sentence. */
  maxChunkChars: 400,
} as const;

export interface ResolvedChunkerOptions {
  policy: ChunkPolicy;
  firstChunkMinWords: number;
  firstClauseWords: number;
  firstChunkMaxWords: number;
  firstChunkMaxChars: number;
  minSentenceChars: number;
  maxChunkChars: number;
  /** Only ever true with the `asymmetric` policy. */
  paced: boolean;
  boundaryDetector: BoundaryDetector;
}

export function resolveChunkerOptions(options: ChunkerOptions = {}): ResolvedChunkerOptions {
  const policy = options.policy ?? DEFAULT_CHUNKER_OPTIONS.policy;
  if (!(CHUNK_POLICIES as readonly string[]).includes(policy)) throw new RangeError(`unknown chunk policy: ${String(policy)}`);
  const resolved: ResolvedChunkerOptions = {
    policy,
    firstChunkMinWords: count('firstChunkMinWords', options.firstChunkMinWords ?? DEFAULT_CHUNKER_OPTIONS.firstChunkMinWords, 0),
    firstClauseWords: count('firstClauseWords', options.firstClauseWords ?? DEFAULT_CHUNKER_OPTIONS.firstClauseWords, 1),
    firstChunkMaxWords: count('firstChunkMaxWords', options.firstChunkMaxWords ?? DEFAULT_CHUNKER_OPTIONS.firstChunkMaxWords, 1),
    firstChunkMaxChars: count('firstChunkMaxChars', options.firstChunkMaxChars ?? DEFAULT_CHUNKER_OPTIONS.firstChunkMaxChars, 1),
    minSentenceChars: count('minSentenceChars', options.minSentenceChars ?? DEFAULT_CHUNKER_OPTIONS.minSentenceChars, 0),
    maxChunkChars: count(
      'maxChunkChars',
      options.maxChunkChars ?? (policy === 'unit' ? UNIT_MAX_CHUNK_CHARS : DEFAULT_CHUNKER_OPTIONS.maxChunkChars),
      2,
    ),
    paced: policy === 'asymmetric' && options.paced === true,
    boundaryDetector: options.boundaryDetector ?? createBoundaryDetector(),
  };
  return resolved;
}

function count(name: string, value: number, min: number): number {
  if (!Number.isFinite(value) || value < min) {
    throw new RangeError(`chunker option ${name} must be a number >= ${min}, got ${String(value)}`);
  }
  return Math.floor(value);
}
