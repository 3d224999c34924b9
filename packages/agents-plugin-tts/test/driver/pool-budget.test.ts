/**
 * The socket pool as a connection budget (src/transport/pool.ts): an idle process holds one socket, a
 * spare opens only when an in-order socket is left draining after a barge-in, the freshness sweep
 * stays within the cap, and a turn over budget waits for a socket rather than failing — until
 * `budgetWaitMs`, then a retryable APIConnectionError.
 */
import { APIConnectionError } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { type ConnectionBudget, onceLease } from '../../src/budget/connection-budget.js';
import { budgetKey, leaseServiceBudget } from '../../src/budget/lease-client.js';
import { type LeaseService, startLeaseService } from '../../src/budget/lease-service.js';
import { SocketPool } from '../../src/transport/pool.js';
import { ResembleCodec } from '../../src/providers/resemble/codec.js';
import type { CartesiaServer } from '../../../../test/servers/cartesia-server.js';
import type { ResembleServer } from '../../../../test/servers/resemble-server.js';
import { type ProviderFixture, collect, fixtures, speak, tokens, withTimeout } from './harness.js';

const LONG = 'Sure, I can help with that. The store opens at nine in the morning on weekdays. On weekends it opens later.';

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  await withTimeout(
    (async () => {
      while (!condition()) await new Promise((r) => setTimeout(r, 5));
    })(),
    timeoutMs,
    what,
  );
}

function resembleCodec(fx: ProviderFixture): ResembleCodec {
  return new ResembleCodec({
    apiKey: 'test-key',
    voiceUuid: 'voice-1',
    sampleRate: 16000,
    url: `${(fx.server as ResembleServer).url}/stream`,
    binaryResponse: false,
    connectTimeoutMs: 5000,
    maxInFlight: 4,
  });
}

/** A budget that only counts: the most leases (so sockets) ever held at once. */
function countingBudget(): ConnectionBudget & { held: number; peak: number } {
  const counter = {
    held: 0,
    peak: 0,
    lease() {
      counter.held++;
      counter.peak = Math.max(counter.peak, counter.held);
      return onceLease(() => counter.held--);
    },
    tryTake: async () => counter.lease(),
    take: async () => counter.lease(),
  };
  return counter;
}

