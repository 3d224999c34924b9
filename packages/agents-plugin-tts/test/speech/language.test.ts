import { describe, expect, it } from 'vitest';
import {
  HANGUL_CHARACTER_CLASS,
  containsHangul,
  countHangul,
  hangulBlockOf,
  isHangul,
  isHangulSyllable,
  languageOf,
  syllableIndex,
} from '../../src/chunking/index.js';

describe('the one Korean-or-not test', () => {
  it("takes every letter of Unicode's Hangul script in the BMP, and no letter of another script", () => {
    const wrong: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCharCode(code);
      if (!/\p{L}/u.test(char)) continue;
      if (isHangul(code) !== /\p{Script=Hangul}/u.test(char)) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('counts and finds Hangul in mixed text', () => {
    expect(countHangul('OK, 서울 날씨')).toBe(4);
    expect(containsHangul('ﾡ')).toBe(true); // a halfwidth jamo
    expect(containsHangul('Seoul weather, 12°C')).toBe(false);
  });

  it('names the language of a text: Korean with any Hangul, else English', () => {
    expect(languageOf('AI를 써 보세요')).toBe('ko');
    expect(languageOf('Try the AI.')).toBe('en');
    expect(languageOf('')).toBe('en');
  });

  it('tells a syllable, its block and its place (the final consonant is the place mod 28)', () => {
    expect([isHangulSyllable('한'.charCodeAt(0)), isHangulSyllable('ㄴ'.charCodeAt(0))]).toEqual([true, false]);
    expect(['한', 'ᄀ', 'ㄴ', 'ﾡ', 'a'].map((c) => hangulBlockOf(c.charCodeAt(0)))).toEqual([
      'syllables',
      'jamo',
      'compatibilityJamo',
      'halfwidthJamo',
      undefined,
    ]);
    expect(syllableIndex('가'.charCodeAt(0))).toBe(0);
    expect(syllableIndex('간'.charCodeAt(0))! % 28).toBe(4);
    expect(syllableIndex('a'.charCodeAt(0))).toBeUndefined();
  });

  it('gives tokenizers a character class that matches exactly what isHangul takes', () => {
    const cls = new RegExp(`^[${HANGUL_CHARACTER_CLASS}]$`, 'u');
    const wrong: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (cls.test(String.fromCharCode(code)) !== isHangul(code)) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });
});
