import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_KOREAN_ALIASES, normalizeForSpeech, toSsml } from '../../src/chunking/speech/index.js';
import { MULTIPLIERS, UNITS } from '../../src/chunking/speech/units.js';
import { assertWellFormed, textContent } from './xml-check.js';

const LATIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const HANGUL = '가나다라마바사아자차카타파하시개명살번원년월일분초점제도영하에서를은는이가';
const PUNCTUATION = ' \n\t.,!?;:()[]"\'-~+$%°/&<>#@*_=…·“”';
const DIGITS = '0123456789';

const chars = (alphabet: string): fc.Arbitrary<string> => fc.constantFrom(...alphabet.split(''));
const textOf = (alphabet: string, maxLength = 40): fc.Arbitrary<string> =>
  fc.array(chars(alphabet), { maxLength }).map((parts) => parts.join(''));

const ALIAS_KEYS = Object.keys(DEFAULT_KOREAN_ALIASES);
const hasAliasKey = (text: string): boolean => ALIAS_KEYS.some((key) => text.includes(key));
const hangulOf = (text: string): string => text.replace(/[^\uAC00-\uD7A3]/g, '');
const isSubsequence = (needle: string, haystack: string): boolean => {
  let i = 0;
  for (const char of haystack) if (char === needle[i]) i++;
  return i === needle.length;
};

const RUNS = { numRuns: 500 };

describe('normalizeForSpeech properties', () => {
  it('never changes text without digits or alias keys (no letter dropped, added or reordered)', () => {
    fc.assert(
      fc.property(textOf(LATIN + HANGUL + PUNCTUATION).filter((text) => !hasAliasKey(text)), (text) => {
        expect(normalizeForSpeech(text)).toBe(text);
        expect(normalizeForSpeech(text, { language: 'ko', spellCodes: true })).toBe(text);
        expect(normalizeForSpeech(text, { language: 'en' })).toBe(text);
      }),
      RUNS,
    );
  });

  it('keeps every Hangul syllable of Korean text with numbers, in order, and leaves no digit unread', () => {
    fc.assert(
      fc.property(textOf(HANGUL + PUNCTUATION + DIGITS), (text) => {
        const spoken = normalizeForSpeech(text);
        expect(isSubsequence(hangulOf(text), hangulOf(spoken))).toBe(true);
        expect(spoken).not.toMatch(/[0-9]/);
      }),
      RUNS,
    );
  });

  it('keeps every Latin letter of English text with numbers that has no letter/digit words', () => {
    // Letters glued to digits form codes, and units, ordinal endings, am/pm and multipliers are
    // replaced on purpose; keep words apart from numbers and free of those to test the rest.
    const replacedWords = /^(?:st|nd|rd|th|s|am|pm)$/i;
    const word = textOf(LATIN, 6).filter((w) => !UNITS.has(w) && !(w in MULTIPLIERS) && !replacedWords.test(w));
    const number = textOf(DIGITS + '.,:', 6).map((digits) => `1${digits}`);
    const sentence = fc.array(fc.oneof(word, number, chars(PUNCTUATION)), { maxLength: 12 }).map((parts) => parts.join(' '));
    fc.assert(
      fc.property(sentence, (text) => {
        const spoken = normalizeForSpeech(text, { language: 'en' });
        const letters = (s: string): string => s.replace(/[^A-Za-z]/g, '');
        expect(isSubsequence(letters(text), letters(spoken))).toBe(true);
        expect(spoken).not.toMatch(/[0-9]/);
      }),
      RUNS,
    );
  });

  it('is idempotent on its own output', () => {
    fc.assert(
      fc.property(textOf(LATIN + HANGUL + PUNCTUATION + DIGITS), fc.constantFrom<'ko' | 'en' | undefined>('ko', 'en', undefined), (text, language) => {
        const once = normalizeForSpeech(text, { language });
        expect(normalizeForSpeech(once, { language })).toBe(once);
      }),
      RUNS,
    );
  });
});

describe('toSsml properties', () => {
  it('always produces well-formed SSML with only our elements, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), textOf(LATIN + HANGUL + PUNCTUATION + DIGITS)), fc.boolean(), (text, spellCodes) => {
        const ssml = toSsml(text, { spellCodes });
        const elements = assertWellFormed(ssml);
        expect(elements[0]).toBe('speak');
        for (const name of elements.slice(1)) expect(['sub', 'say-as', 'break']).toContain(name);
      }),
      RUNS,
    );
  });

  it('tells the voice the same words as the plain-text path', () => {
    const spoken = (ssml: string): string =>
      textContent(ssml.replace(/<sub alias="([^"]*)">[^<]*<\/sub>/g, (_, alias: string) => alias));
    const squash = (s: string): string => s.replace(/\s+/g, '');
    fc.assert(
      fc.property(textOf(LATIN + HANGUL + PUNCTUATION + DIGITS), fc.boolean(), (text, spellCodes) => {
        expect(squash(spoken(toSsml(text, { spellCodes })))).toBe(squash(normalizeForSpeech(text, { spellCodes })));
      }),
      RUNS,
    );
  });

  it('keeps the characters of text without digits or alias keys, escaped', () => {
    fc.assert(
      fc.property(textOf(LATIN + HANGUL + PUNCTUATION).filter((text) => !hasAliasKey(text)), (text) => {
        const squash = (s: string): string => s.replace(/\s+/g, '');
        expect(squash(textContent(toSsml(text)))).toBe(squash(text));
      }),
      RUNS,
    );
  });
});
