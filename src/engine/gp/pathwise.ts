import type { Random } from '../random.js';
import { choleskyInPlace, solveLowerInPlace, solveLowerTransposedInPlace } from './dense64.js';
import { withJitter } from './jitter.js';
import { maternCorrelation, maternGram, scaleInputs } from './matern.js';
import type { GpHyperparameters } from './priors.js';

/**
 * One draw of a GP posterior *function*, evaluated at many points, by pathwise conditioning
 * (Wilson et al., "Efficiently sampling functions from Gaussian process posteriors", ICML 2020):
 *
 *   f(x) = f̃(x) + k(x, X) (K + σ²I)⁻¹ (y − f̃(X) − ε),   ε ~ N(0, σ²I),
 *
 * where f̃ is a prior draw by random Fourier features (Rahimi & Recht 2007). For Matern-5/2 the
 * feature frequencies are Gaussian divided by the lengthscales and by √γ, γ ~ Gamma(5/2, 5/2)
 * per feature (the Student-t spectral density as a scale mixture; BoTorch's
 * RandomFourierFeatures does the same). The data term is exact, so the draw is right where the
 * data are and only the prior part is approximate; the cost is O(N (F + n) d) for N points, F
 * features and n data, instead of the O(N³) of a joint draw, which makes Thompson sampling over
 * thousands of candidates cheap.
 *
 * Everything is float64 and dense: meant for local models (n up to a few hundred).
 */

/** Random Fourier features per prior draw: enough for a smooth draw in tens of dimensions. */
export const DEFAULT_FEATURES = 512;

const MATERN_NU = 2.5;
const SQRT5 = Math.sqrt(5);
/**
 * A row that differs from the base point in at most this share of its coordinates is evaluated
 * from the base's sums plus its differing coordinates (PosteriorDraws.at); denser rows in full.
 */
const SPARSE_SHARE = 0.25;

/** One posterior draw as a function: values at many points, or value and gradient at one. */
export interface PosteriorPath {
  /** the draw at `count x d` points (standardized units: the caller un-standardizes) */
  at(points: Float64Array, count: number): Float64Array;
  /** the draw at x (length d); its gradient with respect to x is written into `gradient` */
  withGradient(x: Float64Array, gradient: Float64Array): number;
}

/**
 * Independent posterior draws of several outputs that share one GP's hyperparameters (the outputs
 * of one region's shared constraint model, or a single output): one kernel matrix and one
 * Cholesky factor for all, one set of Fourier frequencies and phases with independent weights per
 * output (the prior draws are then uncorrelated, each with the kernel's exact RFF law), so adding
 * an output costs O((F + n)·N) at N points rather than a whole draw.
 */
export interface PosteriorDraws {
  readonly outputs: number;
  /**
   * Every output's draw at `count x d` points, as `count x outputs` row-major. With `base`
   * (length d), rows that differ from it in few coordinates (trust-region candidates, copies of
   * the centre with a few coordinates redrawn) are evaluated from the base's feature arguments and
   * distances plus their differing coordinates only: the same values up to rounding, at
   * O(changed) instead of O(d) per feature and data point.
   */
  at(points: Float64Array, count: number, base?: Float64Array): Float64Array;
  /** output k's draw as a path of its own */
  path(k: number): PosteriorPath;
}

/**
 * Draws one posterior function of the GP with these hyperparameters on X: `n x d` inputs and
 * y: length n standardized outputs.
 */
export function posteriorPath(
  X: Float64Array,
  y: Float64Array,
  n: number,
  d: number,
  hyperparameters: GpHyperparameters,
  random: Random,
  features = DEFAULT_FEATURES,
): PosteriorPath {
  return posteriorDraws(X, y, n, d, 1, hyperparameters, random, features).path(0);
}

/**
 * Draws one posterior function per output of `n x outputs` standardized Y on `n x d` inputs X,
 * all with these hyperparameters. With one output the random stream is consumed exactly as by
 * posteriorPath.
 */
