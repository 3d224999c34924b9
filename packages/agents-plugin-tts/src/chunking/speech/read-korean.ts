/** Korean words for a recognised numeric token, including the counter glued after it. */
import { englishOrdinal } from './english-numbers.js';
import { scaleDecimal, minorUnits, smallInteger } from './decimal.js';
import { counterAt, effectiveSystem, magnitudeWordAt, type Counter, type CounterSystem } from './korean-counters.js';
import { koreanDigits, koreanMonth, nativeKorean, sinoDecimal, sinoKorean } from './korean-numbers.js';
import type { Decimal, NumericMatch, NumericToken, Sign, Suffix } from './numeric-token.js';
import { MULTIPLIER_EXPONENT, CURRENCIES } from './units.js';

export interface KoreanReading {
  readonly spoken: string;
  readonly end: number;
  /** Telephone groups, when the token is a phone number. */
  readonly groups?: readonly { original: string; spoken: string }[];
}

function sino(value: Decimal): string {
  return sinoDecimal(value.int, value.frac);
}

function signWord(sign: Sign): string {
  return sign === '-' ? '마이너스 ' : sign === '+' ? '플러스 ' : '';
}

/** Number and counter as said together: 세 시, 삼십 분, 유월, 첫 번째. */
function withCounter(value: Decimal, counter: Counter, system: CounterSystem): string {
  const n = smallInteger(value);
  switch (system) {
    case 'native':
      return `${nativeKorean(n, 'beforeCounter') ?? sino(value)} ${counter.word}`;
    case 'ordinal':
      return `${n === 1 ? '첫' : (nativeKorean(n, 'beforeCounter') ?? sino(value))} ${counter.word}`;
    case 'month':
      return Number.isFinite(n) ? koreanMonth(n) : `${sino(value)} ${counter.word}`;
    case 'sino':
      return `${sino(value)} ${counter.word}`;
  }
}

/** The first number of a range, said without its counter: 셋(에서 다섯 개), 삼월(에서 오월). */
function rangeStart(value: Decimal, system: CounterSystem): string {
  const n = smallInteger(value);
  if (system === 'native' || system === 'ordinal') return nativeKorean(n, 'standalone') ?? sino(value);
  if (system === 'month' && Number.isFinite(n)) return koreanMonth(n);
  return sino(value);
}

/** The LLM sometimes writes both: 영하 -3℃. The sign is then already said. */
const BELOW_ZERO_BEFORE = /영하\s*$/;

function belowZero(sign: Sign, text: string, start: number): string {
  return sign === '-' && !BELOW_ZERO_BEFORE.test(text.slice(Math.max(0, start - 4), start)) ? '영하 ' : '';
}

/** Words said before the number (시속 for speeds, 영하 for frost) unless the text already says them. */
interface Lead {
  readonly belowZero: string;
  readonly alreadySaid: string;
}

function suffixWords(value: Decimal, suffix: Suffix, sign: Sign, lead: Lead = { belowZero: '영하 ', alreadySaid: '' }): string {
  switch (suffix.kind) {
    case 'percent':
      return `${signWord(sign)}${sino(value)} 퍼센트`;
    case 'degree': {
      const scale = suffix.scale === 'F' ? '화씨 ' : '';
      return `${scale}${sign === '-' ? lead.belowZero : sign === '+' ? '영상 ' : ''}${sino(value)} 도`;
    }
    case 'unit': {
      const prefix = suffix.name.koPrefix;
      const said = prefix === undefined || lead.alreadySaid.endsWith(prefix) ? '' : `${prefix} `;
      return `${said}${signWord(sign)}${sino(value)} ${suffix.name.ko}`;
    }
    case 'ordinal':
      return englishOrdinal(value.int);
    case 'decade':
      return `${sinoKorean(value.int)} 년대`;
    case 'none':
      return `${signWord(sign)}${sino(value)}`;
  }
}

type TokenOf<K extends NumericToken['kind']> = Extract<NumericToken, { kind: K }>;

