import { hypervolume } from '../src/engine/hypervolume.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { isFeasible } from '../src/engine/campaign/feasibility.js';
import type { EvaluationRecord } from '../src/engine/campaign/types.js';
import { createEvaluator } from '../src/evaluators/create.js';
import type { Evaluator } from '../src/evaluators/types.js';
import { EnginePool, engineThreads } from '../src/jobs/engine-pool.js';
import { runLocalCampaign, type IterationReport } from '../src/jobs/local-runner.js';
import type { TensorBackendChoice } from '../src/engine/tensor/backend.js';
import { median, type BenchReport } from './common.js';

/**
 * The users' scale (issue protocol, after the MORBO paper): DTLZ2 with 2 objectives, reference
 * 1.1, 200 initial points and batches of 50 up to 2,000 evaluations, in 30 and 100 dimensions;
 * and a 3-objective DTLZ2 in 7 dimensions at 90 evaluations (10 + 20 × 4), where the share of
 * proposals with three or more coordinates on a bound is counted.
 *
 * The real-problem shape (MORBO's vehicle design: about 200 parameters, tens of black-box
 * constraints, thousands of evaluations): DTLZ2 in 200 dimensions without constraints to 3,000
 * evaluations, and with K = 20 (to 2,000) and K = 50 (to 5,000) outcome constraints
 * g_k = 0.8 − x_{k+1} ≥ 0, measured outcomes the evaluator reports (a random point is feasible
 * with probability 0.8^K; the unconstrained optimum x_i = 0.5 is feasible). Reported beside the
 * hypervolume: the best feasible distance term g = Σ_{i≥m} (x_i − 0.5)² (a point enters the
 * reference box only below g ≈ 0.1), also after the first 2,000 evaluations, the feasible share
 * of proposals, the longest whole campaign and the peak resident memory.
 *
 * Kiln (cma-es, strategy auto) runs against NSGA-II (population 50, same budget) and random
 * search in the same run. Kiln proposes on the engine threads `kiln run` uses (two on a machine
 * with two cores or more: a step's GP fits run side by side), so its time per batch is what a
 * user of `kiln run` waits. `--quick` runs one seed, stops the d = 30 and d = 100 cases at 700
 * evaluations and the d = 200 ones at 500; `--case=TEXT` runs only the cases whose label
 * contains TEXT (e.g. `--case=d=200`), or the one case whose whole label it is; `--seeds=1,2`
 * runs those seeds instead of the case's.
 */
export interface LargeCase {
  label: string;
  d: number;
  m: number;
  /** outcome constraints g_k = 0.8 − x_{k+1} ≥ 0, k = 1..constraints */
  constraints?: number;
  budget: number;
  initial: number;
  batch: number;
  seeds: number[];
  target?: number;
  targetSeconds?: number;
  /** the whole campaign's target, in minutes */
  targetMinutes?: number;
}

/** Evaluations after which the best g is also reported, to compare campaigns of different budgets. */
const CHECKPOINT = 2000;

function cases(quick: boolean): LargeCase[] {
  const big = quick ? 700 : 2000;
  const seeds = quick ? [1] : [1, 2, 3];
  const wide = (budget: number): number => (quick ? 500 : budget);
  return [
    { label: 'dtlz2 d=30 m=2', d: 30, m: 2, budget: big, initial: 200, batch: 50, seeds, target: quick ? undefined : 0.4, targetSeconds: 10 },
    { label: 'dtlz2 d=100 m=2', d: 100, m: 2, budget: big, initial: 200, batch: 50, seeds, target: quick ? undefined : 0.3, targetSeconds: 20 },
    { label: 'dtlz2 d=7 m=3', d: 7, m: 3, budget: 90, initial: 10, batch: 4, seeds: quick ? [1, 2] : [1, 2, 3, 4, 5] },
    { label: 'dtlz2 d=200 m=2', d: 200, m: 2, budget: wide(3000), initial: 200, batch: 50, seeds },
    { label: 'dtlz2 d=200 m=2 K=20', d: 200, m: 2, constraints: 20, budget: wide(2000), initial: 200, batch: 50, seeds, targetSeconds: 10 },
    { label: 'dtlz2 d=200 m=2 K=50', d: 200, m: 2, constraints: 50, budget: wide(5000), initial: 200, batch: 50, seeds, targetMinutes: 15 },
  ];
}

/** The full-size case with this label (its budget and seeds as the full run has them). */
export function largeCase(label: string): LargeCase {
  const found = cases(false).find((c) => c.label === label);
  if (!found) throw new Error(`no campaign-large case is labelled "${label}"`);
  return found;
}

const METHODS = ['cma-es', 'nsga2', 'random'] as const;
/** Kiln's engine threads, as `kiln run` has them. */
const THREADS = engineThreads();

