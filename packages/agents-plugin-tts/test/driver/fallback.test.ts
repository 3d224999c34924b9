/**
 * `tts.FallbackAdapter` over ResembleTTS → CartesiaTTS against the two protocol servers. Both
 * servers tag audio by the exact text they received and Cartesia's codec appends a separator
 * space, so the tags alone tell which provider voiced every sample.
 */
import { APIError, type APIConnectOptions, tts } from '@livekit/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { CartesiaTTS, ResembleTTS } from '../../src/index.js';
import { samplesForText, tagForText } from '../../../../test/servers/audio-tag.js';
import { type CartesiaServer, startCartesiaServer } from '../../../../test/servers/cartesia-server.js';
import { type ResembleServer, type ResembleServerOptions, startResembleServer } from '../../../../test/servers/resemble-server.js';
import { captureUnhandledRejections } from '../../../../test/chaos/capture.js';
import { collect, heardTags, speak, tokens, withTimeout, everyStream } from './harness.js';

const CONN: APIConnectOptions = { maxRetry: 0, retryIntervalMs: 10, timeoutMs: 3000 };
const POOL = { inactivityTimeoutMs: 300, backoffBaseMs: 5, backoffMaxMs: 50 };
const MS_PER_CHAR = 1;
const TURN_1 = 'Hello, I can help with your order. It shipped yesterday.';
const TURN_2 = 'One moment, let me look that up. The courier arrives at noon.';
const TURN_3 = 'Thanks for waiting. Is there anything else I can do?';

/** Every text a TTS sent, in order, across all its streams. */
function sentLog(engine: FirstwordTTS): string[] {
  const log: string[] = [];
  everyStream(engine).on('sent', (e) => log.push(e.text));
  return log;
}

type Voice = 'resemble' | 'cartesia';
const tagOf = (voice: Voice, text: string) => tagForText(voice === 'cartesia' ? `${text} ` : text);

