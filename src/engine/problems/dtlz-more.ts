import { hypervolume } from '../hypervolume.js';
import { paretoIndices } from '../pareto.js';
import { checkShape, multimodalG, sphereFront, sphereHypervolume } from './dtlz.js';
import { linspace } from './fronts.js';
import type { TestProblem } from './types.js';

/**
 * DTLZ3-DTLZ7 (Deb, Thiele, Laumanns & Zitzler, "Scalable test problems for evolutionary
 * multiobjective optimization", Springer 2005; TIK report 112, 2001), m >= 2 objectives on n >= m
 * variables in [0, 1], the last k = n - m + 1 of them (x_M) setting g. Every objective is
 * (1 + g) times a point of the unit sphere given by m - 1 angles theta:
 *   f_1 = (1+g) cos th_1 ... cos th_{m-1},  f_i = (1+g) cos th_1 ... cos th_{m-i} sin th_{m-i+1},
 *   f_m = (1+g) sin th_1,
 * except DTLZ7.
 * - DTLZ3: th_j = x_j pi/2 with DTLZ1's multimodal g = 100 (k + sum((x-0.5)^2 - cos(20 pi (x-0.5)))).
 * - DTLZ4: th_j = x_j^100 pi/2, g = sum (x-0.5)^2 (a biased density).
 * - DTLZ5: g = sum (x-0.5)^2, th_1 = x_1 pi/2, th_j = pi/(4(1+g)) (1 + 2 g x_j) for j >= 2.
 * - DTLZ6: as DTLZ5 with g = sum x^0.1 (front at x_M = 0).
 * - DTLZ7: f_i = x_i (i < m), g = 1 + 9/k sum x_M, f_m = (1+g)(m - sum_{i<m} f_i/(1+g) (1 + sin(3 pi f_i))):
 *   2^(m-1) disconnected regions.
 * The fronts of DTLZ3 and DTLZ4 are DTLZ2's sphere. DTLZ5 and DTLZ6 at g = 0 trace the curve
 * th_j = pi/4 (j >= 2); with m >= 4 some points with g > 0 are not dominated by that curve
 * (Ishibuchi et al., "Pareto fronts of many-objective degenerate test problems", IEEE TEVC 2016),
 * so there the maximum hypervolume is that of a dense sample of the objective space.
 */

/** (1 + g) times the sphere point of the angles th (length m - 1), as in DTLZ2. */
function spherical(theta: Float64Array, g: number, m: number): Float64Array {
  const f = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let v = 1 + g;
    for (let j = 0; j < m - 1 - i; j++) v *= Math.cos(theta[j]);
    if (i > 0) v *= Math.sin(theta[m - 1 - i]);
    f[i] = v;
  }
  return f;
}

function sumSquaredOffsets(x: Float64Array, m: number): number {
  let g = 0;
  for (let i = m - 1; i < x.length; i++) g += (x[i] - 0.5) ** 2;
  return g;
}

function dtlz3Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('dtlz3', x, m);
  const theta = Float64Array.from({ length: m - 1 }, (_, j) => (x[j] * Math.PI) / 2);
  return spherical(theta, multimodalG(x, m), m);
}

function dtlz4Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('dtlz4', x, m);
  const theta = Float64Array.from({ length: m - 1 }, (_, j) => (x[j] ** 100 * Math.PI) / 2);
  return spherical(theta, sumSquaredOffsets(x, m), m);
}

/** DTLZ5/6 angles: th_1 = x_1 pi/2, th_j = pi/(4(1+g)) (1 + 2 g x_j). */
function degenerateAngles(x: ArrayLike<number>, g: number, m: number): Float64Array {
  const theta = new Float64Array(m - 1);
  theta[0] = (x[0] * Math.PI) / 2;
  for (let j = 1; j < m - 1; j++) theta[j] = (Math.PI / (4 * (1 + g))) * (1 + 2 * g * x[j]);
  return theta;
}

function dtlz5Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('dtlz5', x, m);
  const g = sumSquaredOffsets(x, m);
  return spherical(degenerateAngles(x, g, m), g, m);
}

function dtlz6Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('dtlz6', x, m);
  let g = 0;
  for (let i = m - 1; i < x.length; i++) g += x[i] ** 0.1;
  return spherical(degenerateAngles(x, g, m), g, m);
}

/** `count x m` points of the g = 0 curve of DTLZ5/6: th_1 evenly in [0, pi/2], th_j = pi/4. */
function degenerateCurve(m: number, count: number): Float64Array {
  const out = new Float64Array(count * m);
  const x = new Float64Array(m - 1).fill(0.5);
  linspace(0, 1, count).forEach((t, i) => {
    x[0] = t;
    out.set(spherical(degenerateAngles(x, 0, m), 0, m), i * m);
  });
  return out;
}

/**
 * Hypervolume of the g = 0 curve for m = 3 in closed form: the curve is
 * (c/sqrt2, c/sqrt2, s) with c = cos th, s = sin th; at height z <= 1 the points with f3 <= z
 * reach down to w = sqrt((1 - z^2)/2) in f1 and f2, so the slice is (r1 - w)(r2 - w); above 1 the
 * whole box. Integrated by Simpson's rule on 20,001 nodes (error below 1e-12).
 */