export function caseMdl(c: LargeCase, method: string, seed: number): Mdl {
  const k = c.constraints ?? 0;
  return mdlSchema.parse({
    name: `${c.label} benchmark`,
    parameters: Array.from({ length: c.d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: Array.from({ length: c.m }, (_, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: 1.1 })),
    outcomes: Array.from({ length: k }, (_, i) => ({ name: `g${i + 1}` })),
    outcome_constraints: Array.from({ length: k }, (_, i) => ({ expression: `g${i + 1} >= 0` })),
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

/** The builtin DTLZ2, with the case's outcomes g_k = 0.8 − x_{k+1} measured beside its objectives. */
export function caseEvaluator(c: LargeCase, mdl: Mdl): Evaluator {
  const inner = createEvaluator({ ...mdl, outcomes: [], outcome_constraints: [] }, { allowCommand: false });
  const k = c.constraints ?? 0;
  if (k === 0) return inner;
  return {
    kind: inner.kind,
    async evaluate(batch, options) {
      const outcomes = await inner.evaluate(batch, options);
      return outcomes.map((o, i) =>
        o.ok ? { ...o, outcomes: Object.fromEntries(Array.from({ length: k }, (_, j) => [`g${j + 1}`, 0.8 - Number(batch[i].parameters[`x${j + 2}`])])) } : o,
      );
    },
  };
}

/** DTLZ2's distance term g = Σ_{i≥m} (x_i − 0.5)² (1-based parameters m..d) of one evaluation. */
function distanceTerm(e: EvaluationRecord, c: LargeCase): number {
  let g = 0;
  for (let i = c.m; i <= c.d; i++) g += (Number(e.parameters[`x${i}`]) - 0.5) ** 2;
  return g;
}

function maxHypervolume(m: number): number {
  const problem = testProblem('dtlz2')!;
  const ref = Array(m).fill(1.1);
  return problem.maxHypervolume?.(m, ref) ?? hypervolume(problem.paretoFront(m, 20_000), 20_000, m, ref);
}

export async function runLargeCampaigns(quick: boolean, only?: string, seeds?: number[], backend: TensorBackendChoice = 'auto'): Promise<BenchReport> {
  const rows: BenchReport['rows'] = [];
  const notes: string[] = [];
  const all = cases(quick);
  // a whole label picks that case alone; other text, every case whose label contains it
  const exact = all.some((k) => k.label === only);
  const chosen = all.filter((k) => only === undefined || (exact ? k.label === only : k.label.includes(only))).map((k) => (seeds ? { ...k, seeds } : k));
  for (const c of chosen) {
    const best = maxHypervolume(c.m);
    for (const method of METHODS) {
      const finals: number[] = [];
      const proposeSeconds: number[] = [];
      const bestG: number[] = [];
      const bestGAtCheckpoint: number[] = [];
      let minutes = 0;
      let hugging = 0;
      let feasible = 0;
      let proposals = 0;
      let peakRss = 0;
      let strategy = '';
      for (const seed of c.seeds) {
        const mdl = caseMdl(c, method, seed);
        const reports: IterationReport[] = [];
        const started = performance.now();
        const pool = method === 'cma-es' && (THREADS > 1 || backend === 'webgpu') ? new EnginePool({ threads: THREADS, backend }) : undefined;
        const state = await runLocalCampaign(mdl, caseEvaluator(c, mdl), {
          pool,
          onIteration: (r, s) => {
            reports.push(r);
            peakRss = Math.max(peakRss, process.memoryUsage().rss);
            if (r.iteration < 2) return;
            for (const e of s.evaluations) {
              if (e.iteration !== r.iteration) continue;
              proposals++;
              if (isFeasible(mdl, e)) feasible++;
              if (Object.values(e.parameters).filter((v) => v === 0 || v === 1).length >= 3) hugging++;
            }
          },
        });
        await pool?.destroy();
        minutes = Math.max(minutes, (performance.now() - started) / 60_000);
        strategy = state.strategy?.name ?? method;
        finals.push(state.convergenceHistory[state.convergenceHistory.length - 1]);
        for (const r of reports.slice(1)) proposeSeconds.push(r.proposeSeconds);
        const g = (upTo: number): number =>
          Math.min(
            ...state.evaluations
              .slice(0, upTo)
              .filter((e) => isFeasible(mdl, e))
              .map((e) => distanceTerm(e, c)),
          );
        bestG.push(g(state.evaluations.length));
        bestGAtCheckpoint.push(g(CHECKPOINT));
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
        best_g_per_seed: bestG.map((v) => v.toFixed(3)).join(' / '),
        best_g_at_2000_mean: c.budget > CHECKPOINT ? bestGAtCheckpoint.reduce((a, b) => a + b, 0) / bestGAtCheckpoint.length : null,
        feasible_share: c.constraints ? feasible / Math.max(1, proposals) : null,
        engine_threads: method === 'cma-es' ? THREADS : 1,
        s_per_iteration_median: median(proposeSeconds),
        s_per_iteration_max: Math.max(...proposeSeconds),
        campaign_minutes_max: minutes,
        on_bound_share: proposals > 0 ? hugging / proposals : 0,
        peak_rss_mb: Math.round(peakRss / 1e6),
      });
    }
    if (c.targetSeconds !== undefined) {
      notes.push(`${c.label}: target at most ${c.targetSeconds} s per iteration at every iteration (s_per_iteration_max of cma-es).`);
    }
    if (c.targetMinutes !== undefined) {
      notes.push(
        `${c.label}: target at most ${c.targetMinutes} minutes per campaign (campaign_minutes_max of cma-es, evaluations included) and 1,500 MB peak_rss_mb.`,
      );
    }
  }
  notes.push('on_bound_share: proposals after the initial design with three or more coordinates exactly on a bound.');
  notes.push(
    'best_g: the smallest distance term g = Σ_{i≥m} (x_i − 0.5)² of a feasible evaluation (0 on the front; below about 0.1 a point can enter the reference box); best_g_at_2000: among the first 2,000 evaluations.',
  );
  notes.push('feasible_share: proposals after the initial design that met every outcome constraint.');
  notes.push('peak_rss_mb: resident memory of the benchmark process, sampled after every iteration (all runs so far).');
  return { rows, notes };
}
