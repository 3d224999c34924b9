/**
 * Character-level helpers for cutting a reply at a word boundary (English and Korean).
 *
 * Everything counts code points, never UTF-16 units, so an emoji or a lone surrogate is one
 * character and can never be split in half.
 */
import { isHangul } from '@firstword/agents-plugin-tts/chunking';

const SPACE = /\s/u;
/** Scripts written without spaces: each character is a word of its own. Hangul is not among them. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

export const isSpace = (char: string): boolean => SPACE.test(char);

/** Characters that are words by themselves (CJK ideographs and kana). */
export const standsAlone = (char: string): boolean => UNSPACED.test(char);

export const codePoints = (text: string): string[] => Array.from(text);

export function nonSpaceCount(text: string): number {
  let n = 0;
  for (const char of text) if (!isSpace(char)) n++;
  return n;
}

/**
 * The number of non-space characters up to the end of the last word that lies entirely within
 * the first `heard` non-space characters of `text`. A word is a run of non-space characters,
 * except that ideographs and kana are one word each; Korean eojeol are whole runs.
 */
export function wordEndAtOrBefore(text: string, heard: number): number {
  if (heard <= 0) return 0;
  const chars = codePoints(text);
  let seen = 0;
  let lastEnd = 0;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (isSpace(char)) continue;
    seen++;
    if (seen > heard) break;
    const next = chars[i + 1];
    const endsWord = next === undefined || isSpace(next) || standsAlone(char) || standsAlone(next);
    if (endsWord) lastEnd = seen;
  }
  return lastEnd;
}

/**
 * Where, in `raw[from, to)`, the first `count` non-space characters of `spoken` end, given that
 * `spoken` is `raw` with markup removed and whitespace normalised (so its non-space characters are
 * a subsequence of the raw ones). When `count` ends a word, markup glued to that word (a closing
 * `**`, the `](url)` of a link) is taken along. Undefined when `spoken` is not such a subsequence.
 */
export function rawOffsetAfter(raw: string, from: number, to: number, spoken: string, count: number): number | undefined {
  if (count <= 0) return from;
  const wanted = codePoints(spoken).filter((c) => !isSpace(c));
  const atWordEnd = wordEndAtOrBefore(spoken, count) === count;
  let matched = 0;
  let offset = from;
  while (offset < to && matched < count) {
    const char = String.fromCodePoint(raw.codePointAt(offset)!);
    if (char === wanted[matched]) matched++;
    offset += char.length;
  }
  if (matched < count) return undefined;
  // Take along markup glued to a complete word (a closing `**`, a link's `](url)`), up to the next
  // space — or the next ideograph, which is a word of its own.
  while (atWordEnd && offset < to) {
    const char = String.fromCodePoint(raw.codePointAt(offset)!);
    if (isSpace(char) || standsAlone(char)) break;
    offset += char.length;
  }
  return offset;
}

/** `raw` cut back to the last whitespace at or before `offset` (fallback when alignment fails). */
export function backToSpace(raw: string, from: number, offset: number): number {
  let i = Math.min(offset, raw.length);
  if (i < raw.length && !isSpace(raw[i]!)) {
    while (i > from && !isSpace(raw[i - 1]!)) i--;
  }
  return i;
}

/** Share of Hangul among the letters of `text`, 0..1. */
export function hangulShare(text: string): number {
  let letters = 0;
  let hangul = 0;
  for (const char of text) {
    if (isSpace(char)) continue;
    letters++;
    if (isHangul(char.codePointAt(0)!)) hangul++;
  }
  return letters === 0 ? 0 : hangul / letters;
}
