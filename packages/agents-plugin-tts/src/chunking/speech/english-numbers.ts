/**
 * English number words (American style, no "and" inside numbers). Inputs are digit strings so
 * that long amounts keep every digit.
 */

const ONES = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven',
  'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen',
] as const;
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'] as const;
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion', 'quadrillion', 'quintillion'] as const;
const MAX_CARDINAL_DIGITS = SCALES.length * 3;

const IRREGULAR_ORDINALS: Readonly<Record<string, string>> = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
};

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return digits.slice(i);
}

function underHundred(value: number): string {
  if (value < 20) return ONES[value];
  const ones = value % 10;
  return TENS[Math.floor(value / 10)] + (ones === 0 ? '' : `-${ONES[ones]}`);
}

function underThousand(value: number): string {
  const hundreds = Math.floor(value / 100);
  const rest = value % 100;
  if (hundreds === 0) return underHundred(rest);
  return `${ONES[hundreds]} hundred${rest === 0 ? '' : ` ${underHundred(rest)}`}`;
}

/** Each digit as a word: '555' → 'five five five'. */
export function englishDigits(digits: string): string {
  const words: string[] = [];
  for (let i = 0; i < digits.length; i++) words.push(ONES[digits.charCodeAt(i) - 48]);
  return words.join(' ');
}

/** '1500' → 'one thousand five hundred'. */
export function englishCardinal(digits: string): string {
  const trimmed = stripLeadingZeros(digits);
  if (trimmed.length <= 3) return trimmed === '0' ? ONES[0] : underThousand(Number(trimmed));
  if (trimmed.length > MAX_CARDINAL_DIGITS) return englishDigits(trimmed);
  const words: string[] = [];
  const groupCount = Math.ceil(trimmed.length / 3);
  for (let g = groupCount - 1; g >= 0; g--) {
    const endFromRight = g * 3;
    const group = Number(trimmed.slice(Math.max(0, trimmed.length - endFromRight - 3), trimmed.length - endFromRight));
    if (group === 0) continue;
    words.push(SCALES[g] === '' ? underThousand(group) : `${underThousand(group)} ${SCALES[g]}`);
  }
  return words.length === 0 ? ONES[0] : words.join(' ');
}

/** '3.14' → 'three point one four'. */
export function englishDecimal(intDigits: string, fracDigits: string | null): string {
  const whole = englishCardinal(intDigits);
  if (fracDigits === null || fracDigits === '') return whole;
  return `${whole} point ${englishDigits(fracDigits)}`;
}

function ordinalOfWord(word: string): string {
  const irregular = IRREGULAR_ORDINALS[word];
  if (irregular !== undefined) return irregular;
  if (word.endsWith('y')) return `${word.slice(0, -1)}ieth`;
  return `${word}th`;
}

/** '22' → 'twenty-second'. Only the last word (or the part after its hyphen) changes. */
export function englishOrdinal(digits: string): string {
  const cardinal = englishCardinal(digits);
  const cut = Math.max(cardinal.lastIndexOf(' '), cardinal.lastIndexOf('-')) + 1;
  return cardinal.slice(0, cut) + ordinalOfWord(cardinal.slice(cut));
}

/** '1999' → 'nineteen ninety-nine', '2005' → 'two thousand five', '2026' → 'twenty twenty-six'. */
export function englishYear(year: number): string {
  if (year >= 2000 && year <= 2009) return englishCardinal(String(year));
  if (year < 1000 || year > 9999) return englishCardinal(String(year));
  const high = Math.floor(year / 100);
  const low = year % 100;
  if (low === 0) return `${underHundred(high)} hundred`;
  if (low < 10) return `${underHundred(high)} oh ${ONES[low]}`;
  return `${underHundred(high)} ${underHundred(low)}`;
}

/** '1990' (of '1990s') → 'nineteen nineties'; '80' → 'eighties'. */
export function englishDecade(value: number): string {
  const base = value < 100 ? underHundred(value) : englishYear(value);
  return base.endsWith('y') ? `${base.slice(0, -1)}ies` : `${base}s`;
}
