/**
 * How a stream ends: every segment's last frame is `final`, however its input's end and its
 * audio's end interleave; and a socket the provider closed while the stream only waited for the
 * LLM is replaced without spending a retry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { type ProviderFixture, collect, fixtures, sleep } from './harness.js';

describe('how a stream ends', () => {
  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
    fx = undefined;
  });

  /** The LLM's last sentence is released eagerly (". "), its audio plays out, and only then does the input end. */
  async function lateEndOfInput(): Promise<Awaited<ReturnType<typeof collect>>> {
    const stream = engine!.stream();
    const reading = collect(stream);
    for (const t of ['Sure, I can ', 'help with that. ', 'The store opens at nine. ']) stream.pushText(t);
    await sleep(300);
    stream.endInput();
    return reading;
  }

  // A segment's last frame carries `final: true` even when its audio had fully played before its
  // input ended (an eagerly released last sentence, then the LLM's end a little later): per-segment
  // metrics and transcription sync depend on it.
  it('resemble: a segment whose input ends after all its audio played still ends with a final frame', async () => {
    fx = await fixtures.resemble();
    engine = fx.make();
    const out = await lateEndOfInput();
    expect(out.endOfStream).toBe(true);
    expect(out.frames.filter((f) => f.final)).toHaveLength(1);
    expect(out.frames[out.frames.length - 1]!.final).toBe(true);
  });

  // Cartesia keeps the segment's context open until the input ends, so its final frame comes after
  // `done`.
  it('cartesia: a segment whose input ends after all its audio played still ends with a final frame', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make();
    const out = await lateEndOfInput();
    expect(out.endOfStream).toBe(true);
    expect(out.frames.filter((f) => f.final)).toHaveLength(1);
    expect(out.frames[out.frames.length - 1]!.final).toBe(true);
  });

  // The provider may close the socket (idle close) while the stream only waits for the LLM, with
  // nothing of ours outstanding on it. The next send then takes another socket without failing the
  // attempt: a retry would cost 100 ms + a handshake, and with maxRetry 0 the turn.
  it('resemble: a socket closed while the stream waited for the LLM is replaced without failing the attempt', async () => {
    fx = await fixtures.resemble({ idleCloseMs: 100 });
    engine = fx.make();
    const errors: unknown[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const stream = engine.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 10, timeoutMs: 2000 } });
    const reading = collect(stream);
    stream.pushText('Sure, I can help with that. ');
    await sleep(400); // the first sentence is heard; the idle socket is closed by the provider
    stream.pushText('The store opens at nine.');
    stream.endInput();
    const out = await reading;
    expect(errors).toEqual([]);
    expect(out.endOfStream).toBe(true);
  });
});
