import type { VoiceLanguage } from './worker-messages.js';
import { languageOf } from '@firstword/agents-plugin-tts/chunking';

/**
 * eSpeak needs a voice per language and our replies are Korean or English. Any Hangul means the
 * Korean voice: it reads embedded Latin words passably, while the English voice skips Hangul.
 */
export function pickLanguage(text: string): VoiceLanguage {
  return languageOf(text) === 'ko' ? 'ko' : 'en-us';
}