function readNumber(token: TokenOf<'number'>, start: number, matchEnd: number, text: string): KoreanReading {
  const { sign, value, suffix, ordinalPrefix, digitByDigit } = token;
  let end = matchEnd;
  const je = ordinalPrefix ? '제' : '';
  if (suffix.kind !== 'none') {
    const alreadySaid = text.slice(Math.max(0, start - 4), start).trimEnd();
    return { spoken: je + suffixWords(value, suffix, sign, { belowZero: belowZero(sign, text, start), alreadySaid }), end };
  }

  const magnitude = ordinalPrefix ? null : magnitudeWordAt(text, end);
  if (magnitude !== null) {
    // 5천만 → 오천만, 1만 → 만 (not 일만), 1억 → 일억.
    const leadingOne = value.frac === null && /^0*1$/.test(value.int) && magnitude[0] !== '억' && magnitude[0] !== '조' && magnitude[0] !== '경';
    end += magnitude.length;
    let spoken = signWord(sign) + (leadingOne ? '' : sino(value)) + magnitude;
    const counter = counterAt(text, end);
    if (counter !== null) {
      spoken += ` ${counter.word}`;
      end += counter.word.length;
    }
    return { spoken, end };
  }

  const counter = counterAt(text, end);
  if (counter === null) {
    if (digitByDigit) return { spoken: koreanDigits(value.int), end };
    return { spoken: je + suffixWords(value, suffix, sign), end };
  }
  end += counter.word.length;
  if (counter.word === '도' && sign === '-') return { spoken: `${belowZero(sign, text, start)}${sino(value)} 도`, end };
  const system =
    ordinalPrefix || value.frac !== null ? 'sino' : effectiveSystem(counter, smallInteger(value), text, end);
  return { spoken: signWord(sign) + je + withCounter(value, counter, system), end };
}

function readRange(token: TokenOf<'range'>, matchEnd: number, text: string): KoreanReading {
  const { from, to, suffix } = token;
  if (suffix.kind !== 'none') {
    const fromWords = suffix.kind === 'ordinal' ? englishOrdinal(from.int) : sino(from);
    return { spoken: `${fromWords}에서 ${suffixWords(to, suffix, '')}`, end: matchEnd };
  }
  const counter = counterAt(text, matchEnd);
  if (counter === null) return { spoken: `${sino(from)}에서 ${sino(to)}`, end: matchEnd };
  const end = matchEnd + counter.word.length;
  const system = from.frac !== null || to.frac !== null ? 'sino' : effectiveSystem(counter, smallInteger(to), text, end);
  return { spoken: `${rangeStart(from, system)}에서 ${withCounter(to, counter, system)}`, end };
}

function readMoney(token: TokenOf<'money'>): string {
  const { sign, currency, amount, multiplier } = token;
  const name = CURRENCIES[currency];
  const prefix = signWord(sign);
  if (multiplier !== null) return `${prefix}${sino(scaleDecimal(amount, MULTIPLIER_EXPONENT[multiplier]))} ${name.ko}`;
  const minor = name.koMinor === null ? null : minorUnits(amount);
  if (minor === null || name.koMinor === null) return `${prefix}${sino(amount)} ${name.ko}`;
  const major = `${sinoKorean(amount.int)} ${name.ko}`;
  if (minor === 0) return prefix + major;
  const minorWords = `${sinoKorean(String(minor))} ${name.koMinor}`;
  return prefix + (/^0+$/.test(amount.int) ? minorWords : `${major} ${minorWords}`);
}

function readTime(hour: number, minute: number | null, second: number | null, meridiem: 'am' | 'pm' | null): string {
  const words: string[] = [];
  if (meridiem !== null) words.push(meridiem === 'am' ? '오전' : '오후');
  words.push(`${nativeKorean(hour, 'beforeCounter') ?? sinoKorean(String(hour))} 시`);
  if (minute !== null && minute > 0) words.push(`${sinoKorean(String(minute))} 분`);
  if (second !== null && second > 0) words.push(`${sinoKorean(String(second))} 초`);
  return words.join(' ');
}

/** Korean reading of `match`; `end` may grow to take in a glued counter (3시 → 세 시). */
export function readKorean(match: NumericMatch, text: string): KoreanReading {
  const token = match.token;
  switch (token.kind) {
    case 'number':
      return readNumber(token, match.start, match.end, text);
    case 'range':
      return readRange(token, match.end, text);
    case 'money':
      return { spoken: readMoney(token), end: match.end };
    case 'date':
      return {
        spoken: `${sinoKorean(String(token.year))} 년 ${koreanMonth(token.month)} ${sinoKorean(String(token.day))} 일`,
        end: match.end,
      };
    case 'time':
      return { spoken: readTime(token.hour, token.minute, token.second, token.meridiem), end: match.end };
    case 'phone': {
      const groups = token.groups.map((group) => ({ original: group, spoken: koreanDigits(group) }));
      if (token.countryCode !== null) {
        groups.unshift({ original: `+${token.countryCode}`, spoken: `플러스 ${koreanDigits(token.countryCode)}` });
      }
      return { spoken: groups.map((group) => group.spoken).join(' '), end: match.end, groups };
    }
    case 'version':
      return { spoken: token.parts.map((part) => sinoKorean(part)).join(' 점 '), end: match.end };
    case 'code':
      return { spoken: token.text, end: match.end };
  }
}
