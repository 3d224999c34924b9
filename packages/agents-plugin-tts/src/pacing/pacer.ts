/**
 * The pacer: when each piece of one reply goes to the TTS, so that the audio starts as early as
 * the first clause allows and, once it plays, never stops for text that has not arrived.
 *
 * - **The first chunk** (and the first after any silence) is the first clause, as the first-clause
 *   rule would send it, when its audio covers what must follow: the next text arriving at the
 *   planned pace (this reply's tokens so far, earlier replies as the prior) plus the provider's
 *   latency. When it does not ("Sure," on a slow LLM), the pacer holds it for more words and
 *   sends it once it does, or once `maxHoldMs` have passed (then a silence is predicted, and the
 *   report says how long), or at once where holding cannot help (the LLM writes slower than the
 *   voice speaks).
 * - **Later text** goes in sentences (the chunker cuts each end when it is certain). When the
 *   audio would run out before the next sentence is ready, the text up to the latest word boundary
 *   goes early, at the last moment that still sounds in time (the deadline).
 * - **Boundaries** cost nothing where the provider continues a context (`continuation`), but are a
 *   cold start elsewhere: there the reply has at most one cut inside a sentence (the first chunk,
 *   or one early piece after a first chunk that was a whole sentence), so it has at most one
 *   boundary more than sentence chunking.
 */
import type { Chunk, PendingText } from '../chunking/index.js';
import { type PacingEstimates, ReplyTokens } from './pacing-estimates.js';
import { type PlanFigures, PlayoutForecast, type ProviderShape, coverage, slowerThanSpeech } from './pacing-model.js';

/** Why the first chunk went when it did. */
export type FirstRelease =
  /** As early as the first-clause rule: its audio covers what follows. */
  | 'eager'
  /** Later than the first-clause rule: more words were needed to cover what follows (TTFA given up). */
  | 'held'
  /** At the hold bound, with a silence predicted (no-gap given up). */
  | 'bound'
  /** At once although not covered: the LLM writes slower than the voice speaks, holding cannot help. */
  | 'slow-llm'
  /** The chunker cut it itself: over-long text, a flush or the reply's end. */
  | 'chunker';

export interface PacingReport {
  reason: FirstRelease;
  /** When the first-clause rule would have sent the first chunk (the release itself when the chunker cut it). */
  eagerAt: number;
  releasedAt: number;
  /** Characters of the first chunk. */
  chars: number;
  /** Silence predicted after it at its release, ms (0 when covered). */
  predictedGapMs: number;
  /** The figures it was planned with. */
  figures: PlanFigures;
}

const INSIDE_SENTENCE = new Set<Chunk['reason']>(['clause', 'word', 'length']);


export class ReplyPacer {
  readonly #estimates: PacingEstimates;
  readonly #tokens = new ReplyTokens();
  readonly #forecast: PlayoutForecast;
  readonly #continuation: boolean;
  #cutsLeft: number;
  #releasedChars = 0;
  /** When the current run's first piece became due (the first-clause rule, or the text after a silence). */
  #dueAt: number | undefined;
  #pendingReason: FirstRelease = 'eager';
  #pendingGapMs = 0;
  #report: PacingReport | undefined;

  constructor(shape: ProviderShape, estimates: PacingEstimates) {
    this.#estimates = estimates;
    this.#forecast = new PlayoutForecast(shape);
    this.#continuation = shape.continuation;
    this.#cutsLeft = shape.continuation ? Infinity : 1;
  }

  /** The first chunk's story, once it went. */
  get report(): PacingReport | undefined {
    return this.#report;
  }

  text(at: number, delta: string): void {
    this.#tokens.add(at, delta);
  }

  /** Whether the pending text should be released now (at its latest boundary). */
  due(at: number, pending: PendingText): boolean {
    if (pending.releasable === 0) return false;
    const inside = pending.releasableKind !== 'sentence';
    if (inside && this.#cutsLeft <= 0) return false;
    const f = this.#figures();
    // Where the LLM writes slower than the voice speaks, early pieces only chop the reply into
    // words without keeping the audio going: later text waits for its sentence end.
    const slow = slowerThanSpeech(f);
    if (!this.#forecast.idle(at)) return !slow && at >= this.#forecast.deadline(f);
    if (pending.emitted === 0 ? !pending.firstDue : slow) return false;
    this.#dueAt ??= at;
    const cover = coverage(
      this.#forecast,
      {
        at,
        releasedChars: this.#releasedChars,
        chars: pending.releasable,
        arrivedChars: pending.chars,
        atSentenceEnd: !inside,
        openSentenceChars: pending.openSentenceChars,
        cutsLeft: this.#cutsLeft - (inside ? 1 : 0),
      },
      f,
    );
    this.#pendingGapMs = cover.gapMs;
    if (cover.covered) this.#pendingReason = at > this.#dueAt ? 'held' : 'eager';
    else if (slow) this.#pendingReason = 'slow-llm';
    else if (at >= this.#dueAt + this.#estimates.options.maxHoldMs) this.#pendingReason = 'bound';
    else return false;
    return true;
  }

  /**
   * When to ask `due()` again if no text arrives before: the deadline of the next piece while
   * audio plays, the hold bound while the first chunk waits; undefined when only text can change it.
   */
  nextCheck(at: number, pending: PendingText): number | undefined {
    if (pending.releasable === 0) return undefined;
    if (pending.releasableKind !== 'sentence' && this.#cutsLeft <= 0) return undefined;
    if (this.#forecast.idle(at)) return this.#dueAt === undefined ? undefined : this.#dueAt + this.#estimates.options.maxHoldMs;
    const f = this.#figures();
    return slowerThanSpeech(f) ? undefined : Math.max(at, this.#forecast.deadline(f));
  }

  /** A chunk went to the TTS (released by the pacer or cut by the chunker). */
  released(at: number, chunk: Chunk, byPacer: boolean): void {
    const f = this.#figures();
    const startsRun = this.#forecast.idle(at);
    this.#forecast.release(at, chunk.text.length, f, startsRun);
    this.#releasedChars += chunk.text.length + 1;
    if (INSIDE_SENTENCE.has(chunk.reason) && !this.#continuation) this.#cutsLeft--;
    if (startsRun && !this.#report) {
      this.#report = {
        reason: byPacer ? this.#pendingReason : 'chunker',
        eagerAt: this.#dueAt ?? at,
        releasedAt: at,
        chars: chunk.text.length,
        predictedGapMs: byPacer ? this.#pendingGapMs : 0,
        figures: f,
      };
    }
    if (startsRun) this.#dueAt = undefined;
  }

  /** The reply's first audio played at `at`. */
  audioStarted(at: number): void {
    this.#forecast.started(at);
  }

  /** The reply is complete: its tokens inform the next reply's plan. */
  finish(): void {
    this.#estimates.observeReply(this.#tokens);
  }

  #figures(): PlanFigures {
    return this.#estimates.planFigures(this.#tokens);
  }
}