function degenerateCurveHv3(ref: ArrayLike<number>): number {
  const n = 20000;
  const slice = (z: number) => {
    const w = Math.sqrt((1 - z * z) / 2);
    return Math.max(0, ref[0] - w) * Math.max(0, ref[1] - w);
  };
  let sum = slice(0) + slice(1);
  for (let i = 1; i < n; i++) sum += (i % 2 ? 4 : 2) * slice(i / n);
  return (sum / (3 * n)) * 1 + ref[0] * ref[1] * Math.max(0, ref[2] - 1);
}

const sampledCache = new Map<string, Float64Array>();

/**
 * DTLZ5/6 with m >= 4: the non-dominated points of the dense g = 0 curve together with a grid over
 * x_1 (121 values), x_2..x_{m-1} (11 values each at m = 4) and g (13 values up to 0.56, denser
 * near 0); only g and the position variables matter. Points with large g can be non-dominated
 * too (they reach f_2 = 0), but they lie outside the box of the curve's nadir + 10 %, the
 * reference the suite uses: |f| = 1 + g exceeds that box's diagonal beyond g = 0.56. The g > 0
 * points add 0.1 % to the curve's hypervolume there; a 2.7-million-point sample adds 0.04 % more.
 */
function sampledDegenerateFront(name: string, m: number): Float64Array {
  const key = `${name}/${m}`;
  const cached = sampledCache.get(key);
  if (cached) return cached;
  const side = m === 4 ? 11 : 5;
  const gs = Array.from({ length: 13 }, (_, k) => 0.56 * (k / 12) ** 2);
  const positions = 121 * side ** (m - 2);
  const curve = degenerateCurve(m, 20_001);
  const points = new Float64Array(curve.length + positions * gs.length * m);
  points.set(curve);
  let row = curve.length / m;
  const x = new Float64Array(m - 1);
  for (const g of gs) {
    for (let index = 0; index < positions; index++) {
      x[0] = (index % 121) / 120;
      let rest = Math.floor(index / 121);
      for (let j = 1; j < m - 1; j++) {
        x[j] = (rest % side) / (side - 1);
        rest = Math.floor(rest / side);
      }
      // cos(pi/2) is 6e-17, not 0: such dust would keep dominated points in the sample
      points.set(
        spherical(degenerateAngles(x, g, m), g, m).map((v) => (v < 1e-12 ? 0 : v)),
        row++ * m,
      );
    }
  }
  const keep = paretoIndices(points, row, m);
  const front = new Float64Array(keep.length * m);
  keep.forEach((i, k) => front.set(points.subarray(i * m, i * m + m), k * m));
  sampledCache.set(key, front);
  return front;
}

function degenerateProblem(name: string, description: string, evaluate: TestProblem['evaluate']): TestProblem {
  return {
    name,
    description,
    objectives: 'any',
    minDimension: (m) => m,
    evaluate,
    // at m >= 4 the curve is part of the front (not all of it): its points serve as the front's sample
    paretoFront: (m, count) => degenerateCurve(m, count),
    maxHypervolumeSource: (m) => (m === 2 ? 'closed form' : m === 3 ? 'integral' : 'dense sample of the objective space'),
    maxHypervolume: (m, ref) => {
      if (ref.length !== m) return undefined;
      if (m === 2) return sphereHypervolume(2, ref);
      if (m === 3) return ref[0] >= Math.SQRT1_2 && ref[1] >= Math.SQRT1_2 && ref[2] >= 1 ? degenerateCurveHv3(ref) : undefined;
      const front = sampledDegenerateFront(name, m);
      return hypervolume(front, front.length / m, m, ref);
    },
  };
}

export const dtlz3: TestProblem = {
  name: 'dtlz3',
  description: 'DTLZ3 (Deb et al. 2002/2005): any m >= 2, n >= m (usually m + 9); DTLZ2 sphere front behind 3^k - 1 local fronts (g of DTLZ1).',
  objectives: 'any',
  minDimension: (m) => m,
  evaluate: dtlz3Evaluate,
  paretoFront: sphereFront,
  maxHypervolume: sphereHypervolume,
};

export const dtlz4: TestProblem = {
  name: 'dtlz4',
  description: 'DTLZ4 (Deb et al. 2002/2005): any m >= 2, n >= m (usually m + 9); DTLZ2 sphere front with a density biased towards its edges (x^100).',
  objectives: 'any',
  minDimension: (m) => m,
  evaluate: dtlz4Evaluate,
  paretoFront: sphereFront,
  maxHypervolume: sphereHypervolume,
};

export const dtlz5 = degenerateProblem(
  'dtlz5',
  'DTLZ5 (Deb et al. 2002/2005): any m >= 2, n >= m (usually m + 9); degenerate front: a curve on the unit sphere (more than a curve at m >= 4).',
  dtlz5Evaluate,
);

export const dtlz6 = degenerateProblem(
  'dtlz6',
  'DTLZ6 (Deb et al. 2002/2005): any m >= 2, n >= m (usually m + 9); DTLZ5 with a harder g = sum x^0.1.',
  dtlz6Evaluate,
);
