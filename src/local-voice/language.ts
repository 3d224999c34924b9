import type { VoiceLanguage } from './worker-messages.js';

// Hangul syllables, Jamo and compatibility Jamo.
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u;

/**
 * eSpeak needs a voice per language and our replies are Korean or English. Any Hangul means the
 * Korean voice: it reads embedded Latin words passably, while the English voice skips Hangul.
 */
export function pickLanguage(text: string): VoiceLanguage {
  return HANGUL.test(text) ? 'ko' : 'en-us';
}
