/**
 * The physics the pacer plans with: when a released piece of text starts to sound, when the audio
 * released so far runs out, and whether, from a given release, the text still to come can keep the
 * audio going.
 *
 * A piece of `n` characters released at `t` is ready (its first audio byte) at
 *   max(t + F, G)   on a provider that starts a piece's latency when it arrives (a continued
 *                   context voices its pieces in order, so not before the previous one is generated),
 *   max(t, G) + F   on a sequential provider (one request at a time per socket: the next request's
 *                   latency starts when the previous one is generated),
 * where G is when the previous piece is generated (ready + ρ·a·n) and F the provider's first byte.
 * It plays from max(ready, end of the previous piece) for a·n. Silence is a piece ready after the
 * previous one's end. So the latest release of the next piece that still sounds in time is
 * E − m − F (E the end of the audio released so far, m the margin), provided G is early enough;
 * where it is not, nothing released sooner than G − F (or G, sequential) sounds sooner.
 */

/** What the pacer must know about a provider (declared by its codec, src/providers/codec.ts). */
export interface ProviderShape {
  /** Prosody carries across pieces (a continued context): a cut inside a sentence costs almost nothing. */
  continuation: boolean;
  /** One request at a time per socket: a piece's latency starts once the previous one is generated. */
  sequential: boolean;
}

/** The figures one decision is planned with; each is pessimistic already (see pacer-figures.ts). */
export interface PlanFigures {
  /** The LLM's pace, ms per token. */
  tokenGapMs: number;
  /** How far behind that pace the next tokens may arrive, ms. */
  latenessMs: number;
  charsPerToken: number;
  /** Characters a word boundary may lag the text that has arrived (a word in progress). */
  wordChars: number;
  /** Characters from one natural cut to the next (a sentence, short ones merged). */
  sentenceChars: number;
  /** Speech per character of text, ms (the low side: shorter speech covers less). */
  speechMsPerChar: number;
  /** Provider latency of a reply's first piece, ms (its mean: the margin holds its spread). */
  firstByteMs: number;
  /** Provider latency of a later piece, ms (the high side). */
  nextFirstByteMs: number;
  /** Generation time / audio time (the high side). */
  realTimeFactor: number;
  /** Headroom before the audio runs out, ms. */
  marginMs: number;
}

/** The audio released so far, predicted piece by piece. */
export class PlayoutForecast {
  /** End of the audio released so far (-Infinity: nothing released in this run). */
  end = -Infinity;
  /** When the last released piece is fully generated. */
  generated = -Infinity;
  /** Silence predicted in front of pieces released so far, ms. */
  predictedGapMs = 0;
  #started = false;
  #firstReady = 0;

  constructor(readonly shape: ProviderShape) {}

  clone(): PlayoutForecast {
    const copy = new PlayoutForecast(this.shape);
    copy.end = this.end;
    copy.generated = this.generated;
    copy.predictedGapMs = this.predictedGapMs;
    copy.#started = this.#started;
    copy.#firstReady = this.#firstReady;
    return copy;
  }

  /** Nothing plays at `at`: nothing was released yet, or the audio released ran out. */
  idle(at: number): boolean {
    return this.end <= at;
  }

