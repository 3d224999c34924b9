/**
 * Adversarial review of stream/TTS lifecycle: closing, synthesize() (ChunkedStream), error events.
 * Regression tests for defects an adversarial review found (each comment says what went wrong
 * before the fix); plain `it` tests pin subtle behaviour that was already right.
 */
import type { tts } from '@livekit/agents';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/tts/base.js';
import { samplesForText } from '../servers/audio-tag.js';
import { type ProviderFixture, collect, concatSamples, fixtures, speak, tokens, withTimeout } from './harness.js';

const LONG = 'Sure, here is the plan for today. First we check the order status. Then we call the courier and confirm the time.';

async function drain(stream: AsyncIterable<tts.SynthesizedAudio>): Promise<tts.SynthesizedAudio[]> {
  const frames: tts.SynthesizedAudio[] = [];
  await withTimeout(
    (async () => {
      for await (const ev of stream) frames.push(ev);
    })(),
    8000,
    'synthesize() did not finish',
  );
  return frames;
}

describe('review: lifecycle', () => {
  // A failing ChunkedStream (synthesize) rejects a promise nobody awaits inside @livekit/agents
  // (ChunkedStream's constructor: `.then(() => this.mainTask()...)` with no catch). Upstream, not
  // ours; job processes install a handler. Swallow it here so the tests can observe the rest.
  const swallow = () => {};
  beforeAll(() => {
    process.on('unhandledRejection', swallow);
  });
  afterAll(() => {
    process.off('unhandledRejection', swallow);
  });

  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
    fx = undefined;
  });

  for (const name of ['resemble', 'cartesia'] as const) {
    // WAS A DEFECT (medium): TTS.close() → SocketPool.close() → ProviderSocket.close(), which tears the
    // socket down without telling the owners of its tracks (only #fail calls onSocketFailure). A
    // stream still speaking then awaits `done` forever: no END_OF_STREAM, no error, run() never
    // returns; a synthesize() in flight hangs the same way.
    it(`${name}: closing the TTS ends a stream that is still speaking`, async () => {
      fx = await fixtures[name]({ realTimeFactor: 1, msPerChar: 20, frameBytes: 640 });
      engine = fx.make();
      engine.on('error', () => {});
      const stream = engine.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 10, timeoutMs: 2000 } });
      speak(stream, tokens(LONG));
      await withTimeout(stream.next(), 5000, 'first frame');
      await engine.close();
      try {
        const out = await collect(stream, 2000);
        expect(out.endOfStream).toBe(false);
      } finally {
        stream.close();
      }
    });
  }

  // WAS A DEFECT (medium): WholeTextStream (base.ts) runs an inner DriverStream whose base class already
  // emits the failure on the TTS; the outer ChunkedStream then throws its own generic
  // "synthesis failed" and the base emits again. Every failed synthesize() is two unrecoverable
  // `error` events (AgentSession counts each toward maxUnrecoverableErrors; FallbackAdapter
  // re-emits both), and the promise rejects with the generic one instead of the real cause.
  it('resemble: a failed synthesize() reports one error event, the real one', async () => {
    fx = await fixtures.resemble();
    engine = fx.make({ apiKey: 'wrong-key' });
    const errors: Error[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const frames = await drain(engine.synthesize('Hello there, friend.'));
    await new Promise((r) => setTimeout(r, 50));
    expect(frames).toHaveLength(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('RESEMBLE_API_KEY');
  });

  // WAS A DEFECT (medium): CartesiaBytesStream (cartesia.ts) throws a retryable APIConnectionError when
  // the /tts/bytes body breaks after frames were already queued; the ChunkedStream base retries
  // the whole request and the audio already delivered is delivered again (here 640 samples twice).
  it('cartesia: synthesize() retried after a cut body does not repeat audio', async () => {
    let faulted = false;
    const text = 'One request over HTTP that breaks once in the middle.';
    fx = await fixtures.cartesia({
      frameBytes: 320,
      realTimeFactor: 0.5,
      fault: (c: { contextId: string }) =>
        c.contextId === '' && !faulted ? ((faulted = true), { kind: 'terminate', afterBytes: 1600 }) : undefined,
    } as Record<string, unknown>);
    engine = fx.make();
    engine.on('error', () => {});
    const frames = await drain(engine.synthesize(text, { maxRetry: 2, retryIntervalMs: 10, timeoutMs: 3000 }));
    expect(faulted).toBe(true);
    expect(concatSamples(frames).length).toBe(samplesForText(text, 16000, 2));
  });

  // WAS A DEFECT (low-medium): CartesiaBytesStream passes AbortSignal.timeout(connOptions.timeoutMs) to
  // fetch(), which also bounds reading the body: any synthesis whose audio takes longer than
  // timeoutMs (10 s by default) to stream is cut and fails (or, with retries, repeats — above).
  // timeoutMs should bound the connect / first byte (or inactivity), not the whole reply.
  it('cartesia: synthesize() of a reply that streams longer than timeoutMs is not cut', async () => {
    const text = 'A long answer that takes a while to stream back over HTTP at real time.';
    fx = await fixtures.cartesia({ realTimeFactor: 1, msPerChar: 10 });
    engine = fx.make();
    const errors: Error[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const frames = await drain(engine.synthesize(text, { maxRetry: 0, retryIntervalMs: 10, timeoutMs: 300 }));
    expect(errors).toEqual([]);
    expect(concatSamples(frames).length).toBe(samplesForText(text, 16000, 10));
  });
});
