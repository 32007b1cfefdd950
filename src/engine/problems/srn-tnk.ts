import { cachedFront, nondominatedSorted, traceCurve } from './sampled-front.js';
import type { TestProblem } from './types.js';

/**
 * Two classic constrained problems (both as stated in Deb, Multi-Objective Optimization using
 * Evolutionary Algorithms, Wiley 2001, and in pymoo):
 * - SRN (Srinivas & Deb 1994): x in [-20, 20]^2, f1 = 2 + (x1 - 2)^2 + (x2 - 1)^2,
 *   f2 = 9 x1 - (x2 - 1)^2, subject to x1^2 + x2^2 <= 225 and x1 - 3 x2 + 10 <= 0 (MDL input
 *   constraints). The usual statement of its Pareto set, x1 = -2.5 with x2 in [2.5, 14.79] (where
 *   the gradients oppose: f1 + f2 = -0.25 there), is not all of it: the front goes on along the
 *   linear constraint (down to f1 = 10.1 at x = (1.1, 3.7)) and along the circle (f2 below
 *   -212.7). The front here is the non-dominated part of those three curves and of a 401 x 401
 *   grid of the square (as a safeguard), checked against a finer grid in the tests.
 * - TNK (Tanaka et al. 1995): x in [0, pi]^2 (x2 > 0), f = x, subject to
 *   x1^2 + x2^2 - 1 - 0.1 cos(16 atan(x1/x2)) >= 0 (a wavy circle; a measured outcome `slack`,
 *   since the MDL's expressions have no trigonometry) and (x1 - 0.5)^2 + (x2 - 0.5)^2 <= 0.5 (an
 *   MDL input constraint). The front is the non-dominated part of the wavy circle, in pieces.
 */

function srnObjectives(x1: number, x2: number): [number, number] {
  return [2 + (x1 - 2) ** 2 + (x2 - 1) ** 2, 9 * x1 - (x2 - 1) ** 2];
}

const srnFeasible = (x1: number, x2: number): boolean => x1 * x1 + x2 * x2 <= 225 + 1e-9 && x1 - 3 * x2 + 10 <= 1e-9;

const srnFront = cachedFront(2, () => {
  const candidates: [number, number][] = [];
  const top = Math.sqrt(225 - 6.25);
  const push = (count: number, at: (t: number) => [number, number]) => {
    for (let i = 0; i < count; i++) candidates.push(at(i / (count - 1)));
  };
  // where the gradients oppose (x1 = -2.5), the linear constraint and the circle, then a grid
  push(20_000, (t) => [-2.5, 2.5 + t * (top - 2.5)]);
  const [lo, hi] = [3 - Math.sqrt(21.5), 3 + Math.sqrt(21.5)];
  push(20_000, (t) => [3 * (lo + t * (hi - lo)) - 10, lo + t * (hi - lo)]);
  push(80_000, (t) => [15 * Math.cos(2 * Math.PI * t), 15 * Math.sin(2 * Math.PI * t)]);
  push(401 * 401, (t) => {
    const i = Math.round(t * (401 * 401 - 1));
    return [-20 + (40 * (i % 401)) / 400, -20 + (40 * Math.floor(i / 401)) / 400];
  });
  const values: number[] = [];
  for (const [x1, x2] of candidates) if (srnFeasible(x1, x2)) values.push(...srnObjectives(x1, x2));
  return nondominatedSorted(Float64Array.from(values), 2);
});

export const srn: TestProblem = {
  name: 'srn',
  description: 'SRN (Srinivas & Deb 1994): 2 objectives on x1, x2 in [-20, 20] with a circle and a linear constraint in decision space.',
  objectives: 2,
  minDimension: () => 2,
  maxDimension: () => 2,
  bounds: () => [
    [-20, 20],
    [-20, 20],
  ],
  evaluate(x, m) {
    if (m !== 2 || x.length !== 2) throw new Error(`srn has 2 objectives on 2 variables, not ${m} on ${x.length}.`);
    return Float64Array.from(srnObjectives(-20 + 40 * x[0], -20 + 40 * x[1]));
  },
  paretoFront: (_m, count) => srnFront.sample(count),
  maxHypervolume: (m, ref) => (m === 2 ? srnFront.hypervolume(ref) : undefined),
  maxHypervolumeSource: () => 'dense front sample',
  constraints: ['x1^2 + x2^2 <= 225', 'x1 - 3 * x2 + 10 <= 0'],
};

const X_MAX = Math.PI;

/** TNK's first constraint, >= 0 where feasible. */
export function tnkSlack(x1: number, x2: number): number {
  return x1 * x1 + x2 * x2 - 1 - 0.1 * Math.cos(16 * Math.atan2(x1, x2));
}

const tnkFront = cachedFront(2, () => {
  const points: number[] = [];
  traceCurve(points, 80_000, (t) => {
    const angle = (t * Math.PI) / 2;
    const r = Math.sqrt(1 + 0.1 * Math.cos(16 * angle));
    return [r * Math.sin(angle), r * Math.cos(angle)];
  });
  const inside: number[] = [];
  for (let i = 0; i < points.length; i += 2) {
    if ((points[i] - 0.5) ** 2 + (points[i + 1] - 0.5) ** 2 <= 0.5) inside.push(points[i], points[i + 1]);
  }
  return nondominatedSorted(Float64Array.from(inside), 2);
});

export const tnk: TestProblem = {
  name: 'tnk',
  description:
    'TNK (Tanaka et al. 1995): f = (x1, x2) in [0, pi]^2, feasible outside a wavy circle (outcome: slack >= 0) and inside a disc (input constraint); disconnected front.',
  objectives: 2,
  minDimension: () => 2,
  maxDimension: () => 2,
  bounds: () => [
    [0, X_MAX],
    [0, X_MAX],
  ],
  evaluate(x, m) {
    if (m !== 2 || x.length !== 2) throw new Error(`tnk has 2 objectives on 2 variables, not ${m} on ${x.length}.`);
    return Float64Array.of(X_MAX * x[0], X_MAX * x[1]);
  },
  outcomes: { names: ['slack'], evaluate: (_x, f) => Float64Array.of(tnkSlack(f[0], f[1])) },
  paretoFront: (_m, count) => tnkFront.sample(count),
  maxHypervolume: (m, ref) => (m === 2 ? tnkFront.hypervolume(ref) : undefined),
  maxHypervolumeSource: () => 'dense front sample',
  constraints: ['(x1 - 0.5)^2 + (x2 - 0.5)^2 <= 0.5'],
};
