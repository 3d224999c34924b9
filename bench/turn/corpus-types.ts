import type { UtterancePiece, UtteranceSpec } from '../../src/spoken/utterance.js';

/**
 * What an utterance of the false-end corpus tests. Every pause inside an utterance is one where
 * the caller only paused: an agent that starts to speak there has taken a false end of turn.
 */
export type CorpusKind = 'complete' | 'pause' | 'filler' | 'list' | 'trailing';

export interface CorpusPiece extends UtterancePiece {
  /**
   * The words up to and including this piece, read without their punctuation, already make a
   * whole turn ("I need a table." before "For four people."): a pause here is ambiguous to
   * anything that judges the transcript alone, and is counted apart from the clear ones.
   */
  completeSoFar?: true;
}

export interface CorpusUtterance extends UtteranceSpec {
  /** Stable, unique, `<language>-<kind>-<n>`. */
  id: string;
  kind: CorpusKind;
  pieces: readonly CorpusPiece[];
}
