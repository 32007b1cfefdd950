import test from 'node:test';
import assert from 'node:assert/strict';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { choleskyInPlace, inverseFromInverseFactor, invertLower, solveLowerInPlace, solveLowerTransposedInPlace } from '../src/engine/gp/dense64.js';
import { JITTER_FACTORS, tryWithJitter, withJitter } from '../src/engine/gp/jitter.js';
import { BlockedCholesky, inverseLowerTriangle } from '../src/engine/gp/linalg.js';
import { maternGram } from '../src/engine/gp/matern.js';
import { referenceBackSolve, referenceCholesky, referenceForwardSolve } from '../reference/gp.js';
import { CONDITIONING_FLOOR, conditioningNoise, solveTensorCovariance } from '../src/engine/gp/tensor-covariance.js';
import { Random } from '../src/engine/random.js';
import { maxAbs, maxAbsDifference, randomSpd, uniformPoints } from './support/gp-fixtures.js';

await initTensorBackend('wasm');

/** Sizes around and across the block boundary of the 64-wide blocks used below. */
const SIZES = [1, 5, 63, 64, 65, 200, 300];
const BLOCK = 64;
/** float32 carries ~7 digits; these well-conditioned (κ ≲ 300) factors keep about 5. */
const FLOAT32_TOLERANCE = 2e-5;

function referenceInverseLower(L: Float64Array, n: number): Float64Array {
  const inv = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const e = new Float64Array(n);
    e[j] = 1;
    const column = referenceForwardSolve(L, n, e);
    for (let i = 0; i < n; i++) inv[i * n + j] = column[i];
  }
  return inv;
}

test('a hand-computed 3x3 Cholesky factor', () => {
  // [[4, 12, -16], [12, 37, -43], [-16, -43, 98]] = L Lᵀ with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]].
  const A = Float64Array.from([4, 12, -16, 12, 37, -43, -16, -43, 98]);
  assert.ok(choleskyInPlace(A, 3));
  assert.deepEqual(Array.from(A), [2, 0, 0, 6, 1, 0, -8, 5, 3]);
});

test('dense float64 Cholesky, inverse factor and inverse agree with the textbook reference', () => {
  for (const n of SIZES) {
    const A = randomSpd(n, 100 + n);
    const L = A.slice();
    assert.ok(choleskyInPlace(L, n), `n=${n} should factor`);
    const Lref = referenceCholesky(A, n);
    assert.ok(Lref);
    assert.ok(maxAbsDifference(L, Lref) < 1e-12 * maxAbs(Lref), `n=${n}: L differs from the reference`);

    const Linv = new Float64Array(n * n);
    invertLower(L, n, Linv);
    assert.ok(maxAbsDifference(Linv, referenceInverseLower(Lref, n)) < 1e-10 * maxAbs(Linv), `n=${n}: L⁻¹`);

    const Ainv = new Float64Array(n * n);
    inverseFromInverseFactor(Linv, n, Ainv);
    let worst = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += A[i * n + k] * Ainv[k * n + j];
        worst = Math.max(worst, Math.abs(s - (i === j ? 1 : 0)));
      }
    }
    assert.ok(worst < 1e-10, `n=${n}: A·A⁻¹ is off the identity by ${worst}`);
  }
});

test('dense float64 substitutions solve L x = b and Lᵀ x = b', () => {
  const n = 65;
  const L = randomSpd(n, 7);
  assert.ok(choleskyInPlace(L, n));
  const random = new Random(8);
  const b = Float64Array.from({ length: n }, () => random.normal());
  const forward = b.slice();
  solveLowerInPlace(L, n, forward);
  assert.ok(maxAbsDifference(forward, referenceForwardSolve(L, n, b)) < 1e-12 * maxAbs(forward));
  const backward = b.slice();
  solveLowerTransposedInPlace(L, n, backward);
  assert.ok(maxAbsDifference(backward, referenceBackSolve(L, n, b)) < 1e-12 * maxAbs(backward));
});

test('a matrix with a negative eigenvalue is reported, not factored', () => {
  // [[1, 2], [2, 1]] has eigenvalues 3 and −1.
  assert.equal(choleskyInPlace(Float64Array.from([1, 2, 2, 1]), 2), false);
  assert.equal(BlockedCholesky.factor(Float64Array.from([1, 2, 2, 1]), 2, 1), null);
});

