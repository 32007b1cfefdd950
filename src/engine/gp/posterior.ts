import { tf } from '../tensor/backend.js';
import type { GaussianProcess } from './gaussian-process.js';
import { maternFromSquaredDistance } from './matern.js';
import { isIdentityWarp, warpTensor, type InputWarp } from './warp.js';

/** Affine map from standardized to original output units: value = mean + std · standardized. */
export interface OutputTransform {
  mean: number;
  std: number;
}

/**
 * Smallest latent variance reported, in standardized units: float32 cancellation in
 * s² − ‖L⁻¹k*‖² can go slightly negative next to training points.
 */
const VARIANCE_FLOOR = 1e-10;

/**
 * The posterior of m independent GPs on the same training inputs as ONE tensor computation.
 * Distances for all outputs come from a single matmul: with Z_o = (X − c)/l_o,
 *
 *   r²_o(x, x_j) = |z_o(x)|² − 2 z_o(x)·z_o(x_j) + |z_o(x_j)|²  =  [z², z] · [[E], [−2 Z_oᵀ]] + |z_o(x_j)|²
 *
 * stacked block-diagonally over outputs (E: blocks of ones), so the kernel values of every output
 * form one `q x mn` tensor, the means are one matmul with block-diagonal weights, and only the
 * variance needs one matmul per output (with that output's L⁻ᵀ). Centering at the training mean
 * c keeps |z|² small, which is what limits the float32 cancellation in r² near training points.
 *
 * When some output's GP warps its inputs (warp.ts), the query points are warped per output first:
 * z_o = (w_o(X) − c_o)/l_o with c_o the mean of that GP's warped training inputs, from the
 * `q x md` side-by-side warped copies instead of the one matmul (a few elementwise ops per output).
 */
export class BatchedPosterior {
  private readonly scale: tf.Tensor2D;
  private readonly offset: tf.Tensor2D;
  private readonly distance: tf.Tensor2D;
  private readonly trainNorms: tf.Tensor2D;
  private readonly outputScales: tf.Tensor2D;
  private readonly weights: tf.Tensor2D;
  private readonly priorVariance: tf.Tensor2D;
  private readonly outputStd: tf.Tensor2D;
  private readonly outputMean: tf.Tensor2D;
  private readonly outputVariance: tf.Tensor2D;
  /** per output, its warp (null: none); null when no output warps */
  private readonly warps: (InputWarp | null)[] | null;
  /** `1 x md`: 1/l per output and input (warped outputs only) */
  private readonly inverseLengthscales: tf.Tensor2D | null;
  private readonly n: number;
  readonly d: number;
  readonly m: number;

  /**
   * gps: one per output, all on the same `n x d` inputs; transforms: one per output; center:
   * length-d centering point (the training inputs' mean). Keeps references to each GP's L⁻ᵀ
   * tensor, which the GPs own.
   */
  constructor(
    private readonly gps: readonly GaussianProcess[],
    transforms: readonly OutputTransform[],
    center: Float64Array,
  ) {
    const m = gps.length;
    const { n, d } = gps[0];
    this.n = n;
    this.d = d;
    this.m = m;
    const md = m * d;
    const mn = m * n;
    const scale = new Float32Array(d * md);
    const offset = new Float32Array(md);
    const distance = new Float32Array(2 * md * mn);
    const trainNorms = new Float32Array(mn);
    const outputScales = new Float32Array(mn);
    const weights = new Float32Array(mn * m);
    const inverseLengthscales = new Float32Array(md);
    gps.forEach((gp, o) => {
      const { lengthscales, outputScale, warp } = gp.hyperparameters;
      const c = warp && !isIdentityWarp(warp) ? columnMeans(gp.X, n, d) : center;
      for (let k = 0; k < d; k++) {
        scale[k * md + o * d + k] = 1 / lengthscales[k];
        offset[o * d + k] = c[k] / lengthscales[k];
        inverseLengthscales[o * d + k] = 1 / lengthscales[k];
      }
      for (let j = 0; j < n; j++) {
        let norm = 0;
        for (let k = 0; k < d; k++) {
          const z = (gp.X[j * d + k] - c[k]) / lengthscales[k];
          norm += z * z;
          distance[(o * d + k) * mn + o * n + j] = 1;
          distance[(md + o * d + k) * mn + o * n + j] = -2 * z;
        }
        trainNorms[o * n + j] = norm;
        outputScales[o * n + j] = outputScale;
        weights[(o * n + j) * m + o] = gp.alpha[j];
      }
    });
    const warps = gps.map(({ hyperparameters: { warp } }) => (warp && !isIdentityWarp(warp) ? warp : null));
    const warped = warps.some((warp) => warp !== null);
    this.warps = warped ? warps : null;
    this.inverseLengthscales = warped ? tf.tensor2d(inverseLengthscales, [1, md]) : null;
    this.scale = tf.tensor2d(scale, [d, md]);
    this.offset = tf.tensor2d(offset, [1, md]);
    this.distance = tf.tensor2d(distance, [2 * md, mn]);
    this.trainNorms = tf.tensor2d(trainNorms, [1, mn]);
    this.outputScales = tf.tensor2d(outputScales, [1, mn]);
    this.weights = tf.tensor2d(weights, [mn, m]);
    this.priorVariance = tf.tensor2d(
      gps.map((gp) => gp.hyperparameters.outputScale),
      [1, m],
    );
    this.outputStd = tf.tensor2d(
      transforms.map((t) => t.std),
      [1, m],
    );
    this.outputMean = tf.tensor2d(
      transforms.map((t) => t.mean),
      [1, m],
    );
    this.outputVariance = tf.tensor2d(
      transforms.map((t) => t.std * t.std),
      [1, m],
    );
  }

