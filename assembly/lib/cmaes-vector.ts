// f64x2 vector primitives for the CMA-ES kernel. Every vector is a run of `len` f64 values at a
// 16-byte-aligned address with `len` even (rows are padded to an even stride whose padding stays 0).

/** y[0..len) += a * x[0..len) */
@inline export function axpy(y: usize, a: f64, x: usize, len: i32): void {
  const av = f64x2.splat(a);
  const end = y + (<usize>len << 3);
  for (; y < end; y += 16, x += 16) {
    v128.store(y, f64x2.add(v128.load(y), f64x2.mul(av, v128.load(x))));
  }
}

/**
 * y[0..len) += a[0] x_0 + a[1] x_1 + a[2] x_2 + a[3] x_3 with x_r = x + r * stride (bytes): four
 * rows per pass halve the loads and stores of y against four separate axpy calls.
 * a: 4 f64 coefficients.
 */
@inline export function axpy4(y: usize, a: usize, x: usize, stride: usize, len: i32): void {
  const a0 = v128.load64_splat(a);
  const a1 = v128.load64_splat(a, 8);
  const a2 = v128.load64_splat(a, 16);
  const a3 = v128.load64_splat(a, 24);
  const x1 = x + stride;
  const x2 = x1 + stride;
  const x3 = x2 + stride;
  const end = <usize>len << 3;
  for (let k: usize = 0; k < end; k += 16) {
    let acc = v128.load(y + k);
    acc = f64x2.add(acc, f64x2.mul(a0, v128.load(x + k)));
    acc = f64x2.add(acc, f64x2.mul(a1, v128.load(x1 + k)));
    acc = f64x2.add(acc, f64x2.mul(a2, v128.load(x2 + k)));
    acc = f64x2.add(acc, f64x2.mul(a3, v128.load(x3 + k)));
    v128.store(y + k, acc);
  }
}

/**
 * axpy4 for two vectors at once: y0 += sum_r a0[r] x_r and y1 += sum_r a1[r] x_r. Each load of
 * x_r serves both, which halves the traffic over the rows (the matrix is re-read per pass).
 * a0, a1: 4 f64 coefficients each.
 */
@inline export function axpy4x2(y0: usize, y1: usize, a0: usize, a1: usize, x: usize, stride: usize, len: i32): void {
  const a00 = v128.load64_splat(a0);
  const a01 = v128.load64_splat(a0, 8);
  const a02 = v128.load64_splat(a0, 16);
  const a03 = v128.load64_splat(a0, 24);
  const a10 = v128.load64_splat(a1);
  const a11 = v128.load64_splat(a1, 8);
  const a12 = v128.load64_splat(a1, 16);
  const a13 = v128.load64_splat(a1, 24);
  const x1 = x + stride;
  const x2 = x1 + stride;
  const x3 = x2 + stride;
  const end = <usize>len << 3;
  for (let k: usize = 0; k < end; k += 16) {
    const v0 = v128.load(x + k);
    const v1 = v128.load(x1 + k);
    const v2 = v128.load(x2 + k);
    const v3 = v128.load(x3 + k);
    let acc0 = v128.load(y0 + k);
    acc0 = f64x2.add(acc0, f64x2.mul(a00, v0));
    acc0 = f64x2.add(acc0, f64x2.mul(a01, v1));
    acc0 = f64x2.add(acc0, f64x2.mul(a02, v2));
    acc0 = f64x2.add(acc0, f64x2.mul(a03, v3));
    v128.store(y0 + k, acc0);
    let acc1 = v128.load(y1 + k);
    acc1 = f64x2.add(acc1, f64x2.mul(a10, v0));
    acc1 = f64x2.add(acc1, f64x2.mul(a11, v1));
    acc1 = f64x2.add(acc1, f64x2.mul(a12, v2));
    acc1 = f64x2.add(acc1, f64x2.mul(a13, v3));
    v128.store(y1 + k, acc1);
  }
}

/** y[0..len) *= a */
@inline export function scale(y: usize, a: f64, len: i32): void {
  const av = f64x2.splat(a);
  const end = y + (<usize>len << 3);
  for (; y < end; y += 16) v128.store(y, f64x2.mul(av, v128.load(y)));
}

/** Sum of x[i] * y[i] over [0, len). */
@inline export function dot(x: usize, y: usize, len: i32): f64 {
  let acc = f64x2.splat(0);
  const end = x + (<usize>len << 3);
  for (; x < end; x += 16, y += 16) acc = f64x2.add(acc, f64x2.mul(v128.load(x), v128.load(y)));
  return f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
}

/** Element `i` of the f64 array at `p`. */
@inline export function at(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}

/** Sets element `i` of the f64 array at `p`. */
@inline export function put(p: usize, i: i32, v: f64): void {
  store<f64>(p + (<usize>i << 3), v);
}
