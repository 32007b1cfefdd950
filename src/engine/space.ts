import { decimals } from './mdl/decimals.js';
import { compileConstraint, type CompiledConstraint } from './mdl/expression.js';
import type { Mdl, Parameter, ParameterValue } from './mdl/schema.js';

/** Where one parameter lives in the encoded vector: one coordinate, or one per categorical value. */
export interface ParameterLayout {
  parameter: Parameter;
  offset: number;
  width: number;
}

/**
 * The campaign's search space as the optimizer sees it: the unit cube `[0, 1]^dimension`.
 * Continuous and integer parameters take one coordinate each (linear, or logarithmic for
 * `scale: log`); a categorical parameter with k values takes k one-hot coordinates. A numeric
 * parameter with a `step` or a list of `values` keeps its one ordered coordinate and decodes to
 * the nearest allowed value (the grid `lower + k step`, or the nearest listed value), as an
 * integer does to the nearest whole number: every point the optimizer scores is one a lab can
 * set. Constraints are judged on decoded values, so feasibility means the same thing to the
 * optimizer and to the evaluator.
 */
export class SearchSpace {
  readonly dimension: number;
  readonly parameters: readonly Parameter[];
  readonly constraints: readonly CompiledConstraint[];
  readonly layout: readonly ParameterLayout[];
  /** Layout entries of the continuous and integer parameters, in order. */
  private readonly numeric: readonly { parameter: NumericParameter; offset: number }[];
  private readonly projector: LinearProjector | undefined;

  constructor(mdl: Mdl) {
    this.parameters = mdl.parameters;
    const layout: ParameterLayout[] = [];
    let offset = 0;
    for (const parameter of mdl.parameters) {
      const width = parameter.type === 'categorical' ? parameter.values.length : 1;
      layout.push({ parameter, offset, width });
      offset += width;
    }
    this.layout = layout;
    this.dimension = offset;

    this.numeric = layout.flatMap(({ parameter, offset }) => (parameter.type === 'categorical' ? [] : [{ parameter, offset }]));
    const names = this.numeric.map((l) => l.parameter.name);
    this.constraints = mdl.constraints.map((constraint) => {
      const compiled = compileConstraint(constraint.expression, names, constraint.tolerance);
      if (!compiled.ok) {
        throw new Error(
          `constraint "${constraint.expression}": ${compiled.errors.map((e) => e.message).join('; ')} ` +
            '(validate the MDL with validateMdl before building a search space)',
        );
      }
      return compiled.constraint;
    });
    const linear = this.constraints.filter((c) => c.linear);
    this.projector =
      linear.length > 0
        ? new LinearProjector(
            linear,
            this.numeric.map((l) => l.parameter),
          )
        : undefined;
  }

