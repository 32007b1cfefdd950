import { choleskyInPlace, solveLowerInPlace, solveLowerTransposedInPlace } from '../../gp/dense64.js';
import type { PosteriorPath } from '../../gp/pathwise.js';
import { hostMatMul } from '../../tensor/host-matmul.js';

/** Ridge penalty on the model's slope and curvature terms, relative to the data's size. */
const RIDGE = 1e-3;

/**
 * Separable quadratic models y_k ≈ a + Σ_j b_j t_j + c_j t_j², t = x − center, one per column of
 * `n x outputs` Y, fitted by ridge least squares on `n x d` X: the local model of derivative-free
 * trust-region methods (Powell's NEWUOA/BOBYQA use 2d + 1 interpolation points), cheap and
 * reliable for a step's direction and length where a GP in many dimensions is mostly prior. The
 * normal equations' matrix depends on X and the centre alone, so one Cholesky factor serves every
 * output (O(n d² + d³) once, O(n d + d²) per output). The products ΦᵀΦ and ΦᵀY of the features
 * Φ = [1, t, t²] run as float32 matmuls on the CPU kernel (tensor/host-matmul.ts): at d = 200 they
 * are 2·10⁸ flops per region, and their float32 rounding (about 1e-7 of each entry) is far below
 * the ridge of 1e-3 that the solve adds anyway.
 */
export function separableQuadratics(X: Float64Array, Y: Float64Array, n: number, d: number, outputs: number, center: Float64Array): PosteriorPath[] {
  const p = 2 * d + 1;
  /** Φᵀ, `p x n` */
  const featuresT = new Float32Array(p * n);
  const features = new Float32Array(n * p);
  for (let i = 0; i < n; i++) {
    features[i * p] = 1;
    featuresT[i] = 1;
    for (let k = 0; k < d; k++) {
      const t = X[i * d + k] - center[k];
      features[i * p + 1 + k] = t;
      features[i * p + 1 + d + k] = t * t;
      featuresT[(1 + k) * n + i] = t;
      featuresT[(1 + d + k) * n + i] = t * t;
    }
  }
  const A = Float64Array.from(hostMatMul(featuresT, p, n, features, p));
  const products = hostMatMul(featuresT, p, n, Float32Array.from(Y.subarray(0, n * outputs)), outputs);
  const B = Array.from({ length: outputs }, (_, o) => Float64Array.from({ length: p }, (_, a) => products[a * outputs + o]));
  for (let a = 1; a < p; a++) A[a * p + a] += RIDGE * Math.max(A[a * p + a], 1e-12) + 1e-12;
  if (!choleskyInPlace(A, p)) throw new Error('quadratic model: normal equations not positive definite');
  return B.map((b) => {
    solveLowerInPlace(A, p, b);
    solveLowerTransposedInPlace(A, p, b);
    return quadraticPath(b, d, center);
  });
}

/** The model with coefficients b = [a, b_1..d, c_1..d] around `center`, as a path. */
function quadraticPath(b: Float64Array, d: number, center: Float64Array): PosteriorPath {
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
