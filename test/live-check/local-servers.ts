/**
 * The local Resemble and Cartesia servers set up for live-check's tests: every behaviour a check
 * reports on is pinned by a knob here, so a test can assert that the report states it.
 */
import { type CartesiaServer, startCartesiaServer } from '../servers/cartesia-server.js';
import { type ResembleServer, startResembleServer } from '../servers/resemble-server.js';
import { type CheckSettings, LIVE_SETTINGS } from '../../scripts/live-check/check.js';

export const RESEMBLE_KEY = 'rsk-live-check-3f9a1c77e2';
export const CARTESIA_KEY = 'csk-live-check-8b2d4e01f6';
export const VOICE = 'voice-live-check';

/** Resemble's answer for one model, quoting the key (a provider echoing it must not leak it). */
export const TURBO_REFUSAL = `chatterbox-turbo is not available for this voice (${RESEMBLE_KEY})`;

export const RESEMBLE_KNOBS = {
  apiKeys: [RESEMBLE_KEY],
  voices: [VOICE],
  timestamps: true,
  msPerChar: 2,
  frameBytes: 882,
  // 4 frames per 50 ms: 80 ms of audio per burst at 22.05 kHz, 37 ms at 48 kHz (so holes there).
  burst: { framesPerBurst: 4, gapMs: 50 },
  defaultSampleRate: 44100,
  idleCloseMs: 1000,
  maxConnectionsPerKey: 3,
  fault: (req: { payload: Record<string, unknown> }) =>
    req.payload.model === 'chatterbox-turbo'
      ? { kind: 'error-frame' as const, errorName: 'DBCacheError', statusCode: 400, message: TURBO_REFUSAL }
      : undefined,
};

export const CARTESIA_KNOBS = {
  apiKeys: [CARTESIA_KEY],
  voices: [VOICE],
  models: ['sonic-3', 'sonic-3.5'],
  msPerChar: 2,
  // Paced, 20 ms chunks, so a cancel lands while a long context is still generating.
  realTimeFactor: 1,
  frameBytes: 960,
  lateChunksAfterCancel: 2,
  doneAfterCancel: true,
  earlyDoneIdleMs: 30,
};

/** Waits sized for loopback servers. */
export const FAST_SETTINGS: CheckSettings = {
  ...LIVE_SETTINGS,
  answerMs: 3000,
  graceMs: 150,
  quietMs: 100,
  expiryDelaysMs: [60, 300],
  idleWaitMs: 3000,
  concurrencyRetryMs: 100,
  connectionLimit: 3,
};

export async function startServers(): Promise<{ resemble: ResembleServer; cartesia: CartesiaServer; env: Record<string, string> }> {
  const resemble = await startResembleServer(RESEMBLE_KNOBS);
  const cartesia = await startCartesiaServer(CARTESIA_KNOBS);
  const env = {
    RESEMBLE_API_KEY: RESEMBLE_KEY,
    RESEMBLE_VOICE_UUID: VOICE,
    RESEMBLE_BASE_URL: resemble.url,
    CARTESIA_API_KEY: CARTESIA_KEY,
    CARTESIA_VOICE: VOICE,
    CARTESIA_BASE_URL: cartesia.httpUrl,
  };
  return { resemble, cartesia, env };
}
