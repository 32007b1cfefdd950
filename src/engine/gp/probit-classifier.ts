import { inverseMillsRatio, logNormalCdf, normalCdf } from '../normal.js';
import { choleskyInPlace, invertLower, solveLowerInPlace, solveLowerTransposedInPlace } from './dense64.js';
import { tf } from '../tensor/backend.js';
import { readBack } from '../tensor/read-back.js';
import { maternCross, maternFromSquaredDistance, maternGram, scaleInputs } from './matern.js';

/**
 * Gaussian-process classification of success and failure: a latent f ~ GP(0, Matern-5/2) and
 * p(y = ±1 | f) = Φ(y·f) (probit), its posterior approximated by Laplace's method (Rasmussen &
 * Williams 2006, "Gaussian Processes for Machine Learning", algorithms 3.1 and 3.2; Williams &
 * Barber 1998). Unlike a regression on ±1 labels it reads a label as a side of a boundary, not
 * as a level to hit, so P(success) goes to 1 far inside the successful region, to 0 inside the
 * failing one, and to ½ where the data cannot tell, with the latent's uncertainty folded in.
 * The predictive probability is Φ(μ / √(1 + σ²)) for the latent's mean μ and variance σ².
 */

export interface ClassifierHyperparameters {
  /** length d, in the unit cube's units */
  lengthscales: Float64Array;
  /** prior variance of the latent f */
  outputScale: number;
}

/**
 * From this many query points, `latent` runs as tensor ops (float32, batched matrix products):
 * an acquisition search scores thousands of candidates per pick, where the float64 loops cost
 * about 11 µs a candidate at n = 90. Fewer points (a batch's pending picks) stay in float64.
 */
const TENSOR_MIN_POINTS = 64;

/** Newton steps of the mode search; log-concave likelihoods converge in a handful. */
const MAX_NEWTON_STEPS = 50;
const NEWTON_TOLERANCE = 1e-9;

export class ProbitClassifier {
  private constructor(
    readonly d: number,
    readonly n: number,
    readonly hyperparameters: ClassifierHyperparameters,
    /** `n x d` training inputs over lengthscales */
    private readonly Z: Float64Array,
    /** length n: ∇ log p(y | f̂) at the mode; the latent mean at x is k(x)ᵀ·this */
    private readonly slope: Float64Array,
    /** `n x n` lower triangular L⁻¹·diag(√W), with L Lᵀ = I + √W K √W: σ²(x) = k(x,x) − |this·k(x)|² */
    private readonly varianceFactor: Float64Array,
    /** length n: the latent posterior mode f̂ at the training inputs */
    readonly mode: Float64Array,
    /** Laplace's approximation of log p(y | X, θ) */
    readonly logEvidence: number,
  ) {}

  /** The training side of `latentTensor`, uploaded on first use and again after `dispose`. */
  private uploaded: { minusTwoZt: tf.Tensor2D; norms: tf.Tensor2D; slope: tf.Tensor2D; factorT: tf.Tensor2D } | null = null;