test('blocked Cholesky equals the float64 reference factor across block boundaries', () => {
  for (const n of SIZES) {
    const A = randomSpd(n, 200 + n);
    const Lref = referenceCholesky(A, n);
    assert.ok(Lref);
    const factor = BlockedCholesky.factor(A, n, BLOCK);
    assert.ok(factor, `n=${n} should factor`);
    const scale = maxAbs(Lref);
    const error = maxAbsDifference(factor.lower, Lref);
    assert.ok(error < FLOAT32_TOLERANCE * scale, `n=${n}: max |L − Lref| = ${error}`);
    let logDet = 0;
    for (let i = 0; i < n; i++) logDet += 2 * Math.log(Lref[i * n + i]);
    assert.ok(Math.abs(factor.logDeterminant - logDet) < FLOAT32_TOLERANCE * Math.max(1, Math.abs(logDet)), `n=${n}: log det`);
  }
});

test('the diagonal shift factors A + shift·I', () => {
  const n = 70;
  const A = randomSpd(n, 9);
  const shifted = A.slice();
  for (let i = 0; i < n; i++) shifted[i * n + i] += 0.5;
  const Lref = referenceCholesky(shifted, n);
  const factor = BlockedCholesky.factor(A, n, BLOCK, 0.5);
  assert.ok(Lref && factor);
  assert.ok(maxAbsDifference(factor.lower, Lref) < FLOAT32_TOLERANCE * maxAbs(Lref));
});

test('blocked triangular solves match float64 substitution for many right-hand sides', () => {
  for (const n of SIZES) {
    const A = randomSpd(n, 300 + n);
    const Lref = referenceCholesky(A, n);
    assert.ok(Lref);
    const factor = BlockedCholesky.factor(A, n, BLOCK);
    assert.ok(factor);
    // 3 right-hand sides take the float64 substitution path, 10 the blocked tensor path.
    for (const q of [3, 10]) {
      const random = new Random(n + q);
      const B = Float64Array.from({ length: n * q }, () => random.normal());
      const forward = factor.solveLower(B, q);
      const backward = factor.solveLowerTransposed(B, q);
      for (let c = 0; c < q; c++) {
        const b = Float64Array.from({ length: n }, (_, i) => B[i * q + c]);
        const f = referenceForwardSolve(Lref, n, b);
        const g = referenceBackSolve(Lref, n, b);
        const fc = Float64Array.from({ length: n }, (_, i) => forward[i * q + c]);
        const gc = Float64Array.from({ length: n }, (_, i) => backward[i * q + c]);
        assert.ok(maxAbsDifference(fc, f) < 1e-4 * maxAbs(f), `n=${n}, q=${q}: L⁻¹b column ${c}`);
        assert.ok(maxAbsDifference(gc, g) < 1e-4 * maxAbs(g), `n=${n}, q=${q}: L⁻ᵀb column ${c}`);
      }
    }
    const inverse = factor.inverse();
    const inverseRef = referenceInverseLower(Lref, n);
    assert.ok(maxAbsDifference(inverse, inverseRef) < 1e-4 * maxAbs(inverseRef), `n=${n}: L⁻¹`);
    // The lower triangle of A⁻¹ = L⁻ᵀL⁻¹ from the block-row products.
    const Ainv = inverseLowerTriangle(inverse, n, BLOCK);
    let worst = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        let s = 0;
        for (let k = i; k < n; k++) s += inverseRef[k * n + i] * inverseRef[k * n + j];
        worst = Math.max(worst, Math.abs(Ainv[i * n + j] - s) / Math.max(1, Math.abs(s)));
      }
    }
    assert.ok(worst < 1e-4, `n=${n}: A⁻¹ lower triangle off by ${worst}`);
  }
});

test('a solve with too few right-hand-side values is an error', () => {
  const factor = BlockedCholesky.factor(randomSpd(4, 1), 4, 2);
  assert.ok(factor);
  assert.throws(() => factor.solveLower(new Float64Array(5), 2), /4 x 4 factor got 5 values for 2 right-hand sides/);
});

