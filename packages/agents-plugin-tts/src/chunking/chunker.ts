import { isCjkLetter, isHighSurrogate, isLatinLetter, isSpaceCode } from './chars.js';
import { type ResolvedChunkerOptions, resolveChunkerOptions } from './options.js';
import { SpeechSanitizer } from './sanitize.js';
import type { BoundaryKind, BoundaryScanner, Chunk, ChunkReason, Chunker, ChunkerOptions, PendingText } from './types.js';

/** Candidate slots, best first: a length split prefers the latest sentence end, then clause, then word. */
const SENTENCE = 0;
const CLAUSE = 1;
const WORD = 2;
const SLOT: Record<BoundaryKind, number> = { sentence: SENTENCE, clause: CLAUSE, word: WORD };

/**
 * Raw deltas → sanitizer → boundary scanner → policy. Everything is one pass, character by
 * character, with state instead of rescans, so `push()` costs O(delta length): the pending text
 * is only sliced when a chunk is cut.
 *
 * Rules the policies share:
 * - A boundary cuts at the moment it becomes certain (see the boundary detector), never later.
 * - `[start, end)` tile the raw reply from 0 up to the last chunk; the end of a chunk is the raw
 *   offset of the character that confirmed its boundary (the space after `Hello.`), or the end of
 *   the text seen at a flush/end, so markup closing a sentence (`Hello.**`) stays with it.
 * - Text that sanitizes to nothing is never emitted; its span joins the next chunk.
 * - Flush: the chunk after a flush is not "first" again. The asymmetric first chunk exists to
 *   fill the silence before the reply's first audio; once anything has been spoken, a flush
 *   (a tool call, an LLM flush) leaves the player with queued or finished audio either way, and a
 *   pure chunker cannot know how long the pause is. A flush before any text was emitted keeps
 *   the next chunk first, because nothing has been heard yet.
 * - Paced (`paced: true`): the first chunk and any cut that is not a sentence end are the
 *   caller's (`release()`), because only a caller that knows time can tell when they are due;
 *   the chunker still cuts sentence ends and over-long text itself.
 */
class StreamingChunker implements Chunker {
  readonly #options: ResolvedChunkerOptions;
  readonly #sanitizer: SpeechSanitizer;
  readonly #scanner: BoundaryScanner;
  #out: Chunk[] = [];
  #rawLength = 0;
  #rangeStart = 0;
  /** The next chunk is cut like a first chunk: until `firstClauseWords` words have been sent. */
  #firstPending: boolean;
  /** Words sent in this reply so far (counted only while `#firstPending`). */
  #sentWords = 0;
  /** Paced and nothing emitted in this reply yet: the caller releases the first chunk. */
  #holding: boolean;
  /** Holding, and the eager first-chunk rule would have cut by now. */
  #firstDue = false;
  #emitted = 0;
  /** The last cut fell inside a sentence: paced, that sentence's end cuts, however short its rest. */
  #midSentence = false;
  /** Characters of the unfinished sentence already emitted (it began before the pending text). */
  #openSentenceSent = 0;

  /** Pending sanitized text: whitespace-collapsed, no leading space, at most one trailing space. */
  #text = '';
  #endsWithSpace = false;
  #lastRaw = -1;
  #words = 0;
  #cjkLetters = 0;
  #latinLetters = 0;
  /** Latest boundary of each kind inside `#text` (position, raw offset); -1 when none. */
  readonly #candidateAt = [-1, -1, -1];
  readonly #candidateRaw = [0, 0, 0];

  constructor(options: ChunkerOptions | undefined) {
    this.#options = resolveChunkerOptions(options);
    this.#holding = this.#options.paced;
    this.#firstPending = this.#options.policy === 'asymmetric' && !this.#holding;
    this.#scanner = this.#options.boundaryDetector.createScanner();
    this.#sanitizer = new SpeechSanitizer((char, raw) => this.#onChar(char, raw));
  }

