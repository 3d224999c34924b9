/**
 * The knee that picks the combined turn decision's default from a sweep (bench/turn/knee.ts): the
 * Pareto front keeps exactly the undominated points, and the knee is the front's point farthest
 * below the chord between its ends, whatever the axes' units.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type TradeOff, knee, kneeDepth, paretoFront } from '../../bench/turn/knee.js';

const p = (x: number, y: number, name = `${x}/${y}`) => ({ x, y, name });

describe('paretoFront', () => {
  it('drops every point another beats on one figure without losing on the other, and sorts by x', () => {
    const front = paretoFront([p(10, 300), p(5, 500), p(10, 400), p(0, 900), p(5, 600), p(12, 300)]);
    expect(front.map((q) => q.name)).toEqual(['0/900', '5/500', '10/300']);
  });

  it('keeps equal points together', () => {
    expect(paretoFront([p(1, 1, 'a'), p(1, 1, 'b'), p(2, 2)]).map((q) => q.name)).toEqual(['a', 'b']);
  });

  it('refuses figures that are not finite', () => {
    expect(() => paretoFront([p(1, Number.POSITIVE_INFINITY)])).toThrow(RangeError);
    expect(() => knee([p(Number.NaN, 1)])).toThrow(/finite/);
  });
});

describe('knee', () => {
  it('is the corner of an L-shaped front', () => {
    expect(knee([p(40, 300), p(3, 320), p(2, 700), p(0, 1500)]).name).toBe('3/320');
  });

  it('is the bend: replies fall fast with the first waits, slowly after', () => {
    // 100 % at 300 ms, then halving per 100 ms, as a read-speech pause distribution does.
    const curve = [300, 400, 500, 600, 700, 800, 1000].map((ms) => p(100 * 0.5 ** ((ms - 300) / 100), ms));
    expect(knee(curve).y).toBe(500);
  });

  it('on a straight front goes to the faster end', () => {
    expect(knee([p(0, 1000), p(5, 750), p(10, 500)]).name).toBe('10/500');
    expect(kneeDepth([p(0, 1000), p(5, 750), p(10, 500)])).toBe(0);
  });

  it('among equal points takes the one given first', () => {
    expect(knee([p(40, 300), p(3, 320, 'default'), p(3, 320, 'other'), p(0, 1500)]).name).toBe('default');
    expect(knee([p(3, 320, 'only')]).name).toBe('only');
  });

  it('refuses no points', () => {
    expect(() => knee([])).toThrow(RangeError);
  });

  it('reports how deep the knee is: a right angle the deepest', () => {
    expect(kneeDepth([p(10, 0), p(0.001, 0.001), p(0, 10)])).toBeCloseTo(1 / Math.SQRT2, 3);
    expect(kneeDepth([p(1, 1)])).toBe(0);
  });
});

describe('knee, over any points', () => {
  const point = fc.record({ x: fc.integer({ min: 0, max: 100 }), y: fc.integer({ min: 200, max: 3000 }) });
  const points = fc.array(point, { minLength: 1, maxLength: 40 });
  const key = (q: TradeOff) => `${q.x}/${q.y}`;

  it('lies on the front: no point beats it', () => {
    fc.assert(
      fc.property(points, (ps) => {
        const k = knee(ps);
        expect(ps.some((q) => q.x <= k.x && q.y <= k.y && (q.x < k.x || q.y < k.y))).toBe(false);
        expect(paretoFront(ps).some((q) => key(q) === key(k))).toBe(true);
      }),
    );
  });

  it('no front point lies farther below the chord', () => {
    fc.assert(
      fc.property(points, (ps) => {
        const front = paretoFront(ps);
        const scale = (v: number, vs: number[]) => (Math.max(...vs) > Math.min(...vs) ? (v - Math.min(...vs)) / (Math.max(...vs) - Math.min(...vs)) : 0);
        const score = (q: TradeOff) => scale(q.x, front.map((f) => f.x)) + scale(q.y, front.map((f) => f.y));
        const k = knee(ps);
        for (const q of front) expect(score(k)).toBeLessThanOrEqual(score(q) + 1e-12);
      }),
    );
  });

  it('does not change with the axes\' units or the order the points come in', () => {
    fc.assert(
      fc.property(points, fc.integer({ min: 1, max: 1000 }), fc.integer({ min: -500, max: 500 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (ps, stretch, shift, seed) => {
        const k = knee(ps);
        // Percent to a share and ms to s, shifted: the same point, scaled.
        const rescaled = knee(ps.map((q, i) => ({ x: q.x / 100, y: q.y * stretch + shift, i })));
        expect(key(ps[rescaled.i]!)).toBe(key(k));
        const shuffled = [...ps].sort((a, b) => ((a.x * 7919 + a.y * 104_729 + seed) % 1009) - ((b.x * 7919 + b.y * 104_729 + seed) % 1009));
        expect(key(knee(shuffled))).toBe(key(k));
      }),
    );
  });
});
