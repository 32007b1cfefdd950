import type { Random } from '../random.js';
import type { ParameterLayout } from '../space.js';

/**
 * Which parameters an objective depends on, read from a fitted surrogate in two ways that
 * answer slightly different questions:
 *
 * - lengthscale share: an ARD kernel's inverse lengthscale is how fast the model lets the output
 *   change along a coordinate; its share of the total says where the model sees variation,
 *   interactions included, but says nothing of the size of the effect.
 * - total Sobol index: the share of the variance of the model's mean over the whole box that
 *   involves the parameter (alone or with others), estimated by Jansen's Monte Carlo formula
 *   (Saltelli et al. 2010): S_T,j ≈ Σ_k (f(A_k) − f(A_B^j,k))² / (2 N Var f), where A_B^j is A with
 *   parameter j's coordinates taken from B. Computed on the surrogate, not on the evaluator.
 */

export interface ParameterImportance {
  name: string;
  lengthscale_share: number;
  total_sobol: number;
}

/** Base samples of the Sobol estimate: N (d + 2) mean evaluations in all. */
const SOBOL_SAMPLES = 256;

/**
 * layout: the search space's parameter layout (a categorical parameter spans several encoded
 * coordinates, which count together); lengthscales: length `dimension`; meanAt: the model's mean
 * at q points (`q x dimension` row-major) → length q; sample: fills a point of the box (length
 * `dimension`, snapped to valid encodings).
 */
export function parameterImportance(
  layout: readonly ParameterLayout[],
  dimension: number,
  lengthscales: ArrayLike<number>,
  meanAt: (X: Float64Array, q: number) => Float64Array,
  sample: (random: Random) => Float64Array,
  random: Random,
): ParameterImportance[] {
  const inverse = layout.map(({ offset, width }) => {
    let s = 0;
    for (let c = offset; c < offset + width; c++) s += 1 / lengthscales[c];
    return s;
  });
  const totalInverse = inverse.reduce((a, b) => a + b, 0);
  const sobol = totalSobolIndices(layout, dimension, meanAt, sample, random);
  return layout.map(({ parameter }, j) => ({
    name: parameter.name,
    lengthscale_share: totalInverse > 0 ? inverse[j] / totalInverse : 0,
    total_sobol: sobol[j],
  }));
}

/** Jansen's total-effect estimate per layout entry (0 where the mean is constant). */
function totalSobolIndices(
  layout: readonly ParameterLayout[],
  dimension: number,
  meanAt: (X: Float64Array, q: number) => Float64Array,
  sample: (random: Random) => Float64Array,
  random: Random,
): number[] {
  const N = SOBOL_SAMPLES;
  const A = new Float64Array(N * dimension);
  const B = new Float64Array(N * dimension);
  for (let k = 0; k < N; k++) {
    A.set(sample(random), k * dimension);
    B.set(sample(random), k * dimension);
  }
  const fA = meanAt(A, N);
  const fB = meanAt(B, N);
  let mean = 0;
  for (let k = 0; k < N; k++) mean += fA[k] + fB[k];
  mean /= 2 * N;
  let variance = 0;
  for (let k = 0; k < N; k++) variance += (fA[k] - mean) ** 2 + (fB[k] - mean) ** 2;
  variance /= 2 * N - 1;
  if (!(variance > 0)) return layout.map(() => 0);
  return layout.map(({ offset, width }) => {
    const mixed = Float64Array.from(A);
    for (let k = 0; k < N; k++) {
      for (let c = offset; c < offset + width; c++) mixed[k * dimension + c] = B[k * dimension + c];
    }
    const fMixed = meanAt(mixed, N);
    let s = 0;
    for (let k = 0; k < N; k++) s += (fA[k] - fMixed[k]) ** 2;
    return Math.min(1, s / (2 * N) / variance);
  });
}
