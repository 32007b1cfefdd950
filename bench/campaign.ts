import { hypervolume } from '../src/engine/hypervolume.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { runLocalCampaign, type IterationReport } from '../src/jobs/local-runner.js';
import { runConstrainedCampaigns } from './campaign-constrained.js';
import { runLargeCampaigns } from './campaign-large.js';
import { runNoisyCampaigns } from './campaign-noisy.js';
import { backendOption, median, type BenchSuite } from './common.js';

/**
 * Optimization quality and loop speed. Protocol of the targets: 10 initial points, then
 * batches of 4; the hypervolume after 90 evaluations (iteration 21) is compared with the
 * reference figures (BoTorch qNEHVI, NSGA-II, Sobol, measured on this machine), and the run goes
 * on to the suite's budget of 100.
 */
interface Case {
  problem: string;
  d: number;
  ref: number[];
  /** reference hypervolumes after 90 evaluations, mean of 5 seeds, where measured */
  botorch?: number;
  nsga2?: number;
  sobol?: number;
  target?: number;
}

const CASES: Case[] = [
  { problem: 'zdt1', d: 6, ref: [11, 11] },
  { problem: 'dtlz2', d: 6, ref: [1.1, 1.1], botorch: 0.406, nsga2: 0.218, sobol: 0.116, target: 0.4 },
  { problem: 'branin-currin', d: 2, ref: [18, 6], botorch: 58.76, nsga2: 16.3, sobol: 25.7, target: 58.5 },
];
const METHODS = ['cma-es', 'random', 'lhs'] as const;
const SEEDS = [1, 2, 3, 4, 5];
const BUDGET = 100;
const AT_90 = 20; // index into convergence_history: iteration 21 = 10 + 20 x 4 evaluations

function campaignMdl(c: Case, method: string, seed: number): Mdl {
  return mdlSchema.parse({
    name: `${c.problem} benchmark`,
    parameters: Array.from({ length: c.d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: c.ref.map((r, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: r })),
    optimizer: { method, budget: BUDGET, batch_size: 4, initial_samples: 10, seed, stagnation: { window: 1000, tolerance: 0 } },
    evaluator: { type: 'builtin', name: c.problem },
  });
}

function maxHypervolume(c: Case): number {
  const problem = testProblem(c.problem)!;
  const m = c.ref.length;
  const exact = problem.maxHypervolume?.(m, c.ref);
  if (exact !== undefined) return exact;
  const count = 20_000;
  return hypervolume(problem.paretoFront(m, count), count, m, c.ref);
}

export const suite: BenchSuite = {
  name: 'campaign',
  description: 'final hypervolume of cma-es (GP + EHVI) vs random vs lhs, 5 seeds, batch 4, budget 100',
  async run() {
    const rows: Record<string, string | number | boolean | null>[] = [];
    const notes: string[] = [];
    for (const c of CASES) {
      const best = maxHypervolume(c);
      const perMethod: Record<string, number[]> = {};
      for (const method of METHODS) {
        const at90: number[] = [];
        const final: number[] = [];
        const iterationSeconds: number[] = [];
        for (const seed of SEEDS) {
          const mdl = campaignMdl(c, method, seed);
          const reports: IterationReport[] = [];
          const state = await runLocalCampaign(mdl, createEvaluator(mdl, { allowCommand: false }), {
            onIteration: (r) => reports.push(r),
          });
          at90.push(state.convergenceHistory[AT_90]);
          final.push(state.convergenceHistory[state.convergenceHistory.length - 1]);
          for (const r of reports.slice(1)) iterationSeconds.push(r.proposeSeconds);
        }
        perMethod[method] = at90;
        const mean90 = at90.reduce((a, b) => a + b, 0) / at90.length;
        const meanFinal = final.reduce((a, b) => a + b, 0) / final.length;
        rows.push({
          problem: c.problem,
          method,
          hv_at_90_mean: mean90,
          hv_at_90_min: Math.min(...at90),
          hv_final_mean: meanFinal,
          log10_hv_gap: Math.log10(Math.max(best - meanFinal, 1e-300)),
          max_hv: best,
          target: method === 'cma-es' ? (c.target ?? null) : null,
          meets_target: method === 'cma-es' && c.target !== undefined ? mean90 >= c.target : null,
          botorch: method === 'cma-es' ? (c.botorch ?? null) : null,
          s_per_iteration: median(iterationSeconds),
        });
      }
      const kiln = perMethod['cma-es'];
      const beatsBaselines = SEEDS.every((_, i) => kiln[i] > perMethod.random[i] && kiln[i] > perMethod.lhs[i]);
      notes.push(`${c.problem}: cma-es beats random and lhs at 90 evaluations in every seed: ${beatsBaselines}`);
      if (c.nsga2 !== undefined) {
        notes.push(
          `${c.problem}: cma-es above the NSGA-II reference mean (${c.nsga2}) in every seed: ${kiln.every((v) => v > c.nsga2!)}; ` +
            `above the Sobol reference mean (${c.sobol}): ${kiln.every((v) => v > c.sobol!)}`,
        );
      }
    }
    notes.push('s_per_iteration: median seconds to propose one batch (surrogate fit + acquisition), excluding the initial design.');
    return { rows, notes };
  },
};

/** Part of `npm run bench -- campaign`, after the small protocol; `--quick` shortens it. */
export const more: BenchSuite[] = [
  {
    name: 'campaign-large',
    description:
      "users' scale: DTLZ2 d=30 and d=100 to 2,000 evaluations (batches of 50), 3-objective d=7 at 90, d=200 to 3,000 and with 20 (2,000) and 50 (5,000) outcome constraints; cma-es (auto) vs nsga2 vs random",
    options: [
      { flag: '--quick', description: 'one seed; the d=30 and d=100 cases to 700 evaluations, the d=200 ones to 500' },
      { flag: '--case', value: 'TEXT', description: 'only the cases whose label contains TEXT (e.g. d=200), or the one case whose whole label it is' },
      { flag: '--seeds', value: '1,2', description: "these seeds instead of the case's" },
    ],
    run: () =>
      runLargeCampaigns(
        process.argv.includes('--quick'),
        process.argv.find((a) => a.startsWith('--case='))?.slice('--case='.length),
        process.argv
          .find((a) => a.startsWith('--seeds='))
          ?.slice('--seeds='.length)
          .split(',')
          .map(Number),
        backendOption(),
      ),
  },
  {
    name: 'campaign-constrained',
    description: 'outcome constraints and failures: C2-DTLZ2 (50 evaluations, 5 seeds) and DTLZ2 d=6 with a failing region; cma-es vs nsga2 vs random',
    run: () => runConstrainedCampaigns(),
  },
  {
    name: 'campaign-noisy',
    description: 'measurement noise: DTLZ2 d=6 with Gaussian noise sd 0.05, 90 evaluations, 3 seeds; true vs reported hypervolume',
    options: [{ flag: '--seeds', value: '1,2', description: 'these seeds instead of 1, 2, 3' }],
    run: () =>
      runNoisyCampaigns(
        process.argv
          .find((a) => a.startsWith('--seeds='))
          ?.slice('--seeds='.length)
          .split(',')
          .map(Number),
      ),
  },
];