  /**
   * X: `n x d` row-major inputs in [0, 1]; labels: length n, +1 (success) or −1 (failure).
   * Finds the posterior mode by Newton's method with step halving (the objective is concave, so
   * halving only guards against overshoot far from the mode).
   */
  static fit(X: Float64Array, labels: ArrayLike<number>, n: number, d: number, hyperparameters: ClassifierHyperparameters): ProbitClassifier {
    if (!(n >= 1) || X.length < n * d || labels.length < n) {
      throw new Error(`Kiln: ProbitClassifier.fit needs n ≥ 1 points with a label each (got n=${n}, ${labels.length} labels).`);
    }
    const Z = scaleInputs(X, n, d, hyperparameters.lengthscales);
    const K = new Float64Array(n * n);
    maternGram(Z, n, d, hyperparameters.outputScale, K);

    let f: Float64Array = new Float64Array(n);
    let a: Float64Array = new Float64Array(n);
    let objective = psi(a, f, labels, n);
    let state = newtonState(K, f, labels, n);
    for (let step = 0; step < MAX_NEWTON_STEPS; step++) {
      const target = newtonTarget(K, f, labels, n, state);
      let nextA = target;
      let nextF = multiply(K, nextA, n);
      let nextObjective = psi(nextA, nextF, labels, n);
      for (let halving = 0; halving < 30 && !(nextObjective >= objective); halving++) {
        nextA = nextA.map((v, i) => 0.5 * (v + a[i]));
        nextF = multiply(K, nextA, n);
        nextObjective = psi(nextA, nextF, labels, n);
      }
      if (!(nextObjective >= objective)) break;
      const gain = nextObjective - objective;
      a = nextA;
      f = nextF;
      objective = nextObjective;
      state = newtonState(K, f, labels, n);
      if (gain < NEWTON_TOLERANCE * (1 + Math.abs(objective))) break;
    }

    let logDetL = 0;
    for (let i = 0; i < n; i++) logDetL += Math.log(state.L[i * n + i]);
    const factor = new Float64Array(n * n);
    invertLower(state.L, n, factor);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) factor[i * n + j] *= state.sqrtW[j];
    const slope = Float64Array.from({ length: n }, (_, i) => labels[i] * inverseMillsRatio(labels[i] * f[i]));
    return new ProbitClassifier(d, n, hyperparameters, Z, slope, factor, f, objective - logDetL);
  }

  /**
   * Latent posterior at q points. X: `q x d` row-major → mean, variance: length q. Many points
   * go through tensor ops, a few through float64 loops; the two agree to float32 rounding.
   */
  async latent(X: Float64Array, q: number): Promise<{ mean: Float64Array; variance: Float64Array }> {
    return q >= TENSOR_MIN_POINTS ? this.latentTensor(X, q) : this.latent64(X, q);
  }

  /** `latent` in float64: σ²(x) = s² − |L⁻¹ √W k(x)|². */
  latent64(X: Float64Array, q: number): { mean: Float64Array; variance: Float64Array } {
    const { n, d } = this;
    const Zq = scaleInputs(X, q, d, this.hyperparameters.lengthscales);
    const Kqn = maternCross(Zq, q, this.Z, n, d, this.hyperparameters.outputScale);
    const mean = new Float64Array(q);
    const variance = new Float64Array(q);
    for (let p = 0; p < q; p++) {
      const k = Kqn.subarray(p * n, (p + 1) * n);
      let mu = 0;
      for (let i = 0; i < n; i++) mu += k[i] * this.slope[i];
      let explained = 0;
      for (let i = 0; i < n; i++) {
        let s = 0;
        const row = i * n;
        for (let j = 0; j <= i; j++) s += this.varianceFactor[row + j] * k[j];
        explained += s * s;
      }
      mean[p] = mu;
      variance[p] = Math.max(this.hyperparameters.outputScale - explained, 0);
    }
    return { mean, variance };
  }

  /**
   * `latent` as tensor ops: r² = |z|² + |z_i|² − 2 z·z_i with inputs centred on the cube's middle
   * (smaller norms, less float32 cancellation), k = Matern(r²), μ = k·slope, σ² = s² − |k·Fᵀ|².
   */
  async latentTensor(X: Float64Array, q: number): Promise<{ mean: Float64Array; variance: Float64Array }> {
    const { d } = this;
    const t = (this.uploaded ??= this.upload());
    const lengthscales = this.hyperparameters.lengthscales;
    const centred = new Float32Array(q * d);
    for (let p = 0; p < q; p++) for (let k = 0; k < d; k++) centred[p * d + k] = (X[p * d + k] - 0.5) / lengthscales[k];
    const [mean, variance] = tf.tidy((): [tf.Tensor, tf.Tensor] => {
      const z = tf.tensor2d(centred, [q, d]);
      const r2 = tf.add(tf.add(tf.matMul(z, t.minusTwoZt), t.norms), tf.sum(tf.square(z), 1, true));
      const K = maternFromSquaredDistance(r2, this.hyperparameters.outputScale) as tf.Tensor2D;
      const explained = tf.sum(tf.square(tf.matMul(K, t.factorT)), 1);
      return [tf.reshape(tf.matMul(K, t.slope), [q]), tf.maximum(tf.sub(this.hyperparameters.outputScale, explained), 0)];
    });
    const [m, v] = await readBack(mean, variance);
    return { mean: m, variance: v };
  }

  private upload(): NonNullable<ProbitClassifier['uploaded']> {
    const { n, d } = this;
    const Zc = new Float32Array(n * d);
    const norms = new Float32Array(n);
    const shift = this.hyperparameters.lengthscales;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < d; k++) {
        const v = this.Z[i * d + k] - 0.5 / shift[k];
        Zc[i * d + k] = v;
        norms[i] += v * v;
      }
    }
    const minusTwoZt = tf.tidy(() => tf.mul<tf.Tensor2D>(tf.transpose(tf.tensor2d(Zc, [n, d])), -2));
    const factorT = new Float32Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) factorT[j * n + i] = this.varianceFactor[i * n + j];
    return {
      minusTwoZt,
      norms: tf.tensor2d(norms, [1, n]),
      slope: tf.tensor2d(Float32Array.from(this.slope), [n, 1]),
      factorT: tf.tensor2d(factorT, [n, n]),
    };
  }

  /** Frees the uploaded tensors; a later `latent` uploads them again. */
  dispose(): void {
    if (!this.uploaded) return;
    for (const tensor of Object.values(this.uploaded)) tensor.dispose();
    this.uploaded = null;
  }

  /** P(success) at q points, Φ(μ / √(1 + σ²)). X: `q x d` row-major → length q. */
  async probability(X: Float64Array, q: number): Promise<Float64Array> {
    const { mean, variance } = await this.latent(X, q);
    return mean.map((mu, i) => normalCdf(mu / Math.sqrt(1 + variance[i])));
  }
}

