/**
 * The single decision pass: which stretches of the text are said differently, and how.
 * Aliases are found first (a user alias like 'GPT-4' beats the number inside it), then every
 * digit run outside them is recognised and read in its language.
 */
import { compileAliases, findAliasSpans } from './aliases.js';
import { languageAt, languageOf as languageOfText, type SpeechLanguage } from './language.js';
import type { NumericMatch } from './numeric-token.js';
import { recognizeNumeric } from './patterns.js';
import { readEnglish } from './read-english.js';
import { readKorean } from './read-korean.js';
import type { Span, SpeechOptions } from './types.js';

const DIGIT_RUN = /\d+/g;

/** 'A1B2' → 'A 1 B 2', 'AB-12' → 'A B 1 2': separators are not said. */
function spellCharacters(code: string): string {
  return code.replace(/[^A-Za-z0-9]/g, '').split('').join(' ');
}

function numericSpan(match: NumericMatch, text: string, language: SpeechLanguage, spellCodes: boolean): { span: Span | null; end: number } {
  if (match.token.kind === 'code') {
    const span: Span | null = spellCodes
      ? { kind: 'characters', start: match.start, end: match.end, spoken: spellCharacters(match.token.text) }
      : null;
    return { span, end: match.end };
  }
  // No object spread here: it costs more than the whole reading.
  const reading = language === 'ko' ? readKorean(match, text) : readEnglish(match, text);
  const end = reading.end;
  const span: Span =
    reading.groups === undefined
      ? { kind: 'reading', start: match.start, end, spoken: reading.spoken }
      : { kind: 'telephone', start: match.start, end, spoken: reading.spoken, parts: reading.groups };
  return { span, end };
}

/** Non-overlapping spans in text order. */
export function findSpans(text: string, options: SpeechOptions = {}): Span[] {
  const forced = options.language;
  let whole: SpeechLanguage | undefined;
  const wholeText = (): SpeechLanguage => (whole ??= languageOfText(text));
  const languageOf = (start: number, end: number): SpeechLanguage => forced ?? languageAt(text, start, end, wholeText);
  const spellCodes = options.spellCodes ?? false;

  const aliasSpans = findAliasSpans(text, compileAliases(options.aliases), languageOf);
  const spans: Span[] = [];
  let nextAlias = 0;
  let floor = 0;

  DIGIT_RUN.lastIndex = 0;
  for (let run = DIGIT_RUN.exec(text); run !== null; run = DIGIT_RUN.exec(text)) {
    const index = run.index;
    while (nextAlias < aliasSpans.length && aliasSpans[nextAlias].end <= index) {
      const alias = aliasSpans[nextAlias++];
      if (alias.start >= floor) {
        spans.push(alias);
        floor = alias.end;
      }
    }
    const alias = aliasSpans[nextAlias];
    if (index < floor || (alias !== undefined && alias.start <= index)) continue;

    const match = recognizeNumeric(text, index, floor);
    const { span, end } = numericSpan(match, text, languageOf(match.start, match.end), spellCodes);
    if (span !== null) spans.push(span);
    floor = end;
    DIGIT_RUN.lastIndex = end;
  }
  for (; nextAlias < aliasSpans.length; nextAlias++) {
    const alias = aliasSpans[nextAlias];
    if (alias.start >= floor) {
      spans.push(alias);
      floor = alias.end;
    }
  }
  return spans;
}