  /**
   * Records a released piece; returns the silence in front of it. A piece released while nothing
   * plays starts a run of its own when `startsRun` (a reply's first piece, or the first after a
   * silence the pacer could not prevent); otherwise the time since the audio ran out is silence.
   */
  release(at: number, chars: number, f: PlanFigures, startsRun = false): number {
    const latency = startsRun || !this.#started ? f.firstByteMs : f.nextFirstByteMs;
    const ready = this.shape.sequential ? Math.max(at, this.generated) + latency : Math.max(at + latency, this.generated);
    const audioMs = f.speechMsPerChar * chars;
    const gap = !startsRun && Number.isFinite(this.end) && ready > this.end ? ready - this.end : 0;
    if (!this.#started) this.#firstReady = ready;
    this.#started = true;
    this.end = (startsRun ? ready : Math.max(ready, this.end)) + audioMs;
    this.generated = ready + f.realTimeFactor * audioMs;
    this.predictedGapMs += gap;
    return gap;
  }

  /** The first audio played at `at`: everything released moves with it (no gap was seen before it). */
  started(at: number): void {
    if (!Number.isFinite(this.end)) return;
    const shift = at - this.#firstReady;
    this.end += shift;
    this.generated += shift;
    this.#firstReady = at;
  }

  /**
   * The latest release at which the next piece still sounds before the audio runs out (minus the
   * margin), or, where the previous piece's generation makes that impossible however soon it goes,
   * the latest release that does not delay it further.
   */
  deadline(f: PlanFigures): number {
    const covered = this.end - f.marginMs;
    return this.shape.sequential
      ? Math.max(covered - f.nextFirstByteMs, this.generated)
      : Math.max(covered, this.generated) - f.nextFirstByteMs;
  }
}

/** Where the text stands when a release is considered. */
export interface ReleasePoint {
  at: number;
  /** Characters released before this point in the reply. */
  releasedChars: number;
  /** Characters this release would send. */
  chars: number;
  /** Characters that have arrived beyond the released ones (≥ chars). */
  arrivedChars: number;
  /** The release ends at a sentence end. */
  atSentenceEnd: boolean;
  /** Characters of the unfinished sentence at the release (0 at a sentence end). */
  openSentenceChars: number;
  /** Cuts inside a sentence still allowed after this one (Infinity with continuation). */
  cutsLeft: number;
}

export interface Coverage {
  covered: boolean;
  /** Silence the synthetic reply met first, ms (0 when covered). */
  gapMs: number;
}

const MAX_STEPS = 4000;

/** Text arrives (at the planned pace) slower than the voice speaks it: early pieces cannot keep the audio going. */
export function slowerThanSpeech(f: PlanFigures): boolean {
  return f.charsPerToken * f.speechMsPerChar < f.tokenGapMs;
}

/**
 * Releases at `point`, then plays the rest of the reply forward on synthetic tokens (`latenessMs`
 * late, then one every `tokenGapMs`, `charsPerToken` each, a word boundary `wordChars` behind the
 * text, a sentence end every `sentenceChars`) with the pacer's own rules: a sentence end is cut once certain, a cut
 * inside a sentence is made at the deadline while cuts are left. Covered when no silence falls
 * until a whole sentence past the open one has been released.
 */
export function coverage(forecast: PlayoutForecast, point: ReleasePoint, f: PlanFigures): Coverage {
  const sim = forecast.clone();
  const first = sim.release(point.at, point.chars, f, sim.idle(point.at));
  if (first > 0) return { covered: false, gapMs: first };
  let released = point.releasedChars + point.chars;
  let arrived = point.releasedChars + point.arrivedChars;
  const sentence = Math.max(f.sentenceChars, f.wordChars);
  let sentenceEnd = released + (point.atSentenceEnd ? sentence : Math.max(f.wordChars, sentence - point.openSentenceChars));
  const horizon = sentenceEnd + sentence;
  let cutsLeft = point.cutsLeft;
  let now = point.at;
  let nextToken = point.at + f.latenessMs + f.tokenGapMs;
  for (let step = 0; step < MAX_STEPS && released < horizon; step++) {
    const boundary = arrived - f.wordChars;
    const deadline = cutsLeft > 0 && !slowerThanSpeech(f) ? sim.deadline(f) : Infinity;
    if (boundary > released && deadline < nextToken) {
      now = Math.max(now, deadline);
      const gap = sim.release(now, boundary - released, f);
      if (gap > 0) return { covered: false, gapMs: gap };
      released = boundary;
      cutsLeft--;
      continue;
    }
    now = nextToken;
    nextToken += f.tokenGapMs;
    arrived += f.charsPerToken;
    while (sentenceEnd <= released) sentenceEnd += sentence;
    // A sentence end is certain on the token after it.
    if (arrived >= sentenceEnd + f.charsPerToken) {
      const gap = sim.release(now, sentenceEnd - released, f);
      if (gap > 0) return { covered: false, gapMs: gap };
      released = sentenceEnd;
    }
  }
  return released >= horizon ? { covered: true, gapMs: 0 } : { covered: false, gapMs: Infinity };
}
