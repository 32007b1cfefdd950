// Covariance matrix of the CMA-ES kernel: the combined rank-one / rank-mu / active update of C and
// the lazy refresh of its eigendecomposition C = B diag(D^2) B^T. pB holds B transposed (row j is
// the j-th eigenvector), so sampling and C^{-1/2} products combine contiguous rows.

import { n, ld, pC, pB, pWork, pD, pEig, pEigScratch, pV, pCoef, pSplat, row, vecBytes, swapBasis } from './cmaes-layout';
import { symmetricEigen } from './cmaes-eigen';
import { at, put } from './cmaes-vector';

/** Largest condition number of C before the conditioncov stop; also the floor after a repair. */
export const MAX_CONDITION: f64 = 1e14;

/** Extreme eigenvalues of C at the last successful decomposition. */
export let minEig: f64 = 1;
export let maxEig: f64 = 1;

/** C = B = I, D = 1. */
export function resetCovariance(): void {
  for (let j = 0; j < n; j++) {
    put(row(pC, j), j, 1);
    put(row(pB, j), j, 1);
    put(pD, j, 1);
    put(pEig, j, 1);
  }
  minEig = 1;
  maxEig = 1;
}

/**
 * C <- decay C + sum_r coef_r v_r v_r^T on the upper triangle, with v_r the first `count` rows of pV
 * and coef_r at pCoef. Two rows of C per pass share the loads of v_r; C has ld (even) rows and the
 * padding row and column stay zero because the padding of every v_r is zero.
 */
export function rankUpdate(decay: f64, count: i32): void {
  const vec = vecBytes();
  const decayV = f64x2.splat(decay);
  for (let j = 0; j < n; j += 2) {
    for (let r = 0; r < count; r++) {
      const v = row(pV, r) + (<usize>j << 3);
      const c = at(pCoef, r);
      v128.store(pSplat + (<usize>r << 5), f64x2.splat(c * load<f64>(v)));
      v128.store(pSplat + (<usize>r << 5) + 16, f64x2.splat(c * load<f64>(v, 8)));
    }
    const row0 = row(pC, j);
    const row1 = row0 + vec;
    let k: usize = <usize>j << 3;
    // Four columns per pass: four independent sums over r instead of two latency-bound ones.
    for (; k + 32 <= vec; k += 32) {
      let acc0 = f64x2.mul(decayV, v128.load(row0 + k));
      let acc1 = f64x2.mul(decayV, v128.load(row1 + k));
      let acc2 = f64x2.mul(decayV, v128.load(row0 + k, 16));
      let acc3 = f64x2.mul(decayV, v128.load(row1 + k, 16));
      let v = pV + k;
      let a = pSplat;
      for (let r = 0; r < count; r++) {
        const x0 = v128.load(v);
        const x1 = v128.load(v, 16);
        const s0 = v128.load(a);
        const s1 = v128.load(a, 16);
        acc0 = f64x2.add(acc0, f64x2.mul(s0, x0));
        acc1 = f64x2.add(acc1, f64x2.mul(s1, x0));
        acc2 = f64x2.add(acc2, f64x2.mul(s0, x1));
        acc3 = f64x2.add(acc3, f64x2.mul(s1, x1));
        v += vec;
        a += 32;
      }
      v128.store(row0 + k, acc0);
      v128.store(row1 + k, acc1);
      v128.store(row0 + k, acc2, 16);
      v128.store(row1 + k, acc3, 16);
    }
    if (k < vec) {
      let acc0 = f64x2.mul(decayV, v128.load(row0 + k));
      let acc1 = f64x2.mul(decayV, v128.load(row1 + k));
      let v = pV + k;
      let a = pSplat;
      for (let r = 0; r < count; r++) {
        const x = v128.load(v);
        acc0 = f64x2.add(acc0, f64x2.mul(v128.load(a), x));
        acc1 = f64x2.add(acc1, f64x2.mul(v128.load(a, 16), x));
        v += vec;
        a += 32;
      }
      v128.store(row0 + k, acc0);
      v128.store(row1 + k, acc1);
    }
  }
}

/**
 * Recomputes B and D from C. Keeps the previous decomposition when the solver fails or C has
 * become non-finite; lifts the spectrum when rounding has made C indefinite.
 */
export function updateEigen(): void {
  for (let j = 0; j < n; j++) {
    const off = <usize>j << 3;
    memory.copy(row(pWork, j) + off, row(pC, j) + off, (<usize>(n - j)) << 3);
  }
  if (!symmetricEigen(pWork, n, ld, pEig, pEigScratch)) return;
  let lo: f64 = Infinity;
  let hi: f64 = -Infinity;
  for (let j = 0; j < n; j++) {
    const v = at(pEig, j);
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (!(hi > 0) || !isFinite<f64>(hi) || isNaN(lo)) return;
  if (!(lo > 0)) {
    // Shift C and its spectrum so the condition number is MAX_CONDITION at worst.
    const shift = hi / MAX_CONDITION - lo;
    for (let j = 0; j < n; j++) {
      put(pEig, j, at(pEig, j) + shift);
      put(row(pC, j), j, at(row(pC, j), j) + shift);
    }
    lo += shift;
    hi += shift;
  }
  for (let j = 0; j < n; j++) put(pD, j, Math.sqrt(at(pEig, j)));
  minEig = lo;
  maxEig = hi;
  swapBasis();
}
