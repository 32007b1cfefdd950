import { campaignResults } from '../src/engine/campaign/results.js';
import { hypervolume } from '../src/engine/hypervolume.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { paretoMask } from '../src/engine/pareto.js';
import { createBuiltinFunction } from '../src/engine/problems/builtin-function.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { runLocalCampaign } from '../src/jobs/local-runner.js';
import { median } from './common.js';
import type { ResolvedCase } from './suite-cases.js';

/** The methods every case runs, Kiln first. */
export const METHODS = ['kiln', 'random', 'lhs', 'nsga2'] as const;
export type Method = (typeof METHODS)[number];

/** How a budget is spent: the initial design, then batches (NSGA-II: its population is its batch). */
export interface BudgetPlan {
  evaluations: number;
  initial: number;
  batch: number;
}

/** 90 = 10 + 20 x 4 (the protocol); 300 = 20 + 28 x 10; 1,000 = 100 + 18 x 50. */
export function budgetPlan(evaluations: number, method: Method): BudgetPlan {
  const plans: Record<number, [number, number, number]> = { 90: [10, 4, 10], 300: [20, 10, 20], 1000: [100, 50, 50] };
  const [initial, batch, population] = plans[evaluations] ?? [10, 4, 10];
  return method === 'nsga2' ? { evaluations, initial: population, batch: population } : { evaluations, initial, batch };
}

export interface RunResult {
  key: string;
  case: string;
  budget: number;
  method: Method;
  seed: number;
  /** feasible hypervolume at the end (noisy cases: the true hypervolume of the front Kiln reports) */
  hv: number;
  share: number;
  /** median seconds to propose a batch after the initial design */
  secondsPerIteration: number;
  /** slowest proposal after the initial design, seconds (absent in runs stored before it was recorded) */
  maxSecondsPerIteration?: number;
  evaluations: number;
}

export const runKey = (caseId: string, budget: number, method: Method, seed: number): string => `${caseId}|${budget}|${method}|${seed}`;

export function suiteMdl(c: ResolvedCase, budget: number, method: Method, seed: number, noisy = true): Mdl {
  const problem = testProblem(c.problem)!;
  const bounds = problem.bounds?.(c.d, c.m);
  const plan = budgetPlan(budget, method);
  const outcomes = problem.outcomes?.names ?? [];
  return mdlSchema.parse({
    name: `${c.id} (suite)`,
    parameters: Array.from({ length: c.d }, (_, i) => ({
      name: `x${i + 1}`,
      type: problem.integers?.includes(i) ? 'integer' : 'continuous',
      bounds: bounds ? [...bounds[i]] : [0, 1],
    })),
    objectives: c.ref.map((r, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: r })),
    constraints: (problem.constraints ?? []).map((expression) => ({ expression })),
    outcomes: outcomes.map((name) => ({ name })),
    outcome_constraints: outcomes.map((name) => ({ expression: `${name} >= 0` })),
    optimizer: {
      method: method === 'kiln' ? 'cma-es' : method,
      budget,
      batch_size: plan.batch,
      initial_samples: plan.initial,
      seed,
      stagnation: { window: 1000, tolerance: 0 },
    },
    evaluator: { type: 'builtin', name: c.problem, ...(noisy && c.noise ? { noise: c.noise, seed } : {}) },
  });
}

/**
 * The true hypervolume of the designs a noisy campaign reports as its front: their noiseless
 * objectives (and outcome feasibility), as a user who built them would measure them exactly.
 */
function trueFrontHypervolume(c: ResolvedCase, mdl: Mdl, designs: readonly Record<string, number | string>[]): number {
  const exact = createBuiltinFunction(suiteMdl(c, mdl.optimizer.budget, 'random', mdl.optimizer.seed ?? 0, false));
  const rows: number[] = [];
  let n = 0;
  for (const parameters of designs) {
    const { objectives, outcomes } = exact(parameters);
    if (Object.values(outcomes).some((v) => v < 0)) continue;
    rows.push(...mdl.objectives.map((o) => objectives[o.name]));
    n++;
  }
  if (n === 0) return 0;
  const Y = Float64Array.from(rows);
  const mask = paretoMask(Y, n, c.m);
  const front = Y.filter((_, i) => mask[Math.floor(i / c.m)] === 1);
  return hypervolume(front, front.length / c.m, c.m, c.ref);
}

export async function runOnce(c: ResolvedCase, budget: number, method: Method, seed: number): Promise<RunResult> {
  const mdl = suiteMdl(c, budget, method, seed);
  const seconds: number[] = [];
  const state = await runLocalCampaign(mdl, createEvaluator(mdl, { allowCommand: false }), {
    onIteration: (r) => {
      if (r.iteration > 1) seconds.push(r.proposeSeconds);
    },
  });
  const hv = c.noise
    ? trueFrontHypervolume(
        c,
        mdl,
        campaignResults(mdl, state).pareto_front.map((r) => r.parameters),
      )
    : (state.convergenceHistory.at(-1) ?? 0);
  return {
    key: runKey(c.id, budget, method, seed),
    case: c.id,
    budget,
    method,
    seed,
    hv,
    share: hv / c.maxHv,
    secondsPerIteration: seconds.length > 0 ? median(seconds) : 0,
    maxSecondsPerIteration: seconds.length > 0 ? Math.max(...seconds) : 0,
    evaluations: state.evaluations.length,
  };
}
