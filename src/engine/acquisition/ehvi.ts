import { paretoIndices } from '../pareto.js';
import { expectedPositivePart } from '../normal.js';
import type { AcquisitionFunction } from './types.js';

/**
 * Exact expected hypervolume improvement for one or two objectives with independent Gaussian
 * marginals (Emmerich, Giannakoglou & Naujoks 2006; the stripe form of Couckuyt et al. 2014).
 *
 * The region not dominated by the front P and bounded by the reference point r splits, with P
 * sorted by f1, into n + 1 vertical stripes [a_k, b_k) x (-inf, u_k). The improvement of y is
 * HVI(y) = sum_k (b_k - max(y1, a_k))^+ (u_k - y2)^+, and since y1, y2 are independent,
 * E[HVI] = sum_k (g1(b_k) - g1(a_k)) g2(u_k) with g(t) = E[(t - Y)^+] = σ h((t - μ)/σ),
 * h(z) = φ(z) + zΦ(z). With one objective this is expected improvement over min(f*, r).
 */
export class ExactEhvi implements AcquisitionFunction {
  readonly name = 'ehvi';
  private readonly a: Float64Array;
  private readonly b: Float64Array;
  private readonly u: Float64Array;

  /**
   * front: `n x m` minimization-space objective values (m = 1 or 2; dominated rows and rows not
   * strictly better than ref are ignored). ref: length m.
   */
  constructor(
    front: Float64Array,
    n: number,
    readonly m: 1 | 2,
    ref: ArrayLike<number>,
  ) {
    const kept: number[][] = [];
    for (const i of paretoIndices(front, n, m)) {
      const p = Array.from(front.subarray(i * m, i * m + m));
      if (p.every((v, j) => v < ref[j])) kept.push(p);
    }
    if (m === 1) {
      const best = kept.reduce((acc, p) => Math.min(acc, p[0]), ref[0]);
      this.a = Float64Array.of(-Infinity);
      this.b = Float64Array.of(best);
      this.u = Float64Array.of(Infinity);
      return;
    }
    kept.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    const unique = kept.filter((p, i) => i === 0 || p[0] !== kept[i - 1][0] || p[1] !== kept[i - 1][1]);
    const k = unique.length;
    this.a = new Float64Array(k + 1);
    this.b = new Float64Array(k + 1);
    this.u = new Float64Array(k + 1);
    this.a[0] = -Infinity;
    this.u[0] = ref[1];
    for (let s = 0; s <= k; s++) {
      if (s > 0) {
        this.a[s] = unique[s - 1][0];
        this.u[s] = unique[s - 1][1];
      }
      this.b[s] = s < k ? unique[s][0] : ref[0];
    }
  }

  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    const m = this.m;
    const out = new Float64Array(q);
    const stripes = this.a.length;
    for (let i = 0; i < q; i++) {
      const mu1 = mean[i * m];
      const s1 = Math.max(std[i * m], 1e-12);
      let total = 0;
      if (m === 1) {
        total = s1 * expectedPositivePart((this.b[0] - mu1) / s1);
      } else {
        const mu2 = mean[i * m + 1];
        const s2 = Math.max(std[i * m + 1], 1e-12);
        for (let k = 0; k < stripes; k++) {
          const g2 = s2 * expectedPositivePart((this.u[k] - mu2) / s2);
          if (g2 === 0) continue;
          const gb = expectedPositivePart((this.b[k] - mu1) / s1);
          const ga = k === 0 ? 0 : expectedPositivePart((this.a[k] - mu1) / s1);
          total += s1 * (gb - ga) * g2;
        }
      }
      out[i] = total > 0 ? total : 0;
    }
    return out;
  }
}
