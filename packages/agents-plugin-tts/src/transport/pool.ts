import { APIConnectionError, APIError, APITimeoutError, log } from '@livekit/agents';
import { setTimeout as delay } from 'node:timers/promises';
import type { ProviderCodec } from '../protocol/codec.js';
import type { ConnectionBudget, ConnectionLease } from '../budget/connection-budget.js';
import { type SocketPoolOptions, DEFAULT_POOL_OPTIONS, checkPoolOptions } from './pool-options.js';
import { ProviderSocket } from './socket.js';

export interface PoolStats {
  open: number;
  opened: number;
  staleEventsDropped: number;
}

/**
 * Persistent provider sockets for one TTS instance. Opened by `prewarm()` or the first turn,
 * reused across turns and interruptions, replaced when stale, and reconnected with capped
 * exponential backoff. A socket still draining stale requests (in-order providers) is not handed
 * to a new turn while a clean one exists or can be opened. With a `ConnectionBudget`, every socket
 * holds a lease from it: sockets that are only nice to have (prewarm, spare, refresh) open only
 * if a lease is free; a turn with no socket at all waits in line for one.
 */
export class SocketPool {
  #codec: ProviderCodec;
  #opts: SocketPoolOptions;
  #budget: ConnectionBudget | undefined;
  #sockets = new Set<ProviderSocket>();
  #connecting = new Set<Promise<ProviderSocket>>();
  #leases = new Map<ProviderSocket, ConnectionLease>();
  #opened = 0;
  #droppedFromClosed = 0;
  #failures = 0;
  #nextAttemptAt = 0;
  #closed = false;
  #warm = false;
  #prewarming: Promise<void> | undefined;
  #freshness: NodeJS.Timeout | undefined;
  #budgetReportedAt = -Infinity;
  #closing = new AbortController();
  #logger = log();

