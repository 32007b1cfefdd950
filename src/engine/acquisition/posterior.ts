import type { Surrogate } from '../gp/surrogate.js';

/**
 * What batch selection needs of a model: marginal posteriors at points, and conditioning on
 * believed values. A Surrogate is one; a JointPosterior puts several side by side. Both answers
 * are promises: on a GPU backend the posterior is computed on the device and read back
 * asynchronously (Node has no synchronous readback from WebGPU).
 */
export interface Posterior {
  /** input dimension */
  readonly d: number;
  /** outputs */
  readonly m: number;
  /** X: `q x d` → mean, variance `q x m` row-major */
  predict(X: Float64Array, q: number): Promise<{ mean: Float64Array; variance: Float64Array }>;
  /**
   * The latent posterior covariance of each of the first `outputs` outputs between the points A
   * (`a x d`) and B (`b x d`): `outputs x a x b` row-major. Outputs are independent of each other.
   */
  covariance(A: Float64Array, a: number, B: Float64Array, b: number, outputs: number): Promise<Float64Array>;
  /** a posterior with k more observations (X `k x d`, Y `k x m`); this one stays valid */
  condition(X: Float64Array, Y: Float64Array, k: number): Promise<Posterior>;
  dispose(): void;
}

/**
 * Surrogates fitted to different rows, read as one posterior whose outputs are theirs side by
 * side: the objectives and outcome slacks (fitted to the successful evaluations) next to the
 * failure model (fitted to all of them, failed ones included).
 */
export class JointPosterior implements Posterior {
  readonly d: number;
  readonly m: number;

  constructor(private readonly parts: readonly (Surrogate | Posterior)[]) {
    this.d = parts[0].d;
    this.m = parts.reduce((total, p) => total + p.m, 0);
  }

  async predict(X: Float64Array, q: number): Promise<{ mean: Float64Array; variance: Float64Array }> {
    const mean = new Float64Array(q * this.m);
    const variance = new Float64Array(q * this.m);
    // every part's computation is queued on the device before the first is read back
    const outs = await Promise.all(this.parts.map((part) => part.predict(X, q)));
    let column = 0;
    for (const [p, part] of this.parts.entries()) {
      const out = outs[p];
      for (let i = 0; i < q; i++) {
        for (let j = 0; j < part.m; j++) {
          mean[i * this.m + column + j] = out.mean[i * part.m + j];
          variance[i * this.m + column + j] = out.variance[i * part.m + j];
        }
      }
      column += part.m;
    }
    return { mean, variance };
  }

  async covariance(A: Float64Array, a: number, B: Float64Array, b: number, outputs: number): Promise<Float64Array> {
    if (!(Number.isInteger(outputs) && outputs >= 1 && outputs <= this.m))
      throw new Error(`Kiln: posterior covariance of ${outputs} outputs asked of ${this.m}.`);
    const blocks: Promise<Float64Array>[] = [];
    for (let part = 0, covered = 0; covered < outputs; covered += this.parts[part].m, part++) {
      blocks.push(this.parts[part].covariance(A, a, B, b, Math.min(this.parts[part].m, outputs - covered)));
    }
    const out = new Float64Array(outputs * a * b);
    let at = 0;
    for (const block of await Promise.all(blocks)) {
      out.set(block, at);
      at += block.length;
    }
    return out;
  }

  async condition(X: Float64Array, Y: Float64Array, k: number): Promise<JointPosterior> {
    let column = 0;
    const settled = await Promise.allSettled(
      this.parts.map((part) => {
        const own = new Float64Array(k * part.m);
        for (let i = 0; i < k; i++) for (let j = 0; j < part.m; j++) own[i * part.m + j] = Y[i * this.m + column + j];
        column += part.m;
        return part.condition(X, own, k);
      }),
    );
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) {
      // the parts that did condition own device memory: free it before passing the error on
      for (const s of settled) if (s.status === 'fulfilled') s.value.dispose();
      throw failed.reason;
    }
    return new JointPosterior(settled.map((s) => (s as PromiseFulfilledResult<Posterior>).value));
  }

  dispose(): void {
    for (const part of this.parts) part.dispose();
  }
}