export function posteriorDraws(
  X: Float64Array,
  Y: Float64Array,
  n: number,
  d: number,
  outputs: number,
  hyperparameters: GpHyperparameters,
  random: Random,
  features = DEFAULT_FEATURES,
): PosteriorDraws {
  const { lengthscales, outputScale, noise } = hyperparameters;
  const prior = priorDraws(d, lengthscales, outputScale, features, outputs, random);
  const residual = prior.at(X, n);
  const noiseStd = Math.sqrt(noise);
  for (let i = 0; i < n * outputs; i++) residual[i] = Y[i] - residual[i] - noiseStd * random.normal();

  const Z = scaleInputs(X, n, d, lengthscales);
  const K = new Float64Array(n * n);
  maternGram(Z, n, d, outputScale, K);
  const factor = new Float64Array(n * n);
  withJitter(
    outputScale + noise,
    (jitter) => {
      factor.set(K);
      for (let i = 0; i < n; i++) factor[i * n + i] += noise + jitter;
      return choleskyInPlace(factor, n) ? true : null;
    },
    'local GP covariance matrix',
  );
  // per output, (K + σ²I)⁻¹ (y − f̃(X) − ε): one factor serves every column
  const weights = Array.from({ length: outputs }, (_, k) => {
    const v = Float64Array.from({ length: n }, (_, i) => residual[i * outputs + k]);
    solveLowerInPlace(factor, n, v);
    solveLowerTransposedInPlace(factor, n, v);
    return v;
  });
  const inverse = Float64Array.from(lengthscales, (l) => 1 / l);
  const inverseSquared = Float64Array.from(lengthscales, (l) => 1 / (l * l));

  const at = (points: Float64Array, count: number, base?: Float64Array): Float64Array => {
    const values = prior.at(points, count, base);
    const zb = base ? Float64Array.from(base, (v, j) => v * inverse[j]) : null;
    const baseR2 = zb ? squaredDistances(zb, Z, n, d) : null;
    const zx = new Float64Array(d);
    const cross = new Float64Array(n);
    for (let a = 0; a < count; a++) {
      const p = a * d;
      const changed = base ? differing(points, p, base, d) : null;
      if (changed && zb && baseR2) {
        // r² = r²(base) + Σ over changed j of (z_j − Z_ij)² − (zb_j − Z_ij)²
        for (let i = 0; i < n; i++) {
          let r2 = baseR2[i];
          for (const j of changed) {
            const t = points[p + j] * inverse[j] - Z[i * d + j];
            const u = zb[j] - Z[i * d + j];
            r2 += t * t - u * u;
          }
          cross[i] = outputScale * maternCorrelation(Math.sqrt(Math.max(0, r2)));
        }
      } else {
        for (let j = 0; j < d; j++) zx[j] = points[p + j] * inverse[j];
        for (let i = 0; i < n; i++) {
          let r2 = 0;
          for (let j = 0; j < d; j++) {
            const t = zx[j] - Z[i * d + j];
            r2 += t * t;
          }
          cross[i] = outputScale * maternCorrelation(Math.sqrt(r2));
        }
      }
      for (let k = 0; k < outputs; k++) {
        const w = weights[k];
        let s = 0;
        for (let i = 0; i < n; i++) s += cross[i] * w[i];
        values[a * outputs + k] += s;
      }
    }
    return values;
  };

  const path = (k: number): PosteriorPath => ({
    at(points, count) {
      const all = at(points, count);
      return outputs === 1 ? all : Float64Array.from({ length: count }, (_, a) => all[a * outputs + k]);
    },
    withGradient(x, gradient) {
      let value = prior.withGradient(x, k, gradient);
      const w = weights[k];
      // data term Σ_i w_i k(x, x_i): ∂k/∂x_k = −H (x_k − x_ik) / l_k², H = s²·5/3 (1 + √5 r) e^{−√5 r}
      for (let i = 0; i < n; i++) {
        let r2 = 0;
        for (let j = 0; j < d; j++) {
          const t = x[j] - X[i * d + j];
          r2 += t * t * inverseSquared[j];
        }
        const r = Math.sqrt(r2);
        const e = outputScale * Math.exp(-SQRT5 * r);
        value += w[i] * (1 + SQRT5 * r + (5 / 3) * r2) * e;
        const h = w[i] * (5 / 3) * (1 + SQRT5 * r) * e;
        for (let j = 0; j < d; j++) gradient[j] -= h * (x[j] - X[i * d + j]) * inverseSquared[j];
      }
      return value;
    },
  });
  return { outputs, at, path };
}

