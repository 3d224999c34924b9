/**
 * The voice a call starts with. The job process prepared the provider's TTS while it waited for a
 * call, maybe minutes earlier; whether the provider answers is checked again as the call starts
 * (the pool's prewarm opens a socket only if none is open, so a healthy one costs nothing). When
 * it does not answer:
 *
 * - with a fallback voice configured (`TTS_FALLBACK`), the call speaks with it throughout, and the
 *   log says so once: a caller hears the agent instead of silence;
 * - without one, the call keeps the provider (its turns retry connecting) and the log says once
 *   that replies stay silent until the provider answers; a job that crashed instead would leave
 *   the caller alone in the room.
 */
import { waitUntilTimeout } from '@livekit/agents';
import type { AppConfig } from '../config/index.js';
import type { CreatedTTS } from './factory.js';

/** Long enough for a TLS handshake on a slow link, short enough that the caller's first turn does not notice. */
export const CALL_START_CHECK_MS = 8000;

export interface CallVoice {
  voice: CreatedTTS;
  /** Which provider the call speaks with. */
  provider: string;
  fallback: boolean;
}

export interface CallVoiceLogger {
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

export interface CallVoiceDeps {
  /** Creates a TTS for `config` (createTTS); its `prewarm()` is not called here. */
  create(config: AppConfig): Promise<CreatedTTS>;
  checkMs?: number;
}

async function answers(voice: CreatedTTS, ms: number): Promise<void> {
  await waitUntilTimeout(voice.prewarm(), ms, () => new Error(`no connection within ${ms} ms`));
}

/** `prepared`: the job process's TTS from prewarm (undefined: create one now). */
export async function voiceForCall(config: AppConfig, prepared: Promise<CreatedTTS> | undefined, logger: CallVoiceLogger, deps: CallVoiceDeps): Promise<CallVoice> {
  const provider = config.tts.provider;
  let voice: CreatedTTS | undefined;
  try {
    voice = await (prepared ?? deps.create(config));
    await answers(voice, deps.checkMs ?? CALL_START_CHECK_MS);
    return { voice, provider, fallback: false };
  } catch (error) {
    const reason = (error as Error).message;
    const fallback = config.tts.fallback;
    if (!fallback) {
      logger.error({ provider, error: reason }, 'TTS provider unreachable as the call starts and no TTS_FALLBACK is set; replies stay silent until it answers');
      if (voice) return { voice, provider, fallback: false };
      throw error;
    }
    logger.warn({ provider, fallback, error: reason }, `TTS provider unreachable as the call starts; this call speaks with the fallback voice (${fallback})`);
    await voice?.close().catch(() => {});
    const spare = await deps.create({ ...config, tts: { ...config.tts, provider: fallback } });
    // Its first turn opens the socket if this has not yet: never hold up the call's start.
    spare.prewarm().catch(() => {});
    return { voice: spare, provider: fallback, fallback: true };
  }
}
