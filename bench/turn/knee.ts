/**
 * Choosing one setting from a trade-off where both figures are costs (lower is better): here,
 * the share of pauses the agent starts a reply in (x) against how long it takes a real end (y).
 *
 * The Pareto front is every point no other point beats on one figure without losing on the other.
 * The knee is the front's point that lies farthest below the chord joining the front's two ends,
 * with each axis scaled to the front's own range: the chord is then x' + y' = 1, and the knee the
 * point with the least x' + y', where a step along the front stops buying much of one figure for
 * the other. Scaling makes the choice independent of units (% against ms) and of any shift or
 * stretch of either axis. Ties go to the faster point (lower y), then to fewer replies (lower x),
 * then to the one given first, so a caller lists its preferred settings first.
 */

export interface TradeOff {
  /** Replies started inside a pause, % of pauses: lower is better. */
  x: number;
  /** Take p50 after the caller's last sound, ms: lower is better. */
  y: number;
}

function check(points: ReadonlyArray<TradeOff>): void {
  for (const p of points) {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) throw new RangeError(`a trade-off point needs finite figures, got x ${p.x}, y ${p.y}`);
  }
}

const dominates = (a: TradeOff, b: TradeOff) => a.x <= b.x && a.y <= b.y && (a.x < b.x || a.y < b.y);

/** The points no other point dominates, by rising x (then falling y); equal points all kept. */
export function paretoFront<T extends TradeOff>(points: readonly T[]): T[] {
  check(points);
  return points.filter((p) => !points.some((o) => dominates(o, p))).sort((a, b) => a.x - b.x || a.y - b.y);
}

const TIE = 1e-9;

/** x' + y' of a point, each axis scaled to the front's range (an axis with no range does not count). */
function scaler(front: readonly TradeOff[]): (p: TradeOff) => number {
  const axis = (values: number[]) => {
    const low = Math.min(...values);
    const range = Math.max(...values) - low;
    return (v: number) => (range > 0 ? (v - low) / range : 0);
  };
  const sx = axis(front.map((p) => p.x));
  const sy = axis(front.map((p) => p.y));
  return (p) => sx(p.x) + sy(p.y);
}

/** The knee of the points' Pareto front (see the module's comment for the rule). */
export function knee<T extends TradeOff>(points: readonly T[]): T {
  if (points.length === 0) throw new RangeError('the knee of no points is undefined');
  const front = paretoFront(points);
  const scaled = scaler(front);
  const order = new Map(points.map((p, i) => [p, i]));
  return front.reduce((best, p) => {
    const d = scaled(p) - scaled(best);
    // Equal up to rounding: the same distance from the chord, whatever the units it was computed in.
    if (Math.abs(d) > TIE) return d < 0 ? p : best;
    if (p.y !== best.y) return p.y < best.y ? p : best;
    if (p.x !== best.x) return p.x < best.x ? p : best;
    return order.get(p)! < order.get(best)! ? p : best;
  });
}

/**
 * How far the knee lies below the chord, in the scaled plane (the ends at (0, 1) and (1, 0)):
 * 0 when the front is straight or a single point, at most 1/√2 (a right-angled front).
 */
export function kneeDepth(points: readonly TradeOff[]): number {
  const front = paretoFront(points);
  // Front points that differ do so on both axes; all equal, there is no chord.
  if (front.every((p) => p.x === front[0]!.x)) return 0;
  return Math.max(0, (1 - scaler(front)(knee(points))) / Math.SQRT2);
}
