import { Random } from '../../src/engine/random.js';

/**
 * Random test data for the GP and linear-algebra tests, all from a seeded Random so failures
 * reproduce.
 */

/**
 * A symmetric positive definite `n x n` row-major matrix G Gᵀ/m + shift·I with G `n x m`
 * standard normal (m = n + 3, so G Gᵀ is full rank); its smallest eigenvalue is at least `shift`.
 */
export function randomSpd(n: number, seed: number, shift = 0.1): Float64Array {
  const random = new Random(seed);
  const m = n + 3;
  const G = Float64Array.from({ length: n * m }, () => random.normal());
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < m; k++) s += G[i * m + k] * G[j * m + k];
      A[i * n + j] = s / m;
      A[j * n + i] = s / m;
    }
    A[i * n + i] += shift;
  }
  return A;
}

/** `n x d` row-major points uniform on [0, 1]^d. */
export function uniformPoints(n: number, d: number, seed: number): Float64Array {
  const random = new Random(seed);
  return Float64Array.from({ length: n * d }, () => random.uniform());
}

/** Largest absolute entry of a − b. */
export function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Largest absolute entry. */
export function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/** A smooth test function on [0, 1]^d: a sum of sinusoids whose frequency grows with the input index. */
export function sinusoids(x: ArrayLike<number>, d: number): number {
  let s = 0;
  for (let k = 0; k < d; k++) s += Math.sin((2 + k) * x[k] + 0.3 * k) / (1 + 0.5 * k);
  return s;
}
