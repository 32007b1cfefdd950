import assert from 'node:assert/strict';
import { ReferenceGp, referenceLogMarginalLikelihood, referenceStandardization } from '../../reference/gp.js';
import { Surrogate } from '../../src/engine/gp/surrogate.js';
import { maxAbsDifference, sinusoids, uniformPoints } from './gp-fixtures.js';

/**
 * The surrogate on whatever tensor backend this process chose agrees with the float64 reference
 * beyond the dense limit, where the blocked float32 Cholesky does the work: one check run under
 * every backend (Vizier's conformance-suite habit).
 */
export async function blockedPathAgreesWithFloat64(): Promise<void> {
  const n = 300;
  const d = 3;
  const X = uniformPoints(n, d, 61);
  const Y = Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d));
  const surrogate = Surrogate.fit(X, Y, n, d, 1, { seed: 6, blockSize: 64 });
  const [h] = surrogate.hyperparameters;
  const reference = new ReferenceGp(X, Y, n, d, h);
  const q = 200;
  const Xq = uniformPoints(q, d, 62);
  const fast = await surrogate.predict(Xq, q);
  const slow = reference.predict(Xq, q);
  assert.ok(maxAbsDifference(fast.mean, slow.mean) < 1e-3 * reference.std, `mean error ${maxAbsDifference(fast.mean, slow.mean)}`);
  assert.ok(maxAbsDifference(fast.variance, slow.variance) < 1e-3 * reference.std ** 2, 'variance error');
  const { mean, std } = referenceStandardization(Y);
  const lml = referenceLogMarginalLikelihood(
    X,
    Y.map((v) => (v - mean) / std),
    n,
    d,
    h,
  );
  // The float32 log determinant carries ~1e-5 relative error (Schur complements rounded to float32).
  assert.ok(lml && Math.abs(surrogate.logMarginalLikelihood[0] - lml.value) < 1e-4 * Math.abs(lml.value));
  surrogate.dispose();
}
