/**
 * Spoken forms for acronyms and names, matched on word boundaries. A boundary is anything that
 * is not an ASCII letter or digit, so a Hangul particle glued to the word still counts: 'AI를'.
 */
import type { SpeechLanguage } from './language.js';
import type { Span } from './types.js';

/**
 * Korean readings of common acronyms. Applied only where the surrounding text is Korean (an
 * English sentence keeps 'AI' for the English voice), and each one can be overridden by the
 * caller's `aliases`.
 */
export const DEFAULT_KOREAN_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  AI: '에이아이',
  API: '에이피아이',
  ATM: '에이티엠',
  CCTV: '씨씨티비',
  CEO: '씨이오',
  CPU: '씨피유',
  CTO: '씨티오',
  DNA: '디엔에이',
  FAQ: '에프에이큐',
  GPS: '지피에스',
  GPT: '지피티',
  GPU: '지피유',
  ID: '아이디',
  IoT: '아이오티',
  IT: '아이티',
  KTX: '케이티엑스',
  LLM: '엘엘엠',
  OK: '오케이',
  OTP: '오티피',
  PC: '피시',
  PDF: '피디에프',
  QR: '큐알',
  SDK: '에스디케이',
  SMS: '에스엠에스',
  SNS: '에스엔에스',
  STT: '에스티티',
  TTS: '티티에스',
  TV: '티브이',
  UI: '유아이',
  URL: '유알엘',
  USB: '유에스비',
  UX: '유엑스',
  VIP: '브이아이피',
});

interface AliasEntry {
  readonly spoken: string;
  readonly koreanOnly: boolean;
}

export interface CompiledAliases {
  readonly pattern: RegExp | null;
  readonly entries: ReadonlyMap<string, AliasEntry>;
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function compile(user: Record<string, string> | undefined): CompiledAliases {
  const entries = new Map<string, AliasEntry>();
  for (const [key, spoken] of Object.entries(DEFAULT_KOREAN_ALIASES)) entries.set(key, { spoken, koreanOnly: true });
  for (const [key, spoken] of Object.entries(user ?? {})) {
    if (key !== '') entries.set(key, { spoken, koreanOnly: false });
  }
  for (const [key, entry] of entries) if (entry.spoken === key) entries.delete(key);
  if (entries.size === 0) return { pattern: null, entries };
  // Longest first, so 'API' is tried before 'AI' at the same position.
  const alternatives = [...entries.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(`(?<![A-Za-z0-9])(?:${alternatives.join('|')})(?![A-Za-z0-9])`, 'g');
  return { pattern, entries };
}

const DEFAULTS = compile(undefined);
/** Callers pass the same options object for every chunk; compiling once per object keeps calls cheap. */
const compiledByObject = new WeakMap<Record<string, string>, CompiledAliases>();

export function compileAliases(user: Record<string, string> | undefined): CompiledAliases {
  if (user === undefined) return DEFAULTS;
  let compiled = compiledByObject.get(user);
  if (compiled === undefined) {
    compiled = compile(user);
    compiledByObject.set(user, compiled);
  }
  return compiled;
}

export function findAliasSpans(
  text: string,
  aliases: CompiledAliases,
  languageOf: (start: number, end: number) => SpeechLanguage,
): Span[] {
  const { pattern, entries } = aliases;
  if (pattern === null) return [];
  const spans: Span[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const entry = entries.get(match[0]);
    if (entry === undefined) continue;
    const start = match.index;
    const end = start + match[0].length;
    if (entry.koreanOnly && languageOf(start, end) !== 'ko') continue;
    spans.push({ kind: 'reading', start, end, spoken: entry.spoken });
  }
  return spans;
}
