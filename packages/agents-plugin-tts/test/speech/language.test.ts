import { describe, expect, it } from 'vitest';
import { containsHangul, countHangul, isHangul } from '../../src/chunking/index.js';

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
});
