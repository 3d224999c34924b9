/**
 * Recognises the written shape of a numeric token (date, phone number, time, money, version,
 * range, number with unit) starting at a digit run. Language-neutral: readers decide the words.
 * All regexes are compiled once and used sticky (`y`) at a given index, so scanning stays linear.
 */
import { isAsciiDigit, isAsciiLetter, isHangul } from './language.js';
import type { Decimal, NumericMatch, Sign, Suffix } from './numeric-token.js';
import { MULTIPLIERS, UNITS, unitAllowsSpace, type CurrencySymbol } from './units.js';

const NONE: Suffix = { kind: 'none' };

const DATE_ISO = /(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])/y;
const DATE_SLASH = /(\d{4})\/(\d{1,2})\/(\d{1,2})(?![\d/])/y;
const DATE_DOT = /(\d{4})\.\s?(\d{1,2})\.\s?(\d{1,2})(?!\d|\.\d)/y;
const PHONE = /(?:\+(\d{1,3})[\s-]?)?(?:\((\d{2,4})\)[\s-]?)?(\d{2,4})-(\d{3,4})(?:-(\d{4}))?(?![\d-])/y;
const CLOCK = /(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])/y;
const MERIDIEM = /\s?([AaPp])(\.?)[Mm](\.?)(?![A-Za-z0-9])/y;
const NUMBER = /(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?/y;
const MULTIPLIER = /\s?(K|M|B|T|k|bn|mn|thousand|million|billion|trillion)(?![A-Za-z0-9])/y;
const VERSION = /\d+(?:\.\d+){2,}(?!\d)/y;
const RANGE_SEPARATOR = /\s?[~〜–]\s?(?=\d)/y;
const PERCENT = /\s?[%％]/y;
const DEGREE = /°\s?([CF])?(?![A-Za-z])|℃|℉/y;
const GLUED_LETTERS = /([A-Za-z]+(?:\/[A-Za-z]+)?)(?![A-Za-z0-9])/y;
const SPACED_LETTERS = / ([A-Za-z]+(?:\/[A-Za-z]+)?)(?![A-Za-z0-9])/y;
const HOUR = /\d{1,2}(?!\d)/y;
const DATES = [DATE_ISO, DATE_SLASH, DATE_DOT] as const;
const CODE_WORD = /[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*/y;
const ORDINAL_SUFFIX = /^(?:st|nd|rd|th)$/i;
/** A code or number keyword just before a bare number: 주문번호 1234, code: 5521, PIN 0420. */
const CODE_KEYWORD_BEFORE =
  /(?:번호|코드|계좌|(?<![A-Za-z])(?:code|number|pin|id|otp|zip|account|ticket|confirmation|tracking|order|no\.|#))\s*(?:(?:는|은|이|가|:|：|is|was)\s*)?$/i;
const CODE_KEYWORD_WINDOW = 24;
const MAX_SPOKEN_INT_DIGITS = 21;

function execAt(re: RegExp, text: string, index: number): RegExpExecArray | null {
  re.lastIndex = index;
  return re.exec(text);
}

function isSignBoundary(code: number): boolean {
  // Whitespace and opening punctuation; never a digit, letter, '.', or '-' (3-5, GPT-4, 1.-2).
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 0xa0 || '([{=:;,<>"\'“‘/'.includes(String.fromCharCode(code));
}

function isCodeChar(code: number): boolean {
  return isAsciiLetter(code) || isAsciiDigit(code);
}

function codeAt(text: string, start: number): NumericMatch {
  const match = execAt(CODE_WORD, text, start);
  const end = match === null ? start + 1 : start + match[0].length;
  return { start, end, token: { kind: 'code', text: text.slice(start, end) } };
}

/**
 * Start of a mixed letter/digit word that reaches `index` from the left (A1B2, GPT-4), or -1.
 * Only characters not taken by an earlier span count: an alias turns GPT into Hangul, and
 * deciding on what survives keeps the function idempotent (GPT-4 → 지피티-사 both times).
 */
function gluedCodeStart(text: string, index: number, floor: number): number {
  let i = index - 1;
  if (i < floor) return -1;
  let code = text.charCodeAt(i);
  if ((code === 45 || code === 95 || code === 46) && i - 1 >= floor && isAsciiLetter(text.charCodeAt(i - 1))) code = text.charCodeAt(--i);
  if (!isAsciiLetter(code)) return -1;
  while (i - 1 >= floor) {
    const previous = text.charCodeAt(i - 1);
    if (isCodeChar(previous)) i--;
    else if ((previous === 45 || previous === 95 || previous === 46) && i - 2 >= floor && isCodeChar(text.charCodeAt(i - 2))) i -= 2;
    else break;
  }
  return i;
}

function dateAt(text: string, index: number): NumericMatch | null {
  for (const re of DATES) {
    const m = execAt(re, text, index);
    if (m === null) continue;
    const year = Number(m[1]);
    const month = Number(m[2]);
    const day = Number(m[3]);
    if (month < 1 || month > 12 || day < 1 || day > 31) continue;
    return { start: index, end: index + m[0].length, token: { kind: 'date', year, month, day } };
  }
  return null;
}

function looksLikeYearRange(first: string, second: string): boolean {
  const a = Number(first);
  const b = Number(second);
  return first.length === 4 && second.length === 4 && a >= 1900 && b <= 2099 && a < b;
}

function phoneAt(text: string, start: number): NumericMatch | null {
  const m = execAt(PHONE, text, start);
  if (m === null) return null;
  const [, countryCode, area, first, second, third] = m;
  const groups = [area, first, second, third].filter((group): group is string => group !== undefined);
  const marked = countryCode !== undefined || area !== undefined;
  const digitCount = groups.reduce((sum, group) => sum + group.length, 0);
  if (!marked && third === undefined) {
    if (first.length < 3 || digitCount < 7 || looksLikeYearRange(first, second)) return null;
  }
  return {
    start,
    end: start + m[0].length,
    token: { kind: 'phone', countryCode: countryCode ?? null, groups },
  };
}

/** am/pm after a time. A final '.' of 'p.m.' is kept as the sentence's period unless the sentence clearly goes on. */
function meridiemAt(text: string, index: number): { meridiem: 'am' | 'pm'; end: number } | null {
  const m = execAt(MERIDIEM, text, index);
  if (m === null) return null;
  let end = index + m[0].length;
  if (m[3] === '.' && !/^(?:\s+[a-z]|[,;])/.test(text.slice(end, end + 2))) end -= 1;
  return { meridiem: m[1].toLowerCase() === 'a' ? 'am' : 'pm', end };
}

function timeAt(text: string, index: number): NumericMatch | null {
  const clock = execAt(CLOCK, text, index);
  if (clock !== null) {
    const hour = Number(clock[1]);
    const minute = Number(clock[2]);
    const second = clock[3] === undefined ? null : Number(clock[3]);
    if (hour > 24 || minute > 59 || (second !== null && second > 59)) return null;
    const end = index + clock[0].length;
    const meridiem = hour <= 12 ? meridiemAt(text, end) : null;
    return {
      start: index,
      end: meridiem?.end ?? end,
      token: { kind: 'time', hour, minute, second, meridiem: meridiem?.meridiem ?? null },
    };
  }
  const hour = execAt(HOUR, text, index);
  if (hour === null) return null;
  const value = Number(hour[0]);
  if (value < 1 || value > 12) return null;
  const meridiem = meridiemAt(text, index + hour[0].length);
  if (meridiem === null) return null;
  return { start: index, end: meridiem.end, token: { kind: 'time', hour: value, minute: null, second: null, meridiem: meridiem.meridiem } };
}

function numberAt(text: string, index: number): { value: Decimal; end: number } | null {
  const m = execAt(NUMBER, text, index);
  if (m === null) return null;
  const grouped = m[1].includes(',');
  return { value: { int: grouped ? m[1].replaceAll(',', '') : m[1], frac: m[2] ?? null, grouped }, end: index + m[0].length };
}

function signBefore(text: string, index: number, floor: number): { sign: Sign; start: number } {
  const at = index - 1;
  if (at < floor) return { sign: '', start: index };
  const code = text.charCodeAt(at);
  const sign: Sign = code === 45 || code === 0x2212 ? '-' : code === 43 ? '+' : '';
  if (sign === '') return { sign, start: index };
  if (at - 1 >= 0 && !isSignBoundary(text.charCodeAt(at - 1))) return { sign: '', start: index };
  return { sign, start: at };
}

function isCurrencyChar(char: string): char is CurrencySymbol {
  return char === '$' || char === '€' || char === '£' || char === '¥' || char === '₩';
}

/** A currency symbol right before the amount, or one space before it ($5, $ 5). */
function currencyBefore(text: string, index: number, floor: number): { currency: CurrencySymbol; start: number } | null {
  let at = index - 1;
  if (at < floor) return null;
  if (text.charCodeAt(at) === 32) at--;
  if (at < floor) return null;
  const char = text.charAt(at);
  return isCurrencyChar(char) ? { currency: char, start: at } : null;
}

function moneyAt(text: string, index: number, floor: number): NumericMatch | null {
  const currency = currencyBefore(text, index, floor);
  if (currency === null) return null;
  const amount = numberAt(text, index);
  if (amount === null) return null;
  const multiplier = execAt(MULTIPLIER, text, amount.end);
  const { sign, start } = signBefore(text, currency.start, floor);
  return {
    start,
    end: multiplier === null ? amount.end : amount.end + multiplier[0].length,
    token: {
      kind: 'money',
      sign,
      currency: currency.currency,
      amount: amount.value,
      multiplier: multiplier === null ? null : MULTIPLIERS[multiplier[1]],
    },
  };
}

type SuffixMatch = { suffix: Suffix; end: number } | { code: true };

/** What follows a plain number: %, °C, a unit, an ordinal or decade ending, or a code's letters. */
function suffixAt(text: string, index: number, value: Decimal, sign: Sign): SuffixMatch {
  const first = text.charCodeAt(index);
  const spaced = first === 32;
  const head = spaced ? text.charCodeAt(index + 1) : first;
  if (head === 37 || head === 0xff05) {
    const percent = execAt(PERCENT, text, index);
    if (percent !== null) return { suffix: { kind: 'percent' }, end: index + percent[0].length };
  }
  if (first === 0xb0 || first === 0x2103 || first === 0x2109) {
    const degree = execAt(DEGREE, text, index);
    if (degree !== null) {
      const scale = degree[0] === '℃' ? 'C' : degree[0] === '℉' ? 'F' : ((degree[1] as 'C' | 'F' | undefined) ?? null);
      return { suffix: { kind: 'degree', scale }, end: index + degree[0].length };
    }
  }
  if (isAsciiLetter(first)) {
    const glued = execAt(GLUED_LETTERS, text, index);
    if (glued === null) return { code: true };
    const letters = glued[1];
    const end = index + glued[0].length;
    const unit = UNITS.get(letters);
    if (unit !== undefined) return { suffix: { kind: 'unit', name: unit }, end };
    const integer = value.frac === null && sign === '';
    if (integer && ORDINAL_SUFFIX.test(letters)) return { suffix: { kind: 'ordinal' }, end };
    if (integer && letters === 's' && (value.int.length === 2 || value.int.length === 4) && value.int.endsWith('0')) {
      return { suffix: { kind: 'decade' }, end };
    }
    return { code: true };
  }
  if (spaced && isAsciiLetter(head)) {
    const word = execAt(SPACED_LETTERS, text, index);
    if (word !== null && unitAllowsSpace(word[1])) {
      const unit = UNITS.get(word[1]);
      if (unit !== undefined) return { suffix: { kind: 'unit', name: unit }, end: index + word[0].length };
    }
  }
  return { suffix: NONE, end: index };
}

function readsAsDigits(text: string, start: number, value: Decimal, sign: Sign, suffix: Suffix): boolean {
  if (value.frac !== null || sign !== '' || suffix.kind !== 'none') return false;
  if (value.int.length > MAX_SPOKEN_INT_DIGITS) return true;
  if (value.int.length > 1 && value.int.startsWith('0')) return true;
  if (value.int.length < 3) return false;
  return CODE_KEYWORD_BEFORE.test(text.slice(Math.max(0, start - CODE_KEYWORD_WINDOW), start));
}

function plainNumberAt(text: string, index: number, floor: number): NumericMatch {
  const first = numberAt(text, index) ?? { value: { int: text[index], frac: null, grouped: false }, end: index + 1 };
  const ordinalPrefix = index - 1 >= floor && text[index - 1] === '제' && !(index - 2 >= 0 && isHangul(text.charCodeAt(index - 2)));
  const { sign, start } = ordinalPrefix ? { sign: '' as Sign, start: index - 1 } : signBefore(text, index, floor);

  const afterFirst = text.charCodeAt(first.end) === 32 ? text.charCodeAt(first.end + 1) : text.charCodeAt(first.end);
  const isRangeMark = afterFirst === 0x7e || afterFirst === 0x301c || afterFirst === 0x2013;
  const separator = isRangeMark ? execAt(RANGE_SEPARATOR, text, first.end) : null;
  if (separator !== null && sign === '' && !ordinalPrefix) {
    const second = numberAt(text, first.end + separator[0].length);
    if (second !== null) {
      const after = suffixAt(text, second.end, second.value, '');
      if (!('code' in after)) {
        return { start, end: after.end, token: { kind: 'range', from: first.value, to: second.value, suffix: after.suffix } };
      }
    }
  }

  const after = suffixAt(text, first.end, first.value, sign);
  if ('code' in after) return codeAt(text, index);
  const digitByDigit = !ordinalPrefix && readsAsDigits(text, start, first.value, sign, after.suffix);
  return {
    start,
    end: after.end,
    token: { kind: 'number', sign, value: first.value, suffix: after.suffix, ordinalPrefix, digitByDigit },
  };
}

/**
 * The numeric token that owns the digit run starting at `index`. `floor` is the end of the
 * previous span: prefixes ($, -, +, (, 제) are only looked for at or after it. Always returns a
 * match (a bare number at worst), so every digit run is accounted for.
 */
export function recognizeNumeric(text: string, index: number, floor: number): NumericMatch {
  const codeStart = gluedCodeStart(text, index, floor);
  if (codeStart >= 0) return codeAt(text, codeStart);

  // Cheap gates on the characters around the digit run keep most regexes from running at all.
  let runEnd = index;
  while (runEnd < text.length && isAsciiDigit(text.charCodeAt(runEnd))) runEnd++;
  const runLength = runEnd - index;
  const next = text.charCodeAt(runEnd);
  const before = index - 1 >= floor ? text[index - 1] : '';

  if (runLength === 4 && (next === 45 || next === 46 || next === 47)) {
    const date = dateAt(text, index);
    if (date !== null) return date;
  }

  if (next === 45 || before === '(' || before === '+') {
    const phoneStart =
      before === '(' ? index - 1 : before === '+' && (index - 2 < 0 || isSignBoundary(text.charCodeAt(index - 2))) ? index - 1 : index;
    const phone = phoneAt(text, phoneStart);
    if (phone !== null) return phone;
  }

  if (runLength <= 2 && (next === 58 || next === 32 || next === 65 || next === 97 || next === 80 || next === 112)) {
    const time = timeAt(text, index);
    if (time !== null) return time;
  }

  if (before !== '' && (isCurrencyChar(before) || before === ' ')) {
    const money = moneyAt(text, index, floor);
    if (money !== null) return money;
  }

  if (next === 46) {
    const version = execAt(VERSION, text, index);
    if (version !== null) {
      return { start: index, end: index + version[0].length, token: { kind: 'version', parts: version[0].split('.') } };
    }
  }

  return plainNumberAt(text, index, floor);
}
