/**
 * The bench's Python peer driver end to end (bench/peers/python/driver.py through
 * bench/peers/python-driver.ts): a real LiveKit Python plugin per provider speaks one reply to the
 * local server, and the frames reported are that reply's audio, whole, in order, timed on the
 * driver's clock. Needs .venv-peers (bash scripts/peers/ensure-venv.sh; npm test builds it).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTrace } from '../../bench/llm.js';
import { PythonDriver, VENV_PYTHON } from '../../bench/peers/python-driver.js';
import { samplesForText, tagForText } from '../servers/audio-tag.js';
import { type CartesiaServer, startCartesiaServer } from '../servers/cartesia-server.js';
import { type ResembleServer, startResembleServer } from '../servers/resemble-server.js';
import { requireForSuite } from '../helpers/requires.js';

const available = requireForSuite(
  'test/peers/python-driver',
  existsSync(VENV_PYTHON) ? undefined : `${VENV_PYTHON} not found; build it with bash scripts/peers/ensure-venv.sh (npm test does)`,
);

const REPLY = 'Hello there. The store opens at nine in the morning.';
const MS_PER_CHAR = 10;
const TURN_TIMEOUT_MS = 20_000;
/** Starting a driver loads its framework: seconds of CPU, more on a busy 2-core machine. */
const START_TIMEOUT_MS = 60_000;

/** Tags of the audible frames, one per run of equal tags: what was heard, in order. */
function heardTags(frames: Array<{ tags: number[] }>): number[] {
  const heard: number[] = [];
  for (const frame of frames) for (const tag of frame.tags) if (heard[heard.length - 1] !== tag) heard.push(tag);
  return heard;
}

describe.runIf(available)('bench Python peer driver', () => {
  let cartesia: CartesiaServer;
  let resemble: ResembleServer;
  const drivers: PythonDriver[] = [];

  beforeAll(async () => {
    cartesia = await startCartesiaServer({ msPerChar: MS_PER_CHAR, firstByteDelayMs: 20 });
    resemble = await startResembleServer({ msPerChar: MS_PER_CHAR, firstByteDelayMs: 20 });
  });

  afterAll(async () => {
    await Promise.all(drivers.map((d) => d.stop()));
    await cartesia?.close();
    await resemble?.close();
  });

  const cases = [
    {
      peer: 'livekit-python-cartesia',
      provider: 'cartesia' as const,
      sampleRate: 24_000,
      url: () => cartesia.httpUrl,
      texts: () => cartesia.received.map((r) => r.message.transcript).filter((t): t is string => typeof t === 'string' && t.trim() !== ''),
    },
    {
      peer: 'livekit-python-resemble',
      provider: 'resemble' as const,
      sampleRate: 22_050,
      url: () => resemble.url,
      texts: () => resemble.received.map((r) => String(r.payload.data)),
    },
  ];

  for (const c of cases) {
    it(`${c.peer}: one streamed reply comes back as its own audio, whole and in order, timed after its text`, async () => {
      const { driver, ready } = await PythonDriver.start(c.peer);
      drivers.push(driver);
      expect(ready.versions).toHaveProperty('livekit-agents');
      await driver.open('s1', { provider: c.provider, url: c.url(), apiKey: 'test-key', language: 'en', sampleRate: c.sampleRate });
      const trace = makeTrace(REPLY, 'en', { firstTokenMs: 50, tokensPerSecond: 40, jitter: 0, seed: 1 });

      const frames = await driver.turn('s1', trace, { timeoutMs: TURN_TIMEOUT_MS });

      const texts = c.texts();
      expect(texts.join(' ').replace(/\s+/g, ' ').trim()).toBe(REPLY);
      expect(heardTags(frames)).toEqual(texts.map(tagForText));
      const audible = frames.filter((f) => f.tags.length > 0);
      const heardMs = audible.reduce((n, f) => n + f.ms, 0);
      const sentMs = texts.reduce((n, t) => n + (samplesForText(t, c.sampleRate, MS_PER_CHAR) * 1000) / c.sampleRate, 0);
      expect(heardMs).toBeCloseTo(sentMs, 3);
      // On the driver's clock, audio follows the text it voices: the first text was complete
      // only when the token holding its last character had been pushed.
      const firstTextEnd = trace.tokens.findIndex((_, i) => trace.tokens.slice(0, i + 1).join('').trim().length >= texts[0]!.trim().length);
      expect(audible[0]!.at).toBeGreaterThan(trace.at[firstTextEnd]!);
      expect(frames.map((f) => f.at)).toEqual([...frames.map((f) => f.at)].sort((a, b) => a - b));

      await driver.close('s1');
    }, START_TIMEOUT_MS);
  }

  it('answers a turn on an unknown session with an error naming it, and keeps serving', async () => {
    const driver = drivers[0]!;
    const trace = makeTrace('Hi.', 'en', { firstTokenMs: 0, tokensPerSecond: 40, jitter: 0, seed: 1 });
    await expect(driver.turn('nobody', trace, { timeoutMs: TURN_TIMEOUT_MS })).rejects.toThrow(/no open session 'nobody'/);
    await driver.open('s2', { provider: 'cartesia', url: cartesia.httpUrl, apiKey: 'test-key', language: 'en', sampleRate: 24_000 });
    expect((await driver.turn('s2', trace, { timeoutMs: TURN_TIMEOUT_MS })).some((f) => f.tags.length > 0)).toBe(true);
    await driver.close('s2');
  });
});
