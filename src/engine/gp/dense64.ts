/**
 * Dense float64 kernels on row-major square matrices: the Cholesky factorization, the inverse of
 * a triangular factor, the inverse of the factored matrix and single-vector substitutions. They
 * serve the small problems (n up to one block), where a tensor op costs more in overhead than
 * the whole computation, and the diagonal blocks of the blocked factorization in linalg.ts.
 *
 * Inner loops run over contiguous rows and are unrolled by four with separate accumulators, which
 * roughly doubles V8's throughput on the short rows that dominate at n < 100.
 */

/**
 * Cholesky factorization A = L Lᵀ in place (the row-oriented Cholesky-Crout order, so both rows
 * read by the inner product are contiguous).
 * A: `n x n` row-major Float64Array; only its lower triangle is read. On success the lower
 * triangle holds L and the strict upper triangle is zeroed. Returns false, leaving A partly
 * overwritten, when a pivot is not positive (A is not numerically positive definite).
 */
export function choleskyInPlace(A: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    for (let j = 0; j <= i; j++) {
      const rj = j * n;
      const t = A[ri + j] - dot(A, ri, A, rj, j);
      if (j < i) {
        A[ri + j] = t / A[rj + j];
      } else {
        if (!(t > 0)) return false;
        A[ri + i] = Math.sqrt(t);
      }
    }
    A.fill(0, ri + i + 1, ri + n);
  }
  return true;
}

/**
 * L⁻¹ for a lower-triangular L, row by row: row i of L⁻¹ is (eᵢ − Σ_{k<i} L_ik · row k)/L_ii.
 * L: `n x n` row-major lower triangular Float64Array. out: `n x n` Float64Array (may not alias
 * L), receives L⁻¹ with a zero strict upper triangle.
 */
export function invertLower(L: Float64Array, n: number, out: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    out.fill(0, ri, ri + n);
    for (let k = 0; k < i; k++) {
      const c = L[ri + k];
      if (c !== 0) axpy(-c, out, k * n, out, ri, k + 1);
    }
    out[ri + i] += 1;
    const inv = 1 / L[ri + i];
    for (let c = 0; c <= i; c++) out[ri + c] *= inv;
  }
}

/**
 * (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹ from the inverse factor, accumulated as one rank-1 update per row of L⁻¹ on
 * the lower triangle and then mirrored.
 * Linv: `n x n` row-major lower triangular Float64Array (L⁻¹). out: `n x n` Float64Array, receives
 * the full symmetric inverse.
 */
export function inverseFromInverseFactor(Linv: Float64Array, n: number, out: Float64Array): void {
  out.fill(0, 0, n * n);
  for (let k = 0; k < n; k++) {
    const rk = k * n;
    for (let a = 0; a <= k; a++) {
      const c = Linv[rk + a];
      if (c !== 0) axpy(c, Linv, rk, out, a * n, a + 1);
    }
  }
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) out[a * n + b] = out[b * n + a];
  }
}

/**
 * Solves L x = b in place by forward substitution.
 * L: `n x n` row-major lower triangular Float64Array. b: length-n Float64Array, overwritten by x.
 */
export function solveLowerInPlace(L: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    b[i] = (b[i] - dot(L, ri, b, 0, i)) / L[ri + i];
  }
}

/**
 * Solves Lᵀ x = b in place by back substitution, sweeping rows of L so memory stays contiguous.
 * L: `n x n` row-major lower triangular Float64Array. b: length-n Float64Array, overwritten by x.
 */
export function solveLowerTransposedInPlace(L: Float64Array, n: number, b: Float64Array): void {
  for (let i = n - 1; i >= 0; i--) {
    const ri = i * n;
    const xi = b[i] / L[ri + i];
    b[i] = xi;
    if (xi !== 0) axpy(-xi, L, ri, b, 0, i);
  }
}

/** Transpose of a `size x size` row-major matrix, rounded to float32 (for upload). */
export function transposeToFloat32(M: Float64Array | Float32Array, size: number): Float32Array {
  const out = new Float32Array(size * size);
  for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) out[j * size + i] = M[i * size + j];
  return out;
}

/** Σ_{k<len} a[ia+k]·b[ib+k], four accumulators. */
function dot(a: Float64Array, ia: number, b: Float64Array, ib: number, len: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  const end4 = len - (len & 3);
  for (; k < end4; k += 4) {
    s0 += a[ia + k] * b[ib + k];
    s1 += a[ia + k + 1] * b[ib + k + 1];
    s2 += a[ia + k + 2] * b[ib + k + 2];
    s3 += a[ia + k + 3] * b[ib + k + 3];
  }
  for (; k < len; k++) s0 += a[ia + k] * b[ib + k];
  return s0 + s1 + (s2 + s3);
}

/** y[iy+k] += c·x[ix+k] for k < len, unrolled by four. */
function axpy(c: number, x: Float64Array, ix: number, y: Float64Array, iy: number, len: number): void {
  let k = 0;
  const end4 = len - (len & 3);
  for (; k < end4; k += 4) {
    y[iy + k] += c * x[ix + k];
    y[iy + k + 1] += c * x[ix + k + 1];
    y[iy + k + 2] += c * x[ix + k + 2];
    y[iy + k + 3] += c * x[ix + k + 3];
  }
  for (; k < len; k++) y[iy + k] += c * x[ix + k];
}
