import type { Observations } from '../strategies/types.js';

/**
 * Compression of heavy upper tails in minimization-space objectives, so the models see the region
 * that matters at a resolution the worst measurements do not swamp.
 *
 * Real problems report values over many orders of magnitude: a sum of constraint violations that
 * is 0 over much of the space and 1e9 near a singular corner, a cost that explodes at the edge of
 * the design space. Standardized, such a column leaves every good point within a hair of the same
 * value, and a Gaussian process fitted to it models the spikes and nothing else. The warp is the
 * identity up to a knee and logarithmic beyond it,
 *
 *   w(y) = y                               for y ≤ knee
 *   w(y) = knee + s · log(1 + (y − knee) / s)  for y > knee,
 *
 * continuous with slope 1 at the knee and strictly increasing, so Pareto dominance and which
 * points lie inside the reference box are the same before and after. The knee is the column's
 * upper quartile, and never inside the reference box: values the hypervolume counts keep their
 * scale exactly, and only how far beyond the box a bad point lies is compressed. The scale s is
 * the spread of the values up to the knee. A column is warped only when its largest value lies
 * more than TAIL_RATIO such spreads beyond the knee, so bounded objectives (a front that is
 * crowded near 0, as in DTLZ4, included) keep their values. Output warping of this kind follows
 * HEBO (Cowen-Rivers et al. 2022), whose transforms of the outputs mattered more than any
 * acquisition choice on real tuning problems.
 */

/** How far beyond the knee, in spreads below it, the largest value must lie for the column to be warped. */
export const TAIL_RATIO = 10;
/** Fewest rows on which a tail is judged. */
const LEAST_ROWS = 8;

/** One column's warp: the identity up to `knee`, logarithmic with scale `scale` beyond. */
export interface TailWarp {
  knee: number;
  scale: number;
}

/**
 * The warp of column j of Y (`n x m` row-major, minimization space, NaN ignored), or null when
 * its tail is not heavy; ref: the reference value of that objective, when known.
 */
export function tailWarp(Y: Float64Array, n: number, m: number, j: number, ref?: number): TailWarp | null {
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = Y[i * m + j];
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length < LEAST_ROWS) return null;
  values.sort((a, b) => a - b);
  const knee = quantile(values, 0.75);
  const iqr = knee - quantile(values, 0.25);
  const spread = Math.max(iqr, (ref ?? knee) - values[0]);
  if (!(spread > 0) || values[values.length - 1] - knee <= TAIL_RATIO * spread) return null;
  // More than half the column may be one value (often 0: no violation); the scale is then the
  // median excess beyond it.
  const scale =
    iqr > 0
      ? iqr
      : quantile(
          values.filter((v) => v > knee).map((v) => v - knee),
          0.5,
        );
  return { knee, scale };
}

/** w(y) for one value (NaN stays NaN). */
export function warpValue(y: number, warp: TailWarp): number {
  return y > warp.knee ? warp.knee + warp.scale * Math.log1p((y - warp.knee) / warp.scale) : y;
}

/** Applies `warps[j]` to column j of Y (`n x m` row-major) in place; null entries leave their column alone. */
export function warpColumns(Y: Float64Array, n: number, m: number, warps: readonly (TailWarp | null)[]): void {
  for (let j = 0; j < m; j++) {
    const warp = warps[j];
    if (!warp) continue;
    for (let i = 0; i < n; i++) Y[i * m + j] = warpValue(Y[i * m + j], warp);
  }
}

/**
 * The observations as the models see them: every objective column with a heavy upper tail
 * warped, with the partial rows and the reference point alike. A noisy campaign's are returned as
 * they are: its front is the model's, read on the measured scale (noisy-front.ts).
 */
export function compressTails(o: Observations): Observations {
  if (o.noisy) return o;
  const warps = Array.from({ length: o.m }, (_, j) => tailWarp(o.Y, o.n, o.m, j, o.ref?.[j]));
  if (warps.every((w) => w === null)) return o;
  const Y = Float64Array.from(o.Y);
  warpColumns(Y, o.n, o.m, warps);
  const partial = o.partial ? { ...o.partial, Y: Float64Array.from(o.partial.Y) } : undefined;
  if (partial) warpColumns(partial.Y, partial.n, o.m, warps);
  const ref = o.ref ? o.ref.map((r, j) => (warps[j] ? warpValue(r, warps[j]) : r)) : null;
  return { ...o, Y, ref, ...(partial ? { partial } : {}) };
}

/** Linear-interpolation quantile of sorted values (length ≥ 1), p in [0, 1]. */
function quantile(sorted: readonly number[], p: number): number {
  const k = (sorted.length - 1) * p;
  const i = Math.floor(k);
  const next = sorted[Math.min(i + 1, sorted.length - 1)];
  return sorted[i] + (next - sorted[i]) * (k - i);
}
