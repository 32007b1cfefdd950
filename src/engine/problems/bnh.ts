import { arcLengthSpread, polylineHypervolume2d } from './fronts.js';
import type { TestProblem } from './types.js';

/**
 * BNH (Binh & Korn, "MOBES: A multiobjective evolution strategy for constrained optimization
 * problems", Proc. 3rd Int. Conf. on Genetic Algorithms (Mendel 97), 1997; as stated in Deb,
 * Multi-Objective Optimization using Evolutionary Algorithms, Wiley 2001): x1 in [0, 5],
 * x2 in [0, 3],
 *   f1 = 4 x1^2 + 4 x2^2,   f2 = (x1 - 5)^2 + (x2 - 5)^2,
 *   subject to (x1 - 5)^2 + x2^2 <= 25 and (x1 - 8)^2 + (x2 + 3)^2 >= 7.7.
 * The constraints are inactive on the Pareto set, x1 = x2 in [0, 3] followed by x2 = 3 with x1 in
 * [3, 5], so the front is f2 = 2 (sqrt(f1/8) - 5)^2 for f1 <= 72 and
 * f2 = (sqrt((f1 - 36)/4) - 5)^2 + 4 for 72 <= f1 <= 136.
 * The evaluator returns the objectives only; the constraints travel as MDL expressions.
 */

const X1_MAX = 5;
const X2_MAX = 3;

function evaluate(x: Float64Array, m: number): Float64Array {
  if (m !== 2) throw new Error(`bnh has 2 objectives, not ${m}.`);
  if (x.length !== 2) throw new Error(`bnh has exactly 2 variables, got ${x.length}.`);
  const x1 = X1_MAX * x[0];
  const x2 = X2_MAX * x[1];
  return Float64Array.of(4 * x1 * x1 + 4 * x2 * x2, (x1 - 5) ** 2 + (x2 - 5) ** 2);
}

/** The front sampled along its Pareto set, `2*points x 2` row-major, increasing f1. */
function front(points: number): Float64Array {
  const out = new Float64Array(4 * points);
  for (let i = 0; i < points; i++) {
    const t = (3 * i) / (points - 1);
    out[2 * i] = 8 * t * t;
    out[2 * i + 1] = 2 * (t - 5) ** 2;
  }
  for (let i = 0; i < points; i++) {
    const x1 = 3 + (2 * (i + 1)) / points;
    out[2 * (points + i)] = 4 * x1 * x1 + 36;
    out[2 * (points + i) + 1] = (x1 - 5) ** 2 + 4;
  }
  return out;
}

/**
 * Area under the front from f1 = 0 to 136: with f1 = 8t^2 on the first part,
 * 32 * int_0^3 t (t - 5)^2 dt = 1368; with f1 = 4s^2 + 36 on the second,
 * 8 * int_3^5 s ((s - 5)^2 + 4) ds = 992/3.
 */
const AREA_UNDER_FRONT = 1368 + 992 / 3;
/** The front's nadir point; its ideal point is (0, 4). */
const NADIR: [number, number] = [136, 50];
const F2_MIN = 4;

export const bnh: TestProblem = {
  name: 'bnh',
  description: 'BNH (Binh & Korn 1997): 2 objectives on exactly 2 variables x1 in [0,5], x2 in [0,3], with two constraints in decision space.',
  objectives: 2,
  minDimension: () => 2,
  maxDimension: () => 2,
  evaluate,
  paretoFront: (m, count) => {
    if (m !== 2) throw new Error(`bnh has 2 objectives, not ${m}.`);
    return arcLengthSpread(front(Math.max(4096, 4 * count)), count);
  },
  maxHypervolume: (m, ref) => {
    if (m !== 2 || ref.length !== 2) return undefined;
    // beyond f1 = 136 the front still dominates everything above f2 = 4
    if (ref[0] >= NADIR[0] && ref[1] >= NADIR[1]) return ref[0] * ref[1] - AREA_UNDER_FRONT - F2_MIN * (ref[0] - NADIR[0]);
    return polylineHypervolume2d(front(65536), ref);
  },
  bounds: () => [
    [0, X1_MAX],
    [0, X2_MAX],
  ],
  constraints: ['(x1 - 5)^2 + x2^2 <= 25', '(x1 - 8)^2 + (x2 + 3)^2 >= 7.7'],
};