describe('FallbackAdapter: Resemble first, Cartesia second', () => {
  let resembleServer: ResembleServer | undefined;
  let cartesiaServer: CartesiaServer | undefined;
  let adapter: tts.FallbackAdapter | undefined;
  // Each failed recovery probe (a synthesize() while Resemble is down) leaves an unhandled
  // rejection behind: see captureUnhandledRejections.
  let rejections: ReturnType<typeof captureUnhandledRejections>;
  beforeEach(() => {
    rejections = captureUnhandledRejections();
  });
  afterEach(async () => {
    await adapter?.close();
    adapter = undefined;
    await resembleServer?.close();
    await cartesiaServer?.close();
    await new Promise((r) => setImmediate(r));
    rejections.restore();
    for (const reason of rejections.reasons) {
      expect(reason).toBeInstanceOf(APIError);
      // Recovery probes of the downed provider: the real cause (refused connection), never a leak.
      expect((reason as Error).message).toMatch(/^Resemble: connect ECONNREFUSED|^resemble: synthesis failed/);
    }
  });

  const setup = async (rates: { resemble: number; cartesia: number }, resembleOpts: Partial<ResembleServerOptions> = {}) => {
    resembleServer = await startResembleServer({ msPerChar: MS_PER_CHAR, ...resembleOpts });
    cartesiaServer = await startCartesiaServer({ msPerChar: MS_PER_CHAR });
    const resemble = new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'v', baseURL: resembleServer.url, sampleRate: rates.resemble, pool: POOL });
    const cartesia = new CartesiaTTS({ apiKey: 'test-key', voice: 'v', baseURL: cartesiaServer.httpUrl, sampleRate: rates.cartesia, pool: POOL });
    adapter = new tts.FallbackAdapter({ ttsInstances: [resemble, cartesia], maxRetryPerTTS: 1, recoveryDelayMs: 50 });
    const errors: unknown[] = [];
    adapter.on('error', (e) => errors.push(e.error));
    const availability: Array<{ label: string; available: boolean }> = [];
    (adapter as unknown as NodeJS.EventEmitter).on('tts_availability_changed', (e: tts.AvailabilityChangedEvent) =>
      availability.push({ label: e.tts.label, available: e.available }),
    );
    return { resemble, cartesia, errors, availability, sent: { resemble: sentLog(resemble), cartesia: sentLog(cartesia) } };
  };

  /** One turn through the adapter: which provider's texts were heard, whole, once, in order. */
  const turn = async (reply: string, sent: Record<Voice, string[]>) => {
    const before = { resemble: sent.resemble.length, cartesia: sent.cartesia.length };
    const stream = adapter!.stream({ connOptions: CONN });
    speak(stream, tokens(reply));
    const out = await collect(stream, 8000);
    const heard = heardTags(out.samples).map((r) => r.tag);
    const voicedBy = (voice: Voice) => [...new Set(sent[voice].slice(before[voice]))];
    return { out, heard, voicedBy };
  };

  it('continues on Cartesia while Resemble is down, and returns to Resemble once it is back', async () => {
    const { sent, errors, availability } = await setup({ resemble: 16000, cartesia: 16000 });
    expect(adapter!.sampleRate).toBe(16000);

    const t1 = await turn(TURN_1, sent);
    expect(t1.out.endOfStream).toBe(true);
    expect(t1.heard).toEqual(t1.voicedBy('resemble').map((t) => tagOf('resemble', t)));
    expect(t1.voicedBy('cartesia')).toEqual([]);

    // Resemble goes away mid-conversation: its socket drops and new connections are refused.
    const port = resembleServer!.port;
    await resembleServer!.close();
    resembleServer = undefined;
    const t2 = await turn(TURN_2, sent);
    expect(t2.out.endOfStream).toBe(true);
    const cartesiaTexts = t2.voicedBy('cartesia');
    expect(cartesiaTexts.join(' ')).toBe(TURN_2);
    expect(t2.heard).toEqual(cartesiaTexts.map((t) => tagOf('cartesia', t)));
    expect(adapter!.status[0]!.available).toBe(false);
    expect(availability).toContainEqual({ label: 'firstword.resemble.TTS', available: false });
    // The failed attempt surfaced as an APIError from Resemble, not as a failed turn.
    expect(errors.length).toBeGreaterThanOrEqual(1);

    // Resemble comes back on the same address: the adapter's recovery probe notices.
    resembleServer = await startResembleServer({ msPerChar: MS_PER_CHAR, port });
    await withTimeout(
      (async () => {
        while (!adapter!.status[0]!.available) await new Promise((r) => setTimeout(r, 20));
      })(),
      5000,
      'Resemble never marked available again',
    );
    expect(availability[availability.length - 1]).toEqual({ label: 'firstword.resemble.TTS', available: true });

    const t3 = await turn(TURN_3, sent);
    expect(t3.out.endOfStream).toBe(true);
    expect(t3.voicedBy('cartesia')).toEqual([]);
    expect(t3.heard).toEqual(t3.voicedBy('resemble').map((t) => tagOf('resemble', t)));
    expect(t3.voicedBy('resemble').join(' ')).toBe(TURN_3);
  });

  it('hands a whole turn to Cartesia when Resemble accepts it but never sends a first byte', async () => {
    // Resemble stalls every request before any audio: the watchdog fails each attempt, and since
    // no audio reached the listener the adapter replays the buffered text on Cartesia.
    const { sent } = await setup({ resemble: 16000, cartesia: 16000 }, { fault: () => ({ kind: 'stall', afterBytes: 0 }) });
    const t = await turn(TURN_2, sent);
    expect(t.out.endOfStream).toBe(true);
    expect(t.voicedBy('resemble').length).toBeGreaterThan(0);
    const cartesiaTexts = t.voicedBy('cartesia');
    expect(cartesiaTexts.join(' ')).toBe(TURN_2);
    expect(t.heard).toEqual(cartesiaTexts.map((x) => tagOf('cartesia', x)));
  });

  it('resamples to the highest rate when the providers differ (Resemble 22050, Cartesia 24000)', async () => {
    const { sent } = await setup({ resemble: 22050, cartesia: 24000 });
    expect(adapter!.sampleRate).toBe(24000);
    const t = await turn(TURN_1, sent);
    expect(t.out.endOfStream).toBe(true);
    expect(t.out.frames.length).toBeGreaterThan(0);
    for (const f of t.out.frames) expect(f.frame.sampleRate).toBe(24000);
    // Same duration after resampling (within the resampler's edge effects).
    const texts = t.voicedBy('resemble');
    const expectedAt22k = texts.reduce((n, x) => n + samplesForText(x, 22050, MS_PER_CHAR), 0);
    const expectedAt24k = (expectedAt22k * 24000) / 22050;
    expect(Math.abs(t.out.samples.length - expectedAt24k) / expectedAt24k).toBeLessThan(0.02);
  });
});
