// Symmetric eigendecomposition for the CMA-ES kernel: Householder tridiagonalisation followed by
// the implicit QL method (EISPACK tred2/tql2 as published in JAMA and Numerical Recipes §11.2–11.3,
// the same route as pycma's fallback `eig`). The matrix is stored transposed with respect to those
// sources (row j holds what they keep in column j) so every inner loop runs over contiguous memory
// and can use f64x2 lanes.

const EPS: f64 = 2.220446049250313e-16;
const MAX_QL_ITERATIONS: i32 = 60;

@inline function rowPtr(a: usize, ld: i32, r: i32): usize {
  return a + ((<usize>r * <usize>ld) << 3);
}

@inline function sum2(v: v128): f64 {
  return f64x2.extract_lane(v, 0) + f64x2.extract_lane(v, 1);
}

// sqrt(p^2 + q^2) without the slow generic hypot, falling back to it only near under/overflow.
@inline function hypot2(p: f64, q: f64): f64 {
  const s = p * p + q * q;
  if (s > 1e-290 && s < 1e290) return Math.sqrt(s);
  return Math.hypot(p, q);
}

/**
 * Eigendecomposition of a symmetric matrix in place.
 * a: `n x ld` row-major (ld >= n); only the upper triangle (column >= row) is read. On return row j
 *    holds the unit eigenvector belonging to eigenvalue `d[j]` (eigenvalues are not sorted).
 * d: n eigenvalues (output); e: 3n scratch.
 * Returns false when the QL iteration did not converge (the outputs are then meaningless).
 */
export function symmetricEigen(a: usize, n: i32, ld: i32, d: usize, e: usize): bool {
  tridiagonalize(a, n, ld, d, e);
  return diagonalize(a, n, ld, d, e, e + (<usize>n << 3), e + (<usize>n << 4));
}

// e += A d for the symmetric leading i x i block of `a` (upper triangle read), and d[0..i) (the
// Householder vector) copied into the first i entries of row i, as tred2 keeps it.
// Rows go in pairs so the loads of d and e serve both, and the two rows' sums are independent
// chains where a single one would serialise the loop on the latency of its additions.
function symmetricProduct(a: usize, ld: i32, i: i32, d: usize, e: usize): void {
  const rowI = rowPtr(a, ld, i);
  let j = 0;
  for (; j + 1 < i; j += 2) {
    const r0 = rowPtr(a, ld, j);
    const r1 = r0 + (<usize>ld << 3);
    const j0 = <usize>j << 3;
    const j1 = j0 + 8;
    const f0 = load<f64>(d + j0);
    const f1 = load<f64>(d + j1);
    store<f64>(rowI + j0, f0);
    store<f64>(rowI + j1, f1);
    // The 2 x 2 diagonal block, then columns j + 2 .. i - 1 shared by both rows.
    const a01 = load<f64>(r0 + j1);
    let g0 = load<f64>(e + j0) + load<f64>(r0 + j0) * f0 + a01 * f1;
    let g1 = load<f64>(e + j1) + a01 * f0 + load<f64>(r1 + j1) * f1;
    const f0v = f64x2.splat(f0);
    const f1v = f64x2.splat(f1);
    let g0v = f64x2.splat(0);
    let g1v = f64x2.splat(0);
    let k = j + 2;
    for (; k + 1 < i; k += 2) {
      const off = <usize>k << 3;
      const w0 = v128.load(r0 + off);
      const w1 = v128.load(r1 + off);
      const dv = v128.load(d + off);
      g0v = f64x2.add(g0v, f64x2.mul(w0, dv));
      g1v = f64x2.add(g1v, f64x2.mul(w1, dv));
      v128.store(e + off, f64x2.add(v128.load(e + off), f64x2.add(f64x2.mul(w0, f0v), f64x2.mul(w1, f1v))));
    }
    g0 += sum2(g0v);
    g1 += sum2(g1v);
    for (; k < i; k++) {
      const off = <usize>k << 3;
      const w0 = load<f64>(r0 + off);
      const w1 = load<f64>(r1 + off);
      const dk = load<f64>(d + off);
      g0 += w0 * dk;
      g1 += w1 * dk;
      store<f64>(e + off, load<f64>(e + off) + (w0 * f0 + w1 * f1));
    }
    store<f64>(e + j0, g0);
    store<f64>(e + j1, g1);
  }
  if (j < i) {
    // The last row of an odd block has only its diagonal entry left.
    const off = <usize>j << 3;
    const f = load<f64>(d + off);
    store<f64>(rowI + off, f);
    store<f64>(e + off, load<f64>(e + off) + load<f64>(rowPtr(a, ld, j) + off) * f);
  }
}

