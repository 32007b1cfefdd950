import { Random } from '../random.js';
import { compileConstraint, type CompiledConstraint } from './expression.js';
import { initialDesignSize } from './initial-design.js';
import { formatPath, type MdlIssue } from './issues.js';
import type { ContinuousParameter, IntegerParameter, Mdl } from './schema.js';

/**
 * Pre-flight: warnings about a valid campaign that would spend its budget poorly. None of them
 * makes the document invalid; each names the member to look at and says what follows from it.
 */

/** The values an evaluator can produce for one objective: [lowest, highest], either end possibly infinite. */
export type AttainableRange = readonly [number, number];

export interface PreflightContext {
  /** per objective (MDL order), what its evaluator can produce, where known (builtin evaluators) */
  attainable?: readonly (AttainableRange | undefined)[];
  /** a dataset's rows replace the initial design */
  warmStart?: boolean;
}

/** Points sampled to estimate the feasible share: enough for about ±0.2 percentage points at 0.5 %. */
export const feasibleSamples = 4096;
/** The fewest points sampled, however large the document: still tells "empty" from "a few percent". */
export const fewestFeasibleSamples = 256;
/**
 * Work allowed for the estimate, in characters of constraint text (plus `parameterCost` per
 * parameter) times points: about 0.1 s on one core. A document with long constraints gets fewer
 * points instead of holding a validation thread for seconds.
 */
const sampleWork = 16_000_000;
const parameterCost = 10;

/** How many points `feasibleShare` samples for constraints of `characters` in all over `parameters` numeric parameters. */
export function feasibleSampleCount(characters: number, parameters: number): number {
  const perPoint = characters + parameterCost * parameters;
  return Math.max(fewestFeasibleSamples, Math.min(feasibleSamples, Math.floor(sampleWork / Math.max(1, perPoint))));
}
/** Below this share of the box, the initial design and the optimizer work mostly on repairs and rejections. */
export const smallFeasibleShare = 0.05;
/** A fixed seed: the same document gets the same estimate every time. */
const sampleSeed = 20240514;

export function preflight(mdl: Mdl, context: PreflightContext = {}): MdlIssue[] {
  return [
    ...constantParameters(mdl),
    ...feasibleShareWarnings(mdl),
    ...(context.warmStart ? [] : designWarnings(mdl)),
    ...referenceWarnings(mdl, context.attainable ?? []),
  ];
}

function constantParameters(mdl: Mdl): MdlIssue[] {
  return mdl.parameters.flatMap((parameter, index): MdlIssue[] => {
    if (parameter.type === 'categorical') {
      if (parameter.values.length > 1) return [];
      const only = JSON.stringify(parameter.values[0]);
      return [
        {
          path: formatPath(['parameters', index, 'values']),
          message: `"${parameter.name}" has the single value ${only}, so it is fixed; remove it or add values to search`,
        },
      ];
    }
    const [lower, upper] = parameter.bounds;
    if (lower !== upper) return [];
    return [
      {
        path: formatPath(['parameters', index, 'bounds']),
        message: `both bounds are ${lower}, so "${parameter.name}" is fixed; remove it or widen the bounds to search it`,
      },
    ];
  });
}

/**
 * The share of the parameter box that meets the inequality constraints, estimated from sampled
 * points in the optimizer's coordinates (log scale for log parameters, integers rounded). Equality
 * constraints are left out: the engine projects candidates onto them, so their share of the box
 * (zero) says nothing about wasted evaluations.
 */
export function feasibleShare(mdl: Mdl): { share: number; perConstraint: number[]; samples: number } | undefined {
  const numeric = mdl.parameters.filter((p): p is ContinuousParameter | IntegerParameter => p.type !== 'categorical');
  const names = numeric.map((p) => p.name);
  const constraints: CompiledConstraint[] = [];
  for (const { expression, tolerance } of mdl.constraints) {
    const compiled = compileConstraint(expression, names, tolerance);
    if (compiled.ok && compiled.constraint.comparison !== '==') constraints.push(compiled.constraint);
  }
  if (constraints.length === 0) return undefined;
  const characters = constraints.reduce((sum, constraint) => sum + constraint.source.length, 0);
  const samples = feasibleSampleCount(characters, numeric.length);
  const points = new SamplePoints(numeric.length);
  const met = new Array<number>(constraints.length).fill(0);
  let all = 0;
  const values: Record<string, number> = {};
  for (let sample = 1; sample <= samples; sample++) {
    numeric.forEach((parameter, k) => (values[parameter.name] = valueAt(parameter, points.coordinate(sample, k))));
    let feasible = true;
    constraints.forEach((constraint, j) => {
      if (constraint.violation(values) === 0) met[j]++;
      else feasible = false;
    });
    if (feasible) all++;
  }
  return { share: all / samples, perConstraint: met.map((count) => count / samples), samples };
}

/** Coordinates below this many use Halton's sequence; beyond it, its points fall on lines. */
const haltonCoordinates = 32;

