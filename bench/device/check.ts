import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deviceLabel, initTensorBackendInfo, startBackendBeside, tf } from '../../src/engine/tensor/backend.js';
import { engineThreads } from '../../src/jobs/engine-pool.js';
import { drawsThroughput, fitSeconds, matmulGflops, onBackend, posteriorThroughput, runCampaignCase, type BackendScale } from '../backends.js';
import { largeCase } from '../campaign-large.js';

/**
 * The device check: Kiln on a GPU host, measured against the issue's targets in one prepared run
 * (bench/device/check.sh bundles this file with esbuild and runs it there). Each part appends its
 * figures to OUT/check.jsonl and rewrites OUT/check.md as it finishes, so a run cut short still
 * reports what it measured. Parts, in order:
 *
 * 1. matmul GFLOP/s on webgpu (and wasm at the smallest size);
 * 2. posterior throughput (mean and variance of one GP at a candidate pool) and pathwise draws
 *    throughput, webgpu against wasm on the same machine (target: at least 100×);
 * 3. DTLZ2 d = 30 to 10,000 evaluations in batches of 100 (targets: at most 3 minutes end to end,
 *    hypervolume at least 0.42), stopped at 3 minutes;
 * 4. DTLZ2 d = 200 with 50 outcome constraints to 5,000 evaluations (targets: at most 5 minutes,
 *    hypervolume at least 0.40), stopped at 5 minutes or when the fit below would no longer fit;
 * 5. one cold GP fit at n = 5,000 (target: at most 1 s; fits run on the CPU, see the report).
 *
 * `--quick` shrinks every part for a software GPU (lavapipe), to test the check itself;
 * `--parts=matmul,posterior,draws,d30,d200,fit` runs only those (default: all).
 */
const { values } = parseArgs({ options: { out: { type: 'string' }, quick: { type: 'boolean' }, seconds: { type: 'string' }, parts: { type: 'string' } } });
const PARTS = ['matmul', 'posterior', 'draws', 'd30', 'd200', 'fit'];
const chosen = new Set(values.parts ? values.parts.split(',') : PARTS);
const unknown = [...chosen].filter((p) => !PARTS.includes(p));
if (unknown.length > 0) throw new Error(`--parts: unknown ${unknown.join(', ')}; choose from ${PARTS.join(', ')}`);
const out = values.out ?? 'device-check';
const quick = values.quick === true;
const seconds = Number(values.seconds ?? 480);
const started = performance.now();
const elapsed = () => (performance.now() - started) / 1000;
mkdirSync(out, { recursive: true });

const scale: BackendScale & { fitLarge: { n: number; d: number } } = quick
  ? {
      matmul: [256, 512],
      posterior: { n: 300, d: 30, q: 2000 },
      draws: { n: 150, d: 30, q: 2000, paths: 8 },
      fit: { n: 400, d: 6 },
      fitLarge: { n: 400, d: 6 },
      campaign: { label: 'dtlz2 d=30 m=2', budget: 400 },
    }
  : {
      matmul: [1024, 2048, 4096],
      posterior: { n: 2000, d: 30, q: 20000 },
      draws: { n: 2000, d: 30, q: 20000, paths: 64 },
      fit: { n: 2000, d: 6 },
      fitLarge: { n: 5000, d: 6 },
      campaign: { label: 'dtlz2 d=30 m=2', budget: 10000 },
    };

const lines: string[] = [];
function report(part: string, figures: Record<string, unknown>): void {
  const entry = { part, seconds_into_check: Number(elapsed().toFixed(1)), ...figures };
  appendFileSync(join(out, 'check.jsonl'), JSON.stringify(entry) + '\n');
  lines.push(
    `| ${part} | ${Object.entries(figures)
      .map(([k, v]) => `${k}: ${typeof v === 'number' ? Number(v.toPrecision(4)) : String(v).replace(/\s+/g, ' ')}`)
      .join('; ')} |`,
  );
  writeFileSync(join(out, 'check.md'), ['| part | figures |', '|---|---|', ...lines, ''].join('\n'));
  console.log(`${part}: ${JSON.stringify(figures)}`);
}

