/**
 * Token buckets keyed by client address or user: each key may take `burst` requests at once and
 * then `perMinute` a minute. The clock is injected so tests step time instead of sleeping.
 */
export interface RateLimitOptions {
  /** Requests a key may make per minute once its burst is spent. */
  perMinute: number;
  /** Requests a key may make at once. @defaultValue perMinute */
  burst?: number;
  /** Milliseconds, monotonic. @defaultValue performance.now */
  now?: () => number;
  /** Keys tracked at most; beyond it the fullest buckets are forgotten first. @defaultValue 10_000 */
  maxKeys?: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateLimiter {
  take(key: string): RateDecision;
  /** Keys currently tracked (bounded by `maxKeys`). */
  readonly size: number;
}

export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const burst = options.burst ?? options.perMinute;
  const now = options.now ?? (() => performance.now());
  const maxKeys = options.maxKeys ?? 10_000;
  const perMs = options.perMinute / 60_000;
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, t: number) => {
    bucket.tokens = Math.min(burst, bucket.tokens + (t - bucket.at) * perMs);
    bucket.at = t;
  };

  // A flood of fresh addresses must not grow memory without bound: full buckets carry no
  // information (a new bucket starts full), so they go first; then the oldest entries.
  const makeRoom = (t: number) => {
    for (const [key, bucket] of buckets) {
      refill(bucket, t);
      if (bucket.tokens >= burst) buckets.delete(key);
    }
    while (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
  };

  return {
    take(key) {
      const t = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= maxKeys) makeRoom(t);
        bucket = { tokens: burst, at: t };
        buckets.set(key, bucket);
      }
      refill(bucket, t);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
    },
    get size() {
      return buckets.size;
    },
  };
}