// row -= (u . row) v for rows 0 .. len-1 of `a`, on their first len entries. Rows go in pairs so the
// loads of u and v serve both; each dot product has two accumulators so the loop is not bound by the
// latency of its additions.
function reflectRows(a: usize, ld: i32, len: i32, u: usize, v: usize): void {
  const width = <usize>len << 3;
  const even = width & ~(<usize>15);
  const stride = <usize>ld << 3;
  let j = 0;
  for (; j + 1 < len; j += 2) {
    const r0 = rowPtr(a, ld, j);
    const r1 = r0 + stride;
    let g0v = f64x2.splat(0);
    let g1v = f64x2.splat(0);
    let g0w = f64x2.splat(0);
    let g1w = f64x2.splat(0);
    let k: usize = 0;
    for (; k + 32 <= even; k += 32) {
      const uk = v128.load(u + k);
      const ul = v128.load(u + k, 16);
      g0v = f64x2.add(g0v, f64x2.mul(uk, v128.load(r0 + k)));
      g1v = f64x2.add(g1v, f64x2.mul(uk, v128.load(r1 + k)));
      g0w = f64x2.add(g0w, f64x2.mul(ul, v128.load(r0 + k, 16)));
      g1w = f64x2.add(g1w, f64x2.mul(ul, v128.load(r1 + k, 16)));
    }
    if (k < even) {
      const uk = v128.load(u + k);
      g0v = f64x2.add(g0v, f64x2.mul(uk, v128.load(r0 + k)));
      g1v = f64x2.add(g1v, f64x2.mul(uk, v128.load(r1 + k)));
    }
    let g0 = sum2(f64x2.add(g0v, g0w));
    let g1 = sum2(f64x2.add(g1v, g1w));
    if (even < width) {
      const uk = load<f64>(u + even);
      g0 += uk * load<f64>(r0 + even);
      g1 += uk * load<f64>(r1 + even);
    }
    const g0s = f64x2.splat(g0);
    const g1s = f64x2.splat(g1);
    for (let k: usize = 0; k < even; k += 16) {
      const vk = v128.load(v + k);
      v128.store(r0 + k, f64x2.sub(v128.load(r0 + k), f64x2.mul(g0s, vk)));
      v128.store(r1 + k, f64x2.sub(v128.load(r1 + k), f64x2.mul(g1s, vk)));
    }
    if (even < width) {
      const vk = load<f64>(v + even);
      store<f64>(r0 + even, load<f64>(r0 + even) - g0 * vk);
      store<f64>(r1 + even, load<f64>(r1 + even) - g1 * vk);
    }
  }
  if (j < len) {
    const r = rowPtr(a, ld, j);
    let gv = f64x2.splat(0);
    for (let k: usize = 0; k < even; k += 16) gv = f64x2.add(gv, f64x2.mul(v128.load(u + k), v128.load(r + k)));
    let g = sum2(gv);
    if (even < width) g += load<f64>(u + even) * load<f64>(r + even);
    const gs = f64x2.splat(g);
    for (let k: usize = 0; k < even; k += 16) v128.store(r + k, f64x2.sub(v128.load(r + k), f64x2.mul(gs, v128.load(v + k))));
    if (even < width) store<f64>(r + even, load<f64>(r + even) - g * load<f64>(v + even));
  }
}

