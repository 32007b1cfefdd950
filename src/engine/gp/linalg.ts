import { hostMatMul as matmul } from '../tensor/host-matmul.js';
import { choleskyInPlace, invertLower, transposeToFloat32 } from './dense64.js';

/**
 * Blocked Cholesky factorization, triangular solves and inverses, with the O(n³) work in tfjs
 * matmuls on the CPU (tfjs has no Cholesky or triangular solve; tensor/host-matmul.ts says why the
 * CPU, also beside a GPU). The block algorithms are the left-looking
 * ones of Golub & Van Loan, Matrix Computations, 4th ed., §4.2 and §3.1: each block column of
 * the factor is its block column of A minus ONE product of already-computed panels, the
 * diagonal blocks (at most `blockSize` wide) are factored and inverted in float64 JavaScript, and
 * the panel below solves against that block's inverse with a second product.
 *
 * Matrices live in JavaScript typed arrays; each product uploads its two operands, runs one
 * rank-2 matMul and downloads the result. Three measured properties of tfjs-wasm 4.22 dictate
 * this: a slice of a tensor copies the WHOLE source tensor (its readSync copies the heap range),
 * so slicing big resident tensors block by block costs more than the flops; matMul with
 * transposeA/transposeB, and rank-3 batched matMul, leave XNNPACK and run 10-15x slower, so
 * operands are uploaded already transposed; and each op costs ~25 µs, so there is a constant
 * number of ops per block or block pair. Upload volume is about n³/(3·blockSize) floats per
 * factorization, a few percent of the flop time.
 */

/**
 * Diagonal block width. The float64 JavaScript work per block grows as its cube and the matmuls
 * lose speed as their inner dimension shrinks; 128 measured faster than 192 or 256 at n = 1000-2000.
 */
export const DEFAULT_BLOCK_SIZE = 128;

/** Below this many right-hand sides a solve runs as plain float64 substitution. */
const FEW_RIGHT_HAND_SIDES = 8;

interface Block {
  start: number;
  size: number;
  /** L_kk⁻¹ in float64 (`size x size` row-major, lower) */
  inverse: Float64Array;
  /** L[k, 0:start] (`size x start`), gathered on first use */
  rowSlab?: Float32Array;
  /** L[end:, k]ᵀ (`size x (n − end)`), gathered on first use */
  panelTransposed?: Float32Array;
}

/** The factor L of A = L Lᵀ (float32 storage, float64 diagonal-block inverses). */
export class BlockedCholesky {
  private constructor(
    readonly n: number,
    /** L, `n x n` row-major lower triangular (zero above the diagonal) */
    readonly lower: Float32Array,
    private readonly blocks: Block[],
    /** log det A = 2 Σ log L_ii, from the float64 diagonal blocks */
    readonly logDeterminant: number,
  ) {}

  /**
   * Factors the symmetric positive definite A + shift·I. A: `n x n` row-major Float64Array, of
   * which only the lower triangle is read. Returns null when a pivot is not
   * positive (not numerically positive definite), so the caller can retry with more jitter.
   */
  static factor(A: Float64Array, n: number, blockSize = DEFAULT_BLOCK_SIZE, shift = 0): BlockedCholesky | null {
    if (A.length < n * n) throw new Error(`Kiln: blocked Cholesky got ${A.length} entries for a ${n} x ${n} matrix.`);
    if (!(blockSize >= 1)) throw new Error(`Kiln: block size must be at least 1, got ${blockSize}.`);
    const L = new Float32Array(n * n);
    const blocks: Block[] = [];
    let logDeterminant = 0;
    for (let start = 0; start < n; start += blockSize) {
      const size = Math.min(blockSize, n - start);
      const end = start + size;
      const rows = n - start;
      // Block column k of A, minus L[start:, 0:start] · L[start:end, 0:start]ᵀ.
      const column = new Float64Array(rows * size);
      for (let i = 0; i < rows; i++) {
        const src = (start + i) * n + start;
        for (let j = 0; j < size; j++) column[i * size + j] = A[src + j];
        if (i < size) column[i * size + i] += shift;
      }
      if (start > 0) {
        const update = matmul(gather(L, n, start, n, 0, start), rows, start, gather(L, n, start, end, 0, start, true), size);
        for (let i = 0; i < rows * size; i++) column[i] -= update[i];
      }
      const diagonal = column.subarray(0, size * size);
      if (!choleskyInPlace(diagonal, size)) return null;
      const inverse = new Float64Array(size * size);
      invertLower(diagonal, size, inverse);
      for (let i = 0; i < size; i++) {
        logDeterminant += 2 * Math.log(diagonal[i * size + i]);
        for (let j = 0; j <= i; j++) L[(start + i) * n + start + j] = diagonal[i * size + j];
      }
      if (end < n) {
        // The panel below the diagonal block: L21 = A21 · L11⁻ᵀ.
        const below = Float32Array.from(column.subarray(size * size));
        const panel = matmul(below, n - end, size, transposeToFloat32(inverse, size), size);
        for (let i = 0; i < n - end; i++) L.set(panel.subarray(i * size, (i + 1) * size), (end + i) * n + start);
      }
      blocks.push({ start, size, inverse });
    }
    return new BlockedCholesky(n, L, blocks, logDeterminant);
  }

