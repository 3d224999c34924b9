/**
 * The socket pool (src/transport/pool.ts): reconnects that back off and stop on a rejected key, leases
 * released whatever happens to a stream, the socket cap held, prewarmed sockets kept fresh.
 */
import { APIError } from '@livekit/agents';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { CartesiaCodec } from '../../src/providers/cartesia/codec.js';
import { SocketPool } from '../../src/transport/pool.js';
import type { CartesiaServer } from '../../../../test/servers/cartesia-server.js';
import type { ResembleServer } from '../../../../test/servers/resemble-server.js';
import { type ProviderFixture, collect, fixtures, sleep, speak, tokens, withTimeout } from './harness.js';

describe('socket pool', () => {
  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await engine?.close();
    engine = undefined;
    await fx?.close();
    fx = undefined;
  });

  // Resemble refuses a bad key as an accepted upgrade + `ConnectionFailure` 401 frame + close
  // (docs/providers.md A.2; the server's default). The pool must not reconnect after that: every
  // idle job process prewarms, so a wrong RESEMBLE_API_KEY would otherwise make each of them hammer
  // Resemble with connections until the process exits.
  it('a rejected key after prewarm() does not start a reconnect storm', async () => {
    fx = await fixtures.resemble();
    engine = fx.make({ apiKey: 'wrong-key' });
    const err = await engine.prewarm().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).retryable).toBe(false);
    const afterPrewarm = fx.server.connectionsOpened;
    await sleep(300);
    expect(fx.server.connectionsOpened - afterPrewarm).toBeLessThanOrEqual(2);
  });

  // A stream closed while it waits for another stream's connect gets its socket after the abort
  // fired. It must hand the socket straight back: a lease never released keeps the socket from being
  // evicted when idle and (Resemble) from ever being clean again.
  it('a stream closed while waiting for a socket releases its lease', async () => {
    fx = await fixtures.cartesia();
    engine = fx.make(); // Cartesia multiplexes: the second stream waits on the first's connect
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const realConnect = CartesiaCodec.prototype.connect;
    vi.spyOn(CartesiaCodec.prototype, 'connect').mockImplementation(async function (this: CartesiaCodec, signal?: AbortSignal) {
      await gate;
      return realConnect.call(this, signal);
    });
    let entered = 0;
    let leased = 0;
    let released = 0;
    const realAcquire = SocketPool.prototype.acquire;
    vi.spyOn(SocketPool.prototype, 'acquire').mockImplementation(async function (this: SocketPool, signal?: AbortSignal) {
      entered++;
      const socket = await realAcquire.call(this, signal);
      leased++;
      return socket;
    });
    const realRelease = SocketPool.prototype.release;
    vi.spyOn(SocketPool.prototype, 'release').mockImplementation(function (this: SocketPool, socket) {
      released++;
      realRelease.call(this, socket);
    });
    const a = engine.stream();
    const b = engine.stream();
    speak(a, tokens('Alpha one, alpha two. Alpha three ends it.'));
    speak(b, tokens('Bravo one, bravo two. Bravo three ends it.'));
    // Both runs are inside acquire(): A waits on its (gated) connect, B on A's.
    for (let i = 0; i < 200 && entered < 2; i++) await sleep(5);
    expect(entered).toBe(2);
    b.close(); // barge-in before B ever got its socket
    openGate();
    expect((await collect(a)).endOfStream).toBe(true);
    await sleep(50);
    expect(leased).toBe(2);
    expect(released).toBe(leased);
  });

  // After a barge-in, a socket that only drains stale requests is replaced rather than waited on.
  // Closing it must not also start the pool's background reconnect, or two sockets open where the
  // cap allows one (Resemble allows 20 per key across every idle process).
  it('resemble: replacing a draining socket after a barge-in keeps within maxSockets', async () => {
    fx = await fixtures.resemble({ realTimeFactor: 0.5, frameBytes: 333 });
    engine = fx.make({ pool: { maxSockets: 1, warmSpare: false } });
    await engine.prewarm();
    const s1 = engine.stream();
    speak(s1, tokens('Sure, I can help with that. The store opens at nine in the morning on weekdays. On weekends it opens later.'));
    await withTimeout(s1.next(), 5000, 'first frame');
    s1.close(); // barge-in: its later requests are now stale and drain on the only socket
    const s2 = engine.stream();
    speak(s2, tokens('Okay. What else can I do for you today?'));
    expect((await collect(s2)).endOfStream).toBe(true);
    await sleep(50);
    expect(engine.poolStats.open).toBeLessThanOrEqual(1);
    expect((fx.server as ResembleServer).openConnections()).toBeLessThanOrEqual(1);
  });

  for (const name of ['resemble', 'cartesia'] as const) {
    // An idle job process may wait longer than maxIdleMs (240 s by default) for its call. Its
    // prewarmed socket must be refreshed in the background meanwhile: refreshing only when the first
    // reply starts would pay a full handshake on that turn, which prewarming exists to avoid.
    it(`${name}: a prewarmed socket is kept fresh, so the first turn after a long wait opens no socket`, async () => {
      fx = await fixtures[name]();
      // The refresh runs every maxIdleMs/4 and replaces a socket idle for 3/4 of maxIdleMs, so a
      // timer up to maxIdleMs/4 late (a loaded CI machine) still refreshes it in time.
      engine = fx.make({ pool: { warmSpare: false, maxIdleMs: 1000 } });
      await engine.prewarm();
      await sleep(1500); // the process waited for its call longer than maxIdleMs
      expect(fx.server.connectionsOpened).toBeGreaterThan(1); // it was refreshed meanwhile
      const before = fx.server.connectionsOpened;
      const stream = engine.stream();
      speak(stream, tokens('Hello there, how can I help you today?'));
      expect((await collect(stream)).endOfStream).toBe(true);
      // The turn's first request went out on a socket that was already open when it started (a
      // refresh may still be replacing an idle socket in the background; that costs the turn nothing).
      const first = name === 'resemble'
        ? (fx.server as ResembleServer).received.find((r) => r.receivedAt > 0)!.connectionId
        : (fx.server as CartesiaServer).received[0]!.connectionId;
      expect(first).toBeLessThanOrEqual(before);
    });

    // Overlapping prewarm() calls (or a prewarm during a first acquire) share the socket being
    // connected instead of each opening one beyond maxSockets.
    it(`${name}: overlapping prewarm() calls open no more than maxSockets`, async () => {
      fx = await fixtures[name]();
      engine = fx.make({ pool: { warmSpare: false, maxSockets: 1 } });
      await Promise.all([engine.prewarm(), engine.prewarm()]);
      await sleep(50);
      expect(fx.server.connectionsOpened).toBe(1);
    });
  }
});
