/** The language-neutral result of recognising a numeric token; readers turn it into words. */
import type { CurrencySymbol, Multiplier, UnitName } from './units.js';

export interface Decimal {
  readonly int: string;
  readonly frac: string | null;
  /** Written with thousands separators (1,500): never a year. */
  readonly grouped: boolean;
}

export type Sign = '' | '-' | '+';

export type Suffix =
  | { readonly kind: 'none' }
  | { readonly kind: 'percent' }
  | { readonly kind: 'degree'; readonly scale: 'C' | 'F' | null }
  | { readonly kind: 'unit'; readonly name: UnitName }
  | { readonly kind: 'ordinal' }
  | { readonly kind: 'decade' };

export type NumericToken =
  | { readonly kind: 'date'; readonly year: number; readonly month: number; readonly day: number }
  | { readonly kind: 'phone'; readonly countryCode: string | null; readonly groups: readonly string[] }
  | {
      readonly kind: 'time';
      readonly hour: number;
      readonly minute: number | null;
      readonly second: number | null;
      readonly meridiem: 'am' | 'pm' | null;
    }
  | {
      readonly kind: 'money';
      readonly sign: Sign;
      readonly currency: CurrencySymbol;
      readonly amount: Decimal;
      readonly multiplier: Multiplier | null;
    }
  | { readonly kind: 'version'; readonly parts: readonly string[] }
  | { readonly kind: 'range'; readonly from: Decimal; readonly to: Decimal; readonly suffix: Suffix }
  | {
      readonly kind: 'number';
      readonly sign: Sign;
      readonly value: Decimal;
      readonly suffix: Suffix;
      /** 제 before the number: 제1회 → 제일 회. */
      readonly ordinalPrefix: boolean;
      /** Leading zero, or a code/number keyword right before it: read digit by digit. */
      readonly digitByDigit: boolean;
    }
  /** Letters and digits mixed in one word (A1B2, GPT-4, mp3). */
  | { readonly kind: 'code'; readonly text: string };

export interface NumericMatch {
  readonly start: number;
  readonly end: number;
  readonly token: NumericToken;
}
