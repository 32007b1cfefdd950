import type { Random } from '../random.js';
import { tf } from '../tensor/backend.js';
import { readBack } from '../tensor/read-back.js';
import { choleskyInPlace, solveLowerInPlace, solveLowerTransposedInPlace } from './dense64.js';
import { withJitter } from './jitter.js';
import { maternFromSquaredDistance, maternGram, scaleInputs } from './matern.js';
import type { GpHyperparameters } from './priors.js';
import { warpInputs, warpSlopes, type InputWarp } from './warp.js';

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
 * The draws are made in float64 on the CPU (the features, the Cholesky factor of the local
 * kernel matrix and the data weights); they are evaluated at many candidates on the tensor
 * backend in float32 (`PosteriorDraws.at`), and at single points with gradients in float64
 * (`PosteriorPath`, for refinement). Float32 suffices there: a fit's noise variance is at least
 * NOISE_FLOOR (1e-4 of the standardized outputs' variance), which keeps the data weights to a few
 * hundred, and the
 * float32 draws agree with the float64 ones to about 1e-3 of their spread over the candidates
 * (measured on DTLZ2 in 30 dimensions; test/pathwise-tensor.test.ts). Meant for local models (n up
 * to a few hundred).
 */

/** Random Fourier features per prior draw: enough for a smooth draw in tens of dimensions. */
export const DEFAULT_FEATURES = 512;

const MATERN_NU = 2.5;
const SQRT5 = Math.sqrt(5);

/** One posterior draw as a function: values at points, or value and gradient at one, in float64 on the CPU. */
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
   * Every output's draw at `count x d` points, as `count x outputs` row-major, computed on the
   * tensor backend (the GPU where there is one) in float32: the features as one product with the
   * frequencies, the data term as one Matern kernel block times the weights, in chunks of bounded
   * size. The draws are read back asynchronously.
   */
  at(points: Float64Array, count: number): Promise<Float64Array>;
  /**
   * Every output's draw and its gradient with respect to the point at `count x d` points, on the
   * tensor backend as `at`: values `count x outputs`, gradients `count x outputs x d` (gradient
   * refinement of many candidates at once).
   */
  withGradients(points: Float64Array, count: number): Promise<{ values: Float64Array; gradients: Float64Array }>;
  /** output k's draw as a path of its own, in float64 on the CPU (single points; the exact reference of the tensor evaluation) */
  path(k: number): PosteriorPath;
  /** frees the draws' tensors (uploaded at the first `at`); `at` uploads them again if called later */
  dispose(): void;
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
  const { warp, ...kernel } = hyperparameters;
  if (warp) return warpedDraws(posteriorDraws(warpInputs(X, n, d, warp), Y, n, d, outputs, kernel, random, features), d, warp);
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
  const inverseSquared = Float64Array.from(lengthscales, (l) => 1 / (l * l));
  const device = new DrawsOnDevice(X, n, d, outputs, hyperparameters, prior, weights);

  /** output k's draw at one point, in float64: the prior features plus Σ_i w_i k(x, x_i) */
  const single = (x: Float64Array, k: number, gradient?: Float64Array): number => {
    let value = gradient ? prior.withGradient(x, k, gradient) : prior.at(x, 1)[k];
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
      if (gradient) {
        const h = w[i] * (5 / 3) * (1 + SQRT5 * r) * e;
        for (let j = 0; j < d; j++) gradient[j] -= h * (x[j] - X[i * d + j]) * inverseSquared[j];
      }
    }
    return value;
  };

  const path = (k: number): PosteriorPath => ({
    at(points, count) {
      return Float64Array.from({ length: count }, (_, a) => single(points.subarray(a * d, (a + 1) * d), k));
    },
    withGradient: (x, gradient) => single(x, k, gradient),
  });
  return {
    outputs,
    at: (points, count) => device.at(points, count),
    withGradients: (points, count) => device.withGradients(points, count),
    path,
    dispose: () => device.dispose(),
  };
}

/**
 * Draws of a GP on warped inputs (warp.ts) as functions of the raw inputs: points are warped on
 * their way in (in float64 on the CPU), and gradients by u are multiplied by w′(x).
 */
function warpedDraws(draws: PosteriorDraws, d: number, warp: InputWarp): PosteriorDraws {
  const outputs = draws.outputs;
  return {
    outputs,
    at: (points, count) => draws.at(warpInputs(points, count, d, warp), count),
    async withGradients(points, count) {
      const { values, gradients } = await draws.withGradients(warpInputs(points, count, d, warp), count);
      const slopes = warpSlopes(points, count, d, warp);
      for (let a = 0; a < count; a++) {
        for (let k = 0; k < outputs; k++) for (let j = 0; j < d; j++) gradients[(a * outputs + k) * d + j] *= slopes[a * d + j];
      }
      return { values, gradients };
    },
    path(k) {
      const inner = draws.path(k);
      return {
        at: (points, count) => inner.at(warpInputs(points, count, d, warp), count),
        withGradient(x, gradient) {
          const value = inner.withGradient(warpInputs(x, 1, d, warp), gradient);
          const slopes = warpSlopes(x, 1, d, warp);
          for (let j = 0; j < d; j++) gradient[j] *= slopes[j];
          return value;
        },
      };
    },
    dispose: () => draws.dispose(),
  };
}

