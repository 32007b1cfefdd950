import { linspace } from './fronts.js';
import type { TestProblem } from './types.js';

/**
 * ZDT4 and ZDT6 (Zitzler, Deb & Thiele, "Comparison of multiobjective evolutionary algorithms:
 * empirical results", Evolutionary Computation 8(2):173-195, 2000), usually with d = 10:
 * - ZDT4: x1 in [0, 1], x2..xd in [-5, 5]; f1 = x1, g = 1 + 10 (d - 1) + sum_{i>=2} (x_i^2 -
 *   10 cos(4 pi x_i)), f2 = g (1 - sqrt(f1 / g)). 21^9 local fronts; the global one is g = 1
 *   (x2..xd = 0), ZDT1's convex front f2 = 1 - sqrt(f1).
 * - ZDT6: x in [0, 1]^d; f1 = 1 - exp(-4 x1) sin^6(6 pi x1), g = 1 + 9 (sum_{i>=2} x_i / (d - 1))^0.25,
 *   f2 = g (1 - (f1 / g)^2). The front is g = 1 (x2..xd = 0): f2 = 1 - f1^2 for f1 from the
 *   least value of f1 (0.2807753191...) to 1, non-uniformly reached by x1.
 */

function checkShape(name: string, x: Float64Array, m: number): void {
  if (m !== 2) throw new Error(`${name} has 2 objectives, not ${m}.`);
  if (x.length < 2) throw new Error(`${name} needs at least 2 variables, got ${x.length}.`);
}

/** ZDT4 on the unit cube: x2..xd map onto [-5, 5]. */
function zdt4Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('zdt4', x, m);
  const d = x.length;
  let g = 1 + 10 * (d - 1);
  for (let i = 1; i < d; i++) {
    const xi = -5 + 10 * x[i];
    g += xi * xi - 10 * Math.cos(4 * Math.PI * xi);
  }
  const f1 = x[0];
  return Float64Array.of(f1, g * (1 - Math.sqrt(f1 / g)));
}

const zdt6F1 = (x1: number): number => 1 - Math.exp(-4 * x1) * Math.sin(6 * Math.PI * x1) ** 6;

function zdt6Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('zdt6', x, m);
  const d = x.length;
  let sum = 0;
  for (let i = 1; i < d; i++) sum += x[i];
  const f1 = zdt6F1(x[0]);
  const g = 1 + 9 * (sum / (d - 1)) ** 0.25;
  return Float64Array.of(f1, g * (1 - (f1 / g) ** 2));
}

/**
 * The least f1 of ZDT6: at the first peak of exp(-4 x) sin^6(6 pi x), where the derivative
 * vanishes: -4 sin + 36 pi cos = 0, so x = atan(9 pi) / (6 pi).
 */
function zdt6LeastF1(): number {
  return zdt6F1(Math.atan(9 * Math.PI) / (6 * Math.PI));
}

/** Least f1 on the ZDT6 front, 0.28077531881... */
export const ZDT6_LEAST_F1 = zdt6LeastF1();

function curveFront(f1: Float64Array, h: (t: number) => number): Float64Array {
  const out = new Float64Array(2 * f1.length);
  for (let i = 0; i < f1.length; i++) out.set([f1[i], h(f1[i])], 2 * i);
  return out;
}

export const zdt4: TestProblem = {
  name: 'zdt4',
  description:
    'ZDT4 (Zitzler, Deb & Thiele 2000): 2 objectives, any d >= 2 (usually 10), x2..xd in [-5, 5], highly multimodal; convex front f2 = 1 - sqrt(f1).',
  objectives: 2,
  minDimension: () => 2,
  bounds: (d) => Array.from({ length: d }, (_, i) => (i === 0 ? ([0, 1] as const) : ([-5, 5] as const))),
  evaluate: zdt4Evaluate,
  paretoFront: (_m, count) => curveFront(linspace(0, 1, count), (t) => 1 - Math.sqrt(t)),
  // as ZDT1: the area under 1 - sqrt(t) on [0, 1] is 1/3; the reference must dominate (1, 1)
  maxHypervolume: (m, ref) => (m === 2 && ref.length === 2 && ref[0] >= 1 && ref[1] >= 1 ? ref[0] * ref[1] - 1 / 3 : undefined),
};

export const zdt6: TestProblem = {
  name: 'zdt6',
  description:
    'ZDT6 (Zitzler, Deb & Thiele 2000): 2 objectives, any d >= 2 (usually 10), biased and non-uniform; concave front f2 = 1 - f1^2 for f1 >= 0.2808.',
  objectives: 2,
  minDimension: () => 2,
  evaluate: zdt6Evaluate,
  paretoFront: (_m, count) => curveFront(linspace(ZDT6_LEAST_F1, 1, count), (t) => 1 - t * t),
  maxHypervolume: (m, ref) => {
    const a = ZDT6_LEAST_F1;
    if (m !== 2 || ref.length !== 2 || ref[0] < 1 || ref[1] < 1 - a * a) return undefined;
    // int_a^1 (r2 - 1 + t^2) dt, then the strip beyond f1 = 1 where the front reaches f2 = 0
    return (ref[1] - 1) * (1 - a) + (1 - a ** 3) / 3 + (ref[0] - 1) * ref[1];
  },
};
