/**
 * What a caller hears the instant the call connects. On a phone line silence reads as a
 * dropped call, and callers who think the line is dead start talking ("hello?") right
 * into a late greeting. So the greeting is fixed text spoken at once, not an LLM turn,
 * and its first clause is short: our chunker releases it to the TTS by itself.
 */
export const DEFAULT_GREETINGS: Readonly<Record<string, string>> = {
  en: 'Hi, thanks for calling! How can I help you today?',
  ko: '안녕하세요, 전화 주셔서 감사합니다. 무엇을 도와드릴까요?',
};

const FALLBACK_LANGUAGE = 'en';

/** `ko-KR`, `ko_KR`, `KO` → `ko`. */
export function baseLanguage(language: string | undefined): string {
  const base = (language ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return base ? base : FALLBACK_LANGUAGE;
}

/**
 * The greeting for a session language; an explicit override (`SIP_GREETING`) wins, an
 * unknown language falls back to English rather than to silence.
 */
export function greetingFor(language: string | undefined, override?: string): string {
  if (override && override.trim() !== '') return override.trim();
  return DEFAULT_GREETINGS[baseLanguage(language)] ?? DEFAULT_GREETINGS[FALLBACK_LANGUAGE]!;
}
