/**
 * Keepalive (src/transport/socket.ts, pool.ts): a pooled socket that goes silent — no data, no pong, TCP
 * still open, as after a NAT timeout or a half-open connection — must never carry the next turn.
 * Pings find it and the pool replaces it; a turn that meets a socket not heard from lately probes
 * it first; a socket that fails by silence makes its siblings prove themselves too. Every test
 * counts events (retries, connections), never time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import type { CartesiaServer } from '../../../../test/servers/cartesia-server.js';
import type { ResembleServer } from '../../../../test/servers/resemble-server.js';
import { type ProviderFixture, collect, fixtures, sleep, speak, tokens, withTimeout, everyStream } from './harness.js';

const REPLY = 'Sure, the order left this morning. It arrives tomorrow before noon.';
const CONN = { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 10_000 };

describe.each(['resemble', 'cartesia'] as const)('%s keepalive', (name) => {
  let fx: ProviderFixture;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
  });

  const setup = async (pool: Record<string, unknown>) => {
    fx = await fixtures[name]();
    engine = fx.make({ pool });
    const retries: string[] = [];
    everyStream(engine).on('retry', (e) => retries.push(e.error));
    return retries;
  };

  /** Connections that carried the turn's text. */
  const connectionsUsed = (): Set<number> =>
    new Set(
      name === 'resemble'
        ? (fx.server as ResembleServer).received.map((r) => r.connectionId)
        : (fx.server as CartesiaServer).received.filter((r) => typeof r.message.transcript === 'string').map((r) => r.connectionId),
    );

  const until = async (condition: () => boolean, what: string) =>
    withTimeout(
      (async () => {
        while (!condition()) await sleep(5);
      })(),
      5000,
      what,
    );

  const turn = async () => {
    const stream = engine!.stream({ connOptions: CONN });
    speak(stream, tokens(REPLY));
    return collect(stream, 8000);
  };

  it('pings find a pooled socket that went silent and replace it before the next turn', async () => {
    // The watchdog is long: a turn sent on the silent socket would show as a retry. The pong
    // timeout leaves a loaded machine room, so a live socket is never taken for a dead one.
    const retries = await setup({ pingIntervalMs: 50, pongTimeoutMs: 400, inactivityTimeoutMs: 1500 });
    await engine!.prewarm();
    const before = fx.server.connectionsOpened;
    expect(fx.server.goSilent()).toBe(1);
    await until(() => fx.server.connectionsOpened > before && engine!.poolStats.open === 1, 'the silent socket to be replaced');
    const out = await turn();
    expect(out.endOfStream).toBe(true);
    expect(retries).toEqual([]);
    expect([...connectionsUsed()].every((id) => id > before)).toBe(true);
  });

  it('a turn probes a socket not heard from lately, and takes a fresh one when no pong comes', async () => {
    // Pings far apart, so only the turn's own probe can find the silence.
    const retries = await setup({ pingIntervalMs: 60_000, pongTimeoutMs: 60_000, aliveWithinMs: 30, probeTimeoutMs: 100, inactivityTimeoutMs: 1500 });
    await engine!.prewarm();
    const before = fx.server.connectionsOpened;
    fx.server.goSilent();
    await sleep(60); // longer than aliveWithinMs: the socket has not proven itself lately
    const out = await turn();
    expect(out.endOfStream).toBe(true);
    expect(retries).toEqual([]);
    expect([...connectionsUsed()].every((id) => id > before)).toBe(true);
    expect(fx.server.connectionsOpened).toBe(before + 1);
  });

  it('a live idle socket answers its pings and is kept: no reconnect, no probe cost', async () => {
    const retries = await setup({ pingIntervalMs: 20, pongTimeoutMs: 1000, aliveWithinMs: 200, probeTimeoutMs: 1000 });
    await engine!.prewarm();
    await sleep(300); // fifteen ping intervals
    expect(fx.server.connectionsOpened).toBe(1);
    const out = await turn();
    expect(out.endOfStream).toBe(true);
    expect(retries).toEqual([]);
    expect([...connectionsUsed()]).toEqual([1]);
  });
});

describe('resemble keepalive with two pooled sockets', () => {
  let fx: ProviderFixture;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
  });

  it('after a socket times out, its silent sibling must prove itself before carrying the retry', async () => {
    fx = await fixtures.resemble({ realTimeFactor: 0.5, msPerChar: 10, frameBytes: 640 });
    // No start buffer: the barge-in must come while the first reply's requests are outstanding.
    engine = fx.make({ startBufferMs: 0, pool: { pingIntervalMs: 60_000, pongTimeoutMs: 60_000, probeTimeoutMs: 100, inactivityTimeoutMs: 1000 } });
    const retries: Array<{ streamId: string; error: string }> = [];
    everyStream(engine).on('retry', (e) => retries.push({ streamId: e.streamId, error: e.error }));
    await engine.prewarm();
    // A barge-in leaves the first socket draining, so the pool opens a second; both end up idle.
    const first = engine.stream({ connOptions: CONN });
    speak(first, tokens('This answer is long. It keeps going for a while. Nobody hears the end of it.'));
    await withTimeout(first.next(), 5000, 'first audio');
    first.close();
    const server = fx.server as ResembleServer;
    const idle = async () => {
      while (engine!.poolStats.open < 2 || server.received.length === 0) await sleep(5);
      await sleep(400); // the stale requests drain
    };
    await withTimeout(idle(), 5000, 'two idle sockets');
    // Both go silent. The socket the turn takes was heard from just now, so only the watchdog can
    // find it; the retry must not then wait out a second watchdog on the sibling.
    expect(server.goSilent()).toBe(2);
    const stream = engine.stream({ connOptions: CONN });
    speak(stream, tokens(REPLY));
    const out = await collect(stream, 8000);
    expect(out.endOfStream).toBe(true);
    expect(retries.filter((r) => r.streamId === stream.id)).toHaveLength(1);
  });
});
