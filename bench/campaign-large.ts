import { hypervolume } from '../src/engine/hypervolume.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { runLocalCampaign, type IterationReport } from '../src/jobs/local-runner.js';
import { median, type BenchReport } from './common.js';

/**
 * The users' scale (issue protocol, after the MORBO paper): DTLZ2 with 2 objectives, reference
 * 1.1, 200 initial points and batches of 50 up to 2,000 evaluations, in 30 and 100 dimensions;
 * and a 3-objective DTLZ2 in 7 dimensions at 90 evaluations (10 + 20 × 4), where the share of
 * proposals with three or more coordinates on a bound is counted. Kiln (cma-es, strategy auto)
 * runs against NSGA-II (population 50, same budget) and random search in the same run.
 * `--quick` runs one seed and stops the large cases at 700 evaluations.
 */
interface LargeCase {
  label: string;
  d: number;
  m: number;
  budget: number;
  initial: number;
  batch: number;
  seeds: number[];
  target?: number;
  targetSeconds?: number;
}

function cases(quick: boolean): LargeCase[] {
  const big = quick ? 700 : 2000;
  const seeds = quick ? [1] : [1, 2, 3];
  return [
    { label: 'dtlz2 d=30 m=2', d: 30, m: 2, budget: big, initial: 200, batch: 50, seeds, target: quick ? undefined : 0.4, targetSeconds: 10 },
    { label: 'dtlz2 d=100 m=2', d: 100, m: 2, budget: big, initial: 200, batch: 50, seeds, target: quick ? undefined : 0.3, targetSeconds: 20 },
    { label: 'dtlz2 d=7 m=3', d: 7, m: 3, budget: 90, initial: 10, batch: 4, seeds: quick ? [1, 2] : [1, 2, 3, 4, 5] },
  ];
}

const METHODS = ['cma-es', 'nsga2', 'random'] as const;

function caseMdl(c: LargeCase, method: string, seed: number): Mdl {
  return mdlSchema.parse({
    name: `${c.label} benchmark`,
    parameters: Array.from({ length: c.d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: Array.from({ length: c.m }, (_, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: 1.1 })),
    optimizer: {
      method,
      budget: c.budget,
      // NSGA-II's population is its batch: 50 at the large scale, as the pymoo reference runs
      batch_size: method === 'nsga2' ? Math.max(c.batch, 20) : c.batch,
      initial_samples: method === 'nsga2' ? Math.max(c.batch, 20) : c.initial,
      seed,
      stagnation: { window: 1000, tolerance: 0 },
    },
    evaluator: { type: 'builtin', name: 'dtlz2' },
  });
}

function maxHypervolume(m: number): number {
  const problem = testProblem('dtlz2')!;
  const ref = Array(m).fill(1.1);
  return problem.maxHypervolume?.(m, ref) ?? hypervolume(problem.paretoFront(m, 20_000), 20_000, m, ref);
}

export async function runLargeCampaigns(quick: boolean): Promise<BenchReport> {
  const rows: BenchReport['rows'] = [];
  const notes: string[] = [];
  for (const c of cases(quick)) {
    const best = maxHypervolume(c.m);
    for (const method of METHODS) {
      const finals: number[] = [];
      const proposeSeconds: number[] = [];
      let hugging = 0;
      let proposals = 0;
      let peakRss = 0;
      let strategy = '';
      for (const seed of c.seeds) {
        const mdl = caseMdl(c, method, seed);
        const reports: IterationReport[] = [];
        const state = await runLocalCampaign(mdl, createEvaluator(mdl, { allowCommand: false }), {
          onIteration: (r, s) => {
            reports.push(r);
            peakRss = Math.max(peakRss, process.memoryUsage().rss);
            if (r.iteration < 2) return;
            for (const e of s.evaluations) {
              if (e.iteration !== r.iteration) continue;
              proposals++;
              if (Object.values(e.parameters).filter((v) => v === 0 || v === 1).length >= 3) hugging++;
            }
          },
        });
        strategy = state.strategy?.name ?? method;
        finals.push(state.convergenceHistory[state.convergenceHistory.length - 1]);
        for (const r of reports.slice(1)) proposeSeconds.push(r.proposeSeconds);
      }
      const mean = finals.reduce((a, b) => a + b, 0) / finals.length;
      rows.push({
        case: c.label,
        evaluations: c.budget,
        method,
        strategy,
        hv_mean: mean,
        hv_min: Math.min(...finals),
        hv_per_seed: finals.map((v) => v.toFixed(4)).join(' / '),
        share_of_max: mean / best,
        target: method === 'cma-es' ? (c.target ?? null) : null,
        meets_target: method === 'cma-es' && c.target !== undefined ? mean >= c.target : null,
        s_per_iteration_median: median(proposeSeconds),
        s_per_iteration_max: Math.max(...proposeSeconds),
        on_bound_share: proposals > 0 ? hugging / proposals : 0,
        peak_rss_mb: Math.round(peakRss / 1e6),
      });
    }
    if (c.targetSeconds !== undefined) {
      notes.push(`${c.label}: target at most ${c.targetSeconds} s per iteration at every iteration (s_per_iteration_max of cma-es).`);
    }
  }
  notes.push('on_bound_share: proposals after the initial design with three or more coordinates exactly on a bound.');
  notes.push('peak_rss_mb: resident memory of the benchmark process, sampled after every iteration (all runs so far).');
  return { rows, notes };
}
