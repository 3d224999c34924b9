/**
 * How many provider sockets may be open for one API key, beyond a pool's own `maxSockets`.
 * A pool takes a lease before it connects and releases it when the socket closes. The worker
 * shares one budget across all its job processes through the lease service (lease-service.ts,
 * lease-client.ts); a pool without a budget is bounded by its `maxSockets` alone.
 */

/** The right to hold one provider socket; released once, when that socket is gone. */
export interface ConnectionLease {
  release(): void;
}

export interface ConnectionBudget {
  /** A lease if one is free right now, else undefined: for sockets that are nice to have (prewarm, spare, refresh). */
  tryTake(): Promise<ConnectionLease | undefined>;
  /**
   * Waits in line for a lease, for a socket a turn cannot do without. Resolves undefined when
   * none came within `waitMs`, when the line is full, or when `signal` aborted.
   */
  take(waitMs: number, signal?: AbortSignal): Promise<ConnectionLease | undefined>;
}

/** A lease whose release runs at most once, however often it is called. */
export function onceLease(release: () => void): ConnectionLease {
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      release();
    },
  };
}

/** A lease that counts nothing: what a budget grants when its service is gone (the per-process cap still holds). */
export const UNCOUNTED_LEASE: ConnectionLease = { release: () => {} };
