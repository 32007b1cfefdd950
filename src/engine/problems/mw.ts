import { simplexPoints } from './fronts.js';
import { cachedFront, nondominatedSorted } from './sampled-front.js';
import type { TestProblem } from './types.js';

/**
 * MW1-MW4 (Ma & Wang, "Evolutionary constrained multiobjective optimization: test suite
 * construction and performance comparisons", IEEE TEVC 23(6):972-986, 2019), x in [0, 1]^D
 * (D = 15 in the paper). Distance functions over x_M..x_D (1-based i):
 *   g1 = 1 + sum (1 - exp(-10 (x_i^(D-M) - 0.5 - (i-1)/(2D))^2)),
 *   g2 = 1 + sum (1.5 + 0.1/D z_i^2 - 1.5 cos(2 pi z_i)), z_i = 1 - exp(-10 (x_i - (i-1)/D)^2),
 *   g3 = 1 + sum 2 (x_i + (x_{i-1} - 0.5)^2 - 1)^2.
 * The constraints are on the objectives: each is reported as a measured outcome, feasible where
 * >= 0 (MDL outcome constraints `slack >= 0`, MW3: `slack1 >= 0`, `slack2 >= 0`), with
 * l = sqrt2 (f2 - f1):
 * - MW1: f1 = x1, f2 = g1 - 0.85 f1; slack = 1 + 0.5 sin^8(2 pi l) - f1 - f2. Front: the feasible
 *   pieces of f2 = 1 - 0.85 f1 (and the least feasible f2 above the cuts where not dominated).
 * - MW2: f1 = x1, f2 = g2 - f1; slack = 1 + 0.5 sin^8(3 pi l) - f1 - f2. Front f1 + f2 = 1.
 * - MW3: f1 = x1, f2 = g3 - f1; slack1 = 1.05 + 0.45 sin^6(0.75 pi l) - f1 - f2,
 *   slack2 = f1 + f2 - 0.85 - 0.3 sin^2(0.75 pi l). Front: f1 + f2 = max(1, 0.85 + 0.3 sin^2(0.75 pi l)),
 *   its non-dominated part (the line where the second constraint allows, the constraint's boundary
 *   where not).
 * - MW4 (any M): f_1 = g1 prod_{j<M} (1 - x_j), f_m = g1 x_{M-m+1} prod_{j<=M-m} (1 - x_j),
 *   f_M = g1 x_1; slack = 1 + 0.4 sin^8(2.5 pi (f_M - sum_{i<M} f_i)) - sum f. Front: the simplex sum f = 1.
 */

function g1(x: Float64Array, m: number): number {
  const d = x.length;
  let g = 1;
  for (let i = m - 1; i < d; i++) g += 1 - Math.exp(-10 * (x[i] ** (d - m) - 0.5 - i / (2 * d)) ** 2);
  return g;
}

function g2(x: Float64Array, m: number): number {
  const d = x.length;
  let g = 1;
  for (let i = m - 1; i < d; i++) {
    const z = 1 - Math.exp(-10 * (x[i] - i / d) ** 2);
    g += 1.5 + (0.1 / d) * z * z - 1.5 * Math.cos(2 * Math.PI * z);
  }
  return g;
}

function g3(x: Float64Array, m: number): number {
  let g = 1;
  for (let i = m - 1; i < x.length; i++) g += 2 * (x[i] + (x[i - 1] - 0.5) ** 2 - 1) ** 2;
  return g;
}

const l = (f: ArrayLike<number>): number => Math.SQRT2 * (f[1] - f[0]);

function checkTwo(name: string, x: Float64Array, m: number): void {
  if (m !== 2) throw new Error(`${name} has 2 objectives, not ${m}.`);
  if (x.length < 3) throw new Error(`${name} needs at least 3 variables, got ${x.length}.`);
}

/** `count x 2` points of a front f2 = h(f1), f1 evenly in [0, 1]. */
function lineFront(count: number, h: (f1: number) => number): Float64Array {
  const out = new Float64Array(2 * count);
  for (let i = 0; i < count; i++) {
    const f1 = i / Math.max(1, count - 1);
    out.set([f1, h(f1)], 2 * i);
  }
  return out;
}

const twoObjective = {
  objectives: 2,
  minDimension: () => 3,
} as const;

const mw1Slack = (f1: number, f2: number): number => 1 + 0.5 * Math.sin(2 * Math.PI * Math.SQRT2 * (f2 - f1)) ** 8 - f1 - f2;

/**
 * MW1's front: on the line f2 = 1 - 0.85 f1 (g1 = 1) f1 + f2 = 1 + 0.15 f1 exceeds 1, so the
 * constraint cuts the line into pieces; above a cut the least feasible f2 (g1 > 1 reaches any f2
 * above the line) may still be non-dominated. For 20,000 values of f1 the least feasible f2 is
 * found on a grid of 1,000 steps up to 1.5 - f1 (beyond it the constraint cannot hold) and refined
 * by bisection; the front is the non-dominated part. None of the points above the cuts survive:
 * the front is the line's feasible pieces, as pymoo tabulates it (the tests check both).
 */
const mw1Front = cachedFront(2, () => {
  const values: number[] = [];
  const n = 20_000;
  for (let i = 0; i < n; i++) {
    const f1 = i / (n - 1);
    const lo = 1 - 0.85 * f1;
    const hi = 1.5 - f1;
    const steps = 1000;
    for (let k = 0; k <= steps; k++) {
      const f2 = lo + ((hi - lo) * k) / steps;
      if (mw1Slack(f1, f2) < 0) continue;
      let [below, above] = [k === 0 ? f2 : lo + ((hi - lo) * (k - 1)) / steps, f2];
      for (let r = 0; r < 60 && k > 0; r++) {
        const mid = (below + above) / 2;
        if (mw1Slack(f1, mid) >= 0) above = mid;
        else below = mid;
      }
      values.push(f1, above);
      break;
    }
  }
  return nondominatedSorted(Float64Array.from(values), 2);
});

