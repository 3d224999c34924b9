/**
 * What the agent that takes over a call says first: a short apology in the caller's language,
 * then it listens (the history it was given lets it carry on).
 */
import { containsHangul } from '@firstword/agents-plugin-tts/chunking';
import { baseLanguage } from '../sip/greeting.js';
import type { HistoryTurn } from './history.js';

export const RESUME_GREETINGS: Readonly<Record<string, string>> = {
  en: 'Sorry — where were we?',
  ko: '죄송해요, 어디까지 이야기했었죠?',
};

const LATIN = /[a-z]/i;

/** The language the caller last spoke, as far as the script tells: `ko`, `en`, or undefined. */
export function spokenLanguage(history: readonly HistoryTurn[]): string | undefined {
  for (const turn of [...history].reverse()) {
    if (turn.role !== 'user') continue;
    if (containsHangul(turn.text)) return 'ko';
    if (LATIN.test(turn.text)) return 'en';
  }
  return undefined;
}

/**
 * The caller's last words decide; with none (a death before the first turn), the call's
 * configured language (`SIP_LANGUAGE`); a language without a phrase gets English.
 */
export function resumeGreetingFor(history: readonly HistoryTurn[], configuredLanguage: string | undefined): { language: string; text: string } {
  const wanted = spokenLanguage(history) ?? baseLanguage(configuredLanguage);
  const language = wanted in RESUME_GREETINGS ? wanted : 'en';
  return { language, text: RESUME_GREETINGS[language]! };
}