/**
 * Kernel-block entries (candidates × max(features, data rows)) one chunk of `PosteriorDraws.at`
 * may hold: 16M floats, 64 MB per intermediate, so 50,000 candidates against 5,000 points run in
 * a few chunks rather than one gigabyte buffer.
 */
const CHUNK_ENTRIES = 1 << 24;

/**
 * The draws' tensors and their evaluation. Inputs are centred on the data's mean before anything
 * is multiplied, so float32 keeps its digits where the candidates are: the feature arguments
 * become ω·(x − c) + (b + ω·c), with the constant in float64, and the squared distances
 * |z|² − 2 z·z_i + |z_i|² are formed from small |z|.
 */
class DrawsOnDevice {
  private uploaded: {
    frequencies: tf.Tensor2D;
    frequenciesTransposed: tf.Tensor2D;
    centredData: tf.Tensor2D;
    inverseSquaredLengthscales: tf.Tensor2D;
    phase: tf.Tensor2D;
    featureWeights: tf.Tensor2D;
    center: tf.Tensor2D;
    inverseLengthscales: tf.Tensor2D;
    minusTwoZt: tf.Tensor2D;
    dataNorms: tf.Tensor2D;
    dataWeights: tf.Tensor2D;
  } | null = null;
  private readonly center: Float64Array;

