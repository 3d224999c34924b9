/**
 * `asymmetric`: a short first chunk (first clause), then whole sentences — lowest time to first audio.
 * `sentence`: a cut at every sentence end — the simple baseline (a TTS request per sentence).
 * `unit`: no cuts inside a reply except explicit flushes (tool calls) and the end — for expressive
 * voices whose intonation breaks at every request boundary.
 */
export const CHUNK_POLICIES = ['asymmetric', 'sentence', 'unit'] as const;
export type ChunkPolicy = (typeof CHUNK_POLICIES)[number];

/**
 * Why a chunk was cut: `clause` (asymmetric first chunk at `,` `:` `—` …, or a paced release at
 * a clause), `sentence`, `length` (word limit of the first chunk or `maxChunkChars`), `word` (a
 * paced release at a word boundary), `unit` (a flush in `unit` policy), `flush` (an explicit
 * flush in the other policies), `end` (the reply ended).
 */
export type ChunkReason = 'clause' | 'sentence' | 'length' | 'word' | 'unit' | 'flush' | 'end';

export interface Chunk {
  /** Sanitized, whitespace-normalised text: what the TTS provider receives. Never empty. */
  text: string;
  /** Offset in the raw reply (all deltas concatenated, before sanitizing) where this chunk's span begins. */
  start: number;
  /**
   * Offset just past this chunk's span in the raw reply. Spans are contiguous: a chunk starts
   * where the previously emitted one ended, so `raw.slice(0, chunk.end)` is everything up to and
   * including this chunk (markup and whitespace between chunks belong to the later one).
   */
  end: number;
  reason: ChunkReason;
}

/** What a boundary separates. `word` boundaries matter only for forced (length) cuts. */
export type BoundaryKind = 'sentence' | 'clause' | 'word';

/**
 * Boundaries found when one more character was seen: `before` lies just before that character
 * (e.g. the space after `Hello.` confirms the sentence end), `after` just after it (e.g. a closing
 * `」` right after `。`, or a `，` that needs no lookahead).
 */
export interface BoundaryHit {
  readonly before?: BoundaryKind;
  readonly after?: BoundaryKind;
}

/**
 * A stateful scan over one reply's sanitized text, one character at a time. A boundary must
 * be reported only once it is certain from the characters seen so far; this is what makes
 * the chunks independent of how the reply was cut into deltas.
 */
export interface BoundaryScanner {
  next(char: string): BoundaryHit | undefined;
  /** Forget pending decisions and context (called at a flush and at the end of a reply). */
  reset(): void;
}

/** Pluggable boundary detection (like the `chunking` option of the Vercel AI SDK's smoothStream). */
export interface BoundaryDetector {
  createScanner(): BoundaryScanner;
}

export interface ChunkerOptions {
  /** @defaultValue `'asymmetric'` */
  policy?: ChunkPolicy;
  /** Words (Korean: eojeol) needed before a clause or sentence boundary may cut the first chunk. @defaultValue 1 */
  firstChunkMinWords?: number;
  /**
   * Until this many words (Korean: eojeol) have been sent, the next chunk is cut like the first
   * one — at the first clause or sentence end that brings the words sent to this many, or forced
   * at the word limit — so that a one-word "Sure." is not followed by a long sentence sent whole
   * (a long pause after it). @defaultValue 3
   */
  firstClauseWords?: number;
  /** Force-cut the first chunk at the word boundary reached after this many words. @defaultValue 8 */
  firstChunkMaxWords?: number;
  /**
   * Force-cut the first chunk at the word boundary reached after this many characters (spaces
   * included) when the text so far is mostly Korean/CJK. @defaultValue 25
   */
  firstChunkMaxChars?: number;
  /**
   * Later sentences shorter than this many characters merge with the next one unless the reply
   * ends or is flushed (`asymmetric` only; `sentence` cuts at every sentence end). @defaultValue 12
   */
  minSentenceChars?: number;
  /**
   * Chunks longer than this are split at the last sentence/clause boundary in their second half,
   * else at the last word boundary, else hard. @defaultValue 400, or 3000 (Resemble's hard
   * request limit) for the `unit` policy
   */
  maxChunkChars?: number;
  /**
   * The caller paces the reply (`asymmetric` only; src/pacing/pacer.ts does it from the LLM's
   * token times): the chunker cuts no first chunk and nothing but sentence ends (and over-long
   * text) by itself. `pending()` says where a cut could go and whether the first-chunk limits
   * above would have cut by now; `release()` cuts there. @defaultValue false
   */
  paced?: boolean;
  /** @defaultValue the built-in English/Korean detector ({@link createBoundaryDetector}) */
  boundaryDetector?: BoundaryDetector;
}

/** What waits in a chunker, for a caller that decides when to cut (`paced`). */
export interface PendingText {
  /** Characters waiting (sanitized, whitespace-normalised). */
  chars: number;
  /** Characters `release()` would cut now: up to the latest certain boundary; 0 when there is none. */
  releasable: number;
  /** The boundary there. */
  releasableKind: BoundaryKind | undefined;
  /** Paced, nothing emitted in this reply yet, and the first-chunk limits would have cut by now. */
  firstDue: boolean;
  /** Chunks emitted in this reply so far. */
  emitted: number;
  /** Characters of the unfinished sentence at the releasable point, counted from its start (sent or not). */
  openSentenceChars: number;
}

export interface Chunker {
  /** Feeds one LLM delta; returns the chunks that became certain with it (often none). */
  push(delta: string): Chunk[];
  /** Forces a boundary where the reply stands now (tool call, LLM flush); the reply carries on. */
  flush(): Chunk[];
  /** The reply is complete: returns the rest. The chunker is then ready for a new reply (offsets restart at 0). */
  end(): Chunk[];
  /** Cuts at the latest certain boundary of the pending text (none: returns nothing); the reply carries on. */
  release(): Chunk[];
  pending(): PendingText;
}