  /** Parameter values → unit-cube point (length `dimension`); off-bounds numbers map outside [0, 1]. */
  encode(values: Readonly<Record<string, ParameterValue>>): Float64Array {
    const u = new Float64Array(this.dimension);
    for (const { parameter, offset } of this.layout) {
      const value = Object.prototype.hasOwnProperty.call(values, parameter.name) ? values[parameter.name] : undefined;
      if (parameter.type === 'categorical') {
        u[offset + categoryIndex(parameter.values, value, parameter.name)] = 1;
        continue;
      }
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new Error(`parameter "${parameter.name}" needs a finite number, got ${JSON.stringify(value)}`);
      }
      if (parameter.scale === 'log' && !(value > 0)) {
        throw new Error(`parameter "${parameter.name}" is on a log scale and needs a positive value, got ${value}`);
      }
      u[offset] = toUnit(parameter, value);
    }
    return u;
  }

  /**
   * Unit-cube point `u` (length `dimension`) → parameter values: coordinates are clamped to
   * [0, 1], integers rounded to the nearest whole value, categoricals take the argmax of their
   * one-hot block (ties go to the first value).
   */
  decode(u: ArrayLike<number>): Record<string, ParameterValue> {
    this.checkLength(u);
    const values: Record<string, ParameterValue> = {};
    for (const { parameter, offset, width } of this.layout) {
      values[parameter.name] = parameter.type === 'categorical' ? parameter.values[argmax(u, offset, width)] : numericValue(parameter, u[offset]);
    }
    return values;
  }

  /**
   * The canonical point for `u` (length `dimension`): what the evaluator will really see. Integer
   * and categorical blocks are `encode(decode(u))`; continuous coordinates are only clamped, so
   * snapping is exactly idempotent (a decode/encode round trip would agree up to rounding).
   */
  snap(u: ArrayLike<number>): Float64Array {
    this.checkLength(u);
    const out = new Float64Array(this.dimension);
    for (const { parameter, offset, width } of this.layout) {
      if (parameter.type === 'categorical') out[offset + argmax(u, offset, width)] = 1;
      else if (isDiscrete(parameter)) out[offset] = toUnit(parameter, numericValue(parameter, u[offset]));
      else out[offset] = isFixed(parameter) ? 0 : clamp01(u[offset]);
    }
    return out;
  }

  /** Sum of constraint violations for decoded `values`; 0 when every constraint holds. */
  violation(values: Readonly<Record<string, ParameterValue>>): number {
    let total = 0;
    // Constraints only read continuous and integer parameters, whose values are numbers.
    const numbers = values as Readonly<Record<string, number>>;
    for (const constraint of this.constraints) total += constraint.violation(numbers);
    return total;
  }

  isFeasible(values: Readonly<Record<string, ParameterValue>>): boolean {
    return this.violation(values) === 0;
  }

  /** `violation(decode(u))` for a unit-cube point `u` (length `dimension`). */
  violationAt(u: ArrayLike<number>): number {
    return this.constraints.length === 0 ? 0 : this.violation(this.decode(u));
  }

  /**
   * Best-effort move of `u` (length `dimension`) into the feasible set, returned snapped. Linear
   * constraints (equalities such as li_frac + ni_frac + co_frac == 1, and inequalities) are met
   * by Dykstra's alternating projections in value space while keeping the bounds; integers and
   * stepped or listed values are then rounded to their nearest allowed value and the other
   * continuous parameters projected again with those held. Nonlinear
   * constraints are left to the caller (rejection), and so is a point that stays infeasible.
   */
  repair(u: ArrayLike<number>): Float64Array {
    const out = this.snap(u);
    const projector = this.projector;
    if (!projector) return out;
    const numeric = this.numeric;
    const x = new Float64Array(numeric.length);
    numeric.forEach(({ parameter, offset }, k) => (x[k] = numericValue(parameter, out[offset])));
    if (!projector.project(x, false)) return out;
    let rounded = false;
    numeric.forEach(({ parameter }, k) => {
      if (!isDiscrete(parameter)) return;
      const r = numericValue(parameter, toUnit(parameter, x[k]));
      rounded ||= r !== x[k];
      x[k] = r;
    });
    if (rounded) projector.project(x, true);
    numeric.forEach(({ parameter, offset }, k) => {
      out[offset] = isDiscrete(parameter) ? toUnit(parameter, x[k]) : clamp01(toUnit(parameter, x[k]));
    });
    return out;
  }

  private checkLength(u: ArrayLike<number>): void {
    if (u.length !== this.dimension) {
      throw new Error(`expected a point with ${this.dimension} coordinates (the encoded dimension), got ${u.length}`);
    }
    for (let i = 0; i < u.length; i++) {
      if (Number.isNaN(u[i])) throw new Error(`coordinate ${i} of the point is NaN`);
    }
  }
}

function clamp01(t: number): number {
  return t <= 0 ? 0 : t >= 1 ? 1 : t;
}

export type NumericParameter = Exclude<Parameter, { type: 'categorical' }>;

/** A numeric parameter that takes only some values: an integer, a `step` grid, or a list of `values`. */
export function isDiscrete(parameter: NumericParameter): boolean {
  return parameter.type === 'integer' || parameter.step !== undefined || parameter.values !== undefined;
}

/** Grids and lists up to this many values are enumerated (finite designs, widths of a box). */
const ENUMERATED_LEVELS = 100_000;

/**
 * Every value a discrete numeric parameter takes, ascending; undefined for a continuous one, or
 * for one with more than `limit` values.
 */
export function parameterLevels(parameter: NumericParameter, limit = ENUMERATED_LEVELS): number[] | undefined {
  const [lo, hi] = parameter.bounds;
  if (parameter.values !== undefined) return parameter.values.length <= limit ? [...parameter.values].sort((a, b) => a - b) : undefined;
  const step = parameter.step ?? (parameter.type === 'integer' ? 1 : undefined);
  if (step === undefined) return undefined;
  const first = parameter.type === 'integer' && parameter.step === undefined ? Math.ceil(lo) : lo;
  const count = Math.floor((hi - first) / step + 1e-9) + 1;
  if (count > limit) return undefined;
  return Array.from({ length: count }, (_, k) => onGrid(parameter, first + k * step));
}

