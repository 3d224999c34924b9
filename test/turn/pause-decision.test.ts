/**
 * The combined decision replayed on a VAD timeline (bench/turn/pause-decision.ts), as the worker's
 * detector takes it: each check waits for Smart Turn's answer when it is due within the wait, so
 * the voice is heard before a turn ends; an acknowledgement goes on what is known at once.
 */
import { describe, expect, it } from 'vitest';
import { type PauseCase, combinedOutcome } from '../../bench/turn/pause-decision.js';
import type { TurnPolicy } from '../../src/turn/turn-decision.js';

const P: TurnPolicy = { minSilenceMs: 300, maxSilenceMs: 1500, sureLevel: 0.8, unsureLevel: 0.25, backchannelLevel: 0.7 };

/** Last sound at 1,000 ms, the VAD's end 256 ms later, finished words 300 ms after the last sound. */
const pause = (audio: number | undefined, resumeMs?: number): PauseCase => ({
  speechEndMs: 1000,
  vadEndMs: 1256,
  ...(resumeMs === undefined ? {} : { resumeMs }),
  ...(audio === undefined ? {} : { audio }),
  words: [{ atMs: 1300, likelihood: 1, fresh: true }],
});

describe('combinedOutcome', () => {
  it('a voice that says "not finished" is heard before finished words end the turn', () => {
    // The answer is due at 1,356 ms; the words are fresh at 1,300, before it.
    const { endMs } = combinedOutcome(pause(0.1), 100, P);
    expect(endMs).toBe(1000 + P.maxSilenceMs);
  });

  it('a voice that agrees ends the turn once it is heard, at the floor or its answer, whichever is later', () => {
    expect(combinedOutcome(pause(0.95), 100, P).endMs).toBe(1356);
    expect(combinedOutcome(pause(0.95), 100, { ...P, minSilenceMs: 500 }).endMs).toBe(1500);
  });

  it('an answer due after the wait is not waited for: the words decide until it comes', () => {
    expect(combinedOutcome(pause(0.1), 600, P, 400).endMs).toBe(1300);
  });

  it('without the model the words and the silence decide', () => {
    expect(combinedOutcome(pause(undefined), 100, P).endMs).toBe(1000 + P.minSilenceMs);
  });

  it('the acknowledgement goes on the fresh words at once, the reply waits for the voice', () => {
    const { endMs, ackMs } = combinedOutcome(pause(0.1, 1340), 100, P);
    expect(ackMs).toBe(1300);
    expect(endMs).toBe(Number.POSITIVE_INFINITY);
  });
});
