/**
 * Korean number words. Two systems coexist: Sino-Korean (일, 이, 삼 …) for amounts, dates,
 * minutes and measured units, and native Korean (하나, 둘, 셋 …) for counted things and hours.
 * Inputs are digit strings, not JS numbers, so that 20-digit amounts never lose precision.
 */

const SINO_DIGITS = ['영', '일', '이', '삼', '사', '오', '육', '칠', '팔', '구'] as const;
/** Phone numbers and codes say 공 for 0, which is what Koreans read aloud. */
const CODE_DIGITS = ['공', '일', '이', '삼', '사', '오', '육', '칠', '팔', '구'] as const;
const GROUP_UNITS = ['천', '백', '십', ''] as const;
const MYRIAD_UNITS = ['', '만', '억', '조', '경', '해'] as const;
const MAX_SINO_DIGITS = MYRIAD_UNITS.length * 4;

const NATIVE_ONES = ['', '하나', '둘', '셋', '넷', '다섯', '여섯', '일곱', '여덟', '아홉'] as const;
/** The forms used right before a counter: 한 개, 두 명, 세 시, 네 살. */
const NATIVE_ONES_BEFORE_COUNTER = ['', '한', '두', '세', '네', '다섯', '여섯', '일곱', '여덟', '아홉'] as const;
const NATIVE_TENS = ['', '열', '스물', '서른', '마흔', '쉰', '예순', '일흔', '여든', '아흔'] as const;

/** Months 6 and 10 drop a consonant in speech (육월 → 유월, 십월 → 시월). */
const MONTHS = ['', '일월', '이월', '삼월', '사월', '오월', '유월', '칠월', '팔월', '구월', '시월', '십일월', '십이월'] as const;

export type NativeForm = 'standalone' | 'beforeCounter';

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return digits.slice(i);
}

/** One group of up to four digits: 1234 → 천이백삼십사. 일 is dropped before 십/백/천. */
function readMyriadGroup(group: string): string {
  const padded = group.padStart(4, '0');
  let out = '';
  for (let i = 0; i < 4; i++) {
    const digit = padded.charCodeAt(i) - 48;
    if (digit === 0) continue;
    const unit = GROUP_UNITS[i];
    out += digit === 1 && unit !== '' ? unit : SINO_DIGITS[digit] + unit;
  }
  return out;
}

/**
 * Sino-Korean cardinal: '1500000' → '백오십만', '2026' → '이천이십육'.
 * Myriad groups are separated by a space (백이십삼만 사천오백육십칠), as Korean spacing rules write them.
 */
export function sinoKorean(digits: string): string {
  const trimmed = stripLeadingZeros(digits);
  if (trimmed === '0') return SINO_DIGITS[0];
  if (trimmed.length > MAX_SINO_DIGITS) return sinoDigitByDigit(trimmed);
  const words: string[] = [];
  const groupCount = Math.ceil(trimmed.length / 4);
  for (let g = groupCount - 1; g >= 0; g--) {
    const endFromRight = g * 4;
    const group = trimmed.slice(Math.max(0, trimmed.length - endFromRight - 4), trimmed.length - endFromRight);
    const word = readMyriadGroup(group);
    if (word === '') continue;
    const unit = MYRIAD_UNITS[g];
    // 10000 is 만, not 일만, when it leads the number (만 원); 억 keeps its 일 (일억).
    const leading = words.length === 0;
    words.push(word === '일' && unit === '만' && leading ? unit : word + unit);
  }
  return words.join(' ');
}

function sinoDigitByDigit(digits: string): string {
  let out = '';
  for (let i = 0; i < digits.length; i++) out += SINO_DIGITS[digits.charCodeAt(i) - 48];
  return out;
}

/** '3.14' → '삼 점 일사': the fraction is read digit by digit, 0 as 영. */
export function sinoDecimal(intDigits: string, fracDigits: string | null): string {
  const whole = sinoKorean(intDigits);
  if (fracDigits === null || fracDigits === '') return whole;
  return `${whole} 점 ${sinoDigitByDigit(fracDigits)}`;
}

/** Phone numbers and codes: '010' → '공일공'. */
export function koreanDigits(digits: string): string {
  let out = '';
  for (let i = 0; i < digits.length; i++) out += CODE_DIGITS[digits.charCodeAt(i) - 48];
  return out;
}

/**
 * Native Korean for 1–99 ('24', beforeCounter → '스물네'); null outside that range, where
 * speakers switch to Sino-Korean (백 명, not a native hundred).
 */
export function nativeKorean(value: number, form: NativeForm): string | null {
  if (!Number.isInteger(value) || value < 1 || value > 99) return null;
  const tens = Math.floor(value / 10);
  const ones = value % 10;
  const beforeCounter = form === 'beforeCounter';
  if (ones === 0) return tens === 2 && beforeCounter ? '스무' : NATIVE_TENS[tens];
  return NATIVE_TENS[tens] + (beforeCounter ? NATIVE_ONES_BEFORE_COUNTER : NATIVE_ONES)[ones];
}

/** '6' → '유월'; out-of-range months are read as a plain number plus 월. */
export function koreanMonth(month: number): string {
  return month >= 1 && month <= 12 ? MONTHS[month] : `${sinoKorean(String(month))} 월`;
}

/** Largest integer that the native system can express; above it readings fall back to Sino-Korean. */
export const MAX_NATIVE = 99;