  /**
   * Latent posterior mean and variance at X (`q x d` float32 tensor), each `q x m`, in original
   * output units. The caller owns the results.
   */
  compute(X: tf.Tensor2D): { mean: tf.Tensor2D; variance: tf.Tensor2D } {
    if (X.rank !== 2 || X.shape[1] !== this.d) {
      throw new Error(`Kiln: posterior inputs must be a q x ${this.d} tensor, got shape [${X.shape.join(', ')}].`);
    }
    return tf.tidy(() => {
      const q = X.shape[0];
      const z = this.scaled(X);
      const r2 = tf.add(tf.matMul(tf.concat([tf.square(z), z], 1), this.distance), this.trainNorms);
      const kernel = tf.mul<tf.Tensor2D>(maternFromSquaredDistance(r2, 1), this.outputScales);
      const mean = tf.add(tf.mul(tf.matMul(kernel, this.weights), this.outputStd), this.outputMean);
      const explained = this.gps.map((gp, o) => {
        const ko = this.m === 1 ? kernel : tf.slice(kernel, [0, o * this.n], [q, this.n]);
        return tf.sum(tf.square(tf.matMul(ko, gp.inverseFactorTransposed)), 1, true);
      });
      const latent = tf.sub(this.priorVariance, this.m === 1 ? explained[0] : tf.concat(explained, 1));
      const variance = tf.mul(tf.maximum(latent, VARIANCE_FLOOR), this.outputVariance);
      return { mean: mean as tf.Tensor2D, variance: variance as tf.Tensor2D };
    });
  }

  /**
   * The latent posterior covariance of each of the first `outputs` outputs between the points A
   * (`a x d` float32 tensor) and B (`b x d`), in original output units: an `outputs x a x b`
   * tensor, cov_o(A, B) = k_o(A, B) − (K_{A,X} L⁻ᵀ)(K_{B,X} L⁻ᵀ)ᵀ (Rasmussen & Williams 2006,
   * eq. 2.24). The outputs are independent GPs, so there is no covariance between them. The
   * caller owns the result.
   */
  covariance(A: tf.Tensor2D, B: tf.Tensor2D, outputs: number): tf.Tensor3D {
    for (const [name, P] of [
      ['A', A],
      ['B', B],
    ] as const) {
      if (P.rank !== 2 || P.shape[1] !== this.d) {
        throw new Error(`Kiln: posterior covariance points ${name} must be a q x ${this.d} tensor, got shape [${P.shape.join(', ')}].`);
      }
    }
    if (!(Number.isInteger(outputs) && outputs >= 1 && outputs <= this.m))
      throw new Error(`Kiln: posterior covariance of ${outputs} outputs asked of ${this.m}.`);
    return tf.tidy(() => {
      const [a, b] = [A.shape[0], B.shape[0]];
      const zA = this.scaled(A);
      const zB = this.scaled(B);
      const trained = (z: tf.Tensor2D) =>
        tf.mul<tf.Tensor2D>(
          maternFromSquaredDistance(tf.add(tf.matMul(tf.concat([tf.square(z), z], 1), this.distance), this.trainNorms), 1),
          this.outputScales,
        );
      const [kA, kB] = [trained(zA), trained(zB)];
      const blocks = this.gps.slice(0, outputs).map((gp, o) => {
        const zAo = tf.slice(zA, [0, o * this.d], [a, this.d]);
        const zBo = tf.slice(zB, [0, o * this.d], [b, this.d]);
        const r2 = tf.add(tf.sub(tf.sum(tf.square(zAo), 1, true), tf.mul(tf.matMul(zAo, zBo, false, true), 2)), tf.transpose(tf.sum(tf.square(zBo), 1, true)));
        const prior = maternFromSquaredDistance(r2, gp.hyperparameters.outputScale);
        const vA = tf.matMul(tf.slice(kA, [0, o * this.n], [a, this.n]), gp.inverseFactorTransposed);
        const vB = tf.matMul(tf.slice(kB, [0, o * this.n], [b, this.n]), gp.inverseFactorTransposed);
        return tf.mul(tf.sub(prior, tf.matMul(vA, vB, false, true)), tf.slice(this.outputVariance, [0, o], [1, 1]));
      });
      return tf.stack(blocks) as tf.Tensor3D;
    });
  }

  /** `q x md`: each output's (warped) inputs, centred and over its lengthscales. */
  private scaled(X: tf.Tensor2D): tf.Tensor2D {
    if (!this.warps || !this.inverseLengthscales) return tf.sub(tf.matMul(X, this.scale), this.offset);
    const side = this.warps.map((warp) => (warp ? warpTensor(X, warp) : X));
    return tf.sub(tf.mul(side.length === 1 ? side[0] : tf.concat(side, 1), this.inverseLengthscales), this.offset);
  }

  dispose(): void {
    this.inverseLengthscales?.dispose();
    for (const t of [
      this.scale,
      this.offset,
      this.distance,
      this.trainNorms,
      this.outputScales,
      this.weights,
      this.priorVariance,
      this.outputStd,
      this.outputMean,
      this.outputVariance,
    ]) {
      t.dispose();
    }
  }
}

/** Column means of `n x d` row-major X. */
function columnMeans(X: Float64Array, n: number, d: number): Float64Array {
  const c = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) c[k] += X[i * d + k] / n;
  return c;
}
