import { describe, expect, it } from 'vitest';
import { normalizeForSpeech } from '../../src/chunking/speech/index.js';

const CARDINALS: [string, string][] = [
  ['0', 'zero'],
  ['7', 'seven'],
  ['13', 'thirteen'],
  ['42', 'forty-two'],
  ['100', 'one hundred'],
  ['105 apples', 'one hundred five apples'],
  ['1,500', 'one thousand five hundred'],
  ['1,500,000', 'one million five hundred thousand'],
  ['2026 people', 'two thousand twenty-six people'],
  ['999999', 'nine hundred ninety-nine thousand nine hundred ninety-nine'],
  ['1000000000', 'one billion'],
];

const ORDINALS: [string, string][] = [
  ['1st', 'first'],
  ['2nd', 'second'],
  ['3rd', 'third'],
  ['4th', 'fourth'],
  ['11th', 'eleventh'],
  ['12th', 'twelfth'],
  ['22nd', 'twenty-second'],
  ['30th', 'thirtieth'],
  ['101st', 'one hundred first'],
  ['the 1st and 2nd place', 'the first and second place'],
  ['March 3', 'March third'],
  ['on May 21.', 'on May twenty-first.'],
];

const YEARS: [string, string][] = [
  ['1999', 'nineteen ninety-nine'],
  ['2026', 'twenty twenty-six'],
  ['2000', 'two thousand'],
  ['2005', 'two thousand five'],
  ['1905', 'nineteen oh five'],
  ['1900', 'nineteen hundred'],
  ['In 2026, we launched.', 'In twenty twenty-six, we launched.'],
  ['since 2010 we have grown', 'since twenty ten we have grown'],
  ['March 3rd, 2026 at noon', 'March third, twenty twenty-six at noon'],
  ['2026 was a good year', 'twenty twenty-six was a good year'],
  ['the 1990s', 'the nineteen nineties'],
  ['the 80s', 'the eighties'],
  ['the 2000s', 'the two thousands'],
];

const DECIMALS_PERCENT_UNITS: [string, string][] = [
  ['3.14', 'three point one four'],
  ['0.5', 'zero point five'],
  ['1,234.56', 'one thousand two hundred thirty-four point five six'],
  ['15%', 'fifteen percent'],
  ['3.5%', 'three point five percent'],
  ['100%', 'one hundred percent'],
  ['3.5km', 'three point five kilometers'],
  ['3.5 km', 'three point five kilometers'],
  ['1 km', 'one kilometer'],
  ['5 GB of storage', 'five gigabytes of storage'],
  ['250ms', 'two hundred fifty milliseconds'],
  ['60 mph', 'sixty miles per hour'],
  ['30°C', 'thirty degrees Celsius'],
  ['1°', 'one degree'],
  ['98.6°F', 'ninety-eight point six degrees Fahrenheit'],
];

const NEGATIVES_AND_RANGES: [string, string][] = [
  ['-5', 'minus five'],
  ['−12', 'minus twelve'],
  ['It was -5°C outside', 'It was minus five degrees Celsius outside'],
  ['down -3.5%', 'down minus three point five percent'],
  ['+3', 'plus three'],
  ['3~5 days', 'three to five days'],
  ['10–20%', 'ten to twenty percent'],
  ['5-3', 'five-three'],
];

const MONEY: [string, string][] = [
  ['$1.5M', 'one point five million dollars'],
  ['$3.50', 'three dollars and fifty cents'],
  ['$1', 'one dollar'],
  ['$1.00', 'one dollar'],
  ['$0.99', 'ninety-nine cents'],
  ['$1.01', 'one dollar and one cent'],
  ['$1,500', 'one thousand five hundred dollars'],
  ['$5K', 'five thousand dollars'],
  ['$2B', 'two billion dollars'],
  ['$5bn', 'five billion dollars'],
  ['$1.5 million', 'one point five million dollars'],
  ['-$20', 'minus twenty dollars'],
  ['€3.50', 'three euros and fifty cents'],
  ['£1.01', 'one pound and one penny'],
  ['£2.50', 'two pounds and fifty pence'],
  ['¥500', 'five hundred yen'],
  ['₩1,500', 'one thousand five hundred won'],
];

const TIMES: [string, string][] = [
  ['3:30 pm', 'three thirty p m'],
  ['3:30pm', 'three thirty p m'],
  ['3:05 AM', 'three oh five a m'],
  ['3:00 pm', 'three p m'],
  ['3pm', 'three p m'],
  ['11 a.m. tomorrow', 'eleven a m tomorrow'],
  ['see you at 3 p.m.', 'see you at three p m.'],
  ['3:00', "three o'clock"],
  ['15:00', 'fifteen hundred'],
  ['15:45', 'fifteen forty-five'],
  ['1:02:03', 'one oh two and three seconds'],
];

const PHONES_DATES_CODES: [string, string][] = [
  ['555-123-4567', 'five five five, one two three, four five six seven'],
  ['(555) 123-4567', 'five five five, one two three, four five six seven'],
  ['Call +1 555-123-4567 now', 'Call plus one, five five five, one two three, four five six seven now'],
  ['555-1234', 'five five five, one two three four'],
  ['2026-11-29', 'November twenty-ninth, twenty twenty-six'],
  ['2026/03/01', 'March first, twenty twenty-six'],
  ['order number 1234', 'order number one two three four'],
  ['your code is 5521', 'your code is five five two one'],
  ['PIN: 0420', 'PIN: zero four two zero'],
  ['agent 007', 'agent zero zero seven'],
  ['version 1.2.3', 'version one point two point three'],
  ['24/7 support', 'twenty-four/seven support'],
];

const LEFT_TO_THE_VOICE: string[] = ['GPT-4', 'mp3', 'A1B2', 'v1.2.3', 'COVID-19', '4K video', 'H2O', 'B2B sales'];

const MIXED: [string, string][] = [
  [
    'On March 3rd, 2026 at 3:30 pm, 22 people paid $3.50 each (15% off).',
    'On March third, twenty twenty-six at three thirty p m, twenty-two people paid three dollars and fifty cents each (fifteen percent off).',
  ],
  [
    'Revenue grew 12.5% to $1.5M in 2025, our 3rd record year.',
    'Revenue grew twelve point five percent to one point five million dollars in twenty twenty-five, our third record year.',
  ],
];

describe('normalizeForSpeech — English', () => {
  const groups: Record<string, [string, string][]> = {
    cardinals: CARDINALS,
    ordinals: ORDINALS,
    years: YEARS,
    'decimals, percentages, units': DECIMALS_PERCENT_UNITS,
    'negatives and ranges': NEGATIVES_AND_RANGES,
    money: MONEY,
    times: TIMES,
    'phones, dates, codes': PHONES_DATES_CODES,
    'mixed sentences': MIXED,
  };
  for (const [name, cases] of Object.entries(groups)) {
    describe(name, () => {
      it.each(cases)('%s → %s', (written, spoken) => {
        expect(normalizeForSpeech(written)).toBe(spoken);
      });
    });
  }

  it.each(LEFT_TO_THE_VOICE)('leaves the letter/digit word %s to the voice', (word) => {
    expect(normalizeForSpeech(`I like ${word} a lot`)).toBe(`I like ${word} a lot`);
  });

  it('reads English even inside Korean text when language is forced', () => {
    expect(normalizeForSpeech('3시', { language: 'en' })).toBe('three시');
  });

  it('does not apply the default Korean aliases in English text', () => {
    expect(normalizeForSpeech('The AI calls the API.')).toBe('The AI calls the API.');
  });
});
