/** The socket pool's tuning (pool.ts), declared and checked once. */
export interface SocketPoolOptions {
  /**
   * Sockets per TTS instance: the one in use, plus a clean one when stale requests of an
   * interrupted turn block it (in-order providers only).
   */
  maxSockets: number;
  /**
   * Keep a spare socket open at all times, idle processes included (the behaviour before the
   * connection budget). Off, a spare opens only when an in-order socket is left draining stale
   * requests after a barge-in, so a process with no call yet holds one socket.
   */
  warmSpare: boolean;
  /** Sockets idle longer than this are replaced before use (providers close idle sockets). */
  maxIdleMs: number;
  /** Sockets older than this are replaced before use, so one call cannot pin a socket forever. */
  maxAgeMs: number;
  inactivityTimeoutMs: number;
  /**
   * A socket nothing was heard on (no message, no pong) for this long is pinged, busy or idle, so
   * one that died silently (a NAT timeout, a half-open TCP connection) is found before a turn needs
   * it.
   */
  pingIntervalMs: number;
  /** A ping with no answer (pong or any message) for this long: the socket is dead and replaced. */
  pongTimeoutMs: number;
  /**
   * A turn takes a socket only if it was heard from within this long. Longer than
   * `pingIntervalMs`, so a live socket answering its pings always qualifies and only a quiet one
   * is probed.
   */
  aliveWithinMs: number;
  /** How long a turn waits for the pong of a socket it probes before it opens a fresh one instead. */
  probeTimeoutMs: number;
  /** Reconnect backoff after a failed connect. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /**
   * How long a turn waits for the connection budget (`ConnectionBudget.take`) when every socket the
   * key may hold is in use and this pool holds none; then it fails with a retryable
   * APIConnectionError (the framework retries).
   */
  budgetWaitMs: number;
}

export const DEFAULT_POOL_OPTIONS: SocketPoolOptions = {
  maxSockets: 2,
  warmSpare: false,
  maxIdleMs: 240_000, // Cartesia closes idle sockets at 5 min; refresh before that
  maxAgeMs: 900_000,
  inactivityTimeoutMs: 5_000,
  // Resemble's own quickstart pings every 5 s (10 s timeout); Cartesia's SDK keeps the websockets
  // library default (20 s / 20 s). One interval serves both: pings cost a few bytes, and the
  // sooner a dead socket is found, the fewer turns can meet it.
  pingIntervalMs: 5_000,
  // A dead socket is gone within interval + timeout (10 s); a turn that comes sooner probes it.
  pongTimeoutMs: 5_000,
  // An interval plus room for a late timer and the pong's round trip.
  aliveWithinMs: 7_500,
  // Several round trips even across an ocean, yet well below the handshake plus watchdog a dead
  // socket would cost the turn.
  probeTimeoutMs: 500,
  backoffBaseMs: 100,
  backoffMaxMs: 5_000,
  budgetWaitMs: 10_000,
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
export function checkPoolOptions(o: SocketPoolOptions): void {
  if (!Number.isInteger(o.maxSockets) || o.maxSockets < 1) {
    throw new Error(`pool.maxSockets must be a positive integer (got ${String(o.maxSockets)})`);
  }
  checkTimerMs('pool.inactivityTimeoutMs', o.inactivityTimeoutMs);
  checkTimerMs('pool.pingIntervalMs', o.pingIntervalMs);
  checkTimerMs('pool.pongTimeoutMs', o.pongTimeoutMs);
  checkTimerMs('pool.aliveWithinMs', o.aliveWithinMs, 0);
  checkTimerMs('pool.probeTimeoutMs', o.probeTimeoutMs);
  checkTimerMs('pool.backoffBaseMs', o.backoffBaseMs, 0);
  checkTimerMs('pool.backoffMaxMs', o.backoffMaxMs, 0);
  checkTimerMs('pool.budgetWaitMs', o.budgetWaitMs);
  for (const [name, value] of [['maxIdleMs', o.maxIdleMs], ['maxAgeMs', o.maxAgeMs]] as const) {
    // Compared, never armed as timers: Infinity means "never".
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new Error(`pool.${name} must be a non-negative number of ms (got ${String(value)})`);
    }
  }
}