/** Squared distances from z (length d) to each row of `n x d` Z. */
function squaredDistances(z: Float64Array, Z: Float64Array, n: number, d: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let r2 = 0;
    for (let j = 0; j < d; j++) {
      const t = z[j] - Z[i * d + j];
      r2 += t * t;
    }
    out[i] = r2;
  }
  return out;
}

/** The coordinates where row `points[p..p+d)` differs from base, or null when too many do for the sparse path. */
function differing(points: Float64Array, p: number, base: Float64Array, d: number): number[] | null {
  const most = Math.floor(SPARSE_SHARE * d);
  const changed: number[] = [];
  for (let j = 0; j < d; j++) {
    if (points[p + j] === base[j]) continue;
    if (changed.length === most) return null;
    changed.push(j);
  }
  return changed;
}

interface PriorDraws {
  /** `rows x outputs` values at `rows x d` points; `base` as for PosteriorDraws.at */
  at(points: Float64Array, rows: number, base?: Float64Array): Float64Array;
  /** output k's value at x; its gradient written into `gradient` */
  withGradient(x: Float64Array, k: number, gradient: Float64Array): number;
}

/**
 * Prior draws f̃_k(x) = √(2s²/F) Σ_f w_fk cos(ω_fᵀx + b_f), one per output, sharing the
 * frequencies ω and phases b, as functions of `rows x d` inputs.
 */
function priorDraws(d: number, lengthscales: ArrayLike<number>, outputScale: number, features: number, outputs: number, random: Random): PriorDraws {
  const omega = new Float64Array(features * d);
  const phase = new Float64Array(features);
  /** `features x outputs` */
  const weight = new Float64Array(features * outputs);
  const amplitude = Math.sqrt((2 * outputScale) / features);
  for (let f = 0; f < features; f++) {
    const scale = 1 / Math.sqrt(gammaDraw(MATERN_NU, random) / MATERN_NU);
    for (let k = 0; k < d; k++) omega[f * d + k] = (random.normal() * scale) / lengthscales[k];
    phase[f] = 2 * Math.PI * random.uniform();
    for (let k = 0; k < outputs; k++) weight[f * outputs + k] = amplitude * random.normal();
  }
  const argument = (points: Float64Array, p: number, f: number): number => {
    const o = f * d;
    let t = phase[f];
    for (let k = 0; k < d; k++) t += omega[o + k] * points[p + k];
    return t;
  };
  return {
    at(points, rows, base) {
      const out = new Float64Array(rows * outputs);
      const baseArgument = base ? Float64Array.from({ length: features }, (_, f) => argument(base, 0, f)) : null;
      const cosines = new Float64Array(features);
      for (let a = 0; a < rows; a++) {
        const p = a * d;
        const changed = base ? differing(points, p, base, d) : null;
        for (let f = 0; f < features; f++) {
          let t: number;
          if (changed && base && baseArgument) {
            t = baseArgument[f];
            for (const j of changed) t += omega[f * d + j] * (points[p + j] - base[j]);
          } else {
            t = argument(points, p, f);
          }
          cosines[f] = Math.cos(t);
        }
        for (let k = 0; k < outputs; k++) {
          let s = 0;
          for (let f = 0; f < features; f++) s += weight[f * outputs + k] * cosines[f];
          out[a * outputs + k] = s;
        }
      }
      return out;
    },
    withGradient(x, k, gradient) {
      gradient.fill(0);
      let s = 0;
      for (let f = 0; f < features; f++) {
        const t = argument(x, 0, f);
        const w = weight[f * outputs + k];
        s += w * Math.cos(t);
        const slope = -w * Math.sin(t);
        for (let j = 0; j < d; j++) gradient[j] += slope * omega[f * d + j];
      }
      return s;
    },
  };
}

/** Gamma(shape, rate 1) by Marsaglia & Tsang (2000); shape ≥ 1. */
export function gammaDraw(shape: number, random: Random): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = random.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random.uniform();
    if (u < 1 - 0.0331 * x ** 4) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}
