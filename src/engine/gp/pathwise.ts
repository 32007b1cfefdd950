import type { Random } from '../random.js';
import { choleskyInPlace, solveLowerInPlace, solveLowerTransposedInPlace } from './dense64.js';
import { withJitter } from './jitter.js';
import { maternCross, maternGram, scaleInputs } from './matern.js';
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

/** One posterior draw as a function: values at many points, or value and gradient at one. */
export interface PosteriorPath {
  /** the draw at `count x d` points (standardized units: the caller un-standardizes) */
  at(points: Float64Array, count: number): Float64Array;
  /** the draw at x (length d); its gradient with respect to x is written into `gradient` */
  withGradient(x: Float64Array, gradient: Float64Array): number;
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
  const { lengthscales, outputScale, noise } = hyperparameters;
  const prior = priorDraw(d, lengthscales, outputScale, features, random);
  const residual = prior.at(X, n);
  const noiseStd = Math.sqrt(noise);
  for (let i = 0; i < n; i++) residual[i] = y[i] - residual[i] - noiseStd * random.normal();

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
  solveLowerInPlace(factor, n, residual);
  solveLowerTransposedInPlace(factor, n, residual);

  const inverseSquared = Float64Array.from(lengthscales, (l) => 1 / (l * l));
  return {
    at(points, count) {
      const values = prior.at(points, count);
      const Zc = scaleInputs(points, count, d, lengthscales);
      const cross = maternCross(Zc, count, Z, n, d, outputScale);
      for (let a = 0; a < count; a++) {
        let s = 0;
        const row = a * n;
        for (let i = 0; i < n; i++) s += cross[row + i] * residual[i];
        values[a] += s;
      }
      return values;
    },
    withGradient(x, gradient) {
      let value = prior.withGradient(x, gradient);
      // data term Σ_i v_i k(x, x_i): ∂k/∂x_k = −H (x_k − x_ik) / l_k², H = s²·5/3 (1 + √5 r) e^{−√5 r}
      for (let i = 0; i < n; i++) {
        let r2 = 0;
        for (let k = 0; k < d; k++) {
          const t = x[k] - X[i * d + k];
          r2 += t * t * inverseSquared[k];
        }
        const r = Math.sqrt(r2);
        const e = outputScale * Math.exp(-SQRT5 * r);
        value += residual[i] * (1 + SQRT5 * r + (5 / 3) * r2) * e;
        const h = residual[i] * (5 / 3) * (1 + SQRT5 * r) * e;
        for (let k = 0; k < d; k++) gradient[k] -= h * (x[k] - X[i * d + k]) * inverseSquared[k];
      }
      return value;
    },
  };
}

interface PriorDraw {
  at(points: Float64Array, rows: number): Float64Array;
  withGradient(x: Float64Array, gradient: Float64Array): number;
}

/** A prior draw f̃(x) = √(2s²/F) Σ_f w_f cos(ω_fᵀx + b_f) as a function of `rows x d` inputs. */
function priorDraw(d: number, lengthscales: ArrayLike<number>, outputScale: number, features: number, random: Random): PriorDraw {
  const omega = new Float64Array(features * d);
  const phase = new Float64Array(features);
  const weight = new Float64Array(features);
  const amplitude = Math.sqrt((2 * outputScale) / features);
  for (let f = 0; f < features; f++) {
    const scale = 1 / Math.sqrt(gammaDraw(MATERN_NU, random) / MATERN_NU);
    for (let k = 0; k < d; k++) omega[f * d + k] = (random.normal() * scale) / lengthscales[k];
    phase[f] = 2 * Math.PI * random.uniform();
    weight[f] = amplitude * random.normal();
  }
  const argument = (points: Float64Array, p: number, f: number): number => {
    const o = f * d;
    let t = phase[f];
    for (let k = 0; k < d; k++) t += omega[o + k] * points[p + k];
    return t;
  };
  return {
    at(points, rows) {
      const out = new Float64Array(rows);
      for (let a = 0; a < rows; a++) {
        let s = 0;
        for (let f = 0; f < features; f++) s += weight[f] * Math.cos(argument(points, a * d, f));
        out[a] = s;
      }
      return out;
    },
    withGradient(x, gradient) {
      gradient.fill(0);
      let s = 0;
      for (let f = 0; f < features; f++) {
        const t = argument(x, 0, f);
        s += weight[f] * Math.cos(t);
        const slope = -weight[f] * Math.sin(t);
        for (let k = 0; k < d; k++) gradient[k] += slope * omega[f * d + k];
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
