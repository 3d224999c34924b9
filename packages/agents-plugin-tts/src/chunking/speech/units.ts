/** Written units and currency symbols with their spoken names in both languages. */

export interface UnitName {
  readonly ko: string;
  /** Speed units are said with 시속 before the number: 시속 백 킬로미터. */
  readonly koPrefix?: string;
  readonly en: readonly [singular: string, plural: string];
}

const unit = (ko: string, singular: string, plural = `${singular}s`): UnitName => ({ ko, en: [singular, plural] });
const speed = (ko: string, singular: string, plural: string): UnitName => ({ ko, koPrefix: '시속', en: [singular, plural] });

/**
 * Case matters (m is metre, M is not a unit here; mb would be ambiguous). A unit is only recognised
 * directly after a number, so 'm' in ordinary words is never touched.
 */
export const UNITS: ReadonlyMap<string, UnitName> = new Map([
  ['km', unit('킬로미터', 'kilometer')],
  ['m', unit('미터', 'meter')],
  ['cm', unit('센티미터', 'centimeter')],
  ['mm', unit('밀리미터', 'millimeter')],
  ['kg', unit('킬로그램', 'kilogram')],
  ['g', unit('그램', 'gram')],
  ['mg', unit('밀리그램', 'milligram')],
  ['l', unit('리터', 'liter')],
  ['L', unit('리터', 'liter')],
  ['ml', unit('밀리리터', 'milliliter')],
  ['mL', unit('밀리리터', 'milliliter')],
  ['KB', unit('킬로바이트', 'kilobyte')],
  ['MB', unit('메가바이트', 'megabyte')],
  ['GB', unit('기가바이트', 'gigabyte')],
  ['TB', unit('테라바이트', 'terabyte')],
  ['Hz', unit('헤르츠', 'hertz', 'hertz')],
  ['kHz', unit('킬로헤르츠', 'kilohertz', 'kilohertz')],
  ['MHz', unit('메가헤르츠', 'megahertz', 'megahertz')],
  ['GHz', unit('기가헤르츠', 'gigahertz', 'gigahertz')],
  ['W', unit('와트', 'watt')],
  ['kW', unit('킬로와트', 'kilowatt')],
  ['kWh', unit('킬로와트시', 'kilowatt hour')],
  ['ms', unit('밀리초', 'millisecond')],
  ['min', unit('분', 'minute')],
  ['sec', unit('초', 'second')],
  ['mph', speed('마일', 'mile per hour', 'miles per hour')],
  ['km/h', speed('킬로미터', 'kilometer per hour', 'kilometers per hour')],
  ['kcal', unit('킬로칼로리', 'kilocalorie')],
]);

/** Units that are safe to recognise after a space too ('5 GB'); single letters are not ('5 m'). */
export function unitAllowsSpace(symbol: string): boolean {
  return symbol.length > 1;
}

export type CurrencySymbol = '$' | '€' | '£' | '¥' | '₩';

export interface CurrencyName {
  readonly ko: string;
  readonly koMinor: string | null;
  readonly en: readonly [singular: string, plural: string];
  readonly enMinor: readonly [singular: string, plural: string] | null;
}

export const CURRENCIES: Readonly<Record<CurrencySymbol, CurrencyName>> = {
  $: { ko: '달러', koMinor: '센트', en: ['dollar', 'dollars'], enMinor: ['cent', 'cents'] },
  '€': { ko: '유로', koMinor: '센트', en: ['euro', 'euros'], enMinor: ['cent', 'cents'] },
  '£': { ko: '파운드', koMinor: '펜스', en: ['pound', 'pounds'], enMinor: ['penny', 'pence'] },
  '¥': { ko: '엔', koMinor: null, en: ['yen', 'yen'], enMinor: null },
  '₩': { ko: '원', koMinor: null, en: ['won', 'won'], enMinor: null },
};

export type Multiplier = 'thousand' | 'million' | 'billion' | 'trillion';

export const MULTIPLIERS: Readonly<Record<string, Multiplier>> = {
  K: 'thousand', k: 'thousand', thousand: 'thousand',
  M: 'million', mn: 'million', million: 'million',
  B: 'billion', bn: 'billion', billion: 'billion',
  T: 'trillion', trillion: 'trillion',
};

export const MULTIPLIER_EXPONENT: Readonly<Record<Multiplier, number>> = {
  thousand: 3, million: 6, billion: 9, trillion: 12,
};
