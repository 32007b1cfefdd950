import { tensorBackendName, tf } from '../tensor/backend.js';
import { readBack } from '../tensor/read-back.js';
import { Random } from '../random.js';
import { fitHyperparameters } from './fit.js';
import { GaussianProcess } from './gaussian-process.js';
import { BatchedPosterior, type OutputTransform } from './posterior.js';
import { copyHyperparameters, type GpHyperparameters } from './priors.js';

export type { GpHyperparameters } from './priors.js';

export interface GpFitOptions {
  seed: number;
  /** L-BFGS starts per output (default 3, or 2 with a warm start) */
  restarts?: number;
  /** L-BFGS iterations per run (default 200) */
  maxIterations?: number;
  /** warm start per output, e.g. last iteration's hyperparameters */
  initial?: GpHyperparameters[];
  /** diagonal block width of the blocked Cholesky beyond 256 points (default 128; tests use small blocks) */
  blockSize?: number;
  /** try an input warp per output where the fit allows one (default true; fit.ts) */
  warp?: boolean;
}

/**
 * Independent GPs, one per output column: zero mean on standardized outputs (mean removed,
 * divided by the unbiased standard deviation; a constant output gets std 1), a Matern-5/2 ARD
 * kernel and Gaussian noise, with MAP hyperparameters (fit.ts), each output's inputs warped where
 * its fit chose a warp (warp.ts). Posterior queries for all
 * outputs run as one batched tensor computation (posterior.ts).
 */
export class Surrogate {
  private readonly batched: BatchedPosterior;

  private constructor(
    private readonly gps: GaussianProcess[],
    private readonly transforms: OutputTransform[],
    private readonly center: Float64Array,
    readonly n: number,
    readonly d: number,
    readonly m: number,
  ) {
    this.batched = new BatchedPosterior(gps, transforms, center);
  }

  /**
   * X: `n x d` row-major inputs in [0, 1]; Y: `n x m` row-major outputs. Needs an initialized
   * tensor backend (initTensorBackend).
   */
  static fit(X: Float64Array, Y: Float64Array, n: number, d: number, m: number, options: GpFitOptions): Surrogate {
    tensorBackendName();
    checkData(X, Y, n, d, m, 'fit');
    if (options.initial && options.initial.length !== m) {
      throw new Error(`Kiln: ${options.initial.length} warm-start hyperparameter sets were given for ${m} outputs.`);
    }
    const random = new Random(options.seed);
    const hyperparameters = Array.from({ length: m }, (_, o) => {
      const seed = random.seed();
      const y = standardizedColumn(Y, n, m, o);
      return fitHyperparameters(X.slice(0, n * d), y, n, d, {
        seed,
        restarts: options.restarts,
        maxIterations: options.maxIterations,
        initial: options.initial?.[o],
        blockSize: options.blockSize,
        ...(options.warp === false ? { warp: false } : {}),
      }).hyperparameters;
    });
    return Surrogate.build(X, Y, n, d, m, hyperparameters, options.blockSize);
  }

  /**
   * The surrogate with given hyperparameters (one set per output, fitted to the standardized
   * columns, see `standardizedColumn`): the fit may have run elsewhere, e.g. on a pool thread.
   * X: `n x d` row-major inputs in [0, 1]; Y: `n x m` row-major outputs.
   */
  static build(
    X: Float64Array,
    Y: Float64Array,
    n: number,
    d: number,
    m: number,
    hyperparameters: readonly GpHyperparameters[],
    blockSize?: number,
  ): Surrogate {
    tensorBackendName();
    checkData(X, Y, n, d, m, 'build');
    if (hyperparameters.length !== m) {
      throw new Error(`Kiln: ${hyperparameters.length} hyperparameter sets were given for ${m} outputs.`);
    }
    const inputs = X.slice(0, n * d);
    const transforms: OutputTransform[] = [];
    const gps: GaussianProcess[] = [];
    try {
      for (let o = 0; o < m; o++) {
        const raw = Float64Array.from({ length: n }, (_, i) => Y[i * m + o]);
        const transform = standardization(raw);
        const y = raw.map((v) => (v - transform.mean) / transform.std);
        transforms.push(transform);
        gps.push(GaussianProcess.build(inputs, y, n, d, hyperparameters[o], blockSize));
      }
    } catch (error) {
      for (const gp of gps) gp.dispose();
      throw error;
    }
    return new Surrogate(gps, transforms, columnMeans(inputs, n, d), n, d, m);
  }

  /** Per output, in standardized-output units. */
  get hyperparameters(): GpHyperparameters[] {
    return this.gps.map((gp) => copyHyperparameters(gp.hyperparameters));
  }

  /** log p(y | θ) per output, of the standardized outputs. */
  get logMarginalLikelihood(): number[] {
    return this.gps.map((gp) => gp.logMarginalLikelihood);
  }

