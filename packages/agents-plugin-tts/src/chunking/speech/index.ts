/**
 * Speakable text: numbers, times, money, codes and acronyms written out the way a Korean or
 * English speaker says them, so every provider reads them the same. Pure and synchronous.
 */
import { findSpans } from './spans.js';
import type { SpeechOptions } from './types.js';

export { toSsml } from './ssml.js';
export { DEFAULT_KOREAN_ALIASES } from './aliases.js';
export type { SpeechOptions, SsmlOptions, Span } from './types.js';
export type { SpeechLanguage } from './language.js';

/** `text` with every decided span replaced by its spoken form; everything else is untouched. */
export function normalizeForSpeech(text: string, options: SpeechOptions = {}): string {
  const spans = findSpans(text, options);
  if (spans.length === 0) return text;
  let out = '';
  let cursor = 0;
  for (const span of spans) {
    out += text.slice(cursor, span.start) + span.spoken;
    cursor = span.end;
  }
  return out + text.slice(cursor);
}
