/**
 * Character classes shared by the sanitizer, the boundary detector and the chunker.
 * They work on UTF-16 code units (`charCodeAt`) because every hot loop here runs once per
 * character of an LLM reply; regular expressions are kept for the rare, non-hot checks.
 */
import { isHangul } from './speech/language.js';

/** Same set as the `\s` regular-expression class, so whitespace means one thing everywhere. */
export function isSpaceCode(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

export const LINE_FEED = 10;

/** Letters of scripts whose length limits count characters, not words (Hangul, kana, Han). */
export function isCjkLetter(code: number): boolean {
  return (
    isHangul(code) ||
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff)
  );
}

export function isLatinLetter(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7)
  );
}

export function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Letter or digit in any script (used for intraword `_` in snake_case). */
export function isWordChar(char: string): boolean {
  return WORD_CHAR.test(char);
}

/** `.` `!` `?` `…` `‥` and the CJK terminators `。` `！` `？` `．` `｡`. */
export function isTerminatorCode(code: number): boolean {
  return (
    code === 46 ||
    code === 33 ||
    code === 63 ||
    code === 0x2026 ||
    code === 0x2025 ||
    isCjkTerminatorCode(code)
  );
}

export function isCjkTerminatorCode(code: number): boolean {
  return code === 0x3002 || code === 0xff01 || code === 0xff1f || code === 0xff0e || code === 0xff61;
}

/** Characters that may close a quotation or parenthesis right after a sentence terminator. */
export function isCloserCode(code: number): boolean {
  switch (code) {
    case 34: // "
    case 39: // '
    case 41: // )
    case 93: // ]
    case 125: // }
    case 0xbb: // »
    case 0x2019: // ’
    case 0x201d: // ”
    case 0x203a: // ›
    case 0x3009: // 〉
    case 0x300b: // 》
    case 0x300d: // 」
    case 0x300f: // 』
    case 0x3011: // 】
    case 0x3015: // 〕
    case 0x3017: // 〗
    case 0xff09: // ）
    case 0xff3d: // ］
    case 0xff5d: // ｝
    case 0xff02: // ＂
    case 0xff07: // ＇
      return true;
    default:
      return false;
  }
}

/** CJK clause marks that need no following space: `，` `、` `；` `：`. */
export function isCjkClauseCode(code: number): boolean {
  return code === 0xff0c || code === 0x3001 || code === 0xff1b || code === 0xff1a;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Collapses whitespace runs to one space and trims, with the same notion of whitespace as above. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