// A -= d e^T + e d^T on the upper triangle of the leading i x i block; then d[j] takes row j's entry
// i - 1 and row j's entry i is cleared, as tred2 does. Rows go in pairs so the loads of d and e serve
// both; d[j] is overwritten only after the rows that still read it.
function rankTwoUpdate(a: usize, ld: i32, i: i32, d: usize, e: usize): void {
  const last = <usize>(i - 1) << 3;
  const col = <usize>i << 3;
  let j = 0;
  for (; j + 1 < i; j += 2) {
    const r0 = rowPtr(a, ld, j);
    const r1 = r0 + (<usize>ld << 3);
    const j0 = <usize>j << 3;
    const f0 = load<f64>(d + j0);
    const g0 = load<f64>(e + j0);
    const f1 = load<f64>(d + j0 + 8);
    const g1 = load<f64>(e + j0 + 8);
    store<f64>(r0 + j0, load<f64>(r0 + j0) - (f0 * g0 + g0 * f0));
    const f0v = f64x2.splat(f0);
    const g0v = f64x2.splat(g0);
    const f1v = f64x2.splat(f1);
    const g1v = f64x2.splat(g1);
    let k = j + 1;
    for (; k + 1 < i; k += 2) {
      const off = <usize>k << 3;
      const ek = v128.load(e + off);
      const dk = v128.load(d + off);
      v128.store(r0 + off, f64x2.sub(v128.load(r0 + off), f64x2.add(f64x2.mul(f0v, ek), f64x2.mul(g0v, dk))));
      v128.store(r1 + off, f64x2.sub(v128.load(r1 + off), f64x2.add(f64x2.mul(f1v, ek), f64x2.mul(g1v, dk))));
    }
    for (; k < i; k++) {
      const off = <usize>k << 3;
      const ek = load<f64>(e + off);
      const dk = load<f64>(d + off);
      store<f64>(r0 + off, load<f64>(r0 + off) - (f0 * ek + g0 * dk));
      store<f64>(r1 + off, load<f64>(r1 + off) - (f1 * ek + g1 * dk));
    }
    store<f64>(d + j0, load<f64>(r0 + last));
    store<f64>(d + j0 + 8, load<f64>(r1 + last));
    store<f64>(r0 + col, 0);
    store<f64>(r1 + col, 0);
  }
  if (j < i) {
    const r = rowPtr(a, ld, j);
    const off = <usize>j << 3;
    const f = load<f64>(d + off);
    const g = load<f64>(e + off);
    store<f64>(r + off, load<f64>(r + off) - (f * g + g * f));
    store<f64>(d + off, load<f64>(r + last));
    store<f64>(r + col, 0);
  }
}

