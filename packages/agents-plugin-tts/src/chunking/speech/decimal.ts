import type { Decimal } from './numeric-token.js';

/** Moves the decimal point right by `exponent` places: (1.5, 6) → 1500000. Exact, on digit strings. */
export function scaleDecimal(value: Decimal, exponent: number): Decimal {
  const frac = value.frac ?? '';
  const digits = value.int + frac.padEnd(exponent, '0');
  const point = value.int.length + exponent;
  const rest = digits.slice(point).replace(/0+$/, '');
  return { int: digits.slice(0, point).replace(/^0+(?=\d)/, ''), frac: rest === '' ? null : rest, grouped: false };
}

/** Exactly one (1, not 1.0): decides singular nouns and 한/one. */
export function isExactlyOne(value: Decimal): boolean {
  return value.frac === null && /^0*1$/.test(value.int);
}

/** Two-digit minor unit (cents) when the fraction has at most two digits: '5' → 50, '05' → 5. */
export function minorUnits(value: Decimal): number | null {
  if (value.frac === null || value.frac.length > 2) return null;
  return Number(value.frac.padEnd(2, '0'));
}

/** Integer value when small enough to matter for word choice (counters, hours), else Infinity. */
export function smallInteger(value: Decimal): number {
  return value.frac === null && value.int.length <= 6 ? Number(value.int) : Number.POSITIVE_INFINITY;
}