export const mw1: TestProblem = {
  ...twoObjective,
  name: 'mw1',
  description: 'MW1 (Ma & Wang 2019): 2 objectives, D >= 3 (usually 15); the line f2 = 1 - 0.85 f1 cut into pieces by the constraint (outcome: slack >= 0).',
  evaluate(x, m) {
    checkTwo('mw1', x, m);
    const g = g1(x, 2);
    return Float64Array.of(x[0], g - 0.85 * x[0]);
  },
  outcomes: { names: ['slack'], evaluate: (_x, f) => Float64Array.of(mw1Slack(f[0], f[1])) },
  paretoFront: (_m, count) => mw1Front.sample(count),
  maxHypervolume: (m, ref) => (m === 2 ? mw1Front.hypervolume(ref) : undefined),
  maxHypervolumeSource: () => 'dense front sample',
};

export const mw2: TestProblem = {
  ...twoObjective,
  name: 'mw2',
  description: 'MW2 (Ma & Wang 2019): 2 objectives, D >= 3 (usually 15); linear front f1 + f2 = 1, multimodal distance, feasible bands (outcome: slack >= 0).',
  evaluate(x, m) {
    checkTwo('mw2', x, m);
    return Float64Array.of(x[0], g2(x, 2) - x[0]);
  },
  outcomes: { names: ['slack'], evaluate: (_x, f) => Float64Array.of(1 + 0.5 * Math.sin(3 * Math.PI * l(f)) ** 8 - f[0] - f[1]) },
  paretoFront: (_m, count) => lineFront(count, (t) => 1 - t),
  maxHypervolume: (m, ref) => (m === 2 && ref[0] >= 1 && ref[1] >= 1 ? ref[0] * ref[1] - 0.5 : undefined),
};

const mw3Sum = (difference: number): number => Math.max(1, 0.85 + 0.3 * Math.sin(0.75 * Math.PI * Math.SQRT2 * difference) ** 2);

const mw3Front = cachedFront(2, () => {
  const values: number[] = [];
  const n = 80_000;
  // f2 - f1 = difference runs from -1 (f1 = 1) up to where f1 reaches 0
  for (let i = 0; i < n; i++) {
    const difference = -1 + (2.5 * i) / (n - 1);
    const sum = mw3Sum(difference);
    const f1 = (sum - difference) / 2;
    if (f1 >= 0 && f1 <= 1) values.push(f1, (sum + difference) / 2);
  }
  return nondominatedSorted(Float64Array.from(values), 2);
});

export const mw3: TestProblem = {
  ...twoObjective,
  name: 'mw3',
  description:
    'MW3 (Ma & Wang 2019): 2 objectives, D >= 3 (usually 15); front f1 + f2 = 1 pushed out where a second constraint cuts it (outcomes: slack1, slack2 >= 0).',
  evaluate(x, m) {
    checkTwo('mw3', x, m);
    return Float64Array.of(x[0], g3(x, 2) - x[0]);
  },
  outcomes: {
    names: ['slack1', 'slack2'],
    evaluate: (_x, f) => {
      const s = Math.sin(0.75 * Math.PI * l(f));
      return Float64Array.of(1.05 + 0.45 * s ** 6 - f[0] - f[1], f[0] + f[1] - 0.85 - 0.3 * s * s);
    },
  },
  paretoFront: (_m, count) => mw3Front.sample(count),
  maxHypervolume: (m, ref) => (m === 2 ? mw3Front.hypervolume(ref) : undefined),
  maxHypervolumeSource: () => 'dense front sample',
};

function mw4Evaluate(x: Float64Array, m: number): Float64Array {
  if (!Number.isInteger(m) || m < 2) throw new Error(`mw4 needs at least 2 objectives, got ${m}.`);
  if (x.length <= m) throw new Error(`mw4 with ${m} objectives needs more than ${m} variables, got ${x.length}.`);
  const g = g1(x, m);
  const f = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let v = g;
    for (let j = 0; j < m - 1 - i; j++) v *= 1 - x[j];
    if (i > 0) v *= x[m - 1 - i];
    f[i] = v;
  }
  return f;
}

function factorial(k: number): number {
  return k <= 1 ? 1 : k * factorial(k - 1);
}

export const mw4: TestProblem = {
  name: 'mw4',
  description: 'MW4 (Ma & Wang 2019): any M >= 2, D > M (usually M + 12); simplex front sum f = 1 behind feasible bands (outcome: slack >= 0).',
  objectives: 'any',
  minDimension: (m) => m + 1,
  evaluate: mw4Evaluate,
  outcomes: {
    names: ['slack'],
    evaluate: (_x, f) => {
      const m = f.length;
      let sum = 0;
      for (let i = 0; i < m; i++) sum += f[i];
      const lead = f[m - 1] - (sum - f[m - 1]);
      return Float64Array.of(1 + 0.4 * Math.sin(2.5 * Math.PI * lead) ** 8 - sum);
    },
  },
  paretoFront: simplexPoints,
  // the simplex sum f = 1 hides 1/m! of the box
  maxHypervolume: (m, ref) => {
    if (ref.length !== m || Array.from(ref).some((r) => r < 1)) return undefined;
    return Array.from(ref).reduce((p, r) => p * r, 1) - 1 / factorial(m);
  },
};