/**
 * Points in the unit cube: Halton's low-discrepancy sequence shifted by a seeded offset
 * (Cranley-Patterson) in the first 32 coordinates, seeded uniform numbers in the rest. Halton's
 * points cover the box more evenly than random ones, so small shares come out steadier.
 */
class SamplePoints {
  private readonly bases: number[];
  private readonly shifts: number[];
  private readonly random: Random;

  constructor(dimension: number) {
    this.random = new Random(sampleSeed);
    this.bases = primes(Math.min(dimension, haltonCoordinates));
    this.shifts = this.bases.map(() => this.random.uniform());
  }

  /** Coordinate `k` of point `index` (1-based); called for k = 0, 1, ... in order for each point. */
  coordinate(index: number, k: number): number {
    if (k >= this.bases.length) return this.random.uniform();
    const value = radicalInverse(index, this.bases[k]) + this.shifts[k];
    return value >= 1 ? value - 1 : value;
  }
}

/** `index` written in `base` and mirrored about the point: 6 = 110 in base 2 → 0.011 = 0.375. */
function radicalInverse(index: number, base: number): number {
  let result = 0;
  let scale = 1;
  for (let rest = index; rest > 0; rest = Math.floor(rest / base)) {
    scale /= base;
    result += (rest % base) * scale;
  }
  return result;
}

function primes(count: number): number[] {
  const found: number[] = [];
  for (let n = 2; found.length < count; n++) if (found.every((p) => n % p !== 0)) found.push(n);
  return found;
}

function valueAt(parameter: ContinuousParameter | IntegerParameter, t: number): number {
  const [lower, upper] = parameter.bounds;
  const x = parameter.scale === 'log' ? lower * Math.pow(upper / lower, t) : lower + t * (upper - lower);
  return parameter.type === 'integer' ? Math.min(upper, Math.max(lower, Math.round(x))) : x;
}

function feasibleShareWarnings(mdl: Mdl): MdlIssue[] {
  const estimate = feasibleShare(mdl);
  if (!estimate || estimate.share >= smallFeasibleShare) return [];
  const tightest = estimate.perConstraint.indexOf(Math.min(...estimate.perConstraint));
  const blame =
    estimate.perConstraint.length > 1 && estimate.perConstraint[tightest] < smallFeasibleShare
      ? `; constraints[${tightest}] alone admits ${percent(estimate.perConstraint[tightest])}`
      : '';
  const share =
    estimate.share === 0
      ? `none of ${estimate.samples} points sampled across the parameter box meets the constraints, so the feasible region is empty or below ${percent(1 / estimate.samples)} of it`
      : `only about ${percent(estimate.share)} of the parameter box meets the constraints (estimated from ${estimate.samples} sampled points)`;
  return [
    {
      path: 'constraints',
      message: `${share}${blame}; the initial design and the optimizer will struggle to find feasible candidates: check the constraints, or narrow the bounds to the feasible region`,
    },
  ];
}

function percent(share: number): string {
  const value = share * 100;
  return `${value >= 1 ? value.toFixed(1) : Number(value.toPrecision(2))} %`;
}

function designWarnings(mdl: Mdl): MdlIssue[] {
  const { method, budget } = mdl.optimizer;
  // random and lhs never model anything, so the whole budget being design is what they do.
  if (method === 'random' || method === 'lhs') return [];
  const design = initialDesignSize(mdl);
  if (budget > design) return [];
  const path = mdl.optimizer.initial_samples !== undefined ? 'optimizer.initial_samples' : 'optimizer.budget';
  const guided = method === 'nsga2' ? 'no generation is bred from it' : 'none is model-guided';
  return [
    {
      path,
      message: `the budget of ${budget} evaluations is no larger than the initial design of ${design}, so every evaluation goes to the design and ${guided}; raise the budget or lower initial_samples`,
    },
  ];
}

/**
 * A reference point (objectives[i].reference) the evaluator cannot reach on that objective: the
 * hypervolume stays 0 and the campaign has no measure of progress. Judged only where the
 * evaluator's range is known (builtin test problems and simulators); elsewhere nothing is said.
 */
function referenceWarnings(mdl: Mdl, attainable: readonly (AttainableRange | undefined)[]): MdlIssue[] {
  return mdl.objectives.flatMap((objective, index): MdlIssue[] => {
    const range = attainable[index];
    const reference = objective.reference;
    if (range === undefined || reference === undefined) return [];
    const [lowest, highest] = range;
    const minimize = objective.direction === 'minimize';
    if (minimize ? reference >= lowest : reference <= highest) return [];
    const best = minimize ? `never falls below ${lowest}` : `never rises above ${highest}`;
    return [
      {
        path: formatPath(['objectives', index, 'reference']),
        message: `no evaluation can beat the reference ${reference}: "${objective.name}" ${best} for this evaluator, so the hypervolume stays 0; use a worse value (${minimize ? 'higher' : 'lower'}) as the reference`,
      },
    ];
  });
}
