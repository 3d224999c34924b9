/**
 * The connection budget's arithmetic (src/budget/lease-ledger.ts), against a plain model: whatever
 * mix of takes, releases and departing processes, no key holds more than its limit, a waiter is
 * only left waiting while the key is full, and waiters are served first come first served.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LeaseLedger, type Ticket } from '../../src/budget/lease-ledger.js';

type Op =
  | { kind: 'take'; holder: number; key: string; wait: boolean }
  | { kind: 'drop'; pick: number }
  | { kind: 'leave'; holder: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('take' as const), holder: fc.nat(3), key: fc.constantFrom('a', 'b'), wait: fc.boolean() }),
  fc.record({ kind: fc.constant('drop' as const), pick: fc.nat(50) }),
  fc.record({ kind: fc.constant('leave' as const), holder: fc.nat(3) }),
);

/** The reference: per key, an array of holders and an array of waiters. */
class Model {
  held = new Map<string, Array<Ticket<number>>>();
  queue = new Map<string, Array<Ticket<number>>>();
  constructor(readonly limit: number, readonly maxQueued: number) {}
  take(t: Ticket<number>, wait: boolean): string {
    const held = this.held.get(t.key) ?? [];
    const queue = this.queue.get(t.key) ?? [];
    this.held.set(t.key, held);
    this.queue.set(t.key, queue);
    if (held.length < this.limit && queue.length === 0) return held.push(t), 'held';
    if (!wait || queue.length >= this.maxQueued) return 'refused';
    return queue.push(t), 'queued';
  }
  drop(ts: Array<Ticket<number>>): Array<Ticket<number>> {
    const granted: Array<Ticket<number>> = [];
    const keys: string[] = [];
    for (const t of ts) this.queue.set(t.key, (this.queue.get(t.key) ?? []).filter((q) => q !== t));
    for (const t of ts) {
      const held = this.held.get(t.key) ?? [];
      if (held.includes(t)) {
        this.held.set(t.key, held.filter((h) => h !== t));
        if (!keys.includes(t.key)) keys.push(t.key);
      }
    }
    for (const key of keys) {
      const held = this.held.get(key)!;
      const queue = this.queue.get(key)!;
      while (held.length < this.limit && queue.length > 0) granted.push(held[held.push(queue.shift()!) - 1]!);
    }
    return granted;
  }
}

describe('lease ledger', () => {
  it('matches the model and never exceeds the limit, whatever happens', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.array(op, { maxLength: 60 }), (limit, maxQueued, ops) => {
        const ledger = new LeaseLedger<number>(limit, maxQueued);
        const model = new Model(limit, maxQueued);
        let live: Array<Ticket<number>> = []; // held or queued, as the model says
        for (const o of ops) {
          if (o.kind === 'take') {
            const t = { key: o.key, holder: o.holder };
            const result = ledger.take(t, o.wait);
            expect(result).toBe(model.take(t, o.wait));
            if (result !== 'refused') live.push(t);
          } else {
            const dropped = o.kind === 'drop' ? live.slice(o.pick % Math.max(1, live.length)).slice(0, 1) : live.filter((t) => t.holder === o.holder);
            expect(ledger.drop(dropped)).toEqual(model.drop(dropped));
            live = live.filter((t) => !dropped.includes(t));
          }
          for (const key of ['a', 'b']) {
            const held = ledger.held(key);
            expect(held).toBe(model.held.get(key)?.length ?? 0);
            expect(held).toBeLessThanOrEqual(limit);
            expect(ledger.queued(key)).toBeLessThanOrEqual(maxQueued);
            if (ledger.queued(key) > 0) expect(held).toBe(limit); // nobody waits while there is room
          }
        }
        // Every process gone: the budget is whole again.
        ledger.drop(live);
        expect(ledger.held('a') + ledger.held('b') + ledger.queued('a') + ledger.queued('b')).toBe(0);
      }),
    );
  });

  it('ignores the release of a lease it does not know (a release that crossed a withdrawal)', () => {
    const ledger = new LeaseLedger<string>(1, 1);
    const a = { key: 'k', holder: 'p1' };
    expect(ledger.take(a, false)).toBe('held');
    expect(ledger.drop([{ key: 'k', holder: 'p1' }, { key: 'other', holder: 'p2' }])).toEqual([]);
    expect(ledger.held('k')).toBe(1);
  });

  it('refuses limits that cannot work', () => {
    expect(() => new LeaseLedger(0, 1)).toThrow(/positive integer/);
    expect(() => new LeaseLedger(1.5, 1)).toThrow(/positive integer/);
    expect(() => new LeaseLedger(1, -1)).toThrow(/non-negative/);
  });
});
