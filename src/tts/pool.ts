import { APIConnectionError, APIError, log } from '@livekit/agents';
import type { ProviderCodec } from './codec.js';
import { ProviderSocket } from './socket.js';

export interface SocketPoolOptions {
  /** Sockets per TTS instance: one in use plus one warm spare by default. */
  maxSockets: number;
  /** Keep a spare socket open so a turn after a barge-in never waits behind stale requests. */
  warmSpare: boolean;
  /** Sockets idle longer than this are replaced before use (providers close idle sockets). */
  maxIdleMs: number;
  /** Sockets older than this are replaced before use, so one call cannot pin a socket forever. */
  maxAgeMs: number;
  inactivityTimeoutMs: number;
  /** Reconnect backoff after a failed connect. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_POOL_OPTIONS: SocketPoolOptions = {
  maxSockets: 2,
  warmSpare: true,
  maxIdleMs: 240_000, // Cartesia closes idle sockets at 5 min; refresh before that
  maxAgeMs: 900_000,
  inactivityTimeoutMs: 5_000,
  backoffBaseMs: 100,
  backoffMaxMs: 5_000,
};

/** setTimeout turns longer (and non-finite) delays into 1 ms, silently. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Throws unless `value` is a delay setTimeout honours, in `min`..2^31-1 ms. */
export function checkTimerMs(name: string, value: number, min = 1): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > MAX_TIMER_MS) {
    throw new Error(`${name} must be between ${min} and ${MAX_TIMER_MS} ms (got ${String(value)})`);
  }
}

/**
 * Absurd values fail here rather than in production: a NaN watchdog re-arms every millisecond and
 * never fires, a NaN backoff reconnects in a tight loop, a fractional socket count never fits.
 */
function checkPoolOptions(o: SocketPoolOptions): void {
  if (!Number.isInteger(o.maxSockets) || o.maxSockets < 1) {
    throw new Error(`pool.maxSockets must be a positive integer (got ${String(o.maxSockets)})`);
  }
  checkTimerMs('pool.inactivityTimeoutMs', o.inactivityTimeoutMs);
  checkTimerMs('pool.backoffBaseMs', o.backoffBaseMs, 0);
  checkTimerMs('pool.backoffMaxMs', o.backoffMaxMs, 0);
  for (const [name, value] of [['maxIdleMs', o.maxIdleMs], ['maxAgeMs', o.maxAgeMs]] as const) {
    // Compared, never armed as timers: Infinity means "never".
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new Error(`pool.${name} must be a non-negative number of ms (got ${String(value)})`);
    }
  }
}

export interface PoolStats {
  open: number;
  opened: number;
  staleEventsDropped: number;
}

/**
 * Persistent provider sockets for one TTS instance. Opened by `prewarm()` or the first turn,
 * reused across turns and interruptions, replaced when stale, and reconnected with capped
 * exponential backoff. A socket still draining stale requests (in-order providers) is not handed
 * to a new turn while a clean one exists or can be opened.
 */
export class SocketPool {
  #codec: ProviderCodec;
  #opts: SocketPoolOptions;
  #sockets = new Set<ProviderSocket>();
  #connecting = new Set<Promise<ProviderSocket>>();
  #opened = 0;
  #droppedFromClosed = 0;
  #failures = 0;
  #nextAttemptAt = 0;
  #closed = false;
  #warm = false;
  #prewarming: Promise<void> | undefined;
  #freshness: NodeJS.Timeout | undefined;
  #logger = log();

