import { hypervolume } from '../src/engine/hypervolume.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { runLocalCampaign, type IterationReport } from '../src/jobs/local-runner.js';
import { median, type BenchReport, type BenchSuite } from './common.js';

/**
 * Progress before the reference point is reached: problems whose reference point the initial
 * design (and random sampling, mostly) does not dominate, 90 evaluations (10 + 20 × 4). Reports
 * the hypervolume at 90 evaluations as a share of the maximum, and the evaluation at which the
 * first point entered the reference box. `npm run bench -- campaign-reach [--quick]`.
 */
interface ReachCase {
  label: string;
  problem: string;
  d: number;
  ref: number[];
  strategy: 'auto' | 'global' | 'trust-region';
}

const CASES: ReachCase[] = [
  { label: 'dtlz2 d=8 m=3 ref 1.1 (the issue 3-objective case)', problem: 'dtlz2', d: 8, ref: [1.1, 1.1, 1.1], strategy: 'auto' },
  { label: 'dtlz2 d=5 m=2 ref 0.75 (tight)', problem: 'dtlz2', d: 5, ref: [0.75, 0.75], strategy: 'auto' },
  { label: 'dtlz2 d=5 m=2 ref 0.75 (tight), trust regions', problem: 'dtlz2', d: 5, ref: [0.75, 0.75], strategy: 'trust-region' },
  { label: 'dtlz2 d=8 m=3 ref 0.7 (tight)', problem: 'dtlz2', d: 8, ref: [0.7, 0.7, 0.7], strategy: 'auto' },
];
const BUDGET = 90;

function caseMdl(c: ReachCase, seed: number): Mdl {
  return mdlSchema.parse({
    name: `${c.label} benchmark`,
    parameters: Array.from({ length: c.d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: c.ref.map((r, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: r })),
    optimizer: { method: 'cma-es', strategy: c.strategy, budget: BUDGET, batch_size: 4, initial_samples: 10, seed, stagnation: { window: 1000, tolerance: 0 } },
    evaluator: { type: 'builtin', name: c.problem },
  });
}

function maxHypervolume(c: ReachCase): number {
  const problem = testProblem(c.problem)!;
  const m = c.ref.length;
  const exact = problem.maxHypervolume?.(m, c.ref);
  if (exact !== undefined) return exact;
  const count = 20_000;
  return hypervolume(problem.paretoFront(m, count), count, m, c.ref);
}

export async function runReachCampaigns(quick: boolean, only?: string): Promise<BenchReport> {
  const seeds = quick ? [1, 2, 3] : [1, 2, 3, 4, 5];
  const rows: BenchReport['rows'] = [];
  for (const c of CASES.filter((k) => !only || k.label.includes(only))) {
    const best = maxHypervolume(c);
    const shares: number[] = [];
    const entered: (number | null)[] = [];
    const seconds: number[] = [];
    for (const seed of seeds) {
      const mdl = caseMdl(c, seed);
      let first: number | null = null;
      const reports: IterationReport[] = [];
      const state = await runLocalCampaign(mdl, createEvaluator(mdl, { allowCommand: false }), {
        onIteration: (r) => {
          reports.push(r);
          if (first === null && r.hypervolume > 0) first = r.evaluationsCompleted;
        },
      });
      shares.push(state.convergenceHistory[state.convergenceHistory.length - 1] / best);
      entered.push(first);
      for (const r of reports.slice(1)) seconds.push(r.proposeSeconds);
    }
    rows.push({
      case: c.label,
      share_mean: shares.reduce((a, b) => a + b, 0) / shares.length,
      share_min: Math.min(...shares),
      share_per_seed: shares.map((v) => v.toFixed(3)).join(' / '),
      entered_box_at: entered.map((v) => v ?? 'never').join(' / '),
      s_per_iteration: median(seconds),
    });
  }
  return { rows, notes: ['entered_box_at: evaluations completed when the hypervolume first exceeded 0, per seed.'] };
}

export const suite: BenchSuite = {
  name: 'campaign-reach',
  description: 'reference points the initial design does not reach: share of max hypervolume at 90 evaluations, and when the box was entered',
  options: [{ flag: '--quick', description: 'seeds 1-3 instead of 1-5' }],
  run: () => runReachCampaigns(process.argv.includes('--quick'), process.env.KILN_REACH_CASE),
};
