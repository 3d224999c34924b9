import { describe, expect, it } from 'vitest';
import type { CartesiaTTS } from '../../src/index.js';
import type { CartesiaServer } from '../../../../test/servers/cartesia-server.js';
import { collect, everyStream, fixtureEachTest, fixtures } from './harness.js';

// synthesize() on Cartesia goes to /tts/bytes, but its audio takes the path stream()'s does:
// the same sink (frames, start buffer, a `final` last frame), the same timeline and retries.
describe('cartesia synthesize() over /tts/bytes, through the driver`s audio sink', () => {
  const each = fixtureEachTest<CartesiaTTS>();

  const server = () => each.fx!.server as CartesiaServer;
  const TEXT = 'A whole sentence over one request.';
  const conn = { maxRetry: 2, retryIntervalMs: 10, timeoutMs: 2000 };

  /** A fault for the first request only. */
  const once = (fault: Record<string, unknown>) => {
    let calls = 0;
    return () => (calls++ === 0 ? fault : undefined);
  };

  async function cleanRun(): Promise<number> {
    const clean = await fixtures.cartesia({ frameBytes: 320 });
    const tts = clean.make() as CartesiaTTS;
    try {
      return (await collect(tts.synthesize(TEXT, conn))).samples.length;
    } finally {
      await tts.close();
      await clean.close();
    }
  }

  it('retries a retryable refusal (HTTP 500) as a stream is retried, and reports it on the timeline', async () => {
    const expected = await cleanRun();
    each.fx = await fixtures.cartesia({ frameBytes: 320, fault: once({ kind: 'error-event', statusCode: 500 }) } as Record<string, unknown>);
    each.engine = each.fx.make() as CartesiaTTS;
    const retries: { retryable: boolean }[] = [];
    everyStream(each.engine).on('retry', (e) => retries.push(e));
    const out = await collect(each.engine.synthesize(TEXT, conn));
    expect(server().httpRequests).toHaveLength(2);
    expect(retries.map((r) => r.retryable)).toEqual([true]);
    expect(out.samples.length).toBe(expected);
  });

  it('resumes a body cut off mid-stream without repeating the audio already delivered; the last frame is final', async () => {
    const expected = await cleanRun();
    each.fx = await fixtures.cartesia({ frameBytes: 320, fault: once({ kind: 'terminate', afterBytes: 3200 }) } as Record<string, unknown>);
    each.engine = each.fx.make() as CartesiaTTS;
    const retries: string[] = [];
    everyStream(each.engine).on('retry', (e) => retries.push(e.error));
    const out = await collect(each.engine.synthesize(TEXT, conn));
    expect(server().httpRequests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(out.samples.length).toBe(expected);
    expect(out.frames.map((f) => f.final)).toEqual([...out.frames.slice(1).map(() => false), true]);
  });

  it('marks the last frame final, as a stream`s segment ends', async () => {
    each.fx = await fixtures.cartesia();
    each.engine = each.fx.make({ frameMs: 10, maxFrameMs: 10 }) as CartesiaTTS;
    const out = await collect(each.engine.synthesize(TEXT, conn));
    expect(out.frames.length).toBeGreaterThan(2);
    expect(out.frames.filter((f) => f.final)).toEqual([out.frames[out.frames.length - 1]]);
  });

  it('holds its first frames for startBufferMs, as a stream does', async () => {
    each.fx = await fixtures.cartesia({ realTimeFactor: 1, frameBytes: 320, msPerChar: 30 } as Record<string, unknown>);
    /** How long the first 200 ms of audio took to arrive, frame to frame. */
    const firstSpread = async (startBufferMs: number) => {
      each.engine = each.fx!.make({ startBufferMs, frameMs: 10, maxFrameMs: 10 }) as CartesiaTTS;
      const arrivals: number[] = [];
      for await (const ev of each.engine.synthesize(TEXT, conn)) if (ev.frame) arrivals.push(performance.now());
      await each.engine.close();
      expect(arrivals.length).toBeGreaterThan(40);
      return arrivals[19]! - arrivals[0]!;
    };
    // Streamed at real time, 20 frames of 10 ms take about 190 ms to arrive one by one; held until
    // 200 ms are in hand, they go out together.
    expect(await firstSpread(0)).toBeGreaterThan(120);
    expect(await firstSpread(200)).toBeLessThan(60);
  });

  it('sends no request for text with nothing to speak, and ends without audio or error', async () => {
    each.fx = await fixtures.cartesia();
    each.engine = each.fx.make({ speech: false }) as CartesiaTTS;
    const errors: unknown[] = [];
    each.engine.on('error', (e) => errors.push(e.error));
    const out = await collect(each.engine.synthesize('\u0007\uD800 \u001B[31m', conn));
    expect(server().httpRequests).toHaveLength(0);
    expect(out.frames).toHaveLength(0);
    expect(errors).toEqual([]);
  });

  it('reports its send, first byte and first frame on the timeline under one stream id', async () => {
    each.fx = await fixtures.cartesia();
    each.engine = each.fx.make() as CartesiaTTS;
    const seen: [string, string][] = [];
    for (const name of ['sent', 'first_byte', 'first_frame'] as const) everyStream(each.engine).on(name, (e: { streamId: string }) => seen.push([name, e.streamId]));
    await collect(each.engine.synthesize(TEXT, conn));
    expect(seen.map(([n]) => n)).toEqual(['sent', 'first_byte', 'first_frame']);
    expect(new Set(seen.map(([, id]) => id)).size).toBe(1);
  });
});
