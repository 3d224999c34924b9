/**
 * What the agent says the instant a turn ends, before it has an answer.
 *
 * Short on purpose: speech handles play one after another, so when the answer is ready early an
 * acknowledgement delays it by its own length. About a second of speech at most.
 */
import { countHangul } from '@firstword/agents-plugin-tts/chunking';

export type AckLanguage = 'ko' | 'en';

export const ACK_LANGUAGES: readonly AckLanguage[] = ['ko', 'en'];

export const DEFAULT_ACK_PHRASES: Readonly<Record<AckLanguage, readonly string[]>> = {
  ko: ['네, 확인해 볼게요.', '잠시만요.', '네, 알아볼게요.'],
  en: ['Sure, one moment.', 'Okay, let me check.', 'Got it, one second.'],
};

const LATIN = /[A-Za-z]/g;

/**
 * The language to acknowledge in, from the user's own words: Korean when Hangul outweighs Latin
 * letters ("OK, 서울 날씨" is Korean), English otherwise — including for an empty transcript.
 */
export function detectAckLanguage(transcript: string): AckLanguage {
  const hangul = countHangul(transcript);
  const latin = transcript.match(LATIN)?.length ?? 0;
  return hangul > 0 && hangul >= latin ? 'ko' : 'en';
}

/**
 * What the early acknowledgement says: a backchannel, not a sentence. It plays before the turn is
 * committed and the reply waits for its end, so it is as short as a word (~0.3 s).
 */
export const EARLY_ACK_PHRASES: Readonly<Record<AckLanguage, readonly string[]>> = {
  ko: ['네.', '아, 네.', '네네.'],
  en: ['Okay.', 'Sure.', 'Right.'],
};
