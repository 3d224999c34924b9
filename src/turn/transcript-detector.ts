/**
 * End of turn judged from what the caller has said so far, in Korean and English: one predictor
 * with two callers. The session hands {@link TranscriptTurnDetector} to the framework
 * (`turnHandling.turnDetection`), which then waits its endpointing minDelay when the turn reads as
 * finished and its maxDelay when it does not; the early acknowledgement calls
 * {@link predictTurnComplete} itself before it speaks.
 *
 * Rules, not a model: they run in microseconds, offline, and say why. They judge the words, not
 * the voice — "I need a table." before "For four people." reads as finished and is; only the
 * caller's intonation could tell, which the audio end-of-turn model hears and this cannot.
 */
import type { llm, voice } from '@livekit/agents';
import { type AckLanguage, detectAckLanguage } from '../ack/phrases.js';
import { englishTurnLikelihood } from './english.js';
import { koreanTurnLikelihood } from './korean.js';
import { LIKELIHOOD, TURN_UNLIKELY_THRESHOLD, withPunctuation } from './likelihood.js';
import { readTranscript } from './transcript-words.js';

/**
 * The framework's text turn detector (`_TurnDetector` in voice/audio_recognition.ts). The package
 * does not export that name, so it is taken from the session options that accept it, which keeps
 * it the framework's own type rather than a copy that could drift.
 */
export type FrameworkTurnDetector = Extract<NonNullable<voice.AgentSessionOptions['turnDetection']>, { predictEndOfTurn: unknown }>;

type DetectorLanguage = Parameters<FrameworkTurnDetector['unlikelyThreshold']>[0];

/**
 * The probability (0.05–0.95) that `text`, the caller's words so far in this turn, is a finished
 * turn. Total: any string gets a number, never an exception. The last word's script picks the
 * rules ("OK, 서울 날씨" is judged as Korean, "서울 weather" as English); `language` decides for
 * digits and for words in neither script.
 */
export function predictTurnComplete(text: string, language: AckLanguage = detectAckLanguage(text)): number {
  const transcript = readTranscript(text);
  const last = transcript.words.at(-1);
  if (!last) return withPunctuation(LIKELIHOOD.neutral, transcript.ending, false);
  const korean = last.script === 'hangul' || (last.script !== 'latin' && language === 'ko');
  if (korean) return koreanTurnLikelihood(transcript);
  if (last.script === 'latin' || last.script === 'digits') return englishTurnLikelihood(transcript);
  return withPunctuation(LIKELIHOOD.leansOver, transcript.ending, false);
}

/** Below this, the turn is judged unfinished. The same for both languages: the rules grade alike. */
export function turnUnlikelyThreshold(language: AckLanguage): number {
  return { ko: TURN_UNLIKELY_THRESHOLD, en: TURN_UNLIKELY_THRESHOLD }[language];
}

export function isTurnComplete(text: string, language?: AckLanguage): boolean {
  const judged = language ?? detectAckLanguage(text);
  return predictTurnComplete(text, judged) >= turnUnlikelyThreshold(judged);
}

/** The STT's language code ("ko", "ko-KR", "en-US", "english") as one the rules know, if any. */
function supported(language: DetectorLanguage): AckLanguage | undefined {
  const code = String(language ?? '').toLowerCase().trim();
  if (code === 'ko' || code.startsWith('ko-') || code === 'korean' || code === 'kor') return 'ko';
  if (code === 'en' || code.startsWith('en-') || code === 'english' || code === 'eng') return 'en';
  return undefined;
}

export class TranscriptTurnDetector implements FrameworkTurnDetector {
  readonly model = 'firstword-transcript-rules';
  readonly provider = 'firstword';

  /** An STT that reports no language still gets judged: the words themselves tell Korean from English. */
  async supportsLanguage(language?: DetectorLanguage): Promise<boolean> {
    return language === undefined || String(language) === '' || supported(language) !== undefined;
  }

  async unlikelyThreshold(language?: DetectorLanguage): Promise<number | undefined> {
    if (language === undefined || String(language) === '') return TURN_UNLIKELY_THRESHOLD;
    const known = supported(language);
    return known ? turnUnlikelyThreshold(known) : undefined;
  }

  /** The framework adds the caller's transcript so far as the last user message before asking. */
  async predictEndOfTurn(chatCtx: llm.ChatContext): Promise<number> {
    const text = lastUserText(chatCtx);
    return predictTurnComplete(text, detectAckLanguage(text));
  }
}

function lastUserText(chatCtx: llm.ChatContext): string {
  for (let i = chatCtx.items.length - 1; i >= 0; i--) {
    const item = chatCtx.items[i]!;
    if (item.type === 'message' && item.role === 'user') return item.textContent ?? '';
  }
  return '';
}
