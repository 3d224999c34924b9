import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HISTORY_MAX_BYTES,
  HISTORY_MAX_CHARS,
  HISTORY_MAX_TURNS,
  type HistoryTurn,
  boundHistory,
  chatContextOf,
  decodeHistory,
  encodeHistory,
  turnOf,
} from '../../src/recovery/history.js';

const turnArb = fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), text: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 900 }) });

describe('the history a job keeps on its agent', () => {
  it('keeps the newest turns within every bound, and decodes what it encodes', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { maxLength: 30 }), (turns: HistoryTurn[]) => {
        const encoded = encodeHistory(turns);
        expect(Buffer.byteLength(encoded)).toBeLessThanOrEqual(HISTORY_MAX_BYTES);
        const decoded = decodeHistory(encoded);
        expect(decoded.ok).toBe(true);
        if (!decoded.ok) return;
        expect(decoded.value.length).toBeLessThanOrEqual(HISTORY_MAX_TURNS);
        for (const t of decoded.value) expect([...t.text].length).toBeLessThanOrEqual(HISTORY_MAX_CHARS);
        // What is kept is the tail: the last kept turn is the last non-blank turn given.
        const lastGiven = turns.filter((t) => t.text.trim() !== '').at(-1);
        if (decoded.value.length > 0) expect(decoded.value.at(-1)!.text).toBe([...lastGiven!.text.trim()].slice(0, HISTORY_MAX_CHARS).join(''));
      }),
    );
  });

  it('drops the oldest turns first when the bytes run out (Korean is three bytes a character)', () => {
    const long = '가'.repeat(HISTORY_MAX_CHARS);
    const turns = Array.from({ length: HISTORY_MAX_TURNS }, (_, i) => ({ role: 'user' as const, text: `${i}${long}` }));
    const kept = boundHistory(turns);
    expect(kept.length).toBeLessThan(HISTORY_MAX_TURNS);
    expect(kept.at(-1)!.text.startsWith('7')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(HISTORY_MAX_BYTES);
  });

  it('never cuts a character in two', () => {
    const [kept] = boundHistory([{ role: 'user', text: '😀'.repeat(HISTORY_MAX_CHARS + 5) }]);
    expect(kept!.text).toBe('😀'.repeat(HISTORY_MAX_CHARS));
  });

  it('reports bad stored history without echoing its text', () => {
    expect(decodeHistory(undefined)).toEqual({ ok: true, value: [] });
    const notJson = decodeHistory('{"secret caller words');
    expect(notJson).toEqual({ ok: false, error: expect.stringMatching(/not JSON/) });
    expect(JSON.stringify(notJson)).not.toContain('secret');
    const wrongRole = decodeHistory(JSON.stringify([{ role: 'system', text: 'secret' }]));
    expect(wrongRole.ok).toBe(false);
    expect(JSON.stringify(wrongRole)).not.toContain('secret');
    expect(decodeHistory(JSON.stringify({ turns: [] })).ok).toBe(false);
    expect(decodeHistory(JSON.stringify(Array.from({ length: HISTORY_MAX_TURNS + 1 }, () => ({ role: 'user', text: 'a' })))).ok).toBe(false);
  });

  it('takes only the caller\'s and the agent\'s messages as turns', () => {
    expect(turnOf({ type: 'message', role: 'user', textContent: ' hi ' })).toEqual({ role: 'user', text: 'hi' });
    expect(turnOf({ type: 'message', role: 'assistant', textContent: 'hello' })).toEqual({ role: 'assistant', text: 'hello' });
    expect(turnOf({ type: 'message', role: 'system', textContent: 'instructions' })).toBeUndefined();
    expect(turnOf({ type: 'message', role: 'user', textContent: '  ' })).toBeUndefined();
    expect(turnOf({ type: 'agent_handoff' })).toBeUndefined();
  });

  it('seeds a chat context in order', () => {
    const ctx = chatContextOf([
      { role: 'user', text: 'What time does the pharmacy open?' },
      { role: 'assistant', text: 'At nine.' },
    ]);
    expect(ctx.items.map((item) => (item.type === 'message' ? [item.role, item.textContent] : item.type))).toEqual([
      ['user', 'What time does the pharmacy open?'],
      ['assistant', 'At nine.'],
    ]);
  });
});
