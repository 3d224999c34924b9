/**
 * The false-end corpus is what the turn benchmarks measure against: it must cover, in both
 * languages, every kind of unfinished turn and every pause length, and many complete turns.
 */
import { describe, expect, it } from 'vitest';
import type { CorpusKind } from '../../bench/turn/corpus-types.js';
import { TURN_CORPUS, transcriptsSoFar } from '../../bench/turn/corpus.js';

const LANGUAGES = ['ko', 'en'] as const;
const KINDS: readonly CorpusKind[] = ['complete', 'pause', 'filler', 'list', 'trailing'];
const PAUSES_MS = [300, 500, 700, 1000];

describe('TURN_CORPUS', () => {
  it('has unique ids that name each utterance’s language and kind', () => {
    expect(new Set(TURN_CORPUS.map((u) => u.id)).size).toBe(TURN_CORPUS.length);
    for (const u of TURN_CORPUS) expect(u.id).toMatch(new RegExp(`^${u.language}-${u.kind}-\\d+$`));
  });

  it('has only non-empty pieces, pauses only between pieces, and complete turns without any', () => {
    for (const u of TURN_CORPUS) {
      expect(u.pieces.length).toBeGreaterThan(0);
      for (const p of u.pieces) expect(p.text.trim()).not.toBe('');
      expect(u.pieces.at(-1)!.pauseAfterMs).toBeUndefined();
      const inner = u.pieces.slice(0, -1);
      for (const p of inner) expect(PAUSES_MS).toContain(p.pauseAfterMs);
      expect([u.id, inner.length > 0]).toEqual([u.id, u.kind !== 'complete']);
    }
  });

  for (const language of LANGUAGES) {
    it(`covers every kind and every pause length in ${language}`, () => {
      const own = TURN_CORPUS.filter((u) => u.language === language);
      for (const kind of KINDS) expect([kind, own.filter((u) => u.kind === kind).length >= 4]).toEqual([kind, true]);
      const pauses = own.flatMap((u) => u.pieces.slice(0, -1).map((p) => p.pauseAfterMs));
      for (const ms of PAUSES_MS) expect([ms, pauses.filter((p) => p === ms).length >= 4]).toEqual([ms, true]);
      // Most turns are whole in one breath: the fast answers are the common case.
      expect(own.filter((u) => u.kind === 'complete').length).toBeGreaterThanOrEqual(10);
      const words = own.filter((u) => u.kind === 'complete').map((u) => u.pieces[0]!.text.split(/\s+/).length);
      expect(Math.min(...words)).toBe(1);
      expect(Math.max(...words)).toBeGreaterThanOrEqual(language === 'en' ? 12 : 7);
    });
  }

  it('keeps the two languages balanced', () => {
    const count = (language: string) => TURN_CORPUS.filter((u) => u.language === language).length;
    expect(count('ko')).toBe(count('en'));
    expect(TURN_CORPUS.length).toBeGreaterThanOrEqual(60);
    expect(TURN_CORPUS.length).toBeLessThanOrEqual(80);
  });

  it('writes Korean in Hangul and English in Latin letters, with no commas inside a piece', () => {
    for (const u of TURN_CORPUS) {
      for (const p of u.pieces) {
        expect(p.text).toMatch(u.language === 'ko' ? /[\uAC00-\uD7A3]/u : /[A-Za-z]/);
        // The local voice pauses ~160 ms at a comma: inside a piece it would be an unlabelled pause.
        expect([p.text, p.text.replace(/[,…]+$/u, '').includes(',')]).toEqual([p.text, false]);
      }
    }
  });

  it('gives the transcript so far at each pause, ending with the whole utterance', () => {
    const [first, second, whole] = transcriptsSoFar(TURN_CORPUS.find((u) => u.id === 'en-list-3')!);
    expect([first, second, whole]).toEqual(['Add milk,', 'Add milk, eggs,', 'Add milk, eggs, and bread to my list.']);
  });
});
