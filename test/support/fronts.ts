/**
 * Deterministic test and benchmark fronts in minimisation space, all mutually non-dominated
 * points in [0, 1]^d: `linear` (uniform on the simplex sum x = 1), `spherical` (uniform
 * directions on the positive unit sphere) and `random` (a simplex front bent by a random strictly
 * increasing map per objective, which keeps it non-dominated but irregular).
 */
import { Random } from '../../src/engine/random.js';

export type FrontShape = 'linear' | 'spherical' | 'random';

export const FRONT_SHAPES: readonly FrontShape[] = ['linear', 'spherical', 'random'];

/** `n x d` row-major non-dominated points of the given shape, from `seed`. */
export function makeFront(shape: FrontShape, n: number, d: number, seed: number): Float64Array {
  const rng = new Random(seed);
  const out = new Float64Array(n * d);
  const bends = shape === 'random' ? Array.from({ length: d }, () => randomIncreasingMap(rng)) : [];
  for (let i = 0; i < n; i++) {
    const row = out.subarray(i * d, (i + 1) * d);
    if (shape === 'spherical') {
      let norm = 0;
      for (let j = 0; j < d; j++) {
        row[j] = Math.abs(rng.normal()) + 1e-12;
        norm += row[j] * row[j];
      }
      norm = Math.sqrt(norm);
      for (let j = 0; j < d; j++) row[j] /= norm;
    } else {
      let sum = 0;
      for (let j = 0; j < d; j++) {
        row[j] = -Math.log(1 - rng.uniform());
        sum += row[j];
      }
      for (let j = 0; j < d; j++) row[j] = shape === 'linear' ? row[j] / sum : bends[j](row[j] / sum);
    }
  }
  return out;
}

/** A random strictly increasing piecewise-linear map of [0, 1] onto [0, 1]. */
function randomIncreasingMap(rng: Random): (x: number) => number {
  const knots = 6;
  const ys = [0];
  for (let i = 0; i < knots; i++) ys.push(ys[i] + 0.05 + rng.uniform());
  const top = ys[knots];
  return (x) => {
    const t = Math.min(x, 1) * knots;
    const i = Math.min(Math.floor(t), knots - 1);
    return (ys[i] + (t - i) * (ys[i + 1] - ys[i])) / top;
  };
}

/** `n x d` points uniform in [lo, hi)^d (dominated ones included). */
export function makeCloud(n: number, d: number, seed: number, lo = 0, hi = 1): Float64Array {
  const rng = new Random(seed);
  const out = new Float64Array(n * d);
  for (let i = 0; i < out.length; i++) out[i] = lo + (hi - lo) * rng.uniform();
  return out;
}

/** Rows of a row-major `n x d` block as arrays. */
export function toRows(points: Float64Array, n: number, d: number): number[][] {
  return Array.from({ length: n }, (_, i) => Array.from(points.subarray(i * d, (i + 1) * d)));
}
