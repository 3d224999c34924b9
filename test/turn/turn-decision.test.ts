/**
 * The per-pause turn decision: sure evidence ends the turn at the floor, unsure evidence waits up
 * to the bound, stale words never end a turn by themselves, no words never end one, and a longer
 * silence or surer evidence never makes it less likely to end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TURN_POLICY as P, type PauseEvidence, combinedConfidence, judgePause } from '../../src/turn/turn-decision.js';

const fresh = (likelihood: number) => ({ likelihood, fresh: true });
const stale = (likelihood: number) => ({ likelihood, fresh: false });

describe('judgePause', () => {
  it.each<[string, PauseEvidence, boolean]>([
    ['voice and fresh words say finished, at the floor', { silenceMs: P.minSilenceMs, audio: 0.95, words: fresh(0.95) }, true],
    ['the same just before the floor', { silenceMs: P.minSilenceMs - 1, audio: 0.95, words: fresh(0.95) }, false],
    ['words finished, voice says mid-turn ("I need a table." → "for four")', { silenceMs: 400, audio: 0.05, words: fresh(0.85) }, false],
    ['voice finished, words cut off on "the"', { silenceMs: 400, audio: 0.9, words: fresh(0.12) }, false],
    ['unsure evidence waits the bound', { silenceMs: P.maxSilenceMs - 1, audio: 0.1, words: fresh(0.12) }, false],
    ['and ends at it', { silenceMs: P.maxSilenceMs, audio: 0.1, words: fresh(0.12) }, true],
    ['stale finished words alone do not end it', { silenceMs: 900, words: stale(0.95) }, false],
    ['stale finished words end only at the bound', { silenceMs: P.maxSilenceMs, words: stale(0.95) }, true],
    ['a sure voice waits for the words that cover the pause', { silenceMs: P.minSilenceMs, audio: 0.97, words: stale(0.95) }, false],
    ['and ends once they do', { silenceMs: P.minSilenceMs, audio: 0.97, words: fresh(0.95) }, true],
    ['no word yet: never, however long and sure the voice', { silenceMs: 60_000, audio: 0.99 }, false],
    ['fresh finished words without the voice (model not answered yet)', { silenceMs: P.minSilenceMs + 50, words: fresh(0.95) }, true],
  ])('%s', (_name, evidence, ends) => {
    expect(judgePause(evidence).endTurn).toBe(ends);
  });

  it('stale words that read finished count as neutral: the voice decides', () => {
    expect(combinedConfidence({ silenceMs: 0, audio: 0.9, words: stale(0.95) })).toBeCloseTo(combinedConfidence({ silenceMs: 0, audio: 0.9, words: fresh(0.5) }));
    // ...while stale words that read unfinished still hold the turn.
    expect(combinedConfidence({ silenceMs: 0, audio: 0.9, words: stale(0.05) })).toBeLessThan(0.5);
  });

  it('an acknowledgement fits sure pauses, not stale words or none', () => {
    expect(judgePause({ silenceMs: P.minSilenceMs, audio: 0.9, words: fresh(0.85) }).backchannelFits).toBe(true);
    expect(judgePause({ silenceMs: P.minSilenceMs, words: stale(0.95) }).backchannelFits).toBe(false);
    expect(judgePause({ silenceMs: P.minSilenceMs, audio: 0.99 }).backchannelFits).toBe(false);
    expect(judgePause({ silenceMs: P.minSilenceMs, audio: 0.1, words: fresh(0.95) }).backchannelFits).toBe(false);
  });

  it('rejects what is not a probability or a silence', () => {
    expect(() => judgePause({ silenceMs: 10, audio: 1.5 })).toThrow(/audio must be a probability/);
    expect(() => judgePause({ silenceMs: -1 })).toThrow(/silenceMs/);
    expect(() => judgePause({ silenceMs: Number.NaN })).toThrow(/silenceMs/);
    expect(() => judgePause({ silenceMs: 1 }, { ...P, minSilenceMs: 2000 })).toThrow(/minSilenceMs/);
  });
});

const probability = fc.double({ min: 0, max: 1, noNaN: true });
const evidence = fc.record(
  {
    silenceMs: fc.double({ min: 0, max: 5000, noNaN: true }),
    audio: probability,
    words: fc.record({ likelihood: probability, fresh: fc.boolean() }),
  },
  { requiredKeys: ['silenceMs'] },
) as fc.Arbitrary<PauseEvidence>;

describe('judgePause, for any evidence', () => {
  it('a longer silence never makes the turn less likely to end', () => {
    fc.assert(
      fc.property(evidence, fc.double({ min: 0, max: 5000, noNaN: true }), (e, more) => {
        if (judgePause(e).endTurn) expect(judgePause({ ...e, silenceMs: e.silenceMs + more }).endTurn).toBe(true);
      }),
    );
  });

  it('surer voice or surer fresh words never make it less likely to end', () => {
    fc.assert(
      fc.property(evidence, probability, (e, p) => {
        // Asserted on every input, not only those that end: a run of draws that never ends must still check something.
        const ends = judgePause(e).endTurn;
        const withSurerVoice = e.audio !== undefined && p > e.audio ? judgePause({ ...e, audio: p }).endTurn : ends;
        const withSurerWords = e.words?.fresh && p > e.words.likelihood ? judgePause({ ...e, words: fresh(p) }).endTurn : ends;
        expect({ voiceUndid: ends && !withSurerVoice, wordsUndid: ends && !withSurerWords }).toEqual({ voiceUndid: false, wordsUndid: false });
      }),
    );
  });

  it('stale words never end a turn before the bound without the voice', () => {
    fc.assert(
      fc.property(probability, fc.double({ min: 0, max: P.maxSilenceMs - 1e-6, noNaN: true }), (likelihood, silenceMs) => {
        expect(judgePause({ silenceMs, words: stale(likelihood) }).endTurn).toBe(false);
      }),
    );
  });

  it('no word never ends a turn; any word ends it by the bound', () => {
    fc.assert(
      fc.property(evidence, (e) => {
        expect(judgePause({ ...e, words: undefined }).endTurn).toBe(false);
        if (e.words) expect(judgePause({ ...e, silenceMs: Math.max(e.silenceMs, P.maxSilenceMs) }).endTurn).toBe(true);
      }),
    );
  });

  it('never ends before the floor', () => {
    fc.assert(
      fc.property(evidence, (e) => {
        expect(e.silenceMs < P.minSilenceMs && judgePause(e).endTurn).toBe(false);
      }),
    );
  });
});
