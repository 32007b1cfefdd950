import type { AttainableRange } from '../mdl/preflight.js';
import type { Mdl, Parameter } from '../mdl/schema.js';
import type { BuiltinEvaluators } from '../mdl/validate.js';
import { alloyDesign } from './alloy-design.js';
import { batteryCathode } from './battery-cathode.js';
import { bnh } from './bnh.js';
import { braninCurrin } from './branin-currin.js';
import { c2Dtlz2, constrainedBraninCurrin } from './constrained.js';
import { c1Dtlz1, c3Dtlz4 } from './constrained-dtlz.js';
import { dtlz1, dtlz2 } from './dtlz.js';
import { dtlz3, dtlz4, dtlz5, dtlz6 } from './dtlz-more.js';
import { dtlz7 } from './dtlz7.js';
import { electrolyteFormulation } from './electrolyte-formulation.js';
import { mw1, mw2, mw3, mw4 } from './mw.js';
import { constr, osy } from './osy-constr.js';
import { perovskiteSolarCell } from './perovskite-solar-cell.js';
import { polymerMembrane } from './polymer-membrane.js';
import { re21, re22, re23, re24, re25 } from './re2.js';
import { re31, re32, re35, re36, re37 } from './re3.js';
import { re41, re42, re61 } from './re4.js';
import { srn, tnk } from './srn-tnk.js';
import type { DomainSimulator, SimulatorParameter, TestProblem } from './types.js';
import { waterMembrane } from './water-membrane.js';
import { waterSplittingCatalyst } from './water-splitting-catalyst.js';
import { wfg1, wfg2, wfg3, wfg4, wfg5, wfg6, wfg7, wfg8, wfg9 } from './wfg.js';
import { zdt1, zdt2, zdt3 } from './zdt.js';
import { zdt4, zdt6 } from './zdt-more.js';

const PROBLEMS: readonly TestProblem[] = [
  zdt1,
  zdt2,
  zdt3,
  dtlz1,
  dtlz2,
  braninCurrin,
  bnh,
  c2Dtlz2,
  constrainedBraninCurrin,
  // the public benchmark suite (npm run bench -- suite), one file per family
  zdt4,
  zdt6,
  dtlz3,
  dtlz4,
  dtlz5,
  dtlz6,
  dtlz7,
  wfg1,
  wfg2,
  wfg3,
  wfg4,
  wfg5,
  wfg6,
  wfg7,
  wfg8,
  wfg9,
  re21,
  re22,
  re23,
  re24,
  re25,
  re31,
  re32,
  re35,
  re36,
  re37,
  re41,
  re42,
  re61,
  c1Dtlz1,
  c3Dtlz4,
  srn,
  tnk,
  osy,
  constr,
  mw1,
  mw2,
  mw3,
  mw4,
];
const SIMULATORS: readonly DomainSimulator[] = [
  waterMembrane,
  batteryCathode,
  waterSplittingCatalyst,
  electrolyteFormulation,
  perovskiteSolarCell,
  alloyDesign,
  polymerMembrane,
];

/** A standard test problem by registry name (case-insensitive). */
export function testProblem(name: string): TestProblem | undefined {
  const key = name.toLowerCase();
  return PROBLEMS.find((p) => p.name === key);
}

/** A domain simulator by registry name (case-insensitive). */
export function domainSimulator(name: string): DomainSimulator | undefined {
  const key = name.toLowerCase();
  return SIMULATORS.find((s) => s.name === key);
}

/** Every builtin evaluator name: test problems, then domain simulators. */
export function builtinNames(): string[] {
  return [...PROBLEMS.map((p) => p.name), ...SIMULATORS.map((s) => s.name)];
}

export interface BuiltinIssue {
  path: string;
  message: string;
}

/**
 * Problems with the builtin evaluator of an MDL, reported like schema errors: an unknown name
 * (listing the known ones), an objective count or parameter count the test problem does not
 * support, simulator parameters or objectives the MDL lacks or declares incompatibly, and
 * objective directions opposite to the builtin's. Empty when fine or when the evaluator is not
 * builtin.
 */
export function builtinEvaluatorIssues(mdl: Mdl): BuiltinIssue[] {
  const evaluator = mdl.evaluator;
  if (evaluator?.type !== 'builtin') return [];
  const problem = testProblem(evaluator.name);
  if (problem) return problemIssues(problem, mdl);
  const simulator = domainSimulator(evaluator.name);
  if (simulator) return simulatorIssues(simulator, mdl);
  return [
    {
      path: 'evaluator.name',
      message: `unknown builtin evaluator '${evaluator.name}'; known: ${builtinNames().join(', ')}`,
    },
  ];
}

function problemIssues(problem: TestProblem, mdl: Mdl): BuiltinIssue[] {
  const issues: BuiltinIssue[] = [];
  const m = mdl.objectives.length;
  if (problem.objectives === 'any' ? m < 2 : m !== problem.objectives) {
    const wanted = problem.objectives === 'any' ? 'at least 2 objectives' : `${problem.objectives} objectives`;
    issues.push({ path: 'objectives', message: `${problem.name} needs ${wanted}; the MDL declares ${m}` });
    return issues;
  }
  const reported = problem.outcomes?.names ?? [];
  if (mdl.outcomes.length !== reported.length) {
    issues.push({
      path: 'outcomes',
      message:
        reported.length === 0
          ? `${problem.name} measures no outcomes besides its objectives; the MDL declares ${mdl.outcomes.length}`
          : `${problem.name} measures ${reported.length} outcome(s) besides its objectives (${reported.join(', ')}); the MDL declares ${mdl.outcomes.length}`,
    });
  }
  const d = mdl.parameters.length;
  const min = problem.minDimension(m);
  const max = problem.maxDimension?.(m) ?? Infinity;
  if (d < min || d > max) {
    const wanted = min === max ? `exactly ${min}` : d < min ? `at least ${min}` : `at most ${max}`;
    issues.push({
      path: 'parameters',
      message: `${problem.name} with ${m} objectives needs ${wanted} parameters (mapped in order onto the unit cube); the MDL declares ${d}`,
    });
  }
  return issues;
}

