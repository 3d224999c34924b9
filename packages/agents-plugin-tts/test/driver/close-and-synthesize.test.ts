/**
 * Ending: closing the TTS while a stream speaks, and synthesize() (a ChunkedStream over the same
 * driver, or Cartesia's /tts/bytes): one error event with the real cause, no repeated audio after
 * a retry, and no cut for replies that stream longer than the timeout.
 */
import type { tts } from '@livekit/agents';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { samplesForText } from '../../../../test/servers/audio-tag.js';
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

describe('closing the TTS and synthesize()', () => {
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
    // Closing the TTS closes its sockets; a stream still speaking on one must end (with an error),
    // not wait forever for audio that cannot come. A synthesize() in flight likewise.
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

  // A failed synthesize() is one unrecoverable `error` event with the real cause: AgentSession counts
  // each toward maxUnrecoverableErrors and FallbackAdapter re-emits them, so a second, generic one
  // would cost a session twice for one failure.
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

  // When the /tts/bytes body breaks after frames were delivered, the retry synthesizes the text
  // again: what was already delivered must be skipped, not delivered twice.
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

  // The timeout bounds silence (the connect, the first byte, a stall in the body), not how long a
  // reply may take to stream: a long synthesis must not be cut at timeoutMs.
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