async function part(name: string, fn: () => Promise<Record<string, unknown>>, key: string): Promise<void> {
  if (!chosen.has(key)) return;
  try {
    report(name, await fn());
  } catch (error) {
    report(name, { error: (error as Error).stack ?? String(error) });
  }
}

const gpu = await initTensorBackendInfo('webgpu');
await startBackendBeside('wasm');
report('machine', {
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: availableParallelism(),
  engine_threads: engineThreads(),
  gpu: gpu.device ? deviceLabel(gpu.device) : 'none',
  software_gpu: gpu.device?.software ?? null,
});

await part(
  'matmul',
  async () => {
    const figures: Record<string, number> = {};
    for (const size of scale.matmul) figures[`webgpu_${size}_gflops`] = await matmulGflops(size);
    figures[`wasm_${scale.matmul[0]}_gflops`] = await onBackend('wasm', () => matmulGflops(scale.matmul[0]));
    return figures;
  },
  'matmul',
);

await part(
  'posterior',
  async () => {
    const gpuRate = await posteriorThroughput(scale.posterior, 5);
    const cpuRate = await onBackend('wasm', () => posteriorThroughput(scale.posterior, 1));
    const { n, d, q } = scale.posterior;
    return {
      n,
      d,
      candidates: q,
      webgpu_points_per_s: gpuRate,
      wasm_points_per_s: cpuRate,
      ratio: gpuRate / cpuRate,
      webgpu_ms_per_call: (1000 * q) / gpuRate,
      target_ratio: 100,
    };
  },
  'posterior',
);

await part(
  'draws',
  async () => {
    const gpuRate = await drawsThroughput(scale.draws, 5);
    const cpuRate = await onBackend('wasm', () => drawsThroughput(scale.draws, 1));
    const { n, d, q, paths } = scale.draws;
    return {
      n,
      d,
      candidates: q,
      paths,
      webgpu_points_per_s: gpuRate,
      wasm_points_per_s: cpuRate,
      ratio: gpuRate / cpuRate,
      webgpu_ms_per_call: (1000 * q) / gpuRate,
    };
  },
  'draws',
);

// the two campaigns share what is left: the d = 30 one its target time at most, the d = 200 one the rest
const d30 = { ...largeCase('dtlz2 d=30 m=2'), budget: scale.campaign.budget, batch: 100 };
await part(
  'campaign dtlz2 d=30, 10,000 evaluations, batches of 100',
  async () => {
    const limit = Math.min(quick ? 60 : 180, Math.max(30, (seconds - elapsed()) / 2));
    const figures = await runCampaignCase(d30, 'webgpu', limit, (r) => {
      if (r.iteration % 10 === 0)
        console.log(
          `  d=30 iteration ${r.iteration}: ${r.evaluationsCompleted} evaluations, hv ${r.hypervolume.toFixed(4)}, ${elapsed().toFixed(0)} s into the check`,
        );
    });
    return { ...figures, budget: d30.budget, limit_seconds: limit, target_minutes: 3, target_hypervolume: 0.42 };
  },
  'd30',
);

const d200 = { ...largeCase('dtlz2 d=200 m=2 K=50'), ...(quick ? { budget: 300 } : {}) };
await part(
  'campaign dtlz2 d=200, 50 outcome constraints, 5,000 evaluations',
  async () => {
    // what the fit after it needs is kept back
    const limit = Math.min(quick ? 120 : 300, Math.max(20, seconds - elapsed() - (quick ? 15 : 45)));
    const figures = await runCampaignCase(d200, 'webgpu', limit, (r) => {
      if (r.iteration % 10 === 0)
        console.log(
          `  d=200 iteration ${r.iteration}: ${r.evaluationsCompleted} evaluations, hv ${r.hypervolume.toFixed(4)}, ${elapsed().toFixed(0)} s into the check`,
        );
    });
    return { ...figures, budget: d200.budget, limit_seconds: limit, target_minutes: 5, target_hypervolume: 0.4 };
  },
  'd200',
);

await part(
  'gp-fit',
  async () => ({
    ...scale.fitLarge,
    seconds: fitSeconds(scale.fitLarge),
    target_seconds: 1,
    where: 'CPU (float64 L-BFGS; Cholesky products on the wasm kernel)',
  }),
  'fit',
);

report('done', { seconds: elapsed(), tensors_left: tf.memory().numTensors });
process.exit(0);
