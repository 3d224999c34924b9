/**
 * Korean or English is decided in one place: the plugin's speech/language.ts (isHangul and what
 * is built on it). A Hangul range written anywhere else, as a regular expression, a Unicode
 * script property or code-point comparisons, is a second detector that can drift from the first
 * (two of them did: one missed the jamo, one the compatibility jamo). This scans the source for
 * them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHangul } from '@firstword/agents-plugin-tts/chunking';
import { ROOT, sourceFiles } from './import-graph.js';

const DETECTOR = 'packages/agents-plugin-tts/src/chunking/speech/language.ts';
const PACKAGE_SOURCES = readdirSync(join(ROOT, 'packages')).map((name) => `packages/${name}/src`);
const SCANNED = ['src', ...PACKAGE_SOURCES, 'bench', 'test/servers', 'test/helpers'];

/** `\uAC00`, `\u{AC00}` or `0xAC00`: a code point written in hex. */
const HEX_CODE_POINT = /\\u\{([0-9a-f]{4,6})\}|\\u([0-9a-f]{4})|\b0x([0-9a-f]{4,6})\b/gi;
/** The first and last syllables in decimal, as a comparison would write them. */
const DECIMAL_SYLLABLE_BOUNDS = /\b(44032|55203|55215)\b/g;
const SCRIPT_PROPERTY = /\\p\{(?:Script|sc|Script_Extensions|scx)=Hang(?:ul)?\}/gi;
/** A character class, and a range inside one (`가-힣`), to test whether both ends are Hangul. */
const CHARACTER_CLASS = /\[([^\]\n]*)\]/gu;
const RANGE = /(.)-(.)/gu;

/** The Hangul ranges and script tests in `text`, each as it is written. */
export function hangulChecksIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(HEX_CODE_POINT)) {
    if (isHangul(Number.parseInt(m[1] ?? m[2] ?? m[3]!, 16))) found.push(m[0]);
  }
  for (const m of text.matchAll(DECIMAL_SYLLABLE_BOUNDS)) found.push(m[0]);
  for (const m of text.matchAll(SCRIPT_PROPERTY)) found.push(m[0]);
  for (const [, inside] of text.matchAll(CHARACTER_CLASS)) {
    for (const m of inside!.matchAll(RANGE)) {
      if (isHangul(m[1]!.codePointAt(0)!) && isHangul(m[2]!.codePointAt(0)!)) found.push(m[0]);
    }
  }
  return found;
}

describe('one Korean-or-English detector', () => {
  it('no Hangul range or script test is written outside speech/language.ts', () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(dir)).filter((file) => file !== DETECTOR);
    expect(files.length).toBeGreaterThan(100);
    const elsewhere = files.flatMap((file) => hangulChecksIn(readFileSync(join(ROOT, file), 'utf8')).map((check) => `${file}: ${check}`));
    expect(elsewhere).toEqual([]);
  });

  it('recognises each way of writing one (the scanner itself)', () => {
    const written = [
      String.raw`/[\uAC00-\uD7A3]/`,
      String.raw`/[\u{1100}-\u{11FF}]/u`,
      'code >= 0xac00 && code <= 0xd7af',
      'code >= 44032',
      '/[가-힣]/',
      String.raw`/\p{Script=Hangul}/u`,
      String.raw`/\p{sc=Hang}/u`,
    ];
    expect(written.map((text) => hangulChecksIn(text).length > 0)).toEqual(written.map(() => true));
    expect(hangulChecksIn(String.raw`/[\u2e80-\ua4cf]/u, 0x3040, 0xfeff, [a-b], '안녕-하세요', 'GPT-4 → 지피티-사'`)).toEqual([]);
  });

  it('the detector itself holds the ranges', () => {
    expect(hangulChecksIn(readFileSync(join(ROOT, DETECTOR), 'utf8')).length).toBeGreaterThan(0);
  });
});