function simulatorIssues(simulator: DomainSimulator, mdl: Mdl): BuiltinIssue[] {
  const issues: BuiltinIssue[] = [];
  for (const wanted of simulator.parameters) {
    const index = mdl.parameters.findIndex((p) => p.name === wanted.name);
    if (index < 0) {
      issues.push({
        path: 'parameters',
        message: `${simulator.name} needs a parameter named '${wanted.name}' (${describe(wanted)})`,
      });
      continue;
    }
    const problem = parameterMismatch(wanted, mdl.parameters[index]);
    if (problem) issues.push({ path: `parameters[${index}]`, message: `${simulator.name}: ${problem}` });
  }
  const outputs = simulator.objectives.map((o) => o.name).join(', ');
  mdl.objectives.forEach((o, i) => {
    const output = simulator.objectives.find((s) => s.name === o.name);
    if (!output) {
      issues.push({ path: `objectives[${i}]`, message: `${simulator.name} has no output '${o.name}'; its outputs are ${outputs}` });
    }
  });
  mdl.outcomes.forEach((o, i) => {
    if (!simulator.objectives.some((s) => s.name === o.name)) {
      issues.push({ path: `outcomes[${i}]`, message: `${simulator.name} has no output '${o.name}'; its outputs are ${outputs}` });
    }
  });
  return issues;
}

function describe(p: SimulatorParameter): string {
  if (p.type === 'categorical') return `categorical, values ${JSON.stringify(p.values)}`;
  const [lo, hi] = p.bounds ?? [-Infinity, Infinity];
  return `${p.type} in [${lo}, ${hi}]${p.unit ? ` ${p.unit}` : ''}`;
}

/** Why an MDL parameter cannot feed a simulator parameter, or undefined when it can. */
function parameterMismatch(wanted: SimulatorParameter, given: Parameter): string | undefined {
  if (wanted.type === 'categorical') {
    if (given.type !== 'categorical') return `'${wanted.name}' must be categorical with values from ${JSON.stringify(wanted.values)}`;
    const unknown = given.values.filter((v) => !wanted.values?.includes(v));
    if (unknown.length > 0) {
      return `'${wanted.name}' values ${JSON.stringify(unknown)} are not modelled; use values from ${JSON.stringify(wanted.values)}`;
    }
    return undefined;
  }
  if (given.type === 'categorical') return `'${wanted.name}' must be ${describe(wanted)}, not categorical`;
  if (wanted.bounds) {
    const [lo, hi] = wanted.bounds;
    if (given.bounds[0] < lo || given.bounds[1] > hi) {
      return `'${wanted.name}' bounds [${given.bounds[0]}, ${given.bounds[1]}] exceed the model's range [${lo}, ${hi}]${wanted.unit ? ` ${wanted.unit}` : ''}`;
    }
  }
  return undefined;
}

/** Front points sampled to find a test problem's least value per objective (the extremes are among them). */
const frontSamples = 201;
const leastCache = new Map<string, Float64Array>();

/** The least value of each of the `m` objectives over the Pareto front of `problem`, computed once. */
function leastOnFront(problem: TestProblem, m: number): Float64Array {
  const key = `${problem.name}/${m}`;
  let least = leastCache.get(key);
  if (!least) {
    const front = problem.paretoFront(m, frontSamples);
    least = new Float64Array(m).fill(Infinity);
    for (let i = 0; i < front.length; i++) least[i % m] = Math.min(least[i % m], front[i]);
    leastCache.set(key, least);
  }
  return least;
}

/**
 * Per objective of `mdl`, the values its builtin evaluator can produce, where known: a simulator's
 * physical range for the output of that name; for a test problem (every objective minimized, in
 * MDL order) nothing below the least value on its Pareto front, which is the least value anywhere.
 * Noise (relative, unbounded) can carry a test problem's values anywhere, so then nothing is known.
 */
export function attainableObjectives(mdl: Mdl): (AttainableRange | undefined)[] {
  const evaluator = mdl.evaluator;
  if (evaluator?.type !== 'builtin') return [];
  const simulator = domainSimulator(evaluator.name);
  if (simulator) return mdl.objectives.map((o) => simulator.objectives.find((s) => s.name === o.name)?.range);
  const problem = testProblem(evaluator.name);
  if (!problem || (evaluator.noise ?? 0) > 0) return [];
  const least = leastOnFront(problem, mdl.objectives.length);
  return mdl.objectives.map((objective, i) => (objective.direction === 'minimize' ? [least[i], Infinity] : undefined));
}

/** The registry as the MDL validator consumes it. */
export const builtinEvaluators: BuiltinEvaluators = {
  names: builtinNames(),
  issues: builtinEvaluatorIssues,
  attainable: attainableObjectives,
};
