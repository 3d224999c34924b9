/** Which language a number is read in, decided from the letters around it. */

export type SpeechLanguage = 'ko' | 'en';

/** How far to look for a deciding letter on each side of a token. */
const CONTEXT_WINDOW = 16;

/**
 * The one Korean-or-not test of the project, by code point: Hangul syllables, jamo (with the
 * extended blocks), compatibility jamo and the halfwidth forms — every letter of Unicode's Hangul
 * script. The chunker, the spoken-form rewriting, the acknowledgement, the heard text, the turn
 * detector and the local voice all decide with it.
 */
export function isHangul(code: number): boolean {
  return (
    (code >= 0xac00 && code <= 0xd7af) || // syllables
    (code >= 0x1100 && code <= 0x11ff) || // jamo
    (code >= 0x3130 && code <= 0x318f) || // compatibility jamo
    (code >= 0xa960 && code <= 0xa97f) || // jamo extended-A
    (code >= 0xd7b0 && code <= 0xd7ff) || // jamo extended-B
    (code >= 0xffa0 && code <= 0xffdc) // halfwidth jamo
  );
}

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
