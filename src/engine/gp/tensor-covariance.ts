import { JITTER_FACTORS } from './jitter.js';
import { BlockedCholesky } from './linalg.js';

/**
 * The covariance K = F + δI (F: noise-free kernel matrix in float64, δ: noise variance plus any
 * jitter) factored on the tensor backend in float32, with solves refined back to float64.
 *
 * float32 limits what can be solved: the factor's panels and products are float32, which
 * perturbs K by about ε₃₂·√n·‖K‖, and iterative refinement only converges while ε₃₂·κ(K) stays
 * well below one. A smooth kernel with long lengthscales has λ_max(K) close to n·s², so with σ²
 * at the noise floor κ reaches 1e8 and the float32 solution is meaningless. The tensor path therefore keeps δ at
 * least CONDITIONING_FLOOR · λ̂ with λ̂ = 1ᵀF1/n (the Rayleigh quotient of the all-ones vector, a
 * smooth lower bound on λ_max that is close to it exactly when the kernel is smooth), so that
 * κ ≲ 2e6 and refinement gains about three digits per step. The float64 dense path (n up to
 * DENSE_LIMIT) needs no such floor.
 */
export const CONDITIONING_FLOOR = 5e-7;

/** The tensor path's smallest diagonal for F: CONDITIONING_FLOOR · 1ᵀF1/n. F: `n x n` row-major. */
export function conditioningNoise(F: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n * n; i++) sum += F[i];
  return (CONDITIONING_FLOOR * sum) / n;
}

export interface TensorSolve {
  factor: BlockedCholesky;
  /** the δ actually added to F: the requested diagonal plus the jitter that made it work */
  diagonal: number;
  /** (F + δI)⁻¹ b, refined to float64 accuracy */
  solution: Float64Array;
}

/**
 * Factors F + (diagonal + jitter)I in float32 and solves it for b in float64, escalating the
 * jitter (jitter.ts) both when the Cholesky fails and when iterative refinement does not
 * converge. F: `n x n` row-major Float64Array (full); b: length n; tolerance: see refinedSolve.
 * Null when every jitter fails.
 */
export function solveTensorCovariance(F: Float64Array, n: number, diagonal: number, b: Float64Array, blockSize: number, tolerance = 1e-11): TensorSolve | null {
  let meanDiagonal = 0;
  for (let i = 0; i < n; i++) meanDiagonal += F[i * n + i] / n;
  meanDiagonal += diagonal;
  if (!Number.isFinite(meanDiagonal) || meanDiagonal <= 0) return null;
  for (const factor of JITTER_FACTORS) {
    const delta = diagonal + factor * meanDiagonal;
    const cholesky = BlockedCholesky.factor(F, n, blockSize, delta);
    if (cholesky === null) continue;
    const refined = refinedSolve(cholesky, F, n, delta, b, tolerance);
    if (refined.converged) return { factor: cholesky, diagonal: delta, solution: refined.x };
  }
  return null;
}

/** A solution whose last correction is still above this is rejected (the factor is too inaccurate). */
const ACCEPTABLE_CORRECTION = 1e-7;
const MAX_REFINEMENTS = 10;

/**
 * x = (F + δI)⁻¹ b: a float32 solve through the factor, then iterative refinement with the
 * residual b − (F + δI)x computed in float64 (Wilkinson; Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., ch. 12). Each step shrinks the error by about ε₃₂·κ; it stops
 * once a correction is below `tolerance` relative to x.
 * F: `n x n` row-major Float64Array; b: length n. Returns x (length n) and whether the last
 * correction was small enough to trust it.
 */
function refinedSolve(
  factor: BlockedCholesky,
  F: Float64Array,
  n: number,
  delta: number,
  b: Float64Array,
  tolerance: number,
): { x: Float64Array; converged: boolean } {
  const x = solveOnce(factor, b);
  const residual = new Float64Array(n);
  let change = Infinity;
  let size = 0;
  for (let step = 0; step < MAX_REFINEMENTS; step++) {
    for (let i = 0; i < n; i++) {
      const ri = i * n;
      let s = delta * x[i];
      for (let j = 0; j < n; j++) s += F[ri + j] * x[j];
      residual[i] = b[i] - s;
    }
    const correction = solveOnce(factor, residual);
    size = 0;
    change = 0;
    for (let i = 0; i < n; i++) {
      x[i] += correction[i];
      size = Math.max(size, Math.abs(x[i]));
      change = Math.max(change, Math.abs(correction[i]));
    }
    if (!(change > tolerance * size)) break;
  }
  return { x, converged: change <= ACCEPTABLE_CORRECTION * size };
}

function solveOnce(factor: BlockedCholesky, b: Float64Array): Float64Array {
  return factor.solveLowerTransposed(factor.solveLower(b, 1), 1);
}
