import { linspace } from './fronts.js';
import type { TestProblem } from './types.js';

/**
 * ZDT1, ZDT2 and ZDT3 (Zitzler, Deb & Thiele, "Comparison of multiobjective evolutionary
 * algorithms: empirical results", Evolutionary Computation 8(2):173-195, 2000), for any d >= 2:
 *   f1 = x1,  g = 1 + 9/(d-1) * sum_{i=2..d} x_i,  f2 = g * h(f1, g)
 * with h = 1 - sqrt(f1/g) (ZDT1, convex front), 1 - (f1/g)^2 (ZDT2, concave front) and
 * 1 - sqrt(f1/g) - (f1/g) sin(10 pi f1) (ZDT3, five disconnected pieces). The fronts are g = 1,
 * i.e. x2..xd = 0, so f2 = h(f1, 1).
 */

type Shape = (f1: number, g: number) => number;

function zdtEvaluate(h: Shape, x: Float64Array, m: number, name: string): Float64Array {
  if (m !== 2) throw new Error(`${name} has 2 objectives, not ${m}.`);
  const d = x.length;
  if (d < 2) throw new Error(`${name} needs at least 2 variables, got ${d}.`);
  let sum = 0;
  for (let i = 1; i < d; i++) sum += x[i];
  const f1 = x[0];
  const g = 1 + (9 * sum) / (d - 1);
  return Float64Array.of(f1, g * h(f1, g));
}

const h1: Shape = (f1, g) => 1 - Math.sqrt(f1 / g);
const h2: Shape = (f1, g) => 1 - (f1 / g) ** 2;
const h3: Shape = (f1, g) => 1 - Math.sqrt(f1 / g) - (f1 / g) * Math.sin(10 * Math.PI * f1);

/** Front points for f1 values: `count x 2` row-major. */
function frontAt(f1: Float64Array, h: Shape): Float64Array {
  const out = new Float64Array(2 * f1.length);
  for (let i = 0; i < f1.length; i++) {
    out[2 * i] = f1[i];
    out[2 * i + 1] = h(f1[i], 1);
  }
  return out;
}

/**
 * Hypervolume of a front f2 = h(f1) for f1 in [0, 1] with h decreasing and h(0) = 1, h(1) = 0,
 * given the area under h; the reference must weakly dominate the nadir (1, 1).
 */
function continuousFrontHv(areaUnder: number, m: number, ref: ArrayLike<number>): number | undefined {
  if (m !== 2 || ref.length !== 2 || ref[0] < 1 || ref[1] < 1) return undefined;
  return ref[0] * ref[1] - areaUnder;
}

function zdtProblem(name: string, description: string, h: Shape): Omit<TestProblem, 'paretoFront' | 'maxHypervolume'> {
  return {
    name,
    description,
    objectives: 2,
    minDimension: () => 2,
    evaluate: (x, m) => zdtEvaluate(h, x, m, name),
  };
}

export const zdt1: TestProblem = {
  ...zdtProblem('zdt1', 'ZDT1 (Zitzler, Deb & Thiele 2000): 2 objectives, any d >= 2 (usually 30), convex front f2 = 1 - sqrt(f1).', h1),
  paretoFront: (_m, count) => frontAt(linspace(0, 1, count), h1),
  // area under 1 - sqrt(t) on [0, 1] is 1/3
  maxHypervolume: (m, ref) => continuousFrontHv(1 / 3, m, ref),
};

export const zdt2: TestProblem = {
  ...zdtProblem('zdt2', 'ZDT2 (Zitzler, Deb & Thiele 2000): 2 objectives, any d >= 2 (usually 30), concave front f2 = 1 - f1^2.', h2),
  paretoFront: (_m, count) => frontAt(linspace(0, 1, count), h2),
  // area under 1 - t^2 on [0, 1] is 2/3
  maxHypervolume: (m, ref) => continuousFrontHv(2 / 3, m, ref),
};