  /**
   * X = L⁻¹ B by left-looking blocked forward substitution: X_k = L_kk⁻¹ (B_k − L[k, 0:s]·X[0:s]),
   * the product on the tensor backend, the diagonal solve in float64.
   * B: `n x q` row-major Float64Array. Returns X, `n x q`.
   */
  solveLower(B: Float64Array, q: number): Float64Array {
    this.checkRows(B, q);
    if (q < FEW_RIGHT_HAND_SIDES) return this.substitute(B, q, false);
    const { n } = this;
    const X = new Float64Array(n * q);
    for (const block of this.blocks) {
      const { start, size, inverse } = block;
      const rhs = B.slice(start * q, (start + size) * q);
      if (start > 0) {
        const product = matmul(this.rowSlab(block), size, start, Float32Array.from(X.subarray(0, start * q)), q);
        for (let i = 0; i < size * q; i++) rhs[i] -= product[i];
      }
      multiplyLowerInto(inverse, size, rhs, q, X, start * q, false);
    }
    return X;
  }

  /**
   * X = L⁻ᵀ B by left-looking blocked back substitution: X_k = L_kk⁻ᵀ (B_k − L[e:, k]ᵀ·X[e:]).
   * B: `n x q` row-major Float64Array. Returns X, `n x q`.
   */
  solveLowerTransposed(B: Float64Array, q: number): Float64Array {
    this.checkRows(B, q);
    if (q < FEW_RIGHT_HAND_SIDES) return this.substitute(B, q, true);
    const { n, lower: L } = this;
    const X = new Float64Array(n * q);
    for (let k = this.blocks.length - 1; k >= 0; k--) {
      const block = this.blocks[k];
      const { start, size, inverse } = block;
      const end = start + size;
      const rhs = B.slice(start * q, end * q);
      if (end < n) {
        block.panelTransposed ??= gather(L, n, end, n, start, end, true);
        const product = matmul(block.panelTransposed, size, n - end, Float32Array.from(X.subarray(end * q)), q);
        for (let i = 0; i < size * q; i++) rhs[i] -= product[i];
      }
      multiplyLowerInto(inverse, size, rhs, q, X, start * q, true);
    }
    return X;
  }

  /**
   * L⁻¹ (`n x n` row-major lower triangular, float32), one tile per block pair: with
   * M_k = L_kk⁻¹ L[k, 0:s_k], the tile in block row k, block column j < k is −M_k[:, j:k]·L⁻¹[j:k, j],
   * so the triangle costs n³/3 flops (a row-block formulation would treat L⁻¹[0:s, 0:s] as dense
   * and double that).
   */
  inverse(): Float32Array {
    const { n, blocks } = this;
    const Linv = new Float32Array(n * n);
    for (const { start, size, inverse } of blocks) {
      for (let i = 0; i < size; i++) {
        for (let j = 0; j <= i; j++) Linv[(start + i) * n + start + j] = inverse[i * size + j];
      }
    }
    for (let k = 1; k < blocks.length; k++) {
      const { start: sk, size: bk, inverse } = blocks[k];
      const M = matmul(Float32Array.from(inverse), bk, bk, this.rowSlab(blocks[k]), sk);
      for (let j = 0; j < k; j++) {
        const { start: sj, size: bj } = blocks[j];
        const width = sk - sj;
        const left = new Float32Array(bk * width);
        for (let i = 0; i < bk; i++) left.set(M.subarray(i * sk + sj, i * sk + sk), i * width);
        const tile = matmul(left, bk, width, gather(Linv, n, sj, sk, sj, sj + bj), bj);
        for (let i = 0; i < bk; i++) {
          const row = (sk + i) * n + sj;
          for (let c = 0; c < bj; c++) Linv[row + c] = -tile[i * bj + c];
        }
      }
    }
    return Linv;
  }

