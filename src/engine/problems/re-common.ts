import type { TestProblem } from './types.js';

/**
 * Shared shape of Tanabe & Ishibuchi's real-world problems ("An easy-to-use real-world
 * multi-objective optimization problem suite", Applied Soft Computing 89:106078, 2020; reference
 * code and approximated fronts in github.com/ryojitanabe/reproblems). Each is implemented from the
 * paper's supplementary definitions and checked against the reference code's values. In the RE
 * versions the original constraints are folded into the last objective: the sum of their
 * violations (0 when feasible), so the problems take no constraints. Variables that are integers or
 * picked from a catalogue are rounded or snapped to the nearest catalogue value inside the
 * problem, as the reference code does, so any point of the box is a valid input.
 */

/** Sum of the violations max(0, -g) of constraints g >= 0. */
export function violation(...g: number[]): number {
  let v = 0;
  for (const value of g) if (value < 0) v -= value;
  return v;
}

/** The catalogue value nearest to `x` (the first of equally near ones). */
export function nearest(values: readonly number[], x: number): number {
  let best = values[0];
  for (const v of values) if (Math.abs(v - x) < Math.abs(best - x)) best = v;
  return best;
}

/** What is known of a problem's front from the published data (see re-fronts.ts). */
export interface RealWorldFront {
  /** least and largest value of each objective over the published approximated front */
  ideal: readonly number[];
  nadir: readonly number[];
  /** hypervolume of the whole published front against nadir + 10 % of (nadir - ideal) */
  frontHypervolume: number;
  /** number of points in the published front */
  frontSize: number;
  /** a thinned copy of the published front, its extreme points included */
  front: readonly (readonly number[])[];
}

export interface RealWorldDefinition extends RealWorldFront {
  name: string;
  description: string;
  /** native [lower, upper] of each variable */
  bounds: readonly (readonly [number, number])[];
  integers?: readonly number[];
  objectives: number;
  /** objective values at native x */
  evaluate(x: Float64Array): Float64Array;
}

/** The reference point the suite uses: nadir + 10 % of the range, Tanabe & Ishibuchi's normalised (1.1, ..., 1.1). */
export function realWorldReference(def: Pick<RealWorldDefinition, 'ideal' | 'nadir'>): number[] {
  return def.nadir.map((n, i) => n + 0.1 * (n - def.ideal[i]));
}

/** A TestProblem on the unit cube from a real-world definition in native units. */
export function realWorldProblem(def: RealWorldDefinition): TestProblem {
  const d = def.bounds.length;
  const reference = realWorldReference(def);
  return {
    name: def.name,
    description: def.description,
    objectives: def.objectives,
    minDimension: () => d,
    maxDimension: () => d,
    bounds: () => def.bounds,
    integers: def.integers,
    evaluate(x, m) {
      if (m !== def.objectives) throw new Error(`${def.name} has ${def.objectives} objectives, not ${m}.`);
      if (x.length !== d) throw new Error(`${def.name} has exactly ${d} variables, got ${x.length}.`);
      return def.evaluate(Float64Array.from(def.bounds, ([lo, hi], i) => lo + (hi - lo) * x[i]));
    },
    // the thinned published front, cycled to `count` rows; the maximum hypervolume is the whole front's
    paretoFront: (m, count) => {
      const out = new Float64Array(count * m);
      for (let i = 0; i < count; i++) out.set(def.front[i % def.front.length], i * m);
      return out;
    },
    maxHypervolumeSource: () => `published front (${def.frontSize} points)`,
    maxHypervolume: (m, ref) =>
      m === def.objectives && ref.length === m && Array.from(ref).every((r, i) => Math.abs(r - reference[i]) <= 1e-9 * Math.max(1, Math.abs(r)))
        ? def.frontHypervolume
        : undefined,
  };
}