/**
 * The widest gap between neighbouring allowed values of a discrete parameter, in unit
 * coordinates (a box narrower than this around a value may hold no other value); 0 for a
 * continuous or fixed one.
 */
export function unitGap(parameter: NumericParameter): number {
  if (!isDiscrete(parameter) || isFixed(parameter)) return 0;
  const [lo, hi] = parameter.bounds;
  if (parameter.values === undefined) {
    const step = parameter.step ?? 1;
    // on a log scale the grid's widest unit gap is its first; on a linear one all are equal
    return toUnit(parameter, Math.min(hi, lo + step));
  }
  const units = parameterLevels(parameter)!.map((v) => toUnit(parameter, v));
  let widest = 0;
  for (let i = 1; i < units.length; i++) widest = Math.max(widest, units[i] - units[i - 1]);
  return widest;
}

/** Value → unit coordinate (linear, or logarithmic for log scale); no clamping. */
function toUnit(parameter: NumericParameter, value: number): number {
  const [lo, hi] = parameter.bounds;
  // equal bounds fix the parameter; its one value sits at 0 so every candidate encodes alike
  if (isFixed(parameter)) return 0;
  return parameter.scale === 'log' ? Math.log(value / lo) / Math.log(hi / lo) : (value - lo) / (hi - lo);
}

function isFixed(parameter: NumericParameter): boolean {
  return parameter.bounds[0] === parameter.bounds[1];
}

/**
 * Unit coordinate `t` → decoded value: clamped to the bounds, exact at both ends, then the
 * nearest allowed value of a discrete parameter (a listed value nearest in unit coordinates; the
 * grid `lower + k step`, printed to the step's decimals; integers rounded).
 */
function numericValue(parameter: NumericParameter, t: number): number {
  const [lo, hi] = parameter.bounds;
  let x: number;
  if (!(t > 0)) x = lo;
  else if (t >= 1) x = hi;
  else x = parameter.scale === 'log' ? lo * Math.exp(t * Math.log(hi / lo)) : lo + t * (hi - lo);
  x = Math.min(hi, Math.max(lo, x));
  if (parameter.values !== undefined) return nearestListed(parameter, t);
  if (parameter.step !== undefined) {
    const k = Math.round((x - lo) / parameter.step);
    return Math.min(hi, onGrid(parameter, lo + k * parameter.step));
  }
  return parameter.type === 'integer' ? Math.min(hi, Math.max(lo, Math.round(x))) : x;
}

/** A grid value without the rounding error of `lower + k step`: to the decimals of the step and the lower bound. */
function onGrid(parameter: NumericParameter, x: number): number {
  if (parameter.type === 'integer') return Math.round(x);
  const places = Math.max(decimals(parameter.step ?? 0), decimals(parameter.bounds[0]));
  return places > 15 ? x : Number(x.toFixed(places));
}

/** The listed value whose unit coordinate is nearest `t` (ties to the lower one). */
const listedUnits = new WeakMap<NumericParameter, { values: number[]; units: number[] }>();
function nearestListed(parameter: NumericParameter, t: number): number {
  let levels = listedUnits.get(parameter);
  if (!levels) {
    const values = parameterLevels(parameter)!;
    levels = { values, units: values.map((v) => toUnit(parameter, v)) };
    listedUnits.set(parameter, levels);
  }
  const { values, units } = levels;
  let lo = 0;
  let hi = units.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (units[mid] <= t) lo = mid;
    else hi = mid;
  }
  return Math.abs(units[hi] - t) < Math.abs(t - units[lo]) ? values[hi] : values[lo];
}

/** Index of the largest of `u[offset .. offset + width)`; ties go to the first. */
function argmax(u: ArrayLike<number>, offset: number, width: number): number {
  let best = 0;
  for (let j = 1; j < width; j++) if (u[offset + j] > u[offset + best]) best = j;
  return best;
}

function categoryIndex(values: readonly (string | number)[], value: unknown, name: string): number {
  let index = values.indexOf(value as string | number);
  // Values read back from CSV or a form arrive as text; "2" names the same category as 2.
  if (index < 0 && (typeof value === 'string' || typeof value === 'number')) {
    index = values.findIndex((v) => String(v) === String(value));
  }
  if (index < 0) {
    throw new Error(`parameter "${name}" must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}, ` + `got ${JSON.stringify(value)}`);
  }
  return index;
}

const maxSweeps = 2000;

/** Step directions (constraint normals with held coordinates zeroed) and their squared norms. */
interface ProjectionPlan {
  normals: Float64Array[];
  norms: Float64Array;
}

