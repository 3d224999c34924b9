import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimedWords, wordsByStretch } from '../../bench/turn/timed-words.js';

describe('word-timed transcripts (NAME.words.json)', () => {
  it('reads [[word, startMs, endMs], ...] and sorts it by start', () => {
    expect(parseTimedWords('a.words.json', '[["town", 900, 1200], ["to", 500, 700]]')).toEqual([
      { text: 'to', startMs: 500, endMs: 700 },
      { text: 'town', startMs: 900, endMs: 1200 },
    ]);
  });

  it.each([
    ['not JSON', '[["a", 1, 2]', /b\.words\.json: is not JSON/],
    ['empty', '[]', /b\.words\.json: must be a non-empty/],
    ['two words in one entry', '[["a b", 1, 2]]', /one word per entry/],
    ['an end before its start', '[["a", 5, 2]]', /0 ≤ start ≤ end/],
    ['a negative time', '[["a", -1, 2]]', /0 ≤ start ≤ end/],
    ['an object', '{"a": [1, 2]}', /must be a non-empty/],
  ])('refuses %s, naming the file', (_, text, message) => {
    expect(() => parseTimedWords('b.words.json', text)).toThrow(message);
  });

  it('a word goes to the stretch its middle lies in, or to the nearest (the earlier on a tie)', () => {
    const stretches = [
      { first: 0, last: 99 },
      { first: 200, last: 299 },
    ];
    const word = (text: string, first: number, last: number) => ({ text, first, last });
    expect(wordsByStretch([word('I', 0, 40), word('went', 50, 130), word('the', 120, 160), word('to', 170, 230), word('town', 240, 330)], stretches)).toEqual([
      ['I', 'went', 'the'],
      ['to', 'town'],
    ]);
    // Middle 150: 51 after the first stretch, 50 before the second; then exactly between two.
    expect(wordsByStretch([word('x', 100, 200)], stretches)).toEqual([[], ['x']]);
    expect(wordsByStretch([word('y', 100, 200)], [{ first: 0, last: 99 }, { first: 201, last: 299 }])).toEqual([['y'], []]);
  });

  it('property: every word lands in exactly one stretch, in their order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 6 }), (starts, count) => {
        const sorted = [...starts].sort((a, b) => a - b);
        const words = sorted.map((first, i) => ({ text: `w${i}`, first, last: first + 50 }));
        const stretches = Array.from({ length: count }, (_, i) => ({ first: i * 2000, last: i * 2000 + 1500 }));
        const pieces = wordsByStretch(words, stretches);
        expect(pieces).toHaveLength(count);
        expect(pieces.flat()).toEqual(words.map((w) => w.text));
      }),
    );
  });
});