/** Ψ(f) = −½ aᵀf + Σ log Φ(y_i f_i), with f = K a: the log of the unnormalized posterior. */
function psi(a: Float64Array, f: Float64Array, labels: ArrayLike<number>, n: number): number {
  let value = 0;
  for (let i = 0; i < n; i++) value += -0.5 * a[i] * f[i] + logNormalCdf(labels[i] * f[i]);
  return value;
}

interface NewtonState {
  /** ∇ log p(y | f), length n */
  gradient: Float64Array;
  /** √W, W = −∇∇ log p(y | f) (diagonal), length n */
  sqrtW: Float64Array;
  /** `n x n` Cholesky factor of B = I + √W K √W */
  L: Float64Array;
}

function newtonState(K: Float64Array, f: Float64Array, labels: ArrayLike<number>, n: number): NewtonState {
  const gradient = new Float64Array(n);
  const sqrtW = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const z = labels[i] * f[i];
    const r = inverseMillsRatio(z);
    gradient[i] = labels[i] * r;
    // −d²/df² log Φ(y f) = r (r + z) > 0 for every z
    sqrtW[i] = Math.sqrt(Math.max(r * (r + z), 0));
  }
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) L[i * n + j] = sqrtW[i] * K[i * n + j] * sqrtW[j] + (i === j ? 1 : 0);
  }
  if (!choleskyInPlace(L, n)) throw new Error('Kiln: the classifier matrix I + √W K √W is not positive definite.');
  return { gradient, sqrtW, L };
}

/** The full Newton step's a (f = K a): b − √W L⁻ᵀ L⁻¹ √W K b with b = W f + ∇ log p(y | f). */
function newtonTarget(K: Float64Array, f: Float64Array, labels: ArrayLike<number>, n: number, s: NewtonState): Float64Array {
  const b = Float64Array.from({ length: n }, (_, i) => s.sqrtW[i] * s.sqrtW[i] * f[i] + s.gradient[i]);
  const c = multiply(K, b, n);
  for (let i = 0; i < n; i++) c[i] *= s.sqrtW[i];
  solveLowerInPlace(s.L, n, c);
  solveLowerTransposedInPlace(s.L, n, c);
  return b.map((v, i) => v - s.sqrtW[i] * c[i]);
}

/** K v for `n x n` row-major K and length-n v. */
function multiply(K: Float64Array, v: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += K[i * n + j] * v[j];
    out[i] = s;
  }
  return out;
}

/** Multiples of the given lengthscales and latent variances the evidence chooses among. */
const LENGTHSCALE_FACTORS = [0.5, 1, 2];
const OUTPUT_SCALES = [1, 4, 16];
/** Isotropic lengthscales, in multiples of √d (the cube's diagonal). */
const ISOTROPIC_LENGTHSCALES = [0.1, 0.2, 0.4];
/** Failures needed before per-input lengthscales are trusted. */
const MIN_FAILURES_FOR_ARD = 3;

/**
 * The classifier with the highest Laplace evidence on a small grid of hyperparameters: three
 * latent variances, from a latent that can barely leave Φ(±1) to one that can be nearly certain,
 * times three isotropic lengthscales and, once MIN_FAILURES_FOR_ARD evaluations have failed,
 * three multiples of `lengthscales` (e.g. those of a regression on the same labels, which finds
 * the relevant inputs). With one or two failures a per-input fit explains them by whichever input
 * happens to set them apart, and a classifier built on it marked a whole slab of the cube as
 * failing. A grid, not a gradient search: the evidence keeps rising with the latent variance
 * when the labels separate cleanly, and a bounded grid stops it there.
 * X: `n x d` row-major in [0, 1]; labels: length n, ±1; lengthscales: length d.
 */
export function fitProbitClassifier(X: Float64Array, labels: ArrayLike<number>, n: number, d: number, lengthscales: ArrayLike<number>): ProbitClassifier {
  const shapes: Float64Array[] = ISOTROPIC_LENGTHSCALES.map((l) => new Float64Array(d).fill(l * Math.sqrt(d)));
  let failures = 0;
  for (let i = 0; i < n; i++) if (labels[i] < 0) failures++;
  if (failures >= MIN_FAILURES_FOR_ARD) for (const factor of LENGTHSCALE_FACTORS) shapes.push(Float64Array.from(lengthscales, (l) => l * factor));
  let best: ProbitClassifier | null = null;
  for (const shape of shapes) {
    for (const outputScale of OUTPUT_SCALES) {
      const candidate = ProbitClassifier.fit(X, labels, n, d, { lengthscales: shape, outputScale });
      if (best === null || candidate.logEvidence > best.logEvidence) best = candidate;
    }
  }
  return best!;
}