  constructor(codec: ProviderCodec, opts: Partial<SocketPoolOptions> = {}) {
    this.#codec = codec;
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

  /** Opens the first socket (and the spare) ahead of the first turn, and keeps them fresh. */
  prewarm(): Promise<void> {
    this.#warm = true;
    this.#startFreshnessTimer();
    // Overlapping calls share one connect instead of each opening a socket.
    this.#prewarming ??= (async () => {
      try {
        if (this.#sockets.size + this.#connecting.size === 0) await this.#open();
        else if (this.#connecting.size > 0) await Promise.race([...this.#connecting]);
        this.#topUpSpare();
      } finally {
        this.#prewarming = undefined;
      }
    })();
    return this.#prewarming;
  }

  /** Leases a socket for one stream; `release()` it when the stream ends. */
  async acquire(signal?: AbortSignal): Promise<ProviderSocket> {
    if (this.#closed) throw new APIConnectionError({ message: 'TTS is closed', options: { retryable: false } });
    this.#evictStale();
    let socket = this.#pickClean();
    if (!socket && this.#sockets.size + this.#connecting.size < this.#opts.maxSockets) {
      socket = await this.#open(signal);
    }
    if (!socket && this.#connecting.size > 0) {
      await Promise.race([...this.#connecting]).catch(() => undefined);
      socket = this.#pickClean();
    }
    if (!socket) {
      // Every socket is busy. One that only carries stale requests of interrupted turns would make
      // this turn wait behind audio nobody will hear (in-order providers have no cancel): a fresh
      // handshake is cheaper, so replace it.
      const draining = this.#pickDraining();
      if (draining) {
        draining.close();
        socket = await this.#openWithinCap(signal);
      }
    }
    // Otherwise share the least loaded rather than fail the turn.
    socket ??= this.#pickLeastLoaded() ?? (await this.#open(signal));
    socket.leases++;
    socket.lastUsedAt = Date.now();
    this.#topUpSpare();
    return socket;
  }

  /** Opens a socket unless the cap is reached, in which case it waits for one being opened. */
  async #openWithinCap(signal?: AbortSignal): Promise<ProviderSocket | undefined> {
    if (this.#sockets.size + this.#connecting.size < this.#opts.maxSockets) return this.#open(signal);
    if (this.#connecting.size > 0) await Promise.race([...this.#connecting]).catch(() => undefined);
    return this.#pickClean();
  }

  release(socket: ProviderSocket): void {
    socket.leases = Math.max(0, socket.leases - 1);
    socket.lastUsedAt = Date.now();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#freshness) clearInterval(this.#freshness);
    await Promise.allSettled([...this.#connecting]);
    for (const s of [...this.#sockets]) s.close();
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

  #topUpSpare(): void {
    if (!this.#warm || !this.#opts.warmSpare || this.#closed) return;
    const total = this.#sockets.size + this.#connecting.size;
    if (total >= this.#opts.maxSockets) return;
    const cleanIdle = [...this.#sockets].some((s) => s.takesNewStream && s.leases === 0);
    if (cleanIdle && total >= 1) return;
    void this.#open().catch(() => undefined);
  }

  async #open(signal?: AbortSignal): Promise<ProviderSocket> {
    const attempt = (async () => {
      // Counted as connecting from the start (backoff included), so the cap holds meanwhile.
      const wait = this.#nextAttemptAt - Date.now();
      if (wait > 0) await sleep(wait, signal);
      try {
        const ws = await this.#codec.connect(signal);
        if (this.#closed) {
          ws.terminate();
          throw new APIConnectionError({ message: 'TTS is closed', options: { retryable: false } });
        }
        const socket = new ProviderSocket(
          ws,
          this.#codec,
          { inactivityTimeoutMs: this.#opts.inactivityTimeoutMs },
          {
            onIdle: () => {
              // The socket served requests: the provider is healthy, so later reconnects start fresh.
              this.#failures = 0;
              this.#nextAttemptAt = 0;
              this.#topUpSpare();
            },
            onClosed: (s) => this.#forget(s),
          },
        );
        this.#opened++;
        if (!socket.isOpen) {
          // Refused right after the handshake (e.g. an auth error frame): report why.
          throw socket.failure ?? new APIConnectionError({ message: `${this.#codec.provider} closed the socket on connect` });
        }
        this.#sockets.add(socket);
        return socket;
      } catch (err) {
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

  /**
   * While warm, replaces idle sockets before the provider's idle timeout or our age limit would
   * make the next turn pay a handshake: the replacement opens first, then the old one closes.
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
      s.lastUsedAt = now; // not picked again by this sweep while its replacement connects
      void this.#open().then(
        () => s.leases === 0 && s.outstanding === 0 && s.close(),
        () => undefined,
      );
    }
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
    if (socket.failure && !socket.failure.retryable) return; // e.g. a rejected key: reconnecting cannot help
    // Closed right after opening: count it as a failed connect so reconnects back off.
    if (socket.failure && Date.now() - socket.openedAt < SHORT_LIVED_MS) this.#backOff({ jitter: false });
    if (this.#warm && !this.#closed && this.#sockets.size + this.#connecting.size === 0) {
      // Keep the next turn handshake-free: reconnect in the background (backoff applies).
      void this.#open().then(() => this.#topUpSpare(), (err) => {
        this.#logger.debug({ provider: this.#codec.provider, err: String(err) }, 'background reconnect failed');
      });
    }
  }
}

/** A socket closed sooner than this after opening counts as a failed connect (backoff applies). */
const SHORT_LIVED_MS = 1_000;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIConnectionError({ message: 'aborted', options: { retryable: false } }));
    const t = setTimeout(resolve, ms);
    t.unref?.(); // a backoff wait must not keep the process alive
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new APIConnectionError({ message: 'aborted', options: { retryable: false } }));
    }, { once: true });
  });
}
