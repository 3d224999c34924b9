import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/web/client-address.js';
import { createRateLimiter } from '../../src/web/rate-limit.js';

describe('token-bucket rate limit', () => {
  it('allows a burst, then one request per refill interval, per key', () => {
    let t = 0;
    const limit = createRateLimiter({ perMinute: 6, burst: 3, now: () => t });
    expect([1, 2, 3].map(() => limit.take('a').allowed)).toEqual([true, true, true]);
    expect(limit.take('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(limit.take('b').allowed).toBe(true); // another key has its own bucket
    t += 9_000;
    expect(limit.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    t += 1_000;
    expect(limit.take('a').allowed).toBe(true);
    expect(limit.take('a').allowed).toBe(false);
  });

  it('never refills past the burst, however long a key was idle', () => {
    let t = 0;
    const limit = createRateLimiter({ perMinute: 60, burst: 2, now: () => t });
    t += 3_600_000;
    expect([1, 2, 3].map(() => limit.take('a').allowed)).toEqual([true, true, false]);
  });

  it('refuses 110 of a 120-request burst at the default-like setting of 10 a minute', () => {
    const limit = createRateLimiter({ perMinute: 10, now: () => 0 });
    const allowed = Array.from({ length: 120 }, () => limit.take('1.2.3.4').allowed).filter(Boolean).length;
    expect(allowed).toBe(10);
  });

  it('keeps its memory bounded under a flood of fresh keys', () => {
    let t = 0;
    const limit = createRateLimiter({ perMinute: 10, now: () => t, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) {
      t += 1;
      limit.take(`10.0.${i >> 8}.${i & 255}`);
    }
    expect(limit.size).toBeLessThanOrEqual(100);
  });
});

describe('client address', () => {
  const req = (peer: string, xff?: string | string[]) => ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } });

  it('is the TCP peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(req('::ffff:10.1.2.3', '6.6.6.6'), 0)).toBe('10.1.2.3');
    expect(clientAddress(req('::1', '6.6.6.6'), 0)).toBe('::1');
  });

  it("behind N proxies, is the Nth entry from the right; the client's own entries are never used", () => {
    expect(clientAddress(req('10.0.0.1', '6.6.6.6, 203.0.113.7'), 1)).toBe('203.0.113.7');
    expect(clientAddress(req('10.0.0.1', '6.6.6.6, 203.0.113.7, 10.0.0.9'), 2)).toBe('203.0.113.7');
    expect(clientAddress(req('10.0.0.1', ['6.6.6.6', '203.0.113.7']), 1)).toBe('203.0.113.7');
  });

  it('falls back to the peer for a missing, short, malformed or huge header', () => {
    expect(clientAddress(req('10.0.0.1'), 1)).toBe('10.0.0.1');
    expect(clientAddress(req('10.0.0.1', '203.0.113.7'), 2)).toBe('10.0.0.1');
    expect(clientAddress(req('10.0.0.1', 'not-an-ip'), 1)).toBe('10.0.0.1');
    expect(clientAddress(req('10.0.0.1', `${'1.1.1.1,'.repeat(400)}2.2.2.2`), 1)).toBe('10.0.0.1');
  });
});