  push(delta: string): Chunk[] {
    const out: Chunk[] = (this.#out = []);
    if (delta.length > 0) {
      this.#rawLength += delta.length;
      this.#sanitizer.write(delta);
    }
    return out;
  }

  flush(): Chunk[] {
    const out: Chunk[] = (this.#out = []);
    this.#sanitizer.flush();
    this.#scanner.reset();
    this.#cutAll(this.#options.policy === 'unit' ? 'unit' : 'flush');
    if (this.#sentWords > 0) this.#firstPending = false;
    return out;
  }

  release(): Chunk[] {
    const out: Chunk[] = (this.#out = []);
    const at = this.#candidateAt[WORD];
    if (at > 0) this.#cut(at, this.#candidateRaw[WORD], this.#kindAt(at));
    return out;
  }

  pending(): PendingText {
    const releasable = Math.max(0, this.#candidateAt[WORD]);
    const sentenceAt = this.#candidateAt[SENTENCE];
    return {
      chars: this.#trimmedLength(),
      releasable,
      releasableKind: releasable > 0 ? this.#kindAt(releasable) : undefined,
      firstDue: this.#holding && this.#firstDue,
      emitted: this.#emitted,
      openSentenceChars: sentenceAt > 0 ? Math.max(0, releasable - sentenceAt - 1) : this.#openSentenceSent + releasable,
    };
  }

  end(): Chunk[] {
    const out: Chunk[] = (this.#out = []);
    this.#sanitizer.end();
    this.#scanner.reset();
    this.#cutAll('end');
    this.#rawLength = 0;
    this.#rangeStart = 0;
    this.#holding = this.#options.paced;
    this.#firstPending = this.#options.policy === 'asymmetric' && !this.#holding;
    this.#sentWords = 0;
    this.#firstDue = false;
    this.#emitted = 0;
    this.#midSentence = false;
    this.#openSentenceSent = 0;
    return out;
  }

  #onChar(char: string, raw: number): void {
    const hit = this.#scanner.next(char);
    if (hit?.before) this.#boundary(hit.before, raw);
    this.#append(char, raw);
    if (hit?.after) this.#boundary(hit.after, raw + 1);
  }

  /** A certain boundary at the current end of the pending text. */
  #boundary(kind: BoundaryKind, rawCut: number): void {
    const length = this.#trimmedLength();
    if (length === 0) return;
    const { policy, minSentenceChars } = this.#options;
    if (policy !== 'unit') {
      if (this.#holding) {
        this.#firstDue ||= (kind !== 'word' && this.#firstMayEndNaturally()) || this.#firstMustEnd(length);
      } else if (this.#firstPending) {
        if (kind !== 'word' && this.#firstMayEndNaturally()) return this.#cut(length, rawCut, kind);
        if (this.#firstMustEnd(length)) return this.#cut(length, rawCut, 'length');
      } else if (kind === 'sentence' && (policy === 'sentence' || length >= minSentenceChars || (this.#options.paced && this.#midSentence))) {
        return this.#cut(length, rawCut, 'sentence');
      }
    }
    for (let slot = SLOT[kind]; slot <= WORD; slot++) {
      this.#candidateAt[slot] = length;
      this.#candidateRaw[slot] = rawCut;
    }
  }

  #firstMayEndNaturally(): boolean {
    // After a one-word "Sure," the next natural end must complete the first clause's words.
    if (this.#sentWords > 0) return this.#sentWords + this.#words >= this.#options.firstClauseWords;
    return this.#words >= this.#options.firstChunkMinWords;
  }

  #firstMustEnd(length: number): boolean {
    const { firstChunkMaxWords, firstChunkMaxChars } = this.#options;
    if (this.#words >= firstChunkMaxWords) return true;
    return this.#cjkLetters > this.#latinLetters && length >= firstChunkMaxChars;
  }

  #append(char: string, raw: number): void {
    const code = char.charCodeAt(0);
    if (isSpaceCode(code)) {
      if (this.#text.length === 0 || this.#endsWithSpace) return;
      this.#text += ' ';
      this.#endsWithSpace = true;
      return;
    }
    if (this.#text.length >= this.#options.maxChunkChars) this.#splitForLength(code, raw);
    if (this.#text.length === 0 || this.#endsWithSpace) this.#words++;
    this.#text += char;
    this.#endsWithSpace = false;
    this.#lastRaw = raw;
    if (this.#firstPending || this.#holding) {
      if (isCjkLetter(code)) this.#cjkLetters++;
      else if (isLatinLetter(code)) this.#latinLetters++;
    }
  }

  /** The pending text is full: cut at the best certain boundary, or hard when there is none. */
  #splitForLength(nextCode: number, nextRaw: number): void {
    const half = Math.ceil(this.#options.maxChunkChars / 2);
    const at = this.#candidateAt;
    const slot = at[SENTENCE] >= half ? SENTENCE : at[CLAUSE] >= half ? CLAUSE : at[WORD] > 0 ? WORD : -1;
    if (slot >= 0) return this.#cut(at[slot], this.#candidateRaw[slot], 'length');
    let length = this.#trimmedLength();
    let rawCut = nextRaw;
    const lowSurrogate = nextCode >= 0xdc00 && nextCode <= 0xdfff;
    if (lowSurrogate && !this.#endsWithSpace && length > 1 && isHighSurrogate(this.#text.charCodeAt(length - 1))) {
      length -= 1;
      rawCut = this.#lastRaw;
    }
    this.#cut(length, rawCut, 'length');
  }

  #cutAll(reason: ChunkReason): void {
    const length = this.#trimmedLength();
    if (length > 0) this.#cut(length, this.#rawLength, reason);
    this.#candidateAt.fill(-1);
  }

  #cut(length: number, rawCut: number, reason: ChunkReason): void {
    const text = this.#text;
    const chunkText = text.slice(0, length).trimEnd();
    const wordsBefore = this.#words;
    if (chunkText.length > 0) {
      this.#out.push({ text: chunkText, start: this.#rangeStart, end: rawCut, reason });
      this.#rangeStart = rawCut;
      this.#emitted++;
      this.#holding = false;
      this.#afterCut(length, reason);
    }
    let rest = length === text.length ? '' : text.slice(length);
    if (rest.charCodeAt(0) === 32) rest = rest.slice(1);
    const removed = text.length - rest.length;
    this.#text = rest;
    this.#endsWithSpace = rest.length > 0 && rest.charCodeAt(rest.length - 1) === 32;
    for (let slot = SENTENCE; slot <= WORD; slot++) {
      const shifted = this.#candidateAt[slot] - removed;
      this.#candidateAt[slot] = shifted > 0 ? shifted : -1;
    }
    this.#recount(rest);
    if (chunkText.length > 0 && this.#firstPending) {
      this.#sentWords += wordsBefore - this.#words;
      this.#firstPending = this.#sentWords < this.#options.firstClauseWords;
    }
  }

  /** Remembers whether the cut split a sentence, and how much of that sentence went out. */
  #afterCut(length: number, reason: ChunkReason): void {
    const sentenceAt = this.#candidateAt[SENTENCE];
    const atSentenceEnd = reason === 'sentence' || reason === 'end' || reason === 'flush' || reason === 'unit' || sentenceAt === length;
    this.#midSentence = !atSentenceEnd;
    if (atSentenceEnd) this.#openSentenceSent = 0;
    // Counted with the space that will follow it; a sentence's own leading space is not part of it.
    else this.#openSentenceSent = (sentenceAt > 0 ? length - sentenceAt - 1 : this.#openSentenceSent + length) + 1;
  }

  /** The strongest boundary recorded at `length` in the pending text. */
  #kindAt(length: number): BoundaryKind {
    if (this.#candidateAt[SENTENCE] === length) return 'sentence';
    if (this.#candidateAt[CLAUSE] === length) return 'clause';
    return 'word';
  }

  /** Word and script counts of a remainder after a cut (short: at most `maxChunkChars`). */
  #recount(rest: string): void {
    this.#words = 0;
    this.#cjkLetters = 0;
    this.#latinLetters = 0;
    let inWord = false;
    for (let k = 0; k < rest.length; k++) {
      const code = rest.charCodeAt(k);
      if (code === 32) {
        inWord = false;
        continue;
      }
      if (!inWord) this.#words++;
      inWord = true;
      if (isCjkLetter(code)) this.#cjkLetters++;
      else if (isLatinLetter(code)) this.#latinLetters++;
    }
  }

  #trimmedLength(): number {
    return this.#endsWithSpace ? this.#text.length - 1 : this.#text.length;
  }
}

/** Creates a pure, synchronous chunker for one reply at a time (reusable after `end()`). */
export function createChunker(options?: ChunkerOptions): Chunker {
  return new StreamingChunker(options);
}