// Householder reduction to tridiagonal form, accumulating the orthogonal transformation in `a`.
// On return d holds the diagonal and e[1..n) the subdiagonal.
function tridiagonalize(a: usize, n: i32, ld: i32, d: usize, e: usize): void {
  for (let j = 0; j < n; j++) store<f64>(d + (<usize>j << 3), load<f64>(rowPtr(a, ld, j) + (<usize>(n - 1) << 3)));
  for (let i = n - 1; i > 0; i--) {
    let scale: f64 = 0;
    let h: f64 = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(load<f64>(d + (<usize>k << 3)));
    if (scale == 0) {
      store<f64>(e + (<usize>i << 3), load<f64>(d + (<usize>(i - 1) << 3)));
      for (let j = 0; j < i; j++) {
        store<f64>(d + (<usize>j << 3), load<f64>(rowPtr(a, ld, j) + (<usize>(i - 1) << 3)));
        store<f64>(rowPtr(a, ld, j) + (<usize>i << 3), 0);
        store<f64>(rowPtr(a, ld, i) + (<usize>j << 3), 0);
      }
    } else {
      for (let k = 0; k < i; k++) {
        const v = load<f64>(d + (<usize>k << 3)) / scale;
        store<f64>(d + (<usize>k << 3), v);
        h += v * v;
      }
      let f = load<f64>(d + (<usize>(i - 1) << 3));
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      store<f64>(e + (<usize>i << 3), scale * g);
      h -= f * g;
      store<f64>(d + (<usize>(i - 1) << 3), f - g);
      memory.fill(e, 0, <usize>i << 3);
      symmetricProduct(a, ld, i, d, e);
      f = 0;
      for (let j = 0; j < i; j++) {
        const ej = load<f64>(e + (<usize>j << 3)) / h;
        store<f64>(e + (<usize>j << 3), ej);
        f += ej * load<f64>(d + (<usize>j << 3));
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) {
        store<f64>(e + (<usize>j << 3), load<f64>(e + (<usize>j << 3)) - hh * load<f64>(d + (<usize>j << 3)));
      }
      rankTwoUpdate(a, ld, i, d, e);
    }
    store<f64>(d + (<usize>i << 3), h);
  }
  for (let i = 0; i < n - 1; i++) {
    const rowI = rowPtr(a, ld, i);
    const rowNext = rowPtr(a, ld, i + 1);
    store<f64>(rowI + (<usize>(n - 1) << 3), load<f64>(rowI + (<usize>i << 3)));
    store<f64>(rowI + (<usize>i << 3), 1);
    const h = load<f64>(d + (<usize>(i + 1) << 3));
    if (h != 0) {
      for (let k = 0; k <= i; k++) store<f64>(d + (<usize>k << 3), load<f64>(rowNext + (<usize>k << 3)) / h);
      reflectRows(a, ld, i + 1, rowNext, d);
    }
    memory.fill(rowNext, 0, <usize>(i + 1) << 3);
  }
  for (let j = 0; j < n; j++) {
    const p = rowPtr(a, ld, j) + (<usize>(n - 1) << 3);
    store<f64>(d + (<usize>j << 3), load<f64>(p));
    store<f64>(p, 0);
  }
  store<f64>(rowPtr(a, ld, n - 1) + (<usize>(n - 1) << 3), 1);
  store<f64>(e, 0);
}

// Applies the plane rotations of one QL sweep, (c[i], s[i]) on rows i and i+1 for i = m-1 down to
// l, in passes over 8 columns: the running rows stay in registers (one load and one store per
// rotation instead of two of each), and four independent lane pairs hide the latency of the
// carried dependency.
function applySweep(a: usize, ld: i32, n: i32, l: i32, m: i32, c: usize, s: usize): void {
  const stride = <usize>ld << 3;
  const top = rowPtr(a, ld, m);
  const width = <usize>n << 3;
  let k: usize = 0;
  for (; k + 64 <= width; k += 64) {
    let r0 = v128.load(top + k);
    let r1 = v128.load(top + k, 16);
    let r2 = v128.load(top + k, 32);
    let r3 = v128.load(top + k, 48);
    let p = top - stride + k;
    for (let i = m - 1; i >= l; i--) {
      const ci = v128.load64_splat(c + (<usize>i << 3));
      const si = v128.load64_splat(s + (<usize>i << 3));
      const x0 = v128.load(p);
      const x1 = v128.load(p, 16);
      const x2 = v128.load(p, 32);
      const x3 = v128.load(p, 48);
      const q = p + stride;
      v128.store(q, f64x2.add(f64x2.mul(si, x0), f64x2.mul(ci, r0)));
      v128.store(q, f64x2.add(f64x2.mul(si, x1), f64x2.mul(ci, r1)), 16);
      v128.store(q, f64x2.add(f64x2.mul(si, x2), f64x2.mul(ci, r2)), 32);
      v128.store(q, f64x2.add(f64x2.mul(si, x3), f64x2.mul(ci, r3)), 48);
      r0 = f64x2.sub(f64x2.mul(ci, x0), f64x2.mul(si, r0));
      r1 = f64x2.sub(f64x2.mul(ci, x1), f64x2.mul(si, r1));
      r2 = f64x2.sub(f64x2.mul(ci, x2), f64x2.mul(si, r2));
      r3 = f64x2.sub(f64x2.mul(ci, x3), f64x2.mul(si, r3));
      p -= stride;
    }
    const q = p + stride;
    v128.store(q, r0);
    v128.store(q, r1, 16);
    v128.store(q, r2, 32);
    v128.store(q, r3, 48);
  }
  for (; k + 16 <= width; k += 16) {
    let carry = v128.load(top + k);
    let p = top - stride + k;
    for (let i = m - 1; i >= l; i--) {
      const ci = v128.load64_splat(c + (<usize>i << 3));
      const si = v128.load64_splat(s + (<usize>i << 3));
      const x0 = v128.load(p);
      v128.store(p + stride, f64x2.add(f64x2.mul(si, x0), f64x2.mul(ci, carry)));
      carry = f64x2.sub(f64x2.mul(ci, x0), f64x2.mul(si, carry));
      p -= stride;
    }
    v128.store(p + stride, carry);
  }
  if (k < width) {
    let carry = load<f64>(top + k);
    let p = top - stride + k;
    for (let i = m - 1; i >= l; i--) {
      const ci = load<f64>(c + (<usize>i << 3));
      const si = load<f64>(s + (<usize>i << 3));
      const x0 = load<f64>(p);
      store<f64>(p + stride, si * x0 + ci * carry);
      carry = ci * x0 - si * carry;
      p -= stride;
    }
    store<f64>(p + stride, carry);
  }
}

