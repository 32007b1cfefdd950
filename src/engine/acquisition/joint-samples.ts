import { choleskyInPlace, solveLowerInPlace } from '../gp/dense64.js';
import { tryWithJitter } from '../gp/jitter.js';
import type { Posterior } from './posterior.js';

/**
 * The joint posterior of the first m outputs (the objectives) at k points, ready for sampling:
 * the means and, per objective, the lower Cholesky factor L_j of the `k x k` latent posterior
 * covariance. A draw is f_j = μ_j + L_j z_j for standard normals z_j. A candidate x sampled
 * jointly with the k points, given their draw, is
 *
 *   f_j(x) = μ_j(x) + l_jᵀ z_j + √(σ²_j(x) − |l_j|²) ζ_j,   l_j = L_j⁻¹ Σ_j(points, x),
 *
 * the same block Cholesky BoTorch caches for qNEHVI (Daulton, Balandat & Bakshy 2021): the points'
 * draws stay the same for every candidate, and only the candidate's row of the factor is new.
 */
export class JointGaussian {
  private constructor(
    readonly k: number,
    readonly m: number,
    /** `k x m` row-major */
    readonly mean: Float64Array,
    /** per objective, `k x k` row-major lower factor (the diagonal's square root where `independent`) */
    readonly factors: Float64Array[],
    /** per objective: no factor could be had, so draws ignore every covariance */
    readonly independent: boolean[],
  ) {}

  /**
   * The posterior at `points` (`k x d` encoded). A factor that no jitter of the schedule makes
   * positive definite (float32 rounding of near-duplicate points) falls back to its diagonal: the
   * points and the candidates are then sampled independently, each from its own marginal.
   */
  static async at(posterior: Posterior, points: Float64Array, k: number, m: number): Promise<JointGaussian> {
    if (k === 0)
      return new JointGaussian(
        0,
        m,
        new Float64Array(0),
        Array.from({ length: m }, () => new Float64Array(0)),
        new Array<boolean>(m).fill(false),
      );
    const [{ mean }, covariance] = await Promise.all([posterior.predict(points, k), posterior.covariance(points, k, points, k, m)]);
    const width = posterior.m;
    const objectives = new Float64Array(k * m);
    for (let i = 0; i < k; i++) for (let j = 0; j < m; j++) objectives[i * m + j] = mean[i * width + j];
    const factored = Array.from({ length: m }, (_, j) => factorOf(covariance.subarray(j * k * k, (j + 1) * k * k), k));
    return new JointGaussian(
      k,
      m,
      objectives,
      factored.map((f) => f.factor),
      factored.map((f) => f.independent),
    );
  }

  /**
   * Draws from standard normals `z` (per objective, `k x samples` row-major: point t's normals
   * for every sample): `samples x k x m` row-major.
   */
  draws(z: readonly Float64Array[], samples: number): Float64Array {
    const { k, m } = this;
    const out = new Float64Array(samples * k * m);
    const row = new Float64Array(samples);
    for (let j = 0; j < m; j++) {
      const L = this.factors[j];
      for (let i = 0; i < k; i++) {
        row.fill(this.mean[i * m + j]);
        for (let t = 0; t <= i; t++) axpy(L[i * k + t], z[j], t * samples, row, samples);
        for (let s = 0; s < samples; s++) out[(s * k + i) * m + j] = row[s];
      }
    }
    return out;
  }

  /**
   * Each candidate's draws given the points' draws from the same `z` (as in `draws`), with its
   * own normals `zeta` (per objective, length samples): `samples x q x m` row-major, so each
   * sample's candidates are one block. mean, std: the candidates' marginal posterior (`q x m`);
   * cross: their covariance with the points, `m x q x k`.
   */
  conditionalDraws(
    mean: Float64Array,
    std: Float64Array,
    q: number,
    cross: Float64Array,
    z: readonly Float64Array[],
    zeta: readonly Float64Array[],
    samples: number,
  ): Float64Array {
    const { k, m } = this;
    const out = new Float64Array(samples * q * m);
    const l = new Float64Array(k);
    const row = new Float64Array(samples);
    for (let j = 0; j < m; j++) {
      for (let i = 0; i < q; i++) {
        if (this.independent[j]) l.fill(0);
        else {
          l.set(cross.subarray((j * q + i) * k, (j * q + i + 1) * k));
          solveLowerInPlace(this.factors[j], k, l);
        }
        let explained = 0;
        for (let t = 0; t < k; t++) explained += l[t] * l[t];
        const own = Math.sqrt(Math.max(std[i * m + j] ** 2 - explained, 0));
        row.fill(mean[i * m + j]);
        axpy(own, zeta[j], 0, row, samples);
        for (let t = 0; t < k; t++) if (l[t] !== 0) axpy(l[t], z[j], t * samples, row, samples);
        for (let s = 0; s < samples; s++) out[(s * q + i) * m + j] = row[s];
      }
    }
    return out;
  }
}

/** row[s] += a · x[from + s] for s < count. */
function axpy(a: number, x: Float64Array, from: number, row: Float64Array, count: number): void {
  for (let s = 0; s < count; s++) row[s] += a * x[from + s];
}

/** The lower Cholesky factor of a `k x k` covariance (jitter as the GP's), or its diagonal's square root. */
function factorOf(covariance: Float64Array, k: number): { factor: Float64Array; independent: boolean } {
  // float32 rounding leaves the two triangles slightly apart: factor the symmetric part
  const symmetric = new Float64Array(k * k);
  let diagonal = 0;
  for (let a = 0; a < k; a++) {
    for (let b = 0; b < k; b++) symmetric[a * k + b] = 0.5 * (covariance[a * k + b] + covariance[b * k + a]);
    diagonal += Math.max(symmetric[a * k + a], 0) / k;
  }
  const factored = tryWithJitter(diagonal, (jitter) => {
    const L = Float64Array.from(symmetric);
    for (let a = 0; a < k; a++) L[a * k + a] += jitter;
    return choleskyInPlace(L, k) ? L : null;
  });
  if (factored) return { factor: factored.result, independent: false };
  const L = new Float64Array(k * k);
  for (let a = 0; a < k; a++) L[a * k + a] = Math.sqrt(Math.max(symmetric[a * k + a], 0));
  return { factor: L, independent: true };
}
