import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DtmfCollector, dtmfKey, dtmfTurnText } from '../../src/sip/dtmf.js';
import { type DtmfRoom, type DtmfSession, attachDtmfTurns } from '../../src/sip/dtmf-turns.js';

/** Timers the test fires by hand: no sleeping, no wall clock. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let next = 0;
  return {
    setTimer: (fn: () => void) => (pending.set(++next, fn), next),
    clearTimer: (handle: unknown) => void pending.delete(handle as number),
    fireAll: () => {
      const due = [...pending.values()];
      pending.clear();
      due.forEach((fn) => fn());
    },
    get count() {
      return pending.size;
    },
  };
}

function collector(options: { maxDigits?: number } = {}) {
  const timers = manualTimers();
  const sequences: [string, string][] = [];
  const c = new DtmfCollector({ ...options, ...timers, onSequence: (keys, reason) => sequences.push([keys, reason]) });
  const press = (keys: string) => [...keys].forEach((k) => c.push(undefined, k));
  return { c, timers, sequences, press };
}

describe('dtmfKey', () => {
  it('takes the digit when it is a key, else the RFC 4733 code', () => {
    expect(dtmfKey(1, '1')).toBe('1');
    expect(dtmfKey(10, '*')).toBe('*');
    expect(dtmfKey(11, '#')).toBe('#');
    expect(dtmfKey(undefined, 'a')).toBe('A');
    expect(dtmfKey(11, '')).toBe('#');
    expect(dtmfKey(0, '')).toBe('0');
    expect(dtmfKey(15, undefined)).toBe('D');
  });

  it.each([
    ['two characters', 3, '12'],
    ['a letter past D', undefined, 'E'],
    ['a code past 15', 16, ''],
    ['a negative code', -1, ''],
    ['a fractional code', 1.5, ''],
    ['nothing at all', undefined, undefined],
    ['an emoji', undefined, '😀'],
  ] as const)('rejects junk: %s', (_what, code, digit) => {
    expect(dtmfKey(code, digit)).toBeUndefined();
  });
});

describe('DtmfCollector', () => {
  it('ends a sequence on # (kept, so the LLM knows it was confirmed)', () => {
    const { sequences, press, timers } = collector();
    press('1234#');
    expect(sequences).toEqual([['1234#', 'hash']]);
    expect(timers.count).toBe(0);
  });

  it('ends a sequence after the pause, and each key restarts the pause', () => {
    const { c, sequences, press, timers } = collector();
    press('0');
    expect(timers.count).toBe(1);
    press('*9');
    expect(timers.count, 'one timer, restarted').toBe(1);
    expect(sequences).toEqual([]);
    timers.fireAll();
    expect(sequences).toEqual([['0*9', 'pause']]);
    expect(c.pending).toBe(0);
  });

  it('keeps * inside a sequence and starts a fresh one after #', () => {
    const { sequences, press, timers } = collector();
    press('*72#5');
    timers.fireAll();
    expect(sequences).toEqual([['*72#', 'hash'], ['5', 'pause']]);
  });

  it('a lone # is a sequence of its own', () => {
    const { sequences, press } = collector();
    press('#');
    expect(sequences).toEqual([['#', 'hash']]);
  });

  it('cuts a run at the length cap', () => {
    const { sequences, press } = collector({ maxDigits: 4 });
    press('123456');
    expect(sequences).toEqual([['1234', 'length']]);
  });

  it('ignores junk without ending or restarting the sequence', () => {
    const { c, sequences, timers } = collector();
    c.push(undefined, '1');
    expect(c.push(99, 'xx')).toBe(false);
    expect(c.push(undefined, '')).toBe(false);
    c.push(11, '#');
    expect(sequences).toEqual([['1#', 'hash']]);
    expect(timers.count).toBe(0);
  });

  it('drops pending keys on close and takes no more', () => {
    const { c, sequences, press, timers } = collector();
    press('12');
    c.close();
    timers.fireAll();
    expect(c.push(undefined, '#')).toBe(false);
    expect(sequences).toEqual([]);
  });
});

describe('dtmfTurnText', () => {
  it('spaces the keys so a PIN is not read as one number', () => {
    expect(dtmfTurnText('1234#')).toBe('The caller pressed 1 2 3 4 #');
  });
});

describe('attachDtmfTurns', () => {
  function setup(state = 'listening', { interruptible = true } = {}) {
    const emitter = new EventEmitter();
    const room = emitter as unknown as DtmfRoom;
    const calls: string[] = [];
    const session: DtmfSession & { agentState: string } = {
      agentState: state,
      interrupt: () => {
        if (!interruptible) throw new Error('This generation handle does not allow interruptions');
        calls.push('interrupt');
      },
      generateReply: ({ userInput }) => calls.push(`reply: ${userInput}`),
    };
    const lines: string[] = [];
    const logger = { info: (f: Record<string, unknown>, m: string) => lines.push(`${m} ${JSON.stringify(f)}`), warn: (f: Record<string, unknown>, m: string) => lines.push(`${m} ${JSON.stringify(f)}`) };
    const timers = manualTimers();
    const stop = attachDtmfTurns(room, session, { callerIdentity: 'sip_+15550001111', logger, ...timers });
    const press = (keys: string, identity = 'sip_+15550001111') => [...keys].forEach((k) => emitter.emit('dtmfReceived', 0, k, { identity }));
    return { session, calls, lines, timers, stop, press, emitter };
  }

  it('turns a sequence into one user turn, and logs how many keys, never which', () => {
    const { calls, lines, press } = setup();
    press('4711#');
    expect(calls).toEqual(['reply: The caller pressed 4 7 1 1 #']);
    expect(lines).toEqual(['caller pressed keys {"keys":5,"reason":"hash"}']);
    expect(lines.join('\n')).not.toMatch(/4.?7.?1.?1/);
  });

  it('a key pressed while the agent speaks cuts the reply first, then the sequence is answered', () => {
    const { session, calls, press, timers } = setup('speaking');
    press('9');
    session.agentState = 'listening';
    press('8');
    timers.fireAll();
    expect(calls).toEqual(['interrupt', 'reply: The caller pressed 9 8']);
  });

  it('a # alone while the agent speaks interrupts before its reply is queued', () => {
    const { calls, press } = setup('speaking');
    press('#');
    expect(calls).toEqual(['interrupt', 'reply: The caller pressed #']);
  });

  it('keys during the greeting (not interruptible) leave it playing and are answered after', () => {
    const { calls, press } = setup('speaking', { interruptible: false });
    press('0#');
    expect(calls).toEqual(['reply: The caller pressed 0 #']);
  });

  it("ignores other participants' keys and junk events", () => {
    const { calls, lines, press, emitter } = setup();
    press('55#', 'someone-else');
    emitter.emit('dtmfReceived', 42, 'zz', { identity: 'sip_+15550001111' });
    expect(calls).toEqual([]);
    expect(lines).toEqual(['ignored a key event that names no key {}']);
  });

  it('stops listening when detached', () => {
    const { calls, press, stop, timers } = setup();
    press('1');
    stop();
    press('2#');
    timers.fireAll();
    expect(calls).toEqual([]);
  });
});
