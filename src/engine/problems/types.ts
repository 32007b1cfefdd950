/**
 * Shapes shared by the built-in evaluators: standard test problems, which see the search space as
 * the unit cube, and domain simulators, which read named parameters in physical units.
 */

/** A standard multi-objective benchmark problem, all objectives minimized. */
export interface TestProblem {
  /** Registry key, e.g. 'zdt1', 'dtlz2', 'branin-currin', 'bnh'. */
  name: string;
  description: string;
  /** Number of objectives, or 'any' for problems defined for every m >= 2 (DTLZ). */
  objectives: number | 'any';
  /** Fewest decision variables the problem accepts with `m` objectives. */
  minDimension(m: number): number;
  /** Most decision variables the problem uses with `m` objectives (absent: no upper limit). */
  maxDimension?(m: number): number;
  /**
   * x: unit-cube point, Float64Array of length d (minDimension(m) <= d <= maxDimension(m));
   * returns the m objective values (minimization sense).
   */
  evaluate(x: Float64Array, m: number): Float64Array;
  /** `count x m` row-major Float64Array of points on the true Pareto front. */
  paretoFront(m: number, count: number): Float64Array;
  /**
   * Exact or high-accuracy maximum hypervolume dominated by the front and bounded by `ref`
   * (length m); undefined where not known for that reference point.
   */
  maxHypervolume?(m: number, ref: ArrayLike<number>): number | undefined;
  /** How maxHypervolume is known with m objectives, e.g. 'closed form', 'integral', 'dense front sample' (absent: closed form). */
  maxHypervolumeSource?(m: number): string;
  /**
   * The native range [lower, upper] of each of the d variables with m objectives, in order; the
   * unit cube maps onto them (absent: every variable is natively in [0, 1]). An MDL for the
   * problem declares these bounds, so its constraint expressions read native values.
   */
  bounds?(d: number, m: number): readonly (readonly [number, number])[];
  /** 0-based indices of the variables the problem rounds to whole numbers (declare them integer). */
  integers?: readonly number[];
  /** MDL constraint expressions over parameters named x1, x2, ... in the problem's native units. */
  constraints?: string[];
  /**
   * Measured outcomes besides the objectives (for outcome constraints): their default names and
   * their values at x given the objectives f; the MDL's outcomes receive them in order.
   */
  outcomes?: { names: string[]; evaluate(x: Float64Array, f: Float64Array): Float64Array };
}

export interface SimulatorParameter {
  name: string;
  type: 'continuous' | 'integer' | 'categorical';
  /** [lower, upper] of the range the model is calibrated for (continuous and integer). */
  bounds?: [number, number];
  /** Allowed values (categorical). */
  values?: (string | number)[];
  unit?: string;
  description: string;
}

export interface SimulatorObjective {
  name: string;
  direction: 'maximize' | 'minimize';
  unit: string;
  /** the physically possible values [lowest, highest] (Infinity for no upper limit); noise never leaves it */
  range: [number, number];
  description: string;
}

/** A deterministic model of a materials system, read and written by parameter and objective name. */
export interface DomainSimulator {
  /** Registry key, e.g. 'water-membrane'. */
  name: string;
  /** the template domain it serves, e.g. water, battery, energy */
  domain: string;
  description: string;
  parameters: SimulatorParameter[];
  objectives: SimulatorObjective[];
  /** MDL constraint expressions the example campaign states (e.g. a composition that sums to 1). */
  constraints?: string[];
  /** Objective values by name; throws an Error naming the parameter when an input is missing or out of range. */
  evaluate(values: Readonly<Record<string, number | string>>): Record<string, number>;
}
