/**
 * The arithmetic of a connection budget, apart from any transport: per provider key, at most
 * `limit` leases held, later takers queued first come first served (up to `maxQueued`), a
 * dropped lease handing its place to the oldest waiter. The lease service (lease-service.ts)
 * keeps one ledger for every job process of a worker.
 */

export interface Ticket<Holder> {
  readonly key: string;
  readonly holder: Holder;
}

export type TakeResult = 'held' | 'queued' | 'refused';

interface KeyState<Holder> {
  held: Set<Ticket<Holder>>;
  queue: Array<Ticket<Holder>>;
}

export class LeaseLedger<Holder> {
  readonly limit: number;
  readonly maxQueued: number;
  #keys = new Map<string, KeyState<Holder>>();

  constructor(limit: number, maxQueued: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`lease limit must be a positive integer (got ${String(limit)})`);
    if (!Number.isInteger(maxQueued) || maxQueued < 0) {
      throw new Error(`lease queue bound must be a non-negative integer (got ${String(maxQueued)})`);
    }
    this.limit = limit;
    this.maxQueued = maxQueued;
  }

  /**
   * Holds `ticket` if its key has room; otherwise queues it when `wait` (and the queue has room)
   * or refuses it. A waiter never jumps the queue: with others waiting, a new taker waits too.
   */
  take(ticket: Ticket<Holder>, wait: boolean): TakeResult {
    const state = this.#state(ticket.key);
    if (state.held.has(ticket) || state.queue.includes(ticket)) throw new Error('ticket taken twice');
    if (state.held.size < this.limit && state.queue.length === 0) {
      state.held.add(ticket);
      return 'held';
    }
    if (!wait || state.queue.length >= this.maxQueued) return 'refused';
    state.queue.push(ticket);
    return 'queued';
  }

  /**
   * Releases held tickets and withdraws queued ones (unknown ones are ignored, so a release that
   * crosses a grant is harmless). Returns the waiters that now hold a lease, in grant order.
   * Queued tickets go first, so a departing holder's own waiters are never granted on the way out.
   */
  drop(tickets: Iterable<Ticket<Holder>>): Array<Ticket<Holder>> {
    const all = [...tickets];
    const touched = new Set<string>();
    for (const t of all) {
      const state = this.#keys.get(t.key);
      if (!state) continue;
      const i = state.queue.indexOf(t);
      if (i >= 0) state.queue.splice(i, 1);
    }
    for (const t of all) {
      const state = this.#keys.get(t.key);
      if (state?.held.delete(t)) touched.add(t.key);
    }
    const granted: Array<Ticket<Holder>> = [];
    for (const key of touched) {
      const state = this.#keys.get(key)!;
      while (state.held.size < this.limit && state.queue.length > 0) {
        const next = state.queue.shift()!;
        state.held.add(next);
        granted.push(next);
      }
      if (state.held.size === 0 && state.queue.length === 0) this.#keys.delete(key);
    }
    return granted;
  }

  held(key: string): number {
    return this.#keys.get(key)?.held.size ?? 0;
  }

  queued(key: string): number {
    return this.#keys.get(key)?.queue.length ?? 0;
  }

  isHeld(ticket: Ticket<Holder>): boolean {
    return this.#keys.get(ticket.key)?.held.has(ticket) ?? false;
  }

  #state(key: string): KeyState<Holder> {
    let state = this.#keys.get(key);
    if (!state) this.#keys.set(key, (state = { held: new Set(), queue: [] }));
    return state;
  }
}