describe('socket pool under a connection budget', () => {
  let fx: ProviderFixture | undefined;
  let engines: FirstwordTTS[] = [];
  let service: LeaseService | undefined;
  afterEach(async () => {
    await Promise.all(engines.map((e) => e.close()));
    engines = [];
    await fx?.close();
    fx = undefined;
    await service?.close();
    service = undefined;
  });
  const make = (opts: Record<string, unknown> = {}) => {
    const engine = fx!.make(opts);
    engines.push(engine);
    return engine;
  };

  // An idle process prewarms, and with ACK_MODE on also speaks its acknowledgements, before any
  // call: that turn used to open the always-on spare, two sockets per idle process.
  it('a turn without a barge-in opens no spare; warmSpare (the old behaviour) opens one', async () => {
    fx = await fixtures.resemble();
    const lean = make();
    await lean.prewarm();
    expect(lean.poolStats).toMatchObject({ open: 1, opened: 1 });
    const turn = lean.stream();
    speak(turn, tokens('Hello there, how can I help you today?'));
    expect((await collect(turn)).endOfStream).toBe(true);
    expect(lean.poolStats).toMatchObject({ open: 1, opened: 1 });

    const legacy = make({ pool: { warmSpare: true } });
    await legacy.prewarm();
    const legacyTurn = legacy.stream();
    speak(legacyTurn, tokens('Hello there, how can I help you today?'));
    expect((await collect(legacyTurn)).endOfStream).toBe(true);
    await until(() => legacy.poolStats.open === 2, 'the always-on spare');
  });

  it('resemble: a barge-in opens the spare while the caller speaks, and the next turn uses it', async () => {
    fx = await fixtures.resemble({ realTimeFactor: 0.5, frameBytes: 333 });
    const server = fx.server as ResembleServer;
    // The barge-in comes at the first frame; a start buffer would hold that frame until this
    // short reply's audio had all arrived, leaving nothing stale to drain.
    const engine = make({ startBufferMs: 0 });
    await engine.prewarm();
    const s1 = engine.stream();
    speak(s1, tokens(LONG));
    await withTimeout(s1.next(), 5000, 'first frame');
    expect(server.connectionsOpened).toBe(1);
    s1.close(); // its later requests drain, stale, on the only socket (in order: no cancel)
    await until(() => server.connectionsOpened === 2, 'the spare');
    const s2 = engine.stream();
    speak(s2, tokens('Okay. What else can I do for you today?'));
    expect((await collect(s2)).endOfStream).toBe(true);
    const turn2 = server.received.filter((r) => String(r.payload.data).startsWith('Okay'));
    expect(turn2.map((r) => r.connectionId)).toEqual([2]);
  });

  it('cartesia: a barge-in opens nothing (contexts multiplex; the stale one is cancelled)', async () => {
    fx = await fixtures.cartesia({ realTimeFactor: 0.5, frameBytes: 333 });
    const server = fx.server as CartesiaServer;
    const engine = make();
    await engine.prewarm();
    const s1 = engine.stream();
    speak(s1, tokens(LONG));
    await withTimeout(s1.next(), 5000, 'first frame');
    s1.close();
    const s2 = engine.stream();
    speak(s2, tokens('Okay. What else can I do for you today?'));
    expect((await collect(s2)).endOfStream).toBe(true);
    expect(server.connectionsOpened).toBe(1);
  });

  for (const name of ['resemble', 'cartesia'] as const) {
    it(`${name}: the freshness sweep replaces sockets without ever holding more than maxSockets`, async () => {
      fx = await fixtures[name]();
      const budget = countingBudget();
      const engine = make({ pool: { maxSockets: 1, maxIdleMs: 200 }, connectionBudget: budget });
      await engine.prewarm();
      await until(() => fx!.server.connectionsOpened >= 4, 'three refreshes');
      expect(budget.peak).toBe(1); // each lease outlives its socket, so sockets never exceeded one
      const turn = engine.stream();
      speak(turn, tokens('Still here after the refreshes?'));
      expect((await collect(turn)).endOfStream).toBe(true);
      expect(budget.peak).toBe(1);
    });
  }

  it('over budget, a turn waits for a socket another process gives back, and the server never refuses', async () => {
    fx = await fixtures.resemble({ maxConnectionsPerKey: 1 });
    const server = fx.server as ResembleServer;
    service = await startLeaseService({ limit: 1 });
    const budget = leaseServiceBudget(service.path, budgetKey('resemble', 'test-key'));
    const busy = make({ connectionBudget: budget });
    const waiting = make({ connectionBudget: budget });
    await busy.prewarm();
    await waiting.prewarm(); // budget spent: an idle process simply stays cold
    expect(waiting.poolStats.opened).toBe(0);
    const turn = waiting.stream();
    speak(turn, tokens('I waited for a line to the voice.'));
    const heard = collect(turn);
    await until(() => service!.queued(budgetKey('resemble', 'test-key')) === 1, 'the turn to queue');
    await busy.close(); // the other call ended: its socket and lease go back
    expect((await heard).endOfStream).toBe(true);
    expect(server.connectionsRefused).toBe(0);
  });

  it('a turn that waits past budgetWaitMs fails with a retryable APIConnectionError', async () => {
    fx = await fixtures.resemble();
    const spent: ConnectionBudget = { tryTake: async () => undefined, take: async () => undefined };
    const pool = new SocketPool(resembleCodec(fx), { budgetWaitMs: 50 }, spent);
    const err = await pool.acquire().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect((err as APIConnectionError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/within 50 ms/);
    expect(fx.server.connectionsOpened).toBe(0);
    await pool.close();
  });

  it('close() does not wait out a turn queued for the budget', async () => {
    fx = await fixtures.resemble();
    // A line that never moves: only an abort ends the wait.
    const stuck: ConnectionBudget = {
      tryTake: async () => undefined,
      take: (_ms, signal) =>
        new Promise((resolve) => {
          if (signal?.aborted) resolve(undefined);
          signal?.addEventListener('abort', () => resolve(undefined));
        }),
    };
    const pool = new SocketPool(resembleCodec(fx), { budgetWaitMs: 600_000 }, stuck);
    let queued!: () => void;
    const inLine = new Promise<void>((r) => (queued = r));
    const take = stuck.take;
    stuck.take = (ms, signal) => (queued(), take(ms, signal));
    const turn = pool.acquire().then(() => undefined, (e: unknown) => e);
    await withTimeout(inLine, 5000, 'the turn to queue');
    await withTimeout(pool.close(), 5000, 'close');
    const err = await turn;
    expect(err).toBeInstanceOf(APIConnectionError);
    expect((err as APIConnectionError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/closed/);
  });
});
