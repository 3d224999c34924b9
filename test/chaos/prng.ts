/**
 * A seeded PRNG (mulberry32) with the few draws the chaos suite and the soak need, so a failing
 * run reproduces from its seed alone.
 */
import { seededRandom } from '../servers/prng.js';

export interface Rng {
  readonly seed: number;
  /** Float in [0, 1). */
  next(): number;
  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: `{ a: 3, b: 1 }` returns 'a' three times as often as 'b'. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
}

export function createRng(seed: number): Rng {
  const next = seededRandom(seed);
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    weighted: (weights) => {
      const entries = Object.entries(weights) as Array<[keyof typeof weights, number]>;
      const total = entries.reduce((sum, [, w]) => sum + w, 0);
      let roll = next() * total;
      for (const [key, w] of entries) {
        roll -= w;
        if (roll < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
  };
}

/** The seed of a run: `CHAOS_SEED` when set (to replay a failure), else `fallback`. */
export function seedFromEnv(fallback: number): number {
  const raw = process.env.CHAOS_SEED;
  if (raw === undefined || raw === '') return fallback;
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`CHAOS_SEED must be an integer (got ${JSON.stringify(raw)})`);
  return seed;
}