  /**
   * Posterior of the latent functions at q points in one batched tensor computation over all
   * outputs. X: `q x d` tensor. Returns mean and variance as `q x m` tensors in the original
   * output units. The caller disposes them (usable inside tf.tidy).
   */
  posterior(X: tf.Tensor2D): { mean: tf.Tensor2D; variance: tf.Tensor2D } {
    return this.batched.compute(X);
  }

  /**
   * Same, on plain arrays: X `q x d` row-major → mean, variance `q x m` row-major Float64Array.
   * Asynchronous: a GPU backend reads its results back only so.
   */
  async predict(X: Float64Array, q: number): Promise<{ mean: Float64Array; variance: Float64Array }> {
    if (X.length < q * this.d) throw new Error(`Kiln: predict got ${X.length} values for ${q} points of dimension ${this.d}.`);
    const { mean, variance } = tf.tidy(() => this.batched.compute(tf.tensor2d(Float32Array.from(X.subarray(0, q * this.d)), [q, this.d])));
    const [m, v] = await readBack(mean, variance);
    return { mean: m, variance: v };
  }

  /**
   * The latent posterior covariance of each of the first `outputs` outputs (default all) between
   * the points A (`a x d` row-major) and B (`b x d`): `outputs x a x b` row-major, original
   * output units (posterior.ts, `covariance`).
   */
  async covariance(A: Float64Array, a: number, B: Float64Array, b: number, outputs = this.m): Promise<Float64Array> {
    if (A.length < a * this.d || B.length < b * this.d)
      throw new Error(`Kiln: covariance got ${A.length} and ${B.length} values for ${a} and ${b} points of dimension ${this.d}.`);
    const result = tf.tidy(() =>
      this.batched.covariance(
        tf.tensor2d(Float32Array.from(A.subarray(0, a * this.d)), [a, this.d]),
        tf.tensor2d(Float32Array.from(B.subarray(0, b * this.d)), [b, this.d]),
        outputs,
      ),
    );
    const [values] = await readBack(result);
    return values;
  }

  /**
   * A new surrogate with the same hyperparameters and output standardization and k extra
   * observations appended (pending points, Kriging believer); each output's Cholesky factor is
   * extended rather than recomputed. X: `k x d` row-major; Y: `k x m` row-major. This surrogate
   * stays valid.
   */
  async condition(X: Float64Array, Y: Float64Array, k: number): Promise<Surrogate> {
    checkData(X, Y, k, this.d, this.m, 'condition');
    const gps: GaussianProcess[] = [];
    try {
      for (let o = 0; o < this.m; o++) {
        const { mean, std } = this.transforms[o];
        const y = Float64Array.from({ length: k }, (_, i) => (Y[i * this.m + o] - mean) / std);
        gps.push(await this.gps[o].condition(X, y, k));
      }
    } catch (error) {
      for (const gp of gps) gp.dispose();
      throw error;
    }
    return new Surrogate(gps, this.transforms, this.center, this.n + k, this.d, this.m);
  }

  dispose(): void {
    this.batched.dispose();
    for (const gp of this.gps) gp.dispose();
  }
}

/** Output column o of `n x m` row-major Y, standardized as the surrogate does (length n). */
export function standardizedColumn(Y: Float64Array, n: number, m: number, o: number): Float64Array {
  const raw = Float64Array.from({ length: n }, (_, i) => Y[i * m + o]);
  const { mean, std } = standardization(raw);
  return raw.map((v) => (v - mean) / std);
}

/** Mean and unbiased std of y; a constant y (std 0 or below 1e-10·|mean|) gets std 1. */
export function standardization(y: Float64Array): OutputTransform {
  const n = y.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += y[i];
  mean /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (y[i] - mean) * (y[i] - mean);
  const std = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
  return { mean, std: std > 0 && std > 1e-10 * Math.abs(mean) ? std : 1 };
}

function columnMeans(X: Float64Array, n: number, d: number): Float64Array {
  const c = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) c[k] += X[i * d + k] / n;
  return c;
}

function checkData(X: Float64Array, Y: Float64Array, n: number, d: number, m: number, what: string): void {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(d) && d >= 1 && Number.isInteger(m) && m >= 1)) {
    throw new Error(`Kiln: Surrogate.${what} needs at least one point, input and output (got n=${n}, d=${d}, m=${m}).`);
  }
  if (X.length < n * d || Y.length < n * m) {
    throw new Error(`Kiln: Surrogate.${what} got ${X.length} inputs and ${Y.length} outputs; ${n} points need ${n * d} and ${n * m}.`);
  }
  for (let i = 0; i < n * d; i++) {
    if (!Number.isFinite(X[i])) throw new Error(`Kiln: Surrogate.${what}: input ${i % d} of point ${Math.floor(i / d)} is ${X[i]}.`);
  }
  for (let i = 0; i < n * m; i++) {
    if (!Number.isFinite(Y[i])) throw new Error(`Kiln: Surrogate.${what}: output ${i % m} of point ${Math.floor(i / m)} is ${Y[i]}.`);
  }
}
