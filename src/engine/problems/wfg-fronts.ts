import { hypervolume } from '../hypervolume.js';
import { paretoIndices } from '../pareto.js';
import { nondominatedSorted, thinRows } from './sampled-front.js';
import { disconnectedShape, mixedShape, shape } from './wfg-functions.js';

/**
 * Fronts and maximum hypervolumes of the WFG problems whose front is not a scaled sphere.
 *
 * WFG1 and WFG2 (convex h_1..h_{M-1}, last objective 2M h_M(x_1) mixed or disconnected): for
 * M = 2 and 3 the front at fixed x_1 = u is a copy of one curve scaled by a(u) = 1 - cos(u pi/2)
 * (M = 2: the point f_1 = 2a; M = 3: (2a (1 - cos(v pi/2)), 4a (1 - sin(v pi/2))) over v), and a
 * smaller copy dominates a larger one. So at height z of the last objective the dominated slice is
 * that of the least u with 2M h_M(u) <= z, and
 *   HV = int_0^{r_M} A(a*(z)) dz,  A(a) = r_1 - 2a (M = 2) or r_1 r_2 - 8 a^2 (1 - pi/4) (M = 3),
 * (8 (1 - pi/4) a^2 is the area under the scaled convex curve), valid for r_1 >= 2 and r_2 >= 4.
 * The least u comes from a running minimum of h_M on 2^18 steps and the integral from the
 * midpoint rule on 2^16 heights (relative error about 1e-5).
 *
 * WFG3 (linear shape, A = (1, 0, ..)): at M = 2 the line f_1/2 + f_2/4 = 1. At M >= 3 the
 * distance parameter t_M also widens x_2..x_{M-1} around 0.5, and some of those points are not
 * dominated by the degenerate line (Ishibuchi et al. 2016), so the front is the non-dominated part
 * of a dense sample over (t_1..t_{M-1}, t_M).
 */

export type ConvexLast = 'mixed' | 'disconnected';

const lastShape = (kind: ConvexLast, u: number): number => (kind === 'mixed' ? mixedShape(u, 1, 5) : disconnectedShape(u, 1, 1, 5));

/** `n x m` rows -> the non-dominated rows, thinned to `count` (extremes kept). */
function nondominatedThinned(points: Float64Array, m: number, count: number): Float64Array {
  return thinRows(nondominatedSorted(points, m), m, count);
}

/** `side^(m-1)` positions on a grid of [0, 1]^(m-1), flattened. */
function grid(m: number, side: number): Float64Array[] {
  const out: Float64Array[] = [];
  const total = side ** (m - 1);
  for (let index = 0; index < total; index++) {
    const x = new Float64Array(m - 1);
    let rest = index;
    for (let j = 0; j < m - 1; j++) {
      x[j] = (rest % side) / (side - 1);
      rest = Math.floor(rest / side);
    }
    out.push(x);
  }
  return out;
}

/** `count x m` points of the WFG1 / WFG2 front: a position grid, its non-dominated part. */
export function wfgConvexFront(kind: ConvexLast, m: number, count: number): Float64Array {
  const side = Math.max(2, Math.ceil((20 * count) ** (1 / (m - 1))));
  const positions = grid(m, Math.min(side, m === 2 ? 1 << 20 : 400));
  const points = new Float64Array(positions.length * m);
  positions.forEach((x, row) => {
    const h = shape('convex', x, m);
    h[m - 1] = lastShape(kind, x[0]);
    for (let i = 0; i < m; i++) points[row * m + i] = 2 * (i + 1) * h[i];
  });
  return nondominatedThinned(points, m, count);
}

export function wfgConvexHypervolume(kind: ConvexLast, m: number, ref: ArrayLike<number>): number | undefined {
  if ((m !== 2 && m !== 3) || ref.length !== m || ref[0] < 2 || (m === 3 && ref[1] < 4)) return undefined;
  const steps = 1 << 18;
  // running minimum of 2M h_M(u) over u = i / steps: non-increasing, so binary-searchable
  const least = new Float64Array(steps + 1);
  for (let i = 0; i <= steps; i++) least[i] = Math.min(i > 0 ? least[i - 1] : Infinity, 2 * m * lastShape(kind, i / steps));
  const firstAtMost = (z: number): number => {
    if (least[steps] > z) return -1;
    let lo = 0;
    let hi = steps;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (least[mid] <= z) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const rm = ref[m - 1];
  const top = Math.min(rm, 2 * m);
  const levels = 1 << 16;
  const slice = (a: number): number => (m === 2 ? ref[0] - 2 * a : ref[0] * ref[1] - 8 * a * a * (1 - Math.PI / 4));
  let volume = 0;
  for (let j = 0; j < levels; j++) {
    const i = firstAtMost(((j + 0.5) / levels) * top);
    if (i >= 0) volume += slice(1 - Math.cos(((i / steps) * Math.PI) / 2));
  }
  volume *= top / levels;
  // above 2M h_M(0) = 2M the slice is that of u = 0: the whole box
  if (rm > 2 * m) volume += slice(0) * (rm - 2 * m);
  return volume;
}

/** WFG3's objective vector at positions t (length m - 1) and distance t_M. */
function wfg3Point(t: ArrayLike<number>, tM: number, m: number): Float64Array {
  const x = Float64Array.from({ length: m - 1 }, (_, i) => (i === 0 ? t[0] : tM * (t[i] - 0.5) + 0.5));
  return shape('linear', x, m).map((v, i) => tM + 2 * (i + 1) * v);
}

const wfg3Cache = new Map<number, Float64Array>();

/** Non-dominated points of WFG3 over a grid of t_1..t_{M-1} and small t_M (larger t_M is dominated). */
function wfg3Sample(m: number): Float64Array {
  const cached = wfg3Cache.get(m);
  if (cached) return cached;
  const positions = m === 2 ? grid(2, 20001) : grid(m, m === 3 ? 201 : 31);
  const distances = m === 2 ? [0] : Array.from({ length: 31 }, (_, i) => (i / 30) ** 2 * 0.5);
  const points = new Float64Array(positions.length * distances.length * m);
  let row = 0;
  for (const tM of distances) for (const t of positions) points.set(wfg3Point(t, tM, m), m * row++);
  const keep = paretoIndices(points, row, m);
  const front = new Float64Array(keep.length * m);
  keep.forEach((i, k) => front.set(points.subarray(i * m, i * m + m), k * m));
  wfg3Cache.set(m, front);
  return front;
}

export function wfg3Front(m: number, count: number): Float64Array {
  return thinRows(wfg3Sample(m), m, count);
}

export function wfg3Hypervolume(m: number, ref: ArrayLike<number>): number | undefined {
  if (ref.length !== m) return undefined;
  // the line from (0, 4) to (2, 0) cuts the triangle of area 4 off the box
  if (m === 2) return ref[0] >= 2 && ref[1] >= 4 ? ref[0] * ref[1] - 4 : undefined;
  if (m > 3) return undefined;
  const front = wfg3Sample(m);
  return hypervolume(front, front.length / m, m, ref);
}
