import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { CartesiaTTS } from '../../src/index.js';
import type { CartesiaServer } from '../../../../test/servers/cartesia-server.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, sleep, speak, tokens, withTimeout, everyStream } from './harness.js';
import { type HoldingProxy, startHoldingProxy } from './holding-proxy.js';

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

  it('continues one context per reply: continue:true on every chunk, continue:false to close, no server buffering; sonic-3.5 with word timestamps by default', async () => {
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
      expect(m.model_id).toBe('sonic-3.5');
      expect(m.add_timestamps).toBe(true);
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

  it('speaks with a dated model snapshot', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make({ model: 'sonic-3.5-2026-05-01' }) as CartesiaTTS;
    const errors: Error[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const stream = engine.stream();
    speak(stream, ['Hello there, friend.']);
    const out = await collect(stream);
    expect(errors).toEqual([]);
    expect(out.endOfStream).toBe(true);
    expect(generations()[0]!.model_id).toBe('sonic-3.5-2026-05-01');
    // Word times came with the audio (on by default) and are on the frames.
    expect(out.frames.flatMap((f) => f.timedTranscripts ?? []).map((t) => t.text.trim())).toEqual(['Hello', 'there,', 'friend.']);
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

  // synthesize() sends its text as stream() does: lone surrogates and control characters never
  // reach /tts/bytes (a provider's UTF-8 decoder may refuse the whole request over one).
  it('synthesize() cleans its text for the wire as stream() does', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make({ speech: false }) as CartesiaTTS;
    for await (const ev of engine.synthesize('Hello \uD800there\u0007 friend\u001B[31m.')) void ev;
    const transcript = server().httpRequests[0]!.body.transcript as string;
    expect(transcript).not.toMatch(/[\uD800-\uDFFF\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/);
    expect(transcript.replace(/\s+/g, ' ')).toBe('Hello there friend.');
  });

  it('synthesize() frames its audio at the configured frameMs, as stream() does', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make({ frameMs: 10, maxFrameMs: 10 }) as CartesiaTTS;
    const lengths: number[] = [];
    for await (const ev of engine.synthesize('Ten millisecond frames, please.')) lengths.push(ev.frame.samplesPerChannel);
    expect(lengths.length).toBeGreaterThan(2);
    // Every frame but the last is 10 ms long.
    expect(new Set(lengths.slice(0, -1))).toEqual(new Set([engine.sampleRate / 100]));
  });

  it('hands audio already in hand over in frames of up to maxFrameMs, whole multiples of frameMs', async () => {
    // The fake's body arrives in blocks of many frames' audio.
    fx = await fixtures.cartesia({ msPerChar: 30 } as Record<string, unknown>);
    const lengthsWith = async (maxFrameMs: number | undefined) => {
      engine = fx!.make({ frameMs: 20, ...(maxFrameMs ? { maxFrameMs } : {}) }) as CartesiaTTS;
      const lengths: number[] = [];
      for await (const ev of engine.synthesize('Longer frames for audio in hand, please.')) lengths.push(ev.frame.samplesPerChannel);
      await engine.close();
      return lengths.slice(0, -1).map((n) => (n * 1000) / engine!.sampleRate);
    };
    const byDefault = await lengthsWith(undefined);
    expect(byDefault.every((ms) => ms % 20 === 0 && ms <= 100)).toBe(true);
    expect(Math.max(...byDefault)).toBeGreaterThan(20);
    const single = await lengthsWith(20);
    expect(new Set(single)).toEqual(new Set([20]));
    // The same audio, in fewer frames.
    expect(byDefault.length).toBeLessThan(single.length / 2);
  });
});

describe('cartesia contexts that open without words, go idle or stall', () => {
  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  let proxy: HoldingProxy | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await proxy?.close();
    proxy = undefined;
    await fx?.close();
    fx = undefined;
  });

  // The first chunk of a segment opens the context. When it has no letters (the chunker forces one
  // out after ~8 "words", e.g. a run of emoji or "!!! ???"), Cartesia would answer
  // `transcript_empty` and end the context; the rest of the reply would be silently lost. Such text
  // waits and rides in front of the first chunk with words (CartesiaCodec.canOpenTrack).
  it('a letterless first chunk does not silence the rest of the segment', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make();
    const errors: unknown[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const stream = engine.stream();
    speak(stream, tokens('😀 😀 😀 😀 😀 😀 😀 😀 😀 😀 😀 😀 Anyway, here is the answer you wanted today.'));
    const out = await collect(stream);
    expect(errors).toEqual([]);
    expect(out.endOfStream).toBe(true);
    expect(heardTags(out.samples).length).toBeGreaterThan(0);
  });

  // Cartesia may report `done` for a context that went idle while the LLM paused (docs/providers.md
  // B.5.5). Text sent while that early `done` is in flight is still voiced on the context, so the
  // `done` must not end the track (the codec reports it as `drained`, not `end`), or the tail of
  // the reply is dropped as stale. The proxy holds server→client bytes to make the one-RTT race
  // deterministic.
  it('text sent while an early done is in flight is still voiced', async () => {
    fx = await fixtures.cartesia({ earlyDoneIdleMs: 30 });
    const srv = fx.server as CartesiaServer;
    proxy = await startHoldingProxy(srv.port);
    engine = new CartesiaTTS({ apiKey: 'test-key', voice: 'voice-1', baseURL: `http://127.0.0.1:${proxy.port}`, sampleRate: 16000 });
    const sent = recordSent(engine);
    const stream = engine.stream();
    stream.pushText('First part, said early. ');
    await withTimeout(stream.next(), 5000, 'first frame');
    await sleep(20); // the first part's audio is all in
    proxy.hold();
    await sleep(100); // the server reports the idle context done; we have not read it yet
    stream.pushText('And the rest arrives later, after the pause.');
    stream.endInput();
    for (let i = 0; i < 300 && !srv.received.some((r) => String(r.message.transcript ?? '').includes('arrives')); i++) await sleep(10);
    proxy.release();
    const out = await collect(stream);
    const texts = sent.get(stream.id) ?? [];
    expect(texts.join(' ')).toContain('arrives later');
    expect(heardTags(out.samples).map((r) => r.tag)).toContain(fx.tagOf(texts[texts.length - 1]!));
  });

  // Cartesia word times count from the start of a context. A segment that continues on a new
  // context after an early `done` starts again at 0 there, so the times must be placed after the
  // audio already played, or aligned transcripts jump back in time.
  it('word times keep increasing when a segment continues on a new context', async () => {
    fx = await fixtures.cartesia({ earlyDoneIdleMs: 30 });
    engine = fx.make({ wordTimestamps: true, speech: false });
    const stream = engine.stream();
    const reading = collect(stream);
    stream.pushText('First part, said early. ');
    await sleep(150); // the LLM pauses; the server ends the idle context early
    stream.pushText('And the rest arrives later, after the pause.');
    stream.endInput();
    const out = await reading;
    const timed = out.frames.flatMap((f) => f.timedTranscripts ?? []);
    expect(timed.map((t) => t.text.trim()).join(' ')).toBe('First part, said early. And the rest arrives later, after the pause.');
    for (let i = 1; i < timed.length; i++) expect(timed[i]!.startTime!).toBeGreaterThanOrEqual(timed[i - 1]!.endTime! - 1e-6);
  });

  // Every stream of a Cartesia TTS shares one socket, so a stalled context must fail (and cancel)
  // only its own stream: failing the socket would cost a healthy concurrent stream its turn (with
  // maxRetry 0) or a re-synthesis.
  it('a stalled context times out alone; a healthy context on the same socket is untouched', async () => {
    fx = await fixtures.cartesia({
      realTimeFactor: 1,
      msPerChar: 15,
      frameBytes: 320,
      fault: (c: { transcript: string }) => (c.transcript.includes('Alpha') ? { kind: 'stall', afterBytes: 320 } : undefined),
    } as Record<string, unknown>);
    engine = fx.make({ pool: { inactivityTimeoutMs: 300 } });
    const retries: string[] = [];
    everyStream(engine).on('retry', (e) => retries.push(e.streamId));
    engine.on('error', () => {});
    const sent = recordSent(engine);
    await engine.prewarm();
    const conn = { maxRetry: 0, retryIntervalMs: 10, timeoutMs: 2000 };
    const a = engine.stream({ connOptions: conn });
    const b = engine.stream({ connOptions: conn });
    speak(a, ['Alpha says hello.']);
    speak(b, tokens('Bravo one, bravo two. Bravo three is a long sentence that keeps this context speaking for a while.'));
    const [outA, outB] = await Promise.all([collect(a), collect(b)]);
    expect(outA.endOfStream).toBe(false); // the stalled one does time out
    expect(retries).not.toContain(b.id);
    expect(outB.endOfStream).toBe(true);
    expect(heardTags(outB.samples).map((r) => r.tag)).toEqual((sent.get(b.id) ?? []).map((t) => fx!.tagOf(t)));
  });
});