  constructor(codec: ProviderCodec, opts: Partial<SocketPoolOptions> = {}, budget?: ConnectionBudget) {
    this.#codec = codec;
    this.#budget = budget;
    // An option passed as undefined (config pass-through) means the default, not "unset".
    const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
    this.#opts = { ...DEFAULT_POOL_OPTIONS, ...given };
    checkPoolOptions(this.#opts);
  }

  get stats(): PoolStats {
    let dropped = this.#droppedFromClosed;
    for (const s of this.#sockets) dropped += s.staleEventsDropped;
    return { open: this.#sockets.size, opened: this.#opened, staleEventsDropped: dropped };
  }

  /** Opens the first socket (and, with `warmSpare`, the spare) ahead of the first turn, and keeps it fresh. */
  prewarm(): Promise<void> {
    this.#warm = true;
    this.#startFreshnessTimer();
    // Overlapping calls share one connect instead of each opening a socket.
    this.#prewarming ??= (async () => {
      try {
        if (this.#total() === 0) await this.#open(undefined, 'if-free').catch(ignoreBudgetSpent);
        else if (this.#connecting.size > 0) await Promise.race([...this.#connecting]);
        this.#topUpSpare();
      } finally {
        this.#prewarming = undefined;
      }
    })();
    return this.#prewarming;
  }

  /**
   * Leases a socket for one stream; `release()` it when the stream ends. Only a socket heard from
   * lately carries a turn: a quiet one is pinged first, and replaced if it does not answer.
   */
  async acquire(signal?: AbortSignal): Promise<ProviderSocket> {
    if (this.#closed) throw new APIConnectionError({ message: 'TTS is closed', options: { retryable: false } });
    let socket = await this.#choose(signal);
    socket.leases++; // held while probing, so no other turn takes it meanwhile
    if (!socket.heardWithin(this.#opts.aliveWithinMs) && !(await socket.probe(this.#opts.probeTimeoutMs))) {
      socket.leases--;
      socket = await this.#replace(socket, signal, (s) => s.failSilent(`socket answered no ping within ${this.#opts.probeTimeoutMs} ms`));
      socket.leases++;
    }
    socket.lastUsedAt = Date.now();
    this.#topUpSpare();
    return socket;
  }

  /** The socket a new stream should use, opening one if that is what it takes. */
  async #choose(signal?: AbortSignal): Promise<ProviderSocket> {
    this.#evictStale();
    let socket = this.#pickClean();
    if (!socket && this.#codec.ordering === 'multiplexed' && this.#connecting.size > 0) {
      // Any open multiplexed socket takes a new stream: wait for the one on its way, not open another.
      await Promise.race([...this.#connecting]).catch(() => undefined);
      socket = this.#pickClean();
    }
    if (!socket && this.#total() < this.#opts.maxSockets) socket = await this.#openForTurn(signal);
    if (!socket && this.#connecting.size > 0) {
      await Promise.race([...this.#connecting]).catch(() => undefined);
      socket = this.#pickClean();
    }
    if (!socket) {
      // Every socket is busy. One that only carries stale requests of interrupted turns would make
      // this turn wait behind audio nobody will hear (in-order providers have no cancel): a fresh
      // handshake is cheaper, so replace it (its lease passes to the replacement).
      const draining = this.#pickDraining();
      if (draining) socket = await this.#replace(draining, signal);
    }
    // Otherwise share the least loaded rather than fail the turn.
    return socket ?? this.#pickLeastLoaded() ?? (await this.#open(signal, 'wait'));
  }

  release(socket: ProviderSocket): void {
    socket.leases = Math.max(0, socket.leases - 1);
    socket.lastUsedAt = Date.now();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    if (this.#freshness) clearInterval(this.#freshness);
    await Promise.allSettled([...this.#connecting]);
    for (const s of [...this.#sockets]) s.close();
  }

  #total(): number {
    return this.#sockets.size + this.#connecting.size;
  }

  /**
   * Another socket for a turn. When the budget is spent but this pool holds a socket, the turn
   * shares it (waiting behind its requests) instead of queueing for the budget.
   */
  async #openForTurn(signal?: AbortSignal): Promise<ProviderSocket | undefined> {
    const holdsOne = [...this.#sockets].some((s) => s.isOpen);
    if (!this.#budget || !holdsOne) return this.#open(signal, 'wait');
    try {
      return await this.#open(signal, 'if-free');
    } catch (err) {
      if (!(err instanceof BudgetSpent)) throw err;
      this.#reportBudget('the turn shares a socket this process already holds');
      return undefined;
    }
  }

  /**
   * Opens a socket on `old`'s lease and retires `old` (closed by default). Used for a socket that
   * only drains stale requests, and for one that did not answer a turn's probe (failed as dead:
   * its owners, if any, retry, and its siblings must prove themselves).
   */
  #replace(old: ProviderSocket, signal?: AbortSignal, retire = (s: ProviderSocket) => s.close()): Promise<ProviderSocket> {
    const lease = this.#leases.get(old);
    this.#leases.delete(old);
    // Started before the close, so the close does not also start a background reconnect.
    const replacement = this.#open(signal, lease ?? 'wait');
    retire(old);
    return replacement;
  }

  #pickClean(): ProviderSocket | undefined {
    let best: ProviderSocket | undefined;
    for (const s of this.#sockets) {
      if (!s.takesNewStream) continue;
      // Prefer the most recently used socket so the spare stays a spare.
      if (!best || s.lastUsedAt > best.lastUsedAt) best = s;
    }
    return best;
  }

  #hasCleanIdle(except?: ProviderSocket): boolean {
    return [...this.#sockets].some((s) => s !== except && s.takesNewStream && s.leases === 0);
  }

  #pickDraining(): ProviderSocket | undefined {
    for (const s of this.#sockets) {
      if (s.isOpen && s.leases === 0 && s.outstanding > 0 && s.staleOutstanding === s.outstanding) return s;
    }
    return undefined;
  }

  #pickLeastLoaded(): ProviderSocket | undefined {
    let best: ProviderSocket | undefined;
    for (const s of this.#sockets) {
      if (!s.isOpen) continue;
      if (!best || s.outstanding + s.leases < best.outstanding + best.leases) best = s;
    }
    return best;
  }

  #evictStale(): void {
    const now = Date.now();
    for (const s of [...this.#sockets]) {
      if (s.leases > 0 || s.outstanding > 0) continue;
      if (!s.isOpen || now - s.lastUsedAt > this.#opts.maxIdleMs || now - s.openedAt > this.#opts.maxAgeMs) {
        s.close();
      }
    }
  }

  /** `warmSpare` only: keep one clean idle socket beside the one in use. */
  #topUpSpare(): void {
    if (!this.#warm || !this.#opts.warmSpare) return;
    if (this.#hasCleanIdle() && this.#total() >= 1) return;
    this.#openSpare();
  }

  /**
   * An in-order socket kept an interrupted turn's requests: the next turn would wait behind them,
   * so open a clean socket now, while the caller is still speaking, if the cap and budget allow.
   */
  #onBlocked(socket: ProviderSocket): void {
    if (this.#hasCleanIdle(socket) || this.#connecting.size > 0) return;
    this.#openSpare();
  }

  #openSpare(): void {
    if (this.#closed || this.#total() >= this.#opts.maxSockets) return;
    void this.#open(undefined, 'if-free').catch(() => undefined);
  }

  /**
   * Connects one socket. `lease`: the budget lease it holds — one already held (a replacement),
   * `'if-free'` (take one only if free now; else reject with BudgetSpent), or `'wait'` (queue for
   * one, up to budgetWaitMs).
   */
  async #open(signal: AbortSignal | undefined, lease: ConnectionLease | 'if-free' | 'wait'): Promise<ProviderSocket> {
    const attempt = (async () => {
      // Counted as connecting from the start (backoff and budget wait included), so the cap holds meanwhile.
      const wait = this.#nextAttemptAt - Date.now();
      // A backoff wait never keeps the process alive; an abort ends it as a non-retryable error.
      if (wait > 0) {
        await delay(wait, undefined, { signal, ref: false }).catch(() => {
          throw new APIConnectionError({ message: 'aborted', options: { retryable: false } });
        });
      }
      const held = typeof lease === 'object' ? lease : await this.#takeLease(lease, signal);
      try {
        const ws = await this.#codec.connect(signal);
        if (this.#closed) {
          ws.terminate();
          throw new APIConnectionError({ message: 'TTS is closed', options: { retryable: false } });
        }
        const socket = new ProviderSocket(
          ws,
          this.#codec,
          {
            inactivityTimeoutMs: this.#opts.inactivityTimeoutMs,
            pingIntervalMs: this.#opts.pingIntervalMs,
            pongTimeoutMs: this.#opts.pongTimeoutMs,
          },
          {
            onIdle: () => {
              // The socket served requests: the provider is healthy, so later reconnects start fresh.
              this.#failures = 0;
              this.#nextAttemptAt = 0;
              this.#topUpSpare();
            },
            onBlocked: (s) => this.#onBlocked(s),
            onClosed: (s) => this.#forget(s),
          },
        );
        this.#opened++;
        if (!socket.isOpen) {
          // Refused right after the handshake (e.g. an auth error frame): report why.
          throw socket.failure ?? new APIConnectionError({ message: `${this.#codec.provider} closed the socket on connect` });
        }
        if (held) this.#leases.set(socket, held);
        this.#sockets.add(socket);
        return socket;
      } catch (err) {
        held?.release();
        if (err instanceof APIError && !err.retryable) {
          this.#failures++;
          throw err; // a rejected key is not a reason to hammer the provider
        }
        this.#backOff({ jitter: true });
        throw err instanceof APIError ? err : new APIConnectionError({ message: String(err) });
      }
    })();
    this.#connecting.add(attempt);
    try {
      return await attempt;
    } finally {
      this.#connecting.delete(attempt);
    }
  }

  /** A lease from the budget (undefined: no budget). Over budget a turn waits; anything else gives up. */
  async #takeLease(mode: 'if-free' | 'wait', signal?: AbortSignal): Promise<ConnectionLease | undefined> {
    if (!this.#budget) return undefined;
    const now = await this.#budget.tryTake();
    if (now) return now;
    if (mode === 'if-free') throw new BudgetSpent();
    this.#reportBudget(`the turn waits up to ${this.#opts.budgetWaitMs} ms for one`);
    // close() must not wait out a turn's place in line.
    const stop = signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal;
    const later = await this.#budget.take(this.#opts.budgetWaitMs, stop);
    if (later && this.#closed) later.release();
    else if (later) return later;
    if (stop.aborted) throw new APIConnectionError({ message: this.#closed ? 'TTS is closed' : 'aborted', options: { retryable: false } });
    throw new APIConnectionError({
      message: `no ${this.#codec.provider} connection came free within ${this.#opts.budgetWaitMs} ms: every socket the connection budget allows for this key is in use`,
      options: { retryable: true },
    });
  }

  /** One line per interval, never the key: the budget is spent and what the turn does about it. */
  #reportBudget(consequence: string): void {
    const now = Date.now();
    if (now - this.#budgetReportedAt < BUDGET_REPORT_INTERVAL_MS) return;
    this.#budgetReportedAt = now;
    this.#logger.warn({ provider: this.#codec.provider }, `TTS connection budget for this API key is in use; ${consequence}`);
  }

  /**
   * While warm, replaces idle sockets before the provider's idle timeout or our age limit would
   * make the next turn pay a handshake, never holding more than the cap and the budget allow.
   */
  #startFreshnessTimer(): void {
    if (this.#freshness || this.#closed) return;
    const period = Math.max(25, Math.min(this.#opts.maxIdleMs, this.#opts.maxAgeMs) / 4);
    this.#freshness = setInterval(() => this.#refreshIdle(), period);
    this.#freshness.unref?.();
  }

  #refreshIdle(): void {
    const now = Date.now();
    const margin = Math.min(this.#opts.maxIdleMs, this.#opts.maxAgeMs) / 4;
    for (const s of [...this.#sockets]) {
      if (s.leases > 0 || s.outstanding > 0 || !s.isOpen) continue;
      const idleSoon = now - s.lastUsedAt > this.#opts.maxIdleMs - margin;
      const oldSoon = now - s.openedAt > this.#opts.maxAgeMs - margin;
      if (!idleSoon && !oldSoon) continue;
      if (!this.#opts.warmSpare && this.#hasCleanIdle(s)) {
        s.close(); // a spare no barge-in needs any more: give its place in the budget back
        continue;
      }
      s.lastUsedAt = now; // not picked again by this sweep while its replacement connects
      void this.#refresh(s);
    }
  }

  /**
   * Within the cap and with a free lease, the replacement opens first and the old socket closes
   * once it is up (no turn pays a handshake); otherwise the old one closes first and hands its
   * lease to the replacement.
   */
  async #refresh(old: ProviderSocket): Promise<void> {
    if (this.#total() < this.#opts.maxSockets) {
      try {
        await this.#open(undefined, 'if-free');
        if (old.leases === 0 && old.outstanding === 0) old.close();
        return;
      } catch (err) {
        if (!(err instanceof BudgetSpent)) return;
      }
    }
    if (old.leases > 0 || old.outstanding > 0 || !old.isOpen) return; // a turn took it meanwhile
    const lease = this.#leases.get(old);
    this.#leases.delete(old);
    const replacement = this.#open(undefined, lease ?? 'if-free');
    old.close();
    await replacement.catch(() => undefined);
  }

  /** One more failure: the next connect waits base × 2^(failures-1), capped (jittered for connect errors). */
  #backOff(opts: { jitter: boolean }): void {
    this.#failures++;
    const backoff = Math.min(this.#opts.backoffMaxMs, this.#opts.backoffBaseMs * 2 ** (this.#failures - 1));
    this.#nextAttemptAt = Date.now() + backoff * (opts.jitter ? 0.5 + Math.random() / 2 : 1);
  }

  #forget(socket: ProviderSocket): void {
    this.#droppedFromClosed += socket.staleEventsDropped;
    this.#sockets.delete(socket);
    // It died of silence (watchdog or ping): the path to the provider may be dead for its siblings
    // too, and a retry must not wait out another watchdog on one of them.
    if (socket.failure instanceof APITimeoutError) for (const s of this.#sockets) s.suspect();
    this.#leases.get(socket)?.release();
    this.#leases.delete(socket);
    if (socket.failure && !socket.failure.retryable) return; // e.g. a rejected key: reconnecting cannot help
    // Closed right after opening: count it as a failed connect so reconnects back off.
    if (socket.failure && Date.now() - socket.openedAt < SHORT_LIVED_MS) this.#backOff({ jitter: false });
    if (this.#warm && !this.#closed && this.#total() === 0) {
      // Keep the next turn handshake-free: reconnect in the background (backoff applies).
      void this.#open(undefined, 'if-free').then(() => this.#topUpSpare(), (err) => {
        this.#logger.debug({ provider: this.#codec.provider, err: String(err) }, 'background reconnect failed');
      });
    }
  }
}

/** A socket that was only nice to have found the budget spent: not an error anyone sees. */
class BudgetSpent extends Error {}

function ignoreBudgetSpent(err: unknown): void {
  if (!(err instanceof BudgetSpent)) throw err;
}

/** The budget warning is one line per this interval, however many turns meet a spent budget. */
const BUDGET_REPORT_INTERVAL_MS = 30_000;

/** A socket closed sooner than this after opening counts as a failed connect (backoff applies). */
const SHORT_LIVED_MS = 1_000;