/**
 * Projects parameter values onto the linear constraints within the bounds, by Dykstra's
 * alternating projection algorithm (Boyle & Dykstra, 1986), which converges to the nearest point
 * of the intersection when it is not empty. Every constraint is kept as
 * `normal · x + constant (<= | ==) 0`. Inequalities are aimed a few rounding errors inside, so
 * they still hold after the values are encoded and decoded again; equalities are driven far
 * inside their tolerance, so a composition sums to 1 in print too.
 */
class LinearProjector {
  private readonly normals: Float64Array[];
  private readonly equality: boolean[];
  private readonly targets: Float64Array;
  private readonly slack: Float64Array;
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  /** Projection plans with every parameter free, or with the integers held. */
  private readonly plans: { free: ProjectionPlan; held: ProjectionPlan };

  /** `parameters`: the continuous and integer parameters, the order of the value vectors. */
  constructor(constraints: readonly CompiledConstraint[], parameters: readonly NumericParameter[]) {
    const n = parameters.length;
    const index = new Map(parameters.map((p, i) => [p.name, i]));
    this.lower = Float64Array.from(parameters, (p) => p.bounds[0]);
    this.upper = Float64Array.from(parameters, (p) => p.bounds[1]);
    this.equality = constraints.map((c) => c.comparison === '==');
    this.targets = new Float64Array(constraints.length);
    this.slack = new Float64Array(constraints.length);
    this.normals = constraints.map((c, j) => {
      const { coefficients, constant } = c.linear!;
      const flip = c.comparison === '>=' || c.comparison === '>' ? -1 : 1;
      const normal = new Float64Array(n);
      for (const [name, a] of Object.entries(coefficients)) normal[index.get(name)!] = flip * a;
      let magnitude = Math.abs(constant);
      for (let i = 0; i < n; i++) {
        magnitude += Math.abs(normal[i]) * Math.max(Math.abs(this.lower[i]), Math.abs(this.upper[i]));
      }
      const rounding = 64 * Number.EPSILON * magnitude;
      const strict = c.comparison === '<' || c.comparison === '>';
      const margin = this.equality[j] ? 0 : strict ? Math.max(rounding, 1e-9 * magnitude) : rounding;
      this.targets[j] = -flip * constant - margin;
      this.slack[j] = this.equality[j] ? Math.max(1e-6 * c.tolerance, rounding) : margin / 2;
      return normal;
    });
    const plan = (held: (p: NumericParameter) => boolean) => {
      const normals = this.normals.map((a) => a.map((ai, i) => (held(parameters[i]) ? 0 : ai)));
      return { normals, norms: Float64Array.from(normals, (a) => a.reduce((sum, ai) => sum + ai * ai, 0)) };
    };
    this.plans = { free: plan(() => false), held: plan(isDiscrete) };
  }

  /**
   * Moves `x` (values of the numeric parameters, in place) into the constraints; with
   * `holdIntegers` the discrete parameters (integers, steps, listed values) keep their values. Returns false when `x` already met
   * every constraint and was left untouched.
   */
  project(x: Float64Array, holdIntegers: boolean): boolean {
    if (this.satisfied(x)) return false;
    const { normals, norms } = holdIntegers ? this.plans.held : this.plans.free;
    const n = x.length;
    const m = normals.length;
    const increments = new Float64Array((m + 1) * n);
    const y = new Float64Array(n);
    for (let sweep = 0; sweep < maxSweeps; sweep++) {
      for (let j = 0; j < m; j++) {
        if (norms[j] === 0) continue;
        const a = normals[j];
        const p = j * n;
        for (let i = 0; i < n; i++) y[i] = x[i] + increments[p + i];
        const excess = dot(this.normals[j], y) - this.targets[j];
        const step = this.equality[j] || excess > 0 ? excess / norms[j] : 0;
        for (let i = 0; i < n; i++) {
          x[i] = y[i] - step * a[i];
          increments[p + i] = y[i] - x[i];
        }
      }
      const p = m * n;
      for (let i = 0; i < n; i++) {
        const yi = x[i] + increments[p + i];
        x[i] = Math.min(this.upper[i], Math.max(this.lower[i], yi));
        increments[p + i] = yi - x[i];
      }
      if (this.satisfied(x)) break;
    }
    return true;
  }

  private satisfied(x: Float64Array): boolean {
    for (let j = 0; j < this.normals.length; j++) {
      const residual = dot(this.normals[j], x) - this.targets[j];
      if (this.equality[j] ? Math.abs(residual) > this.slack[j] : residual > this.slack[j]) return false;
    }
    return true;
  }
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
