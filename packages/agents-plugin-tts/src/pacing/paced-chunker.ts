/**
 * A chunker whose cuts are paced (pacer.ts): the chunker finds the boundaries, the pacer decides
 * when the first chunk and any early piece go. Still pure: the time of every call comes from
 * `now`, and where the pacer wants to look again without new text (a deadline, the hold bound)
 * `nextCheck()` says when, for the caller to call `check()` then (the TTS driver sets a timer;
 * a test steps a clock).
 */
import { type Chunk, type Chunker, type ChunkerOptions, type PendingText, createChunker } from '../chunking/index.js';
import type { PacingEstimates } from './pacing-estimates.js';
import type { ProviderShape } from './pacing-model.js';
import { type PacingReport, ReplyPacer } from './pacer.js';

export interface PacedChunker extends Chunker {
  /** When `check()` should run if no text arrives before (undefined: only text can change anything). */
  nextCheck(): number | undefined;
  /** Releases what is due now. */
  check(): Chunk[];
  /** The reply's first audio played (lets the forecast start from the real moment). */
  audioStarted(at: number): void;
  /** How the current reply's first chunk went, once it did. */
  readonly report: PacingReport | undefined;
}

export interface PacingSetup {
  shape: ProviderShape;
  estimates: PacingEstimates;
  /** The clock of every decision, ms. @defaultValue performance.now */
  now?: () => number;
  /** Called once per reply when its first chunk goes. */
  onFirstChunk?: (report: PacingReport) => void;
}

class Paced implements PacedChunker {
  readonly #chunker: Chunker;
  /** The same text cut at every sentence end: the sentence lengths the next replies expect. */
  readonly #sentences: Chunker;
  #sentenceChars: number[] = [];
  readonly #setup: PacingSetup;
  readonly #now: () => number;
  #pacer: ReplyPacer;

  constructor(options: ChunkerOptions, setup: PacingSetup) {
    this.#chunker = createChunker({ ...options, paced: true });
    this.#sentences = createChunker({ policy: 'sentence', boundaryDetector: options.boundaryDetector });
    this.#setup = setup;
    this.#now = setup.now ?? (() => performance.now());
    this.#pacer = new ReplyPacer(setup.shape, setup.estimates);
  }

  get report(): PacingReport | undefined {
    return this.#pacer.report;
  }

  push(delta: string): Chunk[] {
    const at = this.#now();
    this.#pacer.text(at, delta);
    this.#learnSentences(this.#sentences.push(delta));
    const out = this.#record(at, this.#chunker.push(delta), false);
    out.push(...this.#decide(at));
    return out;
  }

  flush(): Chunk[] {
    this.#learnSentences(this.#sentences.flush());
    return this.#record(this.#now(), this.#chunker.flush(), false);
  }

  end(): Chunk[] {
    this.#learnSentences(this.#sentences.end());
    const out = this.#record(this.#now(), this.#chunker.end(), false);
    // Learned once the reply is over: a short first sentence ("Sure.") must not make the plan
    // expect short sentences for the rest of its own reply.
    for (const chars of this.#sentenceChars.splice(0)) this.#setup.estimates.observeSentence(chars);
    this.#pacer.finish();
    this.#pacer = new ReplyPacer(this.#setup.shape, this.#setup.estimates);
    return out;
  }

  release(): Chunk[] {
    return this.#record(this.#now(), this.#chunker.release(), true);
  }

  pending(): PendingText {
    return this.#chunker.pending();
  }

  check(): Chunk[] {
    return this.#decide(this.#now());
  }

  nextCheck(): number | undefined {
    return this.#pacer.nextCheck(this.#now(), this.#chunker.pending());
  }

  audioStarted(at: number): void {
    this.#pacer.audioStarted(at);
  }

  #learnSentences(sentences: Chunk[]): void {
    for (const s of sentences) if (s.reason === 'sentence' || s.reason === 'end') this.#sentenceChars.push(s.text.length);
  }

  #decide(at: number): Chunk[] {
    if (!this.#pacer.due(at, this.#chunker.pending())) return [];
    return this.#record(at, this.#chunker.release(), true);
  }

  #record(at: number, chunks: Chunk[], byPacer: boolean): Chunk[] {
    for (const chunk of chunks) {
      const first = this.#pacer.report === undefined;
      this.#pacer.released(at, chunk, byPacer);
      const report = this.#pacer.report;
      if (first && report) this.#setup.onFirstChunk?.(report);
    }
    return chunks;
  }
}

/** A chunker (`asymmetric` policy) paced for one provider with one TTS's running estimates. */
export function createPacedChunker(options: ChunkerOptions, setup: PacingSetup): PacedChunker {
  return new Paced(options, setup);
}
