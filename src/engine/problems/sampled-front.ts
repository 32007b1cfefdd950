import { hypervolume } from '../hypervolume.js';
import { paretoIndices } from '../pareto.js';

/**
 * Fronts known as a few curves (pieces of the Pareto set mapped through the objectives) or as a
 * dense sample: the non-dominated points of all candidates, sorted by the first objective, and
 * their hypervolume. A staircase of n points on a smooth front underestimates its hypervolume
 * by O(1/n); with the 20,000-80,000 points used here that is below 1e-4 of it.
 */

/** The non-dominated rows of `points` (`n x m` row-major), sorted by increasing first objective. */
export function nondominatedSorted(points: Float64Array, m: number): Float64Array {
  const keep = Array.from(paretoIndices(points, points.length / m, m)).sort((a, b) => points[a * m] - points[b * m]);
  const out = new Float64Array(keep.length * m);
  keep.forEach((row, k) => out.set(points.subarray(row * m, row * m + m), k * m));
  return out;
}

/**
 * `count` rows of `front` (`n x m`): the rows holding each objective's least and largest value
 * first (so the front's ideal and nadir points are kept), the rest picked evenly by index;
 * rows repeat when count exceeds n.
 */
export function thinRows(front: Float64Array, m: number, count: number): Float64Array {
  const n = front.length / m;
  const rows: number[] = [];
  for (let j = 0; j < m; j++) {
    let lo = 0;
    let hi = 0;
    for (let i = 1; i < n; i++) {
      if (front[i * m + j] < front[lo * m + j]) lo = i;
      if (front[i * m + j] > front[hi * m + j]) hi = i;
    }
    for (const row of [lo, hi]) if (!rows.includes(row)) rows.push(row);
  }
  const rest = count - rows.length;
  for (let i = 0; i < rest; i++) rows.push(Math.round((i * (n - 1)) / Math.max(1, rest - 1)));
  const out = new Float64Array(count * m);
  for (let i = 0; i < count; i++) {
    const row = rows[i % rows.length];
    out.set(front.subarray(row * m, row * m + m), i * m);
  }
  return out;
}

/** A lazily computed, cached front with its hypervolume against any reference. */
export function cachedFront(
  m: number,
  build: () => Float64Array,
): {
  front: () => Float64Array;
  sample: (count: number) => Float64Array;
  hypervolume: (ref: ArrayLike<number>) => number | undefined;
} {
  let front: Float64Array | undefined;
  const get = () => (front ??= build());
  return {
    front: get,
    sample: (count) => thinRows(get(), m, count),
    hypervolume: (ref) => (ref.length === m ? hypervolume(get(), get().length / m, m, ref) : undefined),
  };
}

/** Evaluates `f` at `count` evenly spaced t in [0, 1] and appends the results (m values each) to `out`. */
export function traceCurve(out: number[], count: number, f: (t: number) => ArrayLike<number>): void {
  for (let i = 0; i < count; i++) {
    const v = f(i / (count - 1));
    for (let j = 0; j < v.length; j++) out.push(v[j]);
  }
}
