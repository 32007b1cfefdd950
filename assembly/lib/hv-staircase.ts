// The two-dimensional "staircase" of the 3-D dimension sweep (Beume, Fonseca, López-Ibáñez,
// Paquete & Vahrenhold 2009, "On the complexity of computing the hypervolume indicator"): the
// non-dominated (x, y) points seen so far, kept sorted by x ascending (so y strictly descending)
// in a flat array of pairs. Lookups are binary searches; the points an insertion dominates are
// contiguous, so they are cut out with one memory.copy. Two sentinels bound the array:
// (-inf, ref_y) on the left and (ref_x, -inf) on the right, which removes every end-of-array test.

let stair: usize = 0;
let size: i32 = 0;

@inline
function sx(i: i32): f64 {
  return load<f64>(stair + ((<usize>i) << 4));
}

@inline
function sy(i: i32): f64 {
  return load<f64>(stair + ((<usize>i) << 4), 8);
}

/** Empties the staircase; `buf` must hold (points to insert + 2) pairs of f64. */
export function stairReset(buf: usize, rx: f64, ry: f64): void {
  stair = buf;
  size = 2;
  store<f64>(buf, -Infinity);
  store<f64>(buf, ry, 8);
  store<f64>(buf, rx, 16);
  store<f64>(buf, -Infinity, 24);
}

/**
 * Adds (qx, qy), with qx < ref_x and qy < ref_y, and returns the area it adds to the region the
 * staircase dominates inside the reference box (0 when it is weakly dominated).
 */
export function stairInsert(qx: f64, qy: f64): f64 {
  let lo = 1;
  let hi = size - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sx(mid) < qx) lo = mid + 1;
    else hi = mid;
  }
  const i = lo;
  let h = sy(i - 1);
  if (h <= qy) return 0;
  if (sx(i) == qx && sy(i) <= qy) return 0;
  let j = i;
  let x0 = qx;
  let gain = 0.0;
  while (sy(j) >= qy) {
    const xj = sx(j);
    gain += (xj - x0) * (h - qy);
    x0 = xj;
    h = sy(j);
    j++;
  }
  gain += (sx(j) - x0) * (h - qy);
  const removed = j - i;
  if (removed != 1) {
    const from = stair + ((<usize>j) << 4);
    const to = stair + ((<usize>(i + 1)) << 4);
    memory.copy(to, from, (<usize>(size - j)) << 4);
    size += 1 - removed;
  }
  const at = stair + ((<usize>i) << 4);
  store<f64>(at, qx);
  store<f64>(at, qy, 8);
  return gain;
}
