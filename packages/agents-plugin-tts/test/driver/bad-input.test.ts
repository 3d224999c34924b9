/**
 * Bad input never crashes or hangs the driver: odd replies end cleanly (or are voiced whole), and
 * absurd configuration is refused at construction with a message naming the option.
 */
import { APIError } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { CartesiaTTS, ResembleTTS } from '../../src/index.js';
import { samplesForText } from '../../../../test/servers/audio-tag.js';
import { checkComplete, distinctInOrder, expectedRuns, heardRuns } from '../../../../test/chaos/checks.js';
import { createRng } from '../../../../test/chaos/prng.js';
import { randomReply } from '../../../../test/chaos/replies.js';
import { type ProviderFixture, collect, fixtures, recordSent, speak, tokens } from './harness.js';

/** The codecs' per-request limits (Resemble documents 3,000; Cartesia recommends far less). */
const LIMIT = { resemble: 3000, cartesia: 1000 } as const;
const MS_PER_CHAR = 0.02; // keeps a 100k-character reply to a few seconds of audio
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

describe.each(['resemble', 'cartesia'] as const)('%s: bad replies', (name) => {
  let fx: ProviderFixture;
  let engine: FirstwordTTS | undefined;
  let errors: unknown[];
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
  });

  const setup = async () => {
    fx = await fixtures[name]({ msPerChar: MS_PER_CHAR });
    engine = fx.make({ speech: false });
    errors = [];
    engine.on('error', (e) => errors.push(e.error));
    return recordSent(engine);
  };

  /** Every text the driver sent was voiced whole, once, in order. */
  const expectVoiced = (samples: Int16Array, sent: string[]) => {
    const expected = expectedRuns(sent, (t) => fx.tagOf(t), (t) => samplesForText(fx.wireText(t), 16000, MS_PER_CHAR));
    expect(checkComplete(heardRuns(samples), expected)).toBeUndefined();
  };

  it('ends empty, whitespace-only and markdown-only replies at once, silently, with no error', async () => {
    await setup();
    const replies = [[''], ['   '], ['\n\n', '\t'], ['**', '**'], ['```\n', '```'], ['# '], ['---'], ['***'], ['[]()']];
    for (const deltas of replies) {
      const stream = engine!.stream();
      speak(stream, deltas);
      const out = await collect(stream, 3000);
      expect(out.endOfStream, JSON.stringify(deltas)).toBe(true);
      expect(out.frames, JSON.stringify(deltas)).toHaveLength(0);
    }
    // No text at all: the framework closes the output without END_OF_STREAM — still no hang.
    const silent = engine!.stream();
    silent.endInput();
    expect((await collect(silent, 3000)).frames).toHaveLength(0);
    expect(fx.sentTexts()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('voices a 100k-character reply completely and in order, every request within the provider limit', async () => {
    const sent = await setup();
    const rng = createRng(100_000);
    let reply = '';
    while (reply.length < 100_000) reply += `${randomReply(rng, 8)} `;
    const heapBefore = process.memoryUsage().heapUsed;
    const stream = engine!.stream();
    speak(stream, tokens(reply));
    const out = await collect(stream, 20_000);
    expect(out.endOfStream).toBe(true);
    expect(errors).toEqual([]);
    const texts = distinctInOrder(sent.get(stream.id) ?? []);
    expect(texts.join(' ').replace(/\s+/g, ' ')).toBe(reply.replace(/\s+/g, ' ').trim());
    for (const wire of fx.sentTexts()) expect([...wire].length).toBeLessThanOrEqual(LIMIT[name] + 1);
    expectVoiced(out.samples, texts);
    // Bounded memory: nothing like a copy of the audio per chunk is retained.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('splits 100k characters with no space or punctuation without losing or breaking a character', async () => {
    const sent = await setup();
    // Emoji are two UTF-16 units each; the leading letter puts every hard cut mid-pair.
    const reply = `a${'😀'.repeat(50_000)}`;
    const stream = engine!.stream();
    speak(stream, [reply]);
    const out = await collect(stream, 20_000);
    expect(out.endOfStream).toBe(true);
    expect(errors).toEqual([]);
    // Chunks of identical emoji repeat, so every send counts here (nothing is retried).
    const texts = sent.get(stream.id) ?? [];
    expect(texts.join('')).toBe(reply);
    for (const wire of fx.sentTexts()) {
      expect(LONE_SURROGATE.test(wire)).toBe(false);
      expect(wire.length).toBeLessThanOrEqual(LIMIT[name] + 1);
    }
    expect(heardRuns(out.samples).length).toBeGreaterThan(0);
  });

  it('never puts lone surrogates or control characters on the wire, and still speaks the words', async () => {
    const sent = await setup();
    const reply = 'Hello \uD800there, friend\u0000. A bell\u0007 and an escape\u001b[31m red\u001b[0m word. A low \uDC00 surrogate\u0085 here.';
    const stream = engine!.stream();
    speak(stream, tokens(reply));
    const out = await collect(stream, 5000);
    expect(out.endOfStream).toBe(true);
    expect(errors).toEqual([]);
    const wire = fx.sentTexts();
    expect(wire.length).toBeGreaterThan(0);
    for (const text of wire) {
      expect(LONE_SURROGATE.test(text), JSON.stringify(text)).toBe(false);
      expect(CONTROL.test(text), JSON.stringify(text)).toBe(false);
    }
    const joined = wire.join(' ');
    for (const word of ['Hello', 'there', 'friend', 'bell', 'red', 'word', 'surrogate', 'here']) expect(joined).toContain(word);
    expectVoiced(out.samples, distinctInOrder(sent.get(stream.id) ?? []));
  });

  it('ends emoji-only and symbol-only replies cleanly: voiced, or (Cartesia) refused quietly', async () => {
    const sent = await setup();
    for (const reply of ['😀😀😀', '👍🏽 🎉', '→ ★ ♫']) {
      const stream = engine!.stream();
      speak(stream, [reply]);
      const out = await collect(stream, 5000);
      expect(out.endOfStream, reply).toBe(true);
      // Cartesia answers a first transcript without letters or digits with `transcript_empty`;
      // the codec ends that context quietly instead of failing the turn.
      if (name === 'cartesia') expect(heardRuns(out.samples), reply).toEqual([]);
      else expectVoiced(out.samples, distinctInOrder(sent.get(stream.id) ?? []));
    }
    expect(errors).toEqual([]);
  });
});

describe('absurd configuration', () => {
  const resemble = (o: Record<string, unknown>) => () => new ResembleTTS({ apiKey: 'k', voiceUuid: 'v', ...o });
  const cartesia = (o: Record<string, unknown>) => () => new CartesiaTTS({ apiKey: 'k', voice: 'v', ...o });

  const refused: Array<[string, () => unknown, RegExp]> = [
    ['Resemble sampleRate 12345', resemble({ sampleRate: 12345 }), /sampleRate must be one of/],
    ['Cartesia sampleRate 12345', cartesia({ sampleRate: 12345 }), /sampleRate must be one of/],
    ['Resemble maxInFlight 0', resemble({ maxInFlight: 0 }), /maxInFlight/],
    ['Resemble maxInFlight NaN', resemble({ maxInFlight: NaN }), /maxInFlight/],
    ['Resemble empty voice', resemble({ voiceUuid: '' }), /voiceUuid is required/],
    ['Cartesia empty voice', cartesia({ voice: '' }), /voice id is required/],
    ['Resemble empty key', resemble({ apiKey: '' }), /API key is required/],
    ['Cartesia empty key', cartesia({ apiKey: '' }), /API key is required/],
    ['a base URL that is not a URL', resemble({ baseURL: 'not a url' }), /invalid provider base URL/],
    ['an ftp:// base URL', cartesia({ baseURL: 'ftp://tts.example.com' }), /unsupported provider URL scheme/],
    ['Resemble ws:// to a remote host', resemble({ baseURL: 'ws://tts.example.com' }), /refusing an unencrypted provider URL/],
    ['Cartesia http:// to a remote host', cartesia({ baseURL: 'http://10.1.2.3:8080' }), /refusing an unencrypted provider URL/],
    ['connectTimeoutMs NaN', resemble({ connectTimeoutMs: NaN }), /connectTimeoutMs/],
    ['connectTimeoutMs negative', cartesia({ connectTimeoutMs: -1 }), /connectTimeoutMs/],
    ['connectTimeoutMs 0', resemble({ connectTimeoutMs: 0 }), /connectTimeoutMs/],
    ['frameMs 0 (an endless framing loop)', resemble({ frameMs: 0 }), /frameMs/],
    ['frameMs NaN', cartesia({ frameMs: NaN }), /frameMs/],
    ['frameMs negative', cartesia({ frameMs: -20 }), /frameMs/],
    ['maxFrameMs below frameMs', resemble({ frameMs: 40, maxFrameMs: 20 }), /maxFrameMs/],
    ['maxFrameMs NaN', cartesia({ maxFrameMs: NaN }), /maxFrameMs/],
    ['maxFrameMs past a second', cartesia({ maxFrameMs: 1500 }), /maxFrameMs/],
    ['pool.inactivityTimeoutMs NaN (a watchdog that never fires)', resemble({ pool: { inactivityTimeoutMs: NaN } }), /inactivityTimeoutMs/],
    ['pool.inactivityTimeoutMs negative', cartesia({ pool: { inactivityTimeoutMs: -1 } }), /inactivityTimeoutMs/],
    ['pool.inactivityTimeoutMs Infinity (setTimeout makes it 1 ms)', cartesia({ pool: { inactivityTimeoutMs: Infinity } }), /inactivityTimeoutMs/],
    ['pool.maxSockets 0 (Resemble)', resemble({ pool: { maxSockets: 0 } }), /maxSockets/],
    ['pool.maxSockets 0 (Cartesia)', cartesia({ pool: { maxSockets: 0 } }), /maxSockets/],
    ['pool.maxSockets 1.5', resemble({ pool: { maxSockets: 1.5 } }), /maxSockets/],
    ['pool.backoffBaseMs NaN (reconnects without backoff)', resemble({ pool: { backoffBaseMs: NaN } }), /backoffBaseMs/],
    ['pool.maxIdleMs negative', cartesia({ pool: { maxIdleMs: -5 } }), /maxIdleMs/],
    ['pool.budgetWaitMs NaN (a turn over budget would never give up)', resemble({ pool: { budgetWaitMs: NaN } }), /budgetWaitMs/],
  ];

  it.each(refused)('refuses %s with a message naming the option', (_label, make, message) => {
    expect(make).toThrow(message);
  });

  it('accepts http:// and ws:// to a remote host only when allowInsecure is set', () => {
    expect(() => new ResembleTTS({ apiKey: 'k', voiceUuid: 'v', baseURL: 'ws://tts.example.com', allowInsecure: true })).not.toThrow();
    expect(() => new CartesiaTTS({ apiKey: 'k', voice: 'v', baseURL: 'http://10.1.2.3:8080', allowInsecure: true })).not.toThrow();
  });

  it('treats an option passed as undefined as not passed (config pass-through)', async () => {
    const engine = new ResembleTTS({ apiKey: 'k', voiceUuid: 'v', pool: { inactivityTimeoutMs: undefined, maxSockets: undefined } });
    expect(engine.sampleRate).toBe(22050);
    await engine.close();
  });

  it('fails a turn fast and clearly when Cartesia refuses the API version', async () => {
    const fx = await fixtures.cartesia();
    const engine = fx.make({ apiVersion: 'banana' });
    const errors: unknown[] = [];
    engine.on('error', (e) => errors.push(e.error));
    try {
      const stream = engine.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 2000 } });
      speak(stream, ['Hello there, friend.']);
      const out = await collect(stream, 5000);
      expect(out.endOfStream).toBe(false);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(APIError);
      expect((errors[0] as APIError).retryable).toBe(false);
      expect((errors[0] as APIError).message).toMatch(/version/i);
      expect(fx.server.connectionsOpened).toBe(0);
    } finally {
      await engine.close();
      await fx.close();
    }
  });
});
