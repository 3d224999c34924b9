import type { TranscriptEnding } from './transcript-words.js';

/**
 * The few grades of "the caller has finished" the end-of-turn rules give, as probabilities.
 * Anything below {@link TURN_UNLIKELY_THRESHOLD} makes the framework wait its endpointing
 * maxDelay; anything at or above it, its minDelay.
 */
export const LIKELIHOOD = {
  /** A filler or a conjunction: the caller is still composing. */
  midThought: 0.05,
  /** A word that needs another after it: an article, a preposition, a particle, a connective ending. */
  continues: 0.12,
  /** Weaker signs of more to come: a list in progress, a trailing ellipsis, a missing predicate. */
  probablyContinues: 0.25,
  /** A trailing comma, or a Korean lead-in ending ("-는데요") that is usually but not always followed. */
  leansContinues: 0.4,
  /** Nothing to judge. */
  neutral: 0.5,
  /** A bare noun phrase ("서울 날씨"), a run of digits: often a whole request. */
  leansOver: 0.7,
  /** A finished sentence by its words. */
  over: 0.85,
  /** A question, or a one-word answer ("Yes", "네"). */
  surelyOver: 0.95,
} as const;

export const TURN_UNLIKELY_THRESHOLD = LIKELIHOOD.neutral;

/**
 * What an STT's punctuation adds to what the words say. A '?' settles a sentence the words left
 * open only mildly (a bare phrase asked as a question is whole), never one cut off on "the"; an
 * ellipsis or dash says the caller trailed off; a trailing comma says a clause or a list goes on.
 */
export function withPunctuation(byWords: number, ending: TranscriptEnding, listInProgress: boolean): number {
  switch (ending) {
    case 'question':
      return byWords >= LIKELIHOOD.probablyContinues ? Math.max(byWords, LIKELIHOOD.surelyOver) : byWords;
    case 'ellipsis':
      return Math.min(byWords, byWords >= LIKELIHOOD.neutral ? LIKELIHOOD.probablyContinues : LIKELIHOOD.continues);
    case 'comma':
      return Math.min(byWords, listInProgress ? LIKELIHOOD.probablyContinues : LIKELIHOOD.leansContinues);
    case 'none':
      return byWords;
  }
}
