import { choleskyInPlace, solveLowerInPlace, solveLowerTransposedInPlace } from '../../gp/dense64.js';
import type { PosteriorPath } from '../../gp/pathwise.js';

/** Ridge penalty on the model's slope and curvature terms, relative to the data's size. */
const RIDGE = 1e-3;

/**
 * A separable quadratic model y ≈ a + Σ_k b_k t_k + c_k t_k², t = x − center, fitted by ridge
 * least squares to `n x d` X and length-n y: the local model of derivative-free trust-region
 * methods (Powell's NEWUOA/BOBYQA use 2d + 1 interpolation points), cheap and reliable for a
 * step's direction and length where a GP in many dimensions is mostly prior.
 */
export function separableQuadratic(X: Float64Array, y: Float64Array, n: number, d: number, center: Float64Array): PosteriorPath {
  const p = 2 * d + 1;
  const A = new Float64Array(p * p);
  const b = new Float64Array(p);
  const phi = new Float64Array(p);
  for (let i = 0; i < n; i++) {
    phi[0] = 1;
    for (let k = 0; k < d; k++) {
      const t = X[i * d + k] - center[k];
      phi[1 + k] = t;
      phi[1 + d + k] = t * t;
    }
    for (let a = 0; a < p; a++) {
      b[a] += phi[a] * y[i];
      for (let c = 0; c <= a; c++) A[a * p + c] += phi[a] * phi[c];
    }
  }
  for (let a = 0; a < p; a++) for (let c = 0; c < a; c++) A[c * p + a] = A[a * p + c];
  for (let a = 1; a < p; a++) A[a * p + a] += RIDGE * Math.max(A[a * p + a], 1e-12) + 1e-12;
  if (!choleskyInPlace(A, p)) throw new Error('quadratic model: normal equations not positive definite');
  solveLowerInPlace(A, p, b);
  solveLowerTransposedInPlace(A, p, b);
  const value = (x: Float64Array, offset: number): number => {
    let s = b[0];
    for (let k = 0; k < d; k++) {
      const t = x[offset + k] - center[k];
      s += b[1 + k] * t + b[1 + d + k] * t * t;
    }
    return s;
  };
  return {
    at(points, count) {
      return Float64Array.from({ length: count }, (_, a) => value(points, a * d));
    },
    withGradient(x, gradient) {
      for (let k = 0; k < d; k++) gradient[k] = b[1 + k] + 2 * b[1 + d + k] * (x[k] - center[k]);
      return value(x, 0);
    },
  };
}
