/**
 * bench:turn's `--variant`: firstword's defaults with the keys given changed; a detector starts
 * from the delays the worker gives it (TURN_DETECTOR=combined its own floor and bound).
 */
import { describe, expect, it } from 'vitest';
import { FIRSTWORD, parseVariant } from '../../bench/turn/settings.js';
import { CONFIG_DEFAULTS } from '../../src/config/defaults.js';
import { DEFAULT_TURN_POLICY } from '../../src/turn/turn-decision.js';

describe('parseVariant', () => {
  it('changes only the keys given', () => {
    const v = parseVariant('silence=300,min=400,early-final=off');
    expect(v.silenceMs).toBe(300);
    expect(v.turn).toEqual({ ...FIRSTWORD.turn, minDelayMs: 400, earlyFinal: false });
    expect(v.name).toBe('silence=300,min=400,early-final=off');
  });

  it('the combined detector starts from its own floor and bound, as in the worker; given delays win, in any order', () => {
    expect(parseVariant('detector=combined').turn).toMatchObject({ detector: 'combined', minDelayMs: DEFAULT_TURN_POLICY.minSilenceMs, maxDelayMs: DEFAULT_TURN_POLICY.maxSilenceMs });
    expect(parseVariant('min=250,detector=combined').turn).toMatchObject({ minDelayMs: 250, maxDelayMs: DEFAULT_TURN_POLICY.maxSilenceMs });
    expect(parseVariant('detector=transcript').turn).toMatchObject({ minDelayMs: CONFIG_DEFAULTS.turn.minDelayMs, maxDelayMs: CONFIG_DEFAULTS.turn.maxDelayMs });
  });

  it('rejects what it does not know, naming it', () => {
    expect(() => parseVariant('detector=magic')).toThrow(/detector must be one of off, transcript, audio, combined/);
    expect(() => parseVariant('early-final=maybe')).toThrow(/early-final must be on or off/);
    expect(() => parseVariant('speed=2')).toThrow(/unknown key "speed"/);
  });
});
