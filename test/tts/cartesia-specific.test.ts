import { afterEach, describe, expect, it } from 'vitest';
import type { CartesiaTTS } from '../../src/tts/index.js';
import type { CartesiaServer } from '../servers/cartesia-server.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, speak, tokens, withTimeout } from './harness.js';

const REPLY = 'Sure, here is the plan. First we check the order. Then we call the courier and confirm the time.';

describe('cartesia codec on the wire', () => {
  let fx: ProviderFixture;
  let engine: CartesiaTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    await fx?.close();
  });

  const server = () => fx.server as CartesiaServer;
  const generations = () => server().received.map((r) => r.message).filter((m) => !('cancel' in m));

  it('continues one context per reply: continue:true on every chunk, continue:false to close, no server buffering', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make() as CartesiaTTS;
    const stream = engine.stream();
    speak(stream, tokens(REPLY));
    await collect(stream);
    const msgs = generations();
    expect(msgs.length).toBeGreaterThan(2);
    const contexts = new Set(msgs.map((m) => m.context_id));
    expect(contexts.size).toBe(1);
    const last = msgs[msgs.length - 1]!;
    expect(last.continue).toBe(false);
    for (const m of msgs.slice(0, -1)) expect(m.continue).toBe(true);
    for (const m of msgs) {
      expect(m.max_buffer_delay_ms).toBe(0);
      expect(m.model_id).toBe('sonic-3');
      expect(m.output_format).toEqual({ container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 });
    }
    // Transcripts joined as sent must read as the reply: the separating spaces are ours.
    const joined = msgs.map((m) => String(m.transcript)).join('');
    expect(joined.replace(/\s+/g, ' ').trim()).toBe(REPLY);
  });

  it('cancels the context on interruption, keeps the socket, and drops late frames', async () => {
    fx = await fixtures.cartesia({ realTimeFactor: 1, msPerChar: 10, lateChunksAfterCancel: 3, frameBytes: 640 });
    engine = fx.make() as CartesiaTTS;
    await engine.prewarm();
    const sent = recordSent(engine);
    const s1 = engine.stream();
    speak(s1, tokens(REPLY + ' ' + REPLY));
    await withTimeout(s1.next(), 5000, 'first frame');
    s1.close();
    const s2 = engine.stream();
    speak(s2, tokens('Okay, stopping now. What else can I do?'));
    const out = await collect(s2);
    const cancels = server().received.map((r) => r.message).filter((m) => m.cancel === true);
    expect(cancels).toHaveLength(1);
    expect(server().connectionsOpened).toBe(1);
    expect(server().openConnections()).toBe(1);
    const own = new Set((sent.get(s2.id) ?? []).map((t) => fx.tagOf(t)));
    const heard = heardTags(out.samples);
    expect(heard.length).toBeGreaterThan(0);
    for (const run of heard) expect(own.has(run.tag)).toBe(true);
  });

  it('routes interleaved contexts of concurrent streams on one socket', async () => {
    fx = await fixtures.cartesia({ realTimeFactor: 0.2, frameBytes: 320 });
    engine = fx.make() as CartesiaTTS;
    const sent = recordSent(engine);
    const a = engine.stream();
    const b = engine.stream();
    speak(a, tokens('Alpha one, alpha two. Alpha three is the last one here.'));
    speak(b, tokens('Bravo one, bravo two. Bravo three closes this reply.'));
    const [outA, outB] = await Promise.all([collect(a), collect(b)]);
    expect(server().connectionsOpened).toBe(1);
    for (const [stream, out] of [
      [a, outA],
      [b, outB],
    ] as const) {
      const texts = sent.get(stream.id) ?? [];
      expect(heardTags(out.samples).map((r) => r.tag)).toEqual(texts.map((t) => fx.tagOf(t)));
    }
  });

  it('keeps the context when the server reports done for it before input closed', async () => {
    fx = await fixtures.cartesia({ earlyDoneIdleMs: 30 });
    engine = fx.make() as CartesiaTTS;
    await engine.prewarm(); // the pause below must be longer than the server's idle window, not the connect
    const sent = recordSent(engine);
    const stream = engine.stream();
    stream.pushText('First part, said early. ');
    await new Promise((r) => setTimeout(r, 120)); // the LLM pauses; the server ends the idle context
    stream.pushText('And the rest arrives later, after the pause.');
    stream.endInput();
    const out = await collect(stream);
    const texts = sent.get(stream.id) ?? [];
    expect(texts.join(' ')).toContain('the rest arrives later');
    // The server's early done did not end the context: the rest continued on it (prosody kept).
    expect(new Set(generations().map((m) => m.context_id)).size).toBe(1);
    expect(heardTags(out.samples).map((r) => r.tag)).toEqual(texts.map((t) => fx.tagOf(t)));
  });

  it('maps model_not_found to a clear non-retryable error', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make({ model: 'sonic-nope' }) as CartesiaTTS;
    const errors: Error[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const stream = engine.stream();
    speak(stream, ['Hello there, friend.']);
    await collect(stream);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/CARTESIA_MODEL|model/);
    expect((errors[0] as { retryable?: boolean }).retryable).toBe(false);
  });

  it('turns concurrency_limited into a retryable error', async () => {
    fx = await fixtures.cartesia({ concurrencyLimit: 0 });
    engine = fx.make() as CartesiaTTS;
    const errors: Error[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const stream = engine.stream({ connOptions: { maxRetry: 1, retryIntervalMs: 10, timeoutMs: 2000 } });
    speak(stream, ['Hello there, friend.']);
    await collect(stream);
    expect(errors).toHaveLength(1);
    // Retried once, then the framework gives up; the cause is logged as retryable.
    expect(errors[0]!.message).toMatch(/attempts|concurrency/);
  });

  it('synthesize() uses /tts/bytes', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make() as CartesiaTTS;
    let samples = 0;
    for await (const ev of engine.synthesize('One request over HTTP.')) samples += ev.frame.samplesPerChannel;
    expect(server().httpRequests).toHaveLength(1);
    expect(server().httpRequests[0]!.body.transcript).toBe('One request over HTTP.');
    expect(samples).toBeGreaterThan(0);
  });
});
