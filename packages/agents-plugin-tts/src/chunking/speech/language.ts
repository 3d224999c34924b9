/** Which language a number is read in, decided from the letters around it. */

export type SpeechLanguage = 'ko' | 'en';

/** How far to look for a deciding letter on each side of a token. */
const CONTEXT_WINDOW = 16;

/**
 * Unicode's blocks of the Hangul script, first and last code point: the project's only
 * declaration of them (a test keeps every other Hangul range out of the source).
 */
export const HANGUL_BLOCKS = {
  syllables: [0xac00, 0xd7a3],
  jamo: [0x1100, 0x11ff],
  compatibilityJamo: [0x3130, 0x318f],
  jamoExtendedA: [0xa960, 0xa97f],
  jamoExtendedB: [0xd7b0, 0xd7ff],
  halfwidthJamo: [0xffa0, 0xffdc],
} as const satisfies Record<string, readonly [number, number]>;

export type HangulBlock = keyof typeof HANGUL_BLOCKS;

const BLOCKS = Object.entries(HANGUL_BLOCKS) as Array<[HangulBlock, readonly [number, number]]>;

/** 1 at each Hangul code point (every block lies in the BMP): one lookup per character in the chunker's hot loops. */
const HANGUL_BMP = new Uint8Array(0x10000);
for (const [, [first, last]] of BLOCKS) HANGUL_BMP.fill(1, first, last + 1);

/** The Hangul block `code` is in, if any (a terminal gives syllables two columns, halfwidth jamo one). */
export function hangulBlockOf(code: number): HangulBlock | undefined {
  // Every block lies above U+1100: Latin text, the bulk of a reply, leaves at once.
  if (code < HANGUL_BLOCKS.jamo[0]) return undefined;
  for (const [block, [first, last]] of BLOCKS) if (code >= first && code <= last) return block;
  return undefined;
}

/**
 * The one Korean-or-not test of the project, by code point: every letter of Unicode's Hangul
 * script. The chunker, the spoken-form rewriting, the acknowledgement, the heard text, the turn
 * detector, the local voice, the demo's report, the benches and the fakes all decide with it.
 */
export function isHangul(code: number): boolean {
  return HANGUL_BMP[code] === 1;
}

/** A precomposed syllable (가-힣): Korean words are made of these. */
export function isHangulSyllable(code: number): boolean {
  const [first, last] = HANGUL_BLOCKS.syllables;
  return code >= first && code <= last;
}

/**
 * A syllable's place in the block (가 is 0), whose remainder by 28 is its final consonant
 * (0: none, 4: ㄴ…); undefined for anything else.
 */
export function syllableIndex(code: number): number | undefined {
  return isHangulSyllable(code) ? code - HANGUL_BLOCKS.syllables[0] : undefined;
}

/**
 * The Hangul blocks as the inside of a regular-expression character class (with the `u` flag),
 * for tokenizers that cut text into Hangul runs: `new RegExp(`[${HANGUL_CHARACTER_CLASS}]+`, 'u')`.
 */
export const HANGUL_CHARACTER_CLASS = BLOCKS.map(([, [first, last]]) => `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`).join('');

/** How many characters of `text` are Hangul. */
export function countHangul(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (isHangul(text.charCodeAt(i))) n++;
  return n;
}

export function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

export function isAsciiDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

type Nearest = 'hangul' | 'latin' | 'none';

function nearestLetter(text: string, from: number, step: 1 | -1): Nearest {
  for (let i = from, seen = 0; i >= 0 && i < text.length && seen < CONTEXT_WINDOW; i += step, seen++) {
    const code = text.charCodeAt(i);
    if (isHangul(code)) return 'hangul';
    if (isAsciiLetter(code)) return 'latin';
  }
  return 'none';
}

/** Whole-text fallback, computed once per call and only when a token has no letters nearby. */
export function containsHangul(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isHangul(text.charCodeAt(i))) return true;
  return false;
}

/** Korean when the text holds any Hangul (a Korean reply reads its Latin words), else English. */
export function languageOf(text: string): SpeechLanguage {
  return containsHangul(text) ? 'ko' : 'en';
}

/**
 * Korean when the nearest letter on either side of [start, end) is Hangul (a glued counter or
 * particle always is); English when letters are near but none is Hangul; otherwise the text as a
 * whole decides.
 */
export function languageAt(text: string, start: number, end: number, fallback: () => SpeechLanguage): SpeechLanguage {
  const right = nearestLetter(text, end, 1);
  if (right === 'hangul') return 'ko';
  const left = nearestLetter(text, start - 1, -1);
  if (left === 'hangul') return 'ko';
  if (right === 'latin' || left === 'latin') return 'en';
  return fallback();
}
