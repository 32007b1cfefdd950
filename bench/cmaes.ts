/**
 * CMA-ES suite: evaluations to reach f < 1e-8 against pycma's medians on the same protocol, and the
 * optimizer's own cost per generation (ask + tell, objective excluded) for the WASM kernel and the
 * plain-TypeScript baseline, against pycma's.
 */
import { CmaEs, minimize } from '../src/engine/cmaes.js';
import { Random } from '../src/engine/random.js';
import { CmaEsReference } from '../reference/cmaes.js';
import { median, type BenchReport, type BenchSuite } from './common.js';

type Objective = (x: Float64Array) => number;

const sphere: Objective = (x) => {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i];
  return s;
};

/** f = sum 10^(6 (i-1)/(n-1)) x_i^2, condition 1e6; the coefficients are cached per dimension. */
function ellipsoid(n: number): Objective {
  const c = Float64Array.from({ length: n }, (_, i) => 10 ** ((6 * i) / (n - 1)));
  return (x) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += c[i] * x[i] * x[i];
    return s;
  };
}

const rosenbrock: Objective = (x) => {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i] * x[i] - x[i + 1]) ** 2 + (1 - x[i]) ** 2;
  return s;
};

/** pycma medians of evaluations to f < 1e-8 (mean uniform in [-4, 4]^n, sigma 2), this machine. */
const PYCMA_EVALUATIONS: { problem: string; n: number; evaluations: number; fn: (n: number) => Objective }[] = [
  { problem: 'sphere', n: 10, evaluations: 1438, fn: () => sphere },
  { problem: 'sphere', n: 40, evaluations: 5146, fn: () => sphere },
  { problem: 'ellipsoid', n: 10, evaluations: 4055, fn: ellipsoid },
  { problem: 'ellipsoid', n: 40, evaluations: 48595, fn: ellipsoid },
  { problem: 'rosenbrock', n: 10, evaluations: 4871, fn: () => rosenbrock },
  { problem: 'rosenbrock', n: 40, evaluations: 61935, fn: () => rosenbrock },
];

/** pycma milliseconds per generation, ask + tell, this machine. */
const PYCMA_MS_PER_GENERATION: Record<number, number> = { 10: 0.4, 40: 1.0, 100: 1.7 };

const SEEDS = 11;

function evaluationsToTarget(fn: Objective, n: number, seed: number): number {
  const r = new Random(1000 + seed);
  const mean = Float64Array.from({ length: n }, () => -4 + 8 * r.uniform());
  const result = minimize(fn, { mean, sigma: 2, seed, maxEvaluations: 2e6, targetValue: 1e-8 });
  return result.stopReason === 'target' ? result.evaluations : Infinity;
}

/** The ask/tell interface both implementations share. */
interface AskTell {
  readonly populationSize: number;
  ask(): Float64Array;
  tell(f: ArrayLike<number>): void;
  stopReason(): string | null;
}

/**
 * Microseconds per generation of ask + tell on the sphere (objective excluded), as the median over
 * blocks of `block` generations, so the lazy eigendecomposition is amortised inside each block and
 * a block slowed by another process on the machine does not move the result.
 */
function microsecondsPerGeneration(create: (seed: number) => AskTell, n: number, block: number, seconds: number): { microseconds: number; blocks: number } {
  let seed = 1;
  let es = create(seed);
  const f = new Float64Array(es.populationSize);
  const blocks: number[] = [];
  const started = process.hrtime.bigint();
  while (blocks.length < 5 || Number(process.hrtime.bigint() - started) / 1e9 < seconds) {
    let ns = 0;
    for (let g = 0; g < block; g++) {
      const t0 = process.hrtime.bigint();
      const X = es.ask();
      const t1 = process.hrtime.bigint();
      for (let i = 0; i < f.length; i++) f[i] = sphere(X.subarray(i * n, (i + 1) * n));
      const t2 = process.hrtime.bigint();
      es.tell(f);
      ns += Number(process.hrtime.bigint() - t2 + (t1 - t0));
      if (es.stopReason() !== null) es = create(++seed);
    }
    blocks.push(ns / block / 1000);
  }
  return { microseconds: median(blocks), blocks: blocks.length };
}

async function run(): Promise<BenchReport> {
  const rows: BenchReport['rows'] = [];
  for (const { problem, n, evaluations, fn } of PYCMA_EVALUATIONS) {
    const objective = fn(n);
    const ours = median(Array.from({ length: SEEDS }, (_, s) => evaluationsToTarget(objective, n, s + 1)));
    const ratio = ours / evaluations;
    rows.push({
      metric: 'evaluations to f < 1e-8',
      problem,
      n,
      runs: SEEDS,
      wasm: ours,
      ts_baseline: null,
      pycma: evaluations,
      ratio,
      within_15pct: ratio <= 1.15,
      within_fifth: null,
      wasm_speedup: null,
    });
  }
  for (const n of [10, 40, 100]) {
    const mean = new Float64Array(n).fill(1);
    // Blocks span several eigendecompositions (at most every n / lambda generations).
    const block = 60;
    const timed = microsecondsPerGeneration((seed) => new CmaEs({ mean, sigma: 0.5, seed }), n, block, 2);
    const wasm = timed.microseconds;
    const ts = microsecondsPerGeneration((seed) => new CmaEsReference({ mean, sigma: 0.5, seed }), n, block, 2).microseconds;
    const pycma = PYCMA_MS_PER_GENERATION[n] * 1000;
    rows.push({
      metric: 'µs per generation (ask + tell)',
      problem: 'sphere',
      n,
      runs: timed.blocks,
      wasm,
      ts_baseline: ts,
      pycma,
      ratio: wasm / pycma,
      within_15pct: null,
      within_fifth: wasm <= pycma / 5,
      wasm_speedup: ts / wasm,
    });
  }
  return {
    rows,
    notes: [
      `Evaluation rows: median over ${SEEDS} seeds of the evaluations (whole generations, IPOP restarts included) until f < 1e-8, mean uniform in [-4, 4]^n, sigma 2; ratio = wasm / pycma, target <= 1.15.`,
      'Time rows: median over `runs` blocks of 60 generations of the mean ask + tell time (objective excluded, lazy eigendecompositions amortised); ratio = wasm / pycma, target <= 0.2; wasm_speedup = TS baseline / WASM.',
      'B and D are refreshed every max(1 / (10 n (c1 + c_mu)), n / lambda) generations (pycma: the first term alone); at n = 100 that is every 6th generation instead of every 2nd.',
    ],
  };
}

export const suite: BenchSuite = {
  name: 'cmaes',
  description: 'CMA-ES (WASM kernel): evaluations to 1e-8 vs pycma, and ask + tell cost per generation vs a TS baseline and pycma',
  run,
};
