/**
 * The speech-to-text profiles bench:turn runs the real OpenAI plugin under, against the local
 * OpenAI-protocol server (test/servers/openai-server.ts):
 *
 * - `server-vad[:FINAL]`: gpt-4o-transcribe with the plugin's server_vad (silence 350 ms); the
 *   server commits, deltas and the final follow FINAL ms later (default 150).
 * - `live:LAG/FINAL`: gpt-realtime-whisper, no server VAD; each word's delta LAG ms after its
 *   audio, the plugin commits at Silero's end of speech, the final FINAL ms after the commit.
 */
import type { OpenAIServerOptions } from '../../test/servers/openai-server.js';

export interface SttProfile {
  /** As given on the command line: `server-vad`, `live:300/150`. */
  name: string;
  model: 'gpt-4o-transcribe' | 'gpt-realtime-whisper';
  /** The local server's options for it. */
  server: Partial<OpenAIServerOptions>;
}

export const DEFAULT_STT_PROFILES = ['server-vad', 'live:300/150', 'live:300/800', 'live:300/1600', 'live:100/150', 'live:600/150'] as const;

function wholeMs(spec: string, raw: string | undefined): number {
  const value = Number(raw);
  if (raw === undefined || raw === '' || !Number.isInteger(value) || value < 0 || value > 10_000) {
    throw new Error(`--stt ${spec}: expected whole milliseconds 0-10000, as in live:300/150 or server-vad:150`);
  }
  return value;
}

/** Words are bound to the caller's audio (each piece carries its voiced length); eSpeak's quiet onsets still count as voice. */
const COMMON: Partial<OpenAIServerOptions> = { bindTranscripts: 'speech', vadRmsThreshold: 0.005 };

export function parseSttProfile(spec: string): SttProfile {
  const [kind, timing] = spec.split(':');
  if (kind === 'server-vad') {
    const finalMs = timing === undefined ? 150 : wholeMs(spec, timing);
    return { name: spec, model: 'gpt-4o-transcribe', server: { ...COMMON, transcriptionDelayMs: finalMs } };
  }
  if (kind === 'live') {
    const [lag, final] = (timing ?? '').split('/');
    return { name: spec, model: 'gpt-realtime-whisper', server: { ...COMMON, deltaLagMs: wholeMs(spec, lag), finalAfterCommitMs: wholeMs(spec, final) } };
  }
  throw new Error(`--stt: unknown profile "${spec}" (server-vad[:FINAL] or live:LAG/FINAL)`);
}

export function parseSttProfiles(list: string): SttProfile[] {
  const profiles = list.split(',').filter(Boolean).map(parseSttProfile);
  if (profiles.length === 0) throw new Error('--stt needs at least one profile');
  return profiles;
}
