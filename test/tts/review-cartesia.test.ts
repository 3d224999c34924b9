/**
 * Adversarial review of the Cartesia path (segment tracks, early `done`, watchdog per context).
 * Regression tests for defects an adversarial review found (each comment says what went wrong
 * before the fix); plain `it` tests pin subtle behaviour that was already right.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/tts/base.js';
import { CartesiaTTS } from '../../src/tts/index.js';
import type { CartesiaServer } from '../servers/cartesia-server.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, sleep, speak, tokens, withTimeout } from './harness.js';
import { type HoldingProxy, startHoldingProxy } from './review-proxy.js';

describe('review: cartesia', () => {
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

  // WAS A DEFECT (medium): the first chunk of a segment opens the context. When it has no letters (the
  // chunker forces one out after ~8 "words", e.g. a run of emoji or "!!! ???"), Cartesia answers
  // `transcript_empty`; the codec marks that `endsTrackQuietly` and DriverStream ends the whole
  // segment track (stream.ts onTrackEvent 'error' → #endTrack). Every later chunk of the segment
  // is sent on the dead context (refused, `context_closed`) or, if it arrives later, never sent:
  // the reply is silently lost, with END_OF_STREAM and no error.
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

  // WAS A DEFECT (medium): Cartesia may report `done` for a context that went idle while the LLM paused
  // (B.5.5). If we send the next text on that context while the early `done` is in flight, the
  // driver reads `done` afterwards and (a) with the segment still open: continueOnNewKey() with
  // firstOnKey = sent, so the text just sent is never re-sent; (b) with continue:false already sent
  // (this test): #endTrack(). Either way ProviderSocket deleted the key on `done`, so the audio the
  // server still makes for that text is dropped as stale. The tail of the reply is silently lost.
  // The proxy holds server→client bytes to make the one-RTT race deterministic.
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

  // WAS A DEFECT (low): Cartesia word times count from the start of a context. After an early `done` the
  // segment continues on a new context (continueOnNewKey) whose times restart at 0, but
  // #takeTimings still offsets them by the track's segmentOffset only: aligned transcripts jump
  // back in time (here "And" at 0 s after "early." ended at 0.046 s).
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

  // WAS A DEFECT (medium): the watchdog (socket.ts #onWatchdog) fails the whole socket when one context
  // stalls. With Cartesia every stream of the TTS shares that socket, so a healthy concurrent
  // stream is failed too (here with maxRetry 0 it loses its turn; with retries it re-synthesizes).
  // For a multiplexed provider a stalled context should fail (and cancel) only its own owner.
  it('a stalled context times out alone; a healthy context on the same socket is untouched', async () => {
    fx = await fixtures.cartesia({
      realTimeFactor: 1,
      msPerChar: 15,
      frameBytes: 320,
      fault: (c: { transcript: string }) => (c.transcript.includes('Alpha') ? { kind: 'stall', afterBytes: 320 } : undefined),
    } as Record<string, unknown>);
    engine = fx.make({ pool: { inactivityTimeoutMs: 300 } });
    const retries: string[] = [];
    engine.timeline.on('retry', (e) => retries.push(e.streamId));
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