const TEN_PI = 10 * Math.PI;
const phi3 = (t: number): number => h3(t, 1);
const dphi3 = (t: number): number => -0.5 / Math.sqrt(t) - Math.sin(TEN_PI * t) - TEN_PI * t * Math.cos(TEN_PI * t);
/** Antiderivative of phi3: t - 2/3 t^1.5 + t cos(ct)/c - sin(ct)/c^2 with c = 10 pi. */
const phi3Integral = (t: number): number => t - (2 / 3) * t ** 1.5 + (t * Math.cos(TEN_PI * t)) / TEN_PI - Math.sin(TEN_PI * t) / TEN_PI ** 2;

function bisect(f: (t: number) => number, lo: number, hi: number): number {
  let flo = f(lo);
  for (let i = 0; i < 200 && hi - lo > 1e-15; i++) {
    const mid = 0.5 * (lo + hi);
    const fm = f(mid);
    if (fm === 0) return mid;
    if (fm < 0 === flo < 0) {
      lo = mid;
      flo = fm;
    } else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/**
 * The f1 intervals of the ZDT3 front: the parts of the curve f2 = phi3(f1), f1 in [0, 1], lying
 * below every earlier point. Each piece ends at a local minimum of phi3 that sets a new record and
 * starts where the curve, falling again, crosses the previous record. Computed by root finding on a
 * fine bracket grid, to machine precision, rather than copied as rounded constants.
 */
function zdt3Regions(): [number, number][] {
  const steps = 20000;
  const minima: number[] = [];
  for (let i = 1; i < steps; i++) {
    const a = i / steps;
    const b = (i + 1) / steps;
    if (dphi3(a) < 0 && dphi3(b) >= 0) minima.push(bisect(dphi3, a, b));
  }
  const regions: [number, number][] = [];
  let start = 0;
  let record = Infinity;
  let prevEnd = 0;
  for (const b of minima) {
    const value = phi3(b);
    if (value >= record) continue;
    if (regions.length > 0) {
      // phi3 rises after prevEnd and falls to `value` at b, crossing the old record once on the way down
      const level = record;
      let lo = b;
      while (lo > prevEnd && phi3(lo) < level) lo -= 1 / steps;
      start = bisect((t) => phi3(t) - level, lo, b);
    }
    regions.push([start, b]);
    record = value;
    prevEnd = b;
  }
  return regions;
}

/** The five f1 intervals [start, end] of the ZDT3 Pareto front. */
export const ZDT3_REGIONS: readonly (readonly [number, number])[] = zdt3Regions();

function zdt3Front(count: number): Float64Array {
  const total = ZDT3_REGIONS.reduce((s, [a, b]) => s + (b - a), 0);
  const positions = linspace(0, total, count);
  const f1 = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let rest = positions[i];
    let k = 0;
    while (k < ZDT3_REGIONS.length - 1 && rest > ZDT3_REGIONS[k][1] - ZDT3_REGIONS[k][0]) {
      rest -= ZDT3_REGIONS[k][1] - ZDT3_REGIONS[k][0];
      k++;
    }
    f1[i] = Math.min(ZDT3_REGIONS[k][0] + rest, ZDT3_REGIONS[k][1]);
  }
  return frontAt(f1, h3);
}

/**
 * Area under the attainment curve of the ZDT3 front from f1 = 0 to `r1`: phi3 on each piece,
 * flat at the piece's end value across the following gap and beyond the last piece.
 */
function zdt3AreaUnder(r1: number): number {
  let area = 0;
  for (let k = 0; k < ZDT3_REGIONS.length; k++) {
    const [a, b] = ZDT3_REGIONS[k];
    area += phi3Integral(b) - phi3Integral(a);
    const next = k + 1 < ZDT3_REGIONS.length ? ZDT3_REGIONS[k + 1][0] : r1;
    area += phi3(b) * (next - b);
  }
  return area;
}

export const zdt3: TestProblem = {
  ...zdtProblem('zdt3', 'ZDT3 (Zitzler, Deb & Thiele 2000): 2 objectives, any d >= 2 (usually 30), front in five disconnected pieces.', h3),
  paretoFront: (_m, count) => zdt3Front(count),
  maxHypervolume: (m, ref) => {
    const last = ZDT3_REGIONS[ZDT3_REGIONS.length - 1][1];
    if (m !== 2 || ref.length !== 2 || ref[0] < last || ref[1] < 1) return undefined;
    return ref[0] * ref[1] - zdt3AreaUnder(ref[0]);
  },
};