// Implicit QL iterations with Wilkinson-type shifts on the tridiagonal (d, e), rotating the rows of a.
// cs, sn: n scratch values each for the rotations of a sweep.
function diagonalize(a: usize, n: i32, ld: i32, d: usize, e: usize, cs: usize, sn: usize): bool {
  for (let i = 1; i < n; i++) store<f64>(e + (<usize>(i - 1) << 3), load<f64>(e + (<usize>i << 3)));
  store<f64>(e + (<usize>(n - 1) << 3), 0);
  let f: f64 = 0;
  let tst1: f64 = 0;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(load<f64>(d + (<usize>l << 3))) + Math.abs(load<f64>(e + (<usize>l << 3))));
    let m = l;
    while (m < n) {
      if (Math.abs(load<f64>(e + (<usize>m << 3))) <= EPS * tst1) break;
      m++;
    }
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > MAX_QL_ITERATIONS) return false;
        let g = load<f64>(d + (<usize>l << 3));
        const el = load<f64>(e + (<usize>l << 3));
        let p = (load<f64>(d + (<usize>(l + 1) << 3)) - g) / (2 * el);
        let r = hypot2(p, 1);
        if (p < 0) r = -r;
        store<f64>(d + (<usize>l << 3), el / (p + r));
        store<f64>(d + (<usize>(l + 1) << 3), el * (p + r));
        const dl1 = load<f64>(d + (<usize>(l + 1) << 3));
        let h = g - load<f64>(d + (<usize>l << 3));
        for (let i = l + 2; i < n; i++) store<f64>(d + (<usize>i << 3), load<f64>(d + (<usize>i << 3)) - h);
        f += h;
        p = load<f64>(d + (<usize>m << 3));
        let c: f64 = 1;
        let c2: f64 = 1;
        let c3: f64 = 1;
        const el1 = load<f64>(e + (<usize>(l + 1) << 3));
        let s: f64 = 0;
        let s2: f64 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          const ei = load<f64>(e + (<usize>i << 3));
          const di = load<f64>(d + (<usize>i << 3));
          g = c * ei;
          h = c * p;
          r = hypot2(p, ei);
          store<f64>(e + (<usize>(i + 1) << 3), s * r);
          s = ei / r;
          c = p / r;
          p = c * di - s * g;
          store<f64>(d + (<usize>(i + 1) << 3), h + s * (c * g + s * di));
          store<f64>(cs + (<usize>i << 3), c);
          store<f64>(sn + (<usize>i << 3), s);
        }
        applySweep(a, ld, n, l, m, cs, sn);
        p = (-s * s2 * c3 * el1 * load<f64>(e + (<usize>l << 3))) / dl1;
        store<f64>(e + (<usize>l << 3), s * p);
        store<f64>(d + (<usize>l << 3), c * p);
      } while (Math.abs(load<f64>(e + (<usize>l << 3))) > EPS * tst1);
    }
    store<f64>(d + (<usize>l << 3), load<f64>(d + (<usize>l << 3)) + f);
    store<f64>(e + (<usize>l << 3), 0);
  }
  return true;
}