  /**
   * Plain row-oriented substitution in float64 arithmetic on the float32 factor: for a handful of
   * right-hand sides the n² flops cost less than the uploads and downloads of the blocked path.
   * B: `n x q` row-major. Returns L⁻¹B, or L⁻ᵀB when `transpose` is set.
   */
  private substitute(B: Float64Array, q: number, transpose: boolean): Float64Array {
    const { n, lower: L } = this;
    const X = B.slice(0, n * q);
    if (!transpose) {
      for (let i = 0; i < n; i++) {
        const row = i * n;
        for (let c = 0; c < q; c++) {
          let s = X[i * q + c];
          for (let j = 0; j < i; j++) s -= L[row + j] * X[j * q + c];
          X[i * q + c] = s / L[row + i];
        }
      }
    } else {
      for (let i = n - 1; i >= 0; i--) {
        const row = i * n;
        for (let c = 0; c < q; c++) {
          const xi = X[i * q + c] / L[row + i];
          X[i * q + c] = xi;
          for (let j = 0; j < i; j++) X[j * q + c] -= L[row + j] * xi;
        }
      }
    }
    return X;
  }

  private rowSlab(block: Block): Float32Array {
    block.rowSlab ??= gather(this.lower, this.n, block.start, block.start + block.size, 0, block.start);
    return block.rowSlab;
  }

  private checkRows(B: Float64Array, q: number): void {
    if (B.length < this.n * q) {
      throw new Error(`Kiln: a triangular solve with an ${this.n} x ${this.n} factor got ${B.length} values for ${q} right-hand sides.`);
    }
  }
}

/**
 * The lower triangle of (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹, one block column at a time: K⁻¹[0:e, J] =
 * L⁻ᵀ[0:e, s:] · L⁻¹[s:, J] (rows of L⁻¹ above s are zero in column block J), n³/3 flops in all.
 * The narrow factor goes second because XNNPACK repacks the second operand on every call.
 * Linv: `n x n` row-major lower triangular (L⁻¹). Returns `n x n` with only the lower triangle
 * (diagonal included) filled, by symmetry from the upper blocks computed.
 */
export function inverseLowerTriangle(Linv: Float32Array, n: number, blockSize = DEFAULT_BLOCK_SIZE): Float32Array {
  const LinvT = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) LinvT[j * n + i] = Linv[i * n + j];
  }
  const out = new Float32Array(n * n);
  for (let start = 0; start < n; start += blockSize) {
    const size = Math.min(blockSize, n - start);
    const end = start + size;
    const columns = matmul(gather(LinvT, n, 0, end, start, n), end, n - start, gather(Linv, n, start, n, start, end), size);
    for (let r = 0; r < end; r++) {
      for (let c = Math.max(0, r - start); c < size; c++) out[(start + c) * n + r] = columns[r * size + c];
    }
  }
  return out;
}

/**
 * Rows r0..r1, columns c0..c1 of an `n`-column row-major matrix as float32, or their transpose
 * (`(c1 − c0) x (r1 − r0)`) when `transpose` is set.
 */
function gather(M: Float32Array | Float64Array, n: number, r0: number, r1: number, c0: number, c1: number, transpose = false): Float32Array {
  const rows = r1 - r0;
  const cols = c1 - c0;
  const out = new Float32Array(rows * cols);
  if (!transpose) {
    for (let i = 0; i < rows; i++) out.set(M.subarray((r0 + i) * n + c0, (r0 + i) * n + c1), i * cols);
  } else {
    for (let i = 0; i < rows; i++) {
      const src = (r0 + i) * n + c0;
      for (let j = 0; j < cols; j++) out[j * rows + i] = M[src + j];
    }
  }
  return out;
}

/**
 * out[offset + ·] = T · rhs (or Tᵀ · rhs) for a lower-triangular T, in float64.
 * T: `size x size` row-major; rhs: `size x q` row-major.
 */
function multiplyLowerInto(T: Float64Array, size: number, rhs: Float64Array, q: number, out: Float64Array, offset: number, transpose: boolean): void {
  for (let i = 0; i < size; i++) {
    for (let c = 0; c < q; c++) {
      let s = 0;
      if (transpose) {
        for (let k = i; k < size; k++) s += T[k * size + i] * rhs[k * q + c];
      } else {
        for (let k = 0; k <= i; k++) s += T[i * size + k] * rhs[k * q + c];
      }
      out[offset + i * q + c] = s;
    }
  }
}
