import { cachedFront, nondominatedSorted } from './sampled-front.js';
import type { TestProblem } from './types.js';

/**
 * Two classic problems with constraints in decision space (MDL input constraints), as stated in
 * Deb, Multi-Objective Optimization using Evolutionary Algorithms (Wiley 2001):
 * - OSY (Osyczka & Kundu 1995): six variables, x1, x2, x6 in [0, 10], x3, x5 in [1, 5], x4 in [0, 6];
 *   f1 = -(25 (x1-2)^2 + (x2-2)^2 + (x3-1)^2 + (x4-4)^2 + (x5-1)^2), f2 = sum x_i^2, subject to
 *   x1 + x2 >= 2, x1 + x2 <= 6, x2 - x1 <= 2, x1 - 3 x2 <= 2, (x3-3)^2 + x4 <= 4 and
 *   (x5-3)^2 + x6 >= 4. Deb's book gives the Pareto set as five segments (x4 = x6 = 0):
 *   x = (5, 1, x3, 0, 5, 0) and (5, 1, x3, 0, 1, 0) for x3 in [1, 5]; (x1, (x1-2)/3, 1, 0, 1, 0)
 *   for x1 in [4.056, 5]; (0, 2, x3, 0, 1, 0) for x3 in [1, 3.732]; (x1, 2-x1, 1, 0, 1, 0) for x1
 *   in [0, 1]. The front is the non-dominated part of those segments traced over wider ranges
 *   (the filter recovers the published ends); a brute-force Minkowski sum of the separable parts
 *   agreed with it to 1e-5 of the hypervolume.
 * - CONSTR (Deb 2001): x1 in [0.1, 1], x2 in [0, 5], f1 = x1, f2 = (1 + x2)/x1, subject to
 *   x2 + 9 x1 >= 6 and 9 x1 - x2 >= 1. Front: f2 = 7/f1 - 9 for f1 in [7/18, 2/3] (first
 *   constraint active), f2 = 1/f1 for f1 in [2/3, 1] (x2 = 0).
 */

const OSY_BOUNDS: readonly (readonly [number, number])[] = [
  [0, 10],
  [0, 10],
  [1, 5],
  [0, 6],
  [1, 5],
  [0, 10],
];

function osyObjectives(x: ArrayLike<number>): [number, number] {
  const f1 = -(25 * (x[0] - 2) ** 2 + (x[1] - 2) ** 2 + (x[2] - 1) ** 2 + (x[3] - 4) ** 2 + (x[4] - 1) ** 2);
  let f2 = 0;
  for (let i = 0; i < 6; i++) f2 += x[i] * x[i];
  return [f1, f2];
}

const osyFront = cachedFront(2, () => {
  const values: number[] = [];
  // an odd count puts t = 1/2 on the grid: x = (1, 1, 1, 0, 1, 0) is the front's end (-42, 4)
  const n = 20_001;
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1);
    const x3 = 1 + 4 * t;
    values.push(...osyObjectives([5, 1, x3, 0, 5, 0]), ...osyObjectives([5, 1, x3, 0, 1, 0]), ...osyObjectives([0, 2, x3, 0, 1, 0]));
    const x1 = 2 + 3 * t;
    values.push(...osyObjectives([x1, (x1 - 2) / 3, 1, 0, 1, 0]), ...osyObjectives([2 * t, 2 - 2 * t, 1, 0, 1, 0]));
  }
  return nondominatedSorted(Float64Array.from(values), 2);
});

export const osy: TestProblem = {
  name: 'osy',
  description: 'OSY (Osyczka & Kundu 1995): 2 objectives on 6 variables with six constraints in decision space; a front of five segments.',
  objectives: 2,
  minDimension: () => 6,
  maxDimension: () => 6,
  bounds: () => OSY_BOUNDS,
  evaluate(x, m) {
    if (m !== 2 || x.length !== 6) throw new Error(`osy has 2 objectives on 6 variables, not ${m} on ${x.length}.`);
    return Float64Array.from(osyObjectives(OSY_BOUNDS.map(([lo, hi], i) => lo + (hi - lo) * x[i])));
  },
  paretoFront: (_m, count) => osyFront.sample(count),
  maxHypervolume: (m, ref) => (m === 2 ? osyFront.hypervolume(ref) : undefined),
  maxHypervolumeSource: () => 'dense front sample',
  constraints: ['x1 + x2 >= 2', 'x1 + x2 <= 6', 'x2 - x1 <= 2', 'x1 - 3 * x2 <= 2', '(x3 - 3)^2 + x4 <= 4', '(x5 - 3)^2 + x6 >= 4'],
};

/** CONSTR's front: f2 = 7/f1 - 9 on [7/18, 2/3], then 1/f1 on [2/3, 1]. */
function constrFront(count: number): Float64Array {
  const out = new Float64Array(2 * count);
  for (let i = 0; i < count; i++) {
    const f1 = 7 / 18 + ((1 - 7 / 18) * i) / Math.max(1, count - 1);
    out[2 * i] = f1;
    out[2 * i + 1] = f1 <= 2 / 3 ? 7 / f1 - 9 : 1 / f1;
  }
  return out;
}

export const constr: TestProblem = {
  name: 'constr',
  description: 'CONSTR (Deb 2001): f1 = x1 in [0.1, 1], f2 = (1 + x2)/x1 with x2 in [0, 5], two linear constraints in decision space.',
  objectives: 2,
  minDimension: () => 2,
  maxDimension: () => 2,
  bounds: () => [
    [0.1, 1],
    [0, 5],
  ],
  evaluate(x, m) {
    if (m !== 2 || x.length !== 2) throw new Error(`constr has 2 objectives on 2 variables, not ${m} on ${x.length}.`);
    const x1 = 0.1 + 0.9 * x[0];
    return Float64Array.of(x1, (1 + 5 * x[1]) / x1);
  },
  paretoFront: (_m, count) => constrFront(count),
  maxHypervolume: (m, ref) => {
    if (m !== 2 || ref.length !== 2 || ref[0] < 1 || ref[1] < 9) return undefined;
    const [r1, r2] = [ref[0], ref[1]];
    // int_{7/18}^{2/3} (r2 - 7/t + 9) dt + int_{2/3}^{1} (r2 - 1/t) dt + (r1 - 1)(r2 - 1)
    return (r2 + 9) * (2 / 3 - 7 / 18) - 7 * Math.log(12 / 7) + r2 / 3 - Math.log(1.5) + (r1 - 1) * (r2 - 1);
  },
  constraints: ['x2 + 9 * x1 >= 6', '9 * x1 - x2 >= 1'],
};
