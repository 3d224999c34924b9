import type { UtteranceSpec } from '../../src/spoken/utterance.js';

/**
 * What an utterance of the false-end corpus tests. Every pause inside an utterance is one where
 * the caller only paused: an agent that starts to speak there has taken a false end of turn.
 */
export type CorpusKind = 'complete' | 'pause' | 'filler' | 'list' | 'trailing';

export interface CorpusUtterance extends UtteranceSpec {
  /** Stable, unique, `<language>-<kind>-<n>`. */
  id: string;
  kind: CorpusKind;
}