test('refined solves reach float64 accuracy through the float32 factor', () => {
  const n = 150;
  const d = 2;
  const X = uniformPoints(n, d, 5);
  const F = new Float64Array(n * n);
  // Long lengthscales and the noise floor: condition number around 1e6, beyond float32 alone.
  maternGram(
    X.map((v) => v / 0.4),
    n,
    d,
    1,
    F,
  );
  const random = new Random(3);
  const b = Float64Array.from({ length: n }, () => random.normal());
  const solved = solveTensorCovariance(F, n, 1e-4, b, BLOCK);
  assert.ok(solved);
  assert.equal(solved.diagonal, 1e-4, 'no jitter was needed');
  const K = F.slice();
  for (let i = 0; i < n; i++) K[i * n + i] += solved.diagonal;
  const L = referenceCholesky(K, n);
  assert.ok(L);
  const exact = referenceBackSolve(L, n, referenceForwardSolve(L, n, b));
  const error = maxAbsDifference(solved.solution, exact) / maxAbs(exact);
  assert.ok(error < 1e-9, `relative error of the refined solve: ${error}`);
});

test('the conditioning floor keeps a float32 solve sound where the noise floor alone cannot', () => {
  // A very smooth kernel (lengthscale 3 on the unit square, s² = 35): λ_max ≈ n·s², so with
  // σ² = 1e-4 the condition number is ~1e8 and float32 refinement cannot converge.
  const n = 300;
  const d = 2;
  const X = uniformPoints(n, d, 6);
  const F = new Float64Array(n * n);
  maternGram(
    X.map((v) => v / 3),
    n,
    d,
    35,
    F,
  );
  const random = new Random(4);
  const b = Float64Array.from({ length: n }, () => random.normal());
  const bare = solveTensorCovariance(F, n, 1e-4, b, BLOCK);
  assert.ok(bare === null || bare.diagonal > 1e-3, 'without the floor only a large jitter gets through');
  let sum = 0;
  for (const v of F) sum += v;
  const floor = conditioningNoise(F, n);
  assert.ok(Math.abs(floor - (CONDITIONING_FLOOR * sum) / n) < 1e-12 * floor);
  const solved = solveTensorCovariance(F, n, 1e-4 + floor, b, BLOCK);
  assert.ok(solved, 'with the floor the solve converges');
  const K = F.slice();
  for (let i = 0; i < n; i++) K[i * n + i] += solved.diagonal;
  const L = referenceCholesky(K, n);
  assert.ok(L);
  const exact = referenceBackSolve(L, n, referenceForwardSolve(L, n, b));
  assert.ok(maxAbsDifference(solved.solution, exact) / maxAbs(exact) < 1e-9);
});

test('jitter escalation factors a singular kernel matrix built from duplicated inputs', () => {
  // Rows 0 and 1 (and 2 and 3) are the same input, so the noise-free kernel matrix is singular.
  const d = 2;
  const X = Float64Array.from([0.1, 0.2, 0.1, 0.2, 0.7, 0.4, 0.7, 0.4, 0.5, 0.9]);
  const n = 5;
  const F = new Float64Array(n * n);
  maternGram(
    X.map((v) => v / 0.3),
    n,
    d,
    1,
    F,
  );
  assert.equal(choleskyInPlace(F.slice(), n), false, 'without jitter the factorization must fail');

  const L = new Float64Array(n * n);
  const { jitter } = withJitter(
    1,
    (j) => {
      L.set(F);
      for (let i = 0; i < n; i++) L[i * n + i] += j;
      return choleskyInPlace(L, n) ? true : null;
    },
    'test matrix',
  );
  assert.equal(jitter, JITTER_FACTORS[1], 'the first escalation step (1e-6 × mean diagonal) suffices');

  const solved = solveTensorCovariance(
    F,
    n,
    0,
    Float64Array.from({ length: n }, (_, i) => i),
    2,
  );
  assert.ok(solved, 'the blocked factor escalates jitter too');
  assert.ok(solved.diagonal > 0);
});

test('jitter escalation gives up with an actionable error', () => {
  let calls = 0;
  assert.equal(
    tryWithJitter(1, () => (calls++, null)),
    null,
  );
  assert.equal(calls, JITTER_FACTORS.length);
  assert.throws(() => withJitter(1, () => null, 'GP covariance matrix'), /not positive definite.*NaN or infinite/);
  assert.throws(() => withJitter(NaN, () => true, 'GP covariance matrix'), /not positive definite/);
});
