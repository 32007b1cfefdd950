// Dimension-sweep hypervolume for two and three objectives, and the exclusive 2-D contribution of
// one point that hypervolume improvements use.
// Rows are `k x stride` row-major f64 in linear memory (only the first 2 or 3 columns are read);
// `ref` points to the reference point; minimisation throughout.

import { arenaAlloc, arenaMark, arenaRelease } from './hv-arena';
import { stairInsert, stairReset } from './hv-staircase';

@inline
function at(rows: usize, i: i32, stride: i32, j: i32): f64 {
  return load<f64>(rows + ((<usize>i * <usize>stride + <usize>j) << 3));
}

/**
 * 2-D hypervolume by one sweep. `rows` must be sorted by the second objective ascending (any
 * order among ties); dominated rows are allowed and add nothing.
 */
export function hv2(rows: usize, k: i32, stride: i32, ref: usize): f64 {
  const rx = load<f64>(ref);
  const ry = load<f64>(ref, 8);
  let left = rx;
  let area = 0.0;
  for (let i = 0; i < k; i++) {
    const x = at(rows, i, stride, 0);
    if (x < left) {
      area += (left - x) * (ry - at(rows, i, stride, 1));
      left = x;
    }
  }
  return area;
}

/**
 * 3-D hypervolume by the O(n log n) sweep of Beume et al. (2009): slabs between consecutive third
 * objectives, each with the area of the 2-D staircase of the rows below it. `rows` must be sorted
 * by the third objective ascending; dominated rows are allowed.
 */
export function hv3(rows: usize, k: i32, stride: i32, ref: usize): f64 {
  const mark = arenaMark();
  stairReset(arenaAlloc((<usize>(k + 2)) << 4), load<f64>(ref), load<f64>(ref, 8));
  const rz = load<f64>(ref, 16);
  let area = 0.0;
  let volume = 0.0;
  let prevZ = at(rows, 0, stride, 2);
  for (let i = 0; i < k; i++) {
    const z = at(rows, i, stride, 2);
    volume += area * (z - prevZ);
    prevZ = z;
    area += stairInsert(at(rows, i, stride, 0), at(rows, i, stride, 1));
  }
  arenaRelease(mark);
  return volume + area * (rz - prevZ);
}

/**
 * Exclusive 2-D contribution of (cx, cy) with respect to `front` (`k x 2`, non-dominated, sorted
 * by the second objective strictly ascending, hence the first strictly descending): the area
 * between c and ref not dominated by the front, found by binary search and a walk over the front
 * points that overlap c's box. 0 when c is weakly dominated.
 */
export function contribution2(front: usize, k: i32, cx: f64, cy: f64, ref: usize): f64 {
  const rx = load<f64>(ref);
  const ry = load<f64>(ref, 8);
  let lo = 0;
  let hi = k;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(front, mid, 2, 1) <= cy) lo = mid + 1;
    else hi = mid;
  }
  let right = lo > 0 ? at(front, lo - 1, 2, 0) : rx;
  if (right <= cx) return 0;
  let area = 0.0;
  for (let j = lo; j < k; j++) {
    const xj = at(front, j, 2, 0);
    const left = max(xj, cx);
    area += (right - left) * (at(front, j, 2, 1) - cy);
    right = left;
    if (xj <= cx) return area;
  }
  return area + (right - cx) * (ry - cy);
}
