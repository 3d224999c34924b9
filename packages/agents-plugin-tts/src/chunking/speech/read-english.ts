/** English words for a recognised numeric token. */
import { isExactlyOne, minorUnits, smallInteger } from './decimal.js';
import {
  englishCardinal,
  englishDecade,
  englishDecimal,
  englishDigits,
  englishOrdinal,
  englishYear,
} from './english-numbers.js';
import type { Decimal, NumericMatch, NumericToken, Sign, Suffix } from './numeric-token.js';
import { CURRENCIES } from './units.js';

type TokenOf<K extends NumericToken['kind']> = Extract<NumericToken, { kind: K }>;

export interface EnglishReading {
  readonly spoken: string;
  /** English never takes in text after the token, so this is always the match's end. */
  readonly end: number;
  readonly groups?: readonly { original: string; spoken: string }[];
}

const MONTH_NAMES = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;

const MONTH_BEFORE =
  /\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?\s+$/;
/** Words that put a four-digit number in a year: in 1999, since 2010, March 3rd, 2026. */
const YEAR_CUE_BEFORE =
  /(?:\b(?:in|since|by|from|until|till|of|year|during|before|after|circa|around|early|late|mid|through|between|summer|winter|spring|fall|autumn)|\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?(?:\s+\d{1,2}(?:st|nd|rd|th)?)?,?)\s+$/i;
/** A four-digit number followed by a noun is usually a count (2026 people); these words are not nouns. */
const WORD_AFTER = /^\s+[A-Za-z]/;
const YEARISH_WORD_AFTER =
  /^\s+(?:was|is|will|had|has|saw|became|brought|when|where|and|or|to|through|onwards?|season|election|edition|model|census|olympics|world|budget|report|version|until|at|in|on)\b/i;
const CONTEXT = 32;

function signWord(sign: Sign): string {
  return sign === '-' ? 'minus ' : sign === '+' ? 'plus ' : '';
}

function decimal(value: Decimal): string {
  return englishDecimal(value.int, value.frac);
}

function suffixWords(value: Decimal, suffix: Suffix): string {
  switch (suffix.kind) {
    case 'percent':
      return `${decimal(value)} percent`;
    case 'degree': {
      const scale = suffix.scale === 'C' ? ' Celsius' : suffix.scale === 'F' ? ' Fahrenheit' : '';
      return `${decimal(value)} ${isExactlyOne(value) ? 'degree' : 'degrees'}${scale}`;
    }
    case 'unit':
      return `${decimal(value)} ${suffix.name.en[isExactlyOne(value) ? 0 : 1]}`;
    case 'ordinal':
      return englishOrdinal(value.int);
    case 'decade':
      return englishDecade(Number(value.int));
    case 'none':
      return decimal(value);
  }
}

function isYearLike(value: Decimal, text: string, start: number, end: number): boolean {
  if (value.grouped || value.frac !== null || value.int.length !== 4) return false;
  const year = Number(value.int);
  if (year < 1100 || year > 2099) return false;
  if (YEAR_CUE_BEFORE.test(text.slice(Math.max(0, start - CONTEXT), start))) return true;
  const after = text.slice(end, end + CONTEXT);
  return !WORD_AFTER.test(after) || YEARISH_WORD_AFTER.test(after);
}

function readNumber(token: TokenOf<'number'>, text: string, start: number, end: number): string {
  const { sign, value, suffix, digitByDigit, ordinalPrefix } = token;
  if (digitByDigit) return englishDigits(value.int);
  // 제 belongs to the span (Korean ordinal prefix); an English reading keeps it as written.
  if (ordinalPrefix) return `제${suffixWords(value, suffix)}`;
  if (suffix.kind !== 'none') return signWord(sign) + suffixWords(value, suffix);
  if (sign === '') {
    if (isYearLike(value, text, start, end)) return englishYear(Number(value.int));
    const day = smallInteger(value);
    if (!value.grouped && day >= 1 && day <= 31 && MONTH_BEFORE.test(text.slice(Math.max(0, start - CONTEXT), start))) {
      return englishOrdinal(value.int);
    }
  }
  return signWord(sign) + decimal(value);
}

function readRange(token: TokenOf<'range'>): string {
  const { from, to, suffix } = token;
  const fromWords = suffix.kind === 'ordinal' ? englishOrdinal(from.int) : decimal(from);
  return `${fromWords} to ${suffixWords(to, suffix)}`;
}

function readMoney(token: TokenOf<'money'>): string {
  const { sign, currency, amount, multiplier } = token;
  const name = CURRENCIES[currency];
  const prefix = signWord(sign);
  if (multiplier !== null) return `${prefix}${decimal(amount)} ${multiplier} ${name.en[1]}`;
  const minor = name.enMinor === null ? null : minorUnits(amount);
  if (minor === null || name.enMinor === null) {
    const one = isExactlyOne(amount);
    return `${prefix}${decimal(amount)} ${name.en[one ? 0 : 1]}`;
  }
  const major = `${englishCardinal(amount.int)} ${name.en[/^0*1$/.test(amount.int) ? 0 : 1]}`;
  if (minor === 0) return prefix + major;
  const minorWords = `${englishCardinal(String(minor))} ${name.enMinor[minor === 1 ? 0 : 1]}`;
  return prefix + (/^0+$/.test(amount.int) ? minorWords : `${major} and ${minorWords}`);
}

function readTime(token: TokenOf<'time'>): string {
  const { hour, minute, second, meridiem } = token;
  const suffix = meridiem === null ? '' : meridiem === 'am' ? ' a m' : ' p m';
  const hourWords = englishCardinal(String(hour));
  let words: string;
  if (minute === null || minute === 0) {
    if (meridiem !== null) words = hourWords;
    else if (hour === 0 || hour > 12) words = `${hourWords} hundred`;
    else words = `${hourWords} o'clock`;
  } else {
    words = `${hourWords} ${minute < 10 ? `oh ${englishCardinal(String(minute))}` : englishCardinal(String(minute))}`;
  }
  if (second !== null && second > 0) words += ` and ${englishCardinal(String(second))} ${second === 1 ? 'second' : 'seconds'}`;
  return words + suffix;
}

/** English reading of `match`. */
export function readEnglish(match: NumericMatch, text: string): EnglishReading {
  const token = match.token;
  const end = match.end;
  switch (token.kind) {
    case 'number':
      return { spoken: readNumber(token, text, match.start, match.end), end };
    case 'range':
      return { spoken: readRange(token), end };
    case 'money':
      return { spoken: readMoney(token), end };
    case 'date':
      return {
        spoken: `${MONTH_NAMES[token.month - 1]} ${englishOrdinal(String(token.day))}, ${englishYear(token.year)}`,
        end,
      };
    case 'time':
      return { spoken: readTime(token), end };
    case 'phone': {
      const groups = token.groups.map((group) => ({ original: group, spoken: englishDigits(group) }));
      if (token.countryCode !== null) {
        groups.unshift({ original: `+${token.countryCode}`, spoken: `plus ${englishDigits(token.countryCode)}` });
      }
      return { spoken: groups.map((group) => group.spoken).join(', '), end, groups };
    }
    case 'version':
      return { spoken: token.parts.map((part) => englishCardinal(part)).join(' point '), end };
    case 'code':
      return { spoken: token.text, end };
  }
}