  constructor(
    private readonly X: Float64Array,
    private readonly n: number,
    private readonly d: number,
    private readonly outputs: number,
    private readonly hyperparameters: GpHyperparameters,
    private readonly prior: PriorDraws,
    private readonly weights: readonly Float64Array[],
  ) {
    this.center = new Float64Array(d);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) this.center[j] += X[i * d + j] / n;
  }

  async at(points: Float64Array, count: number): Promise<Float64Array> {
    if (points.length < count * this.d) throw new Error(`Kiln: posterior draws got ${points.length} values for ${count} points of dimension ${this.d}.`);
    const t = (this.uploaded ??= this.upload());
    const rows = Math.max(1, Math.floor(CHUNK_ENTRIES / Math.max(this.n, this.prior.features)));
    const chunks: tf.Tensor2D[] = [];
    for (let start = 0; start < count; start += rows) {
      const size = Math.min(rows, count - start);
      const P = Float32Array.from(points.subarray(start * this.d, (start + size) * this.d));
      chunks.push(tf.tidy(() => this.evaluate(t, tf.tensor2d(P, [size, this.d]))));
    }
    const out = new Float64Array(count * this.outputs);
    let offset = 0;
    for (const v of await readBack(...chunks)) {
      out.set(v, offset);
      offset += v.length;
    }
    return out;
  }

  /**
   * Values and gradients at `count x d` points. With a = ω·(x − c) + b', the features' gradient is
   * −Σ_f w_f sin(a_f) ω_f; with H_i = s²·5/3 (1 + √5 r_i) e^{−√5 r_i}, the data term's is
   * −Σ_i u_i H_i (x − x_i) / l² for data weights u (matern.ts: ∂k/∂x = −H (x − x_i) / l²).
   */
  async withGradients(points: Float64Array, count: number): Promise<{ values: Float64Array; gradients: Float64Array }> {
    const { d, n, outputs } = this;
    const t = (this.uploaded ??= this.upload());
    const s2 = this.hyperparameters.outputScale;
    const [values, gradients] = tf.tidy(() => {
      const centred = tf.sub(tf.tensor2d(Float32Array.from(points.subarray(0, count * d)), [count, d]), t.center);
      const argument = tf.add(tf.matMul(centred, t.frequencies), t.phase);
      const z = tf.mul(centred, t.inverseLengthscales);
      const r2 = tf.maximum(tf.add(tf.add(tf.matMul(z, t.minusTwoZt), t.dataNorms), tf.sum(tf.square(z), 1, true)), 1e-12);
      const r = tf.mul(tf.sqrt(r2), SQRT5);
      const decay = tf.mul(tf.exp(tf.neg(r)), s2);
      const kernel = tf.mul(tf.add(tf.add(r, tf.mul(r2, 5 / 3)), 1), decay);
      const slope = tf.mul(tf.add(r, 1), tf.mul(decay, 5 / 3));
      const value = tf.add(tf.matMul(tf.cos(argument), t.featureWeights), tf.matMul(kernel, t.dataWeights));
      const sine = tf.neg(tf.sin(argument));
      const perOutput = Array.from({ length: outputs }, (_, k) => {
        const w = tf.slice(t.featureWeights, [0, k], [this.prior.features, 1]);
        const u = tf.slice(t.dataWeights, [0, k], [n, 1]);
        const features = tf.matMul(tf.mul(sine, tf.transpose(w)), t.frequenciesTransposed);
        const weighted = tf.mul(slope, tf.transpose(u));
        const data = tf.mul(tf.sub(tf.matMul(weighted, t.centredData), tf.mul(tf.sum(weighted, 1, true), centred)), t.inverseSquaredLengthscales);
        return tf.add(features, data);
      });
      // `count x outputs x d`
      return [value, tf.stack(perOutput, 1)];
    });
    const [v, g] = await readBack(values, gradients);
    return { values: v, gradients: g };
  }

  dispose(): void {
    if (this.uploaded) for (const t of Object.values(this.uploaded)) t.dispose();
    this.uploaded = null;
  }

  /** `rows x outputs` draws at raw points P (`rows x d`). */
  private evaluate(t: NonNullable<DrawsOnDevice['uploaded']>, P: tf.Tensor2D): tf.Tensor2D {
    const centred = tf.sub(P, t.center);
    const features = tf.matMul(tf.cos(tf.add(tf.matMul(centred, t.frequencies), t.phase)), t.featureWeights);
    const z = tf.mul(centred, t.inverseLengthscales);
    const r2 = tf.add(tf.add(tf.matMul(z, t.minusTwoZt), t.dataNorms), tf.sum(tf.square(z), 1, true));
    const kernel = maternFromSquaredDistance(r2, this.hyperparameters.outputScale);
    return tf.add(features, tf.matMul(kernel as tf.Tensor2D, t.dataWeights));
  }

  private upload(): NonNullable<DrawsOnDevice['uploaded']> {
    const { X, n, d, outputs, center, prior } = this;
    const F = prior.features;
    const { lengthscales } = this.hyperparameters;
    const frequencies = new Float32Array(d * F);
    const phase = new Float32Array(F);
    for (let f = 0; f < F; f++) {
      let shift = prior.phase[f];
      for (let j = 0; j < d; j++) {
        frequencies[j * F + f] = prior.omega[f * d + j];
        shift += prior.omega[f * d + j] * center[j];
      }
      phase[f] = shift;
    }
    const minusTwoZt = new Float32Array(d * n);
    const dataNorms = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let norm = 0;
      for (let j = 0; j < d; j++) {
        const z = (X[i * d + j] - center[j]) / lengthscales[j];
        minusTwoZt[j * n + i] = -2 * z;
        norm += z * z;
      }
      dataNorms[i] = norm;
    }
    const dataWeights = new Float32Array(n * outputs);
    for (let k = 0; k < outputs; k++) for (let i = 0; i < n; i++) dataWeights[i * outputs + k] = this.weights[k][i];
    const centredData = new Float32Array(n * d);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) centredData[i * d + j] = X[i * d + j] - center[j];
    const frequenciesTransposed = new Float32Array(F * d);
    for (let f = 0; f < F; f++) for (let j = 0; j < d; j++) frequenciesTransposed[f * d + j] = prior.omega[f * d + j];
    return {
      frequencies: tf.tensor2d(frequencies, [d, F]),
      frequenciesTransposed: tf.tensor2d(frequenciesTransposed, [F, d]),
      centredData: tf.tensor2d(centredData, [n, d]),
      inverseSquaredLengthscales: tf.tensor2d(
        Float32Array.from(lengthscales, (l) => 1 / (l * l)),
        [1, d],
      ),
      phase: tf.tensor2d(phase, [1, F]),
      featureWeights: tf.tensor2d(Float32Array.from(prior.weight), [F, outputs]),
      center: tf.tensor2d(Float32Array.from(center), [1, d]),
      inverseLengthscales: tf.tensor2d(
        Float32Array.from(lengthscales, (l) => 1 / l),
        [1, d],
      ),
      minusTwoZt: tf.tensor2d(minusTwoZt, [d, n]),
      dataNorms: tf.tensor2d(dataNorms, [1, n]),
      dataWeights: tf.tensor2d(dataWeights, [n, outputs]),
    };
  }
}

interface PriorDraws {
  readonly features: number;
  /** `features x d` frequencies ω, row-major */
  readonly omega: Float64Array;
  /** length-features phases b */
  readonly phase: Float64Array;
  /** `features x outputs` weights, the amplitude √(2s²/F) included */
  readonly weight: Float64Array;
  /** `rows x outputs` values at `rows x d` points, in float64 */
  at(points: Float64Array, rows: number): Float64Array;
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
    features,
    omega,
    phase,
    weight,
    at(points, rows) {
      const out = new Float64Array(rows * outputs);
      const cosines = new Float64Array(features);
      for (let a = 0; a < rows; a++) {
        for (let f = 0; f < features; f++) cosines[f] = Math.cos(argument(points, a * d, f));
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
