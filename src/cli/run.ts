import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomInt } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { campaignResults } from '../engine/campaign/results.js';
import { resultsCsv } from '../engine/campaign/results-csv.js';
import type { CampaignState } from '../engine/campaign/types.js';
import { formatIssue, parseMdl } from '../engine/mdl/index.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { initTensorBackend, type TensorBackendName } from '../engine/tensor/backend.js';
import { EnginePool } from '../jobs/engine-pool.js';
import { createEvaluator } from '../jobs/evaluators/create.js';
import { runLocalCampaign, type IterationReport } from '../jobs/local-runner.js';
import { formatNumber, formatTable, processIo, type CliIo } from './io.js';

const BACKENDS: readonly string[] = ['auto', 'tensorflow', 'wasm', 'cpu'];

export interface RunOptions {
  seed?: number;
  budget?: number;
  out: string;
  backend?: TensorBackendName | 'auto';
}

/** `kiln run campaign.yaml`: a whole campaign locally, with progress, a summary and result files. */
export function runCommand(io: CliIo = processIo): Command {
  return new Command('run')
    .description('run a campaign locally and write results.json and results.csv')
    .argument('<campaign>', 'MDL document (YAML or JSON)')
    .option('--seed <n>', 'random seed (default: optimizer.seed, else a fresh one)', nonNegativeInt)
    .option('--budget <n>', 'override optimizer.budget', positiveInt)
    .option('--out <dir>', 'output folder', 'kiln-out')
    .action(async (file: string, opts: RunOptions) => {
      process.exitCode = await runCampaignFile(file, opts, io);
    });
}

/** Runs the campaign in `file`; returns the process exit code (0 ok, 1 invalid input or failure). */
export async function runCampaignFile(file: string, opts: RunOptions, io: CliIo): Promise<number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    io.err(`kiln: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    return 1;
  }
  const parsed = parseMdl(text, /\.json$/i.test(file) ? 'json' : undefined);
  if (!parsed.ok) {
    io.err(`${file} is not a valid campaign:`);
    for (const issue of parsed.errors) io.err(`  ${file}:${formatIssue(issue)}`);
    return 1;
  }
  const mdl: Mdl = structuredClone(parsed.mdl);
  if (opts.budget !== undefined) mdl.optimizer.budget = opts.budget;
  const seed = opts.seed ?? mdl.optimizer.seed ?? randomInt(2 ** 31 - 1);
  let evaluator;
  try {
    evaluator = createEvaluator(mdl, { allowCommand: true, cwd: dirname(resolve(file)) });
  } catch (error) {
    io.err(`kiln: ${(error as Error).message}`);
    return 1;
  }
  const requested = opts.backend ?? process.env.KILN_TENSOR_BACKEND ?? 'auto';
  if (!BACKENDS.includes(requested)) {
    io.err(`kiln: KILN_TENSOR_BACKEND must be one of ${BACKENDS.join(', ')}, not "${requested}".`);
    return 1;
  }
  const backend = await initTensorBackend(requested as TensorBackendName | 'auto');
  const threads = Math.min(2, availableParallelism());
  io.out(
    `Campaign ${mdl.name ?? file}: ${mdl.parameters.length} parameters, ${mdl.objectives.length} objectives, ` +
      `budget ${mdl.optimizer.budget}, batch ${mdl.optimizer.batch_size}, method ${mdl.optimizer.method}, ` +
      `seed ${seed}, tensor backend ${backend}, ${threads} engine thread${threads === 1 ? '' : 's'}`,
  );
  const progress = new Progress(io, mdl.optimizer.budget);
  // with two cores or more, a step's GP fits (per objective, per trust region) run side by side
  const pool = threads > 1 ? new EnginePool({ threads, backend }) : undefined;
  let state: CampaignState;
  try {
    state = await runLocalCampaign(mdl, evaluator, { seed, pool, onIteration: (r) => progress.update(r) });
  } catch (error) {
    io.err(`kiln: the campaign failed: ${(error as Error).message}`);
    return 1;
  } finally {
    progress.stop();
    await pool?.destroy();
  }
  const results = campaignResults(mdl, state);
  const failed = state.evaluations.filter((e) => e.objectives === null);
  mkdirSync(opts.out, { recursive: true });
  const json = {
    ...results,
    campaign: {
      name: mdl.name ?? null,
      status: state.status,
      stop_reason: state.stopReason,
      seed,
      iterations: state.iteration,
      evaluations_completed: state.evaluations.filter((e) => e.iteration > 0).length,
      tensor_backend: backend,
    },
    failed_evaluations: failed.map((e) => ({ id: e.id, iteration: e.iteration, parameters: e.parameters, error: e.error })),
  };
  writeFileSync(join(opts.out, 'results.json'), JSON.stringify(json, null, 2) + '\n');
  writeFileSync(join(opts.out, 'results.csv'), resultsCsv(mdl, results.evaluations));
  io.out(summary(mdl, state, results, failed.length));
  io.out(`Wrote ${join(opts.out, 'results.json')} and ${join(opts.out, 'results.csv')}`);
  return state.status === 'failed' ? 1 : 0;
}

function summary(mdl: Mdl, state: CampaignState, results: ReturnType<typeof campaignResults>, failed: number): string {
  const names = [...mdl.parameters.map((p) => p.name), ...mdl.objectives.map((o) => o.name)];
  const first = mdl.objectives[0];
  const sorted = [...results.pareto_front].sort((a, b) => a.objectives[first.name] - b.objectives[first.name]);
  const shown = sorted.slice(0, 25);
  const table = formatTable(
    names,
    shown.map((r) => [
      ...mdl.parameters.map((p) => formatNumber(r.parameters[p.name])),
      ...mdl.objectives.map((o) => formatNumber(r.objectives[o.name])),
    ]),
  );
  const lines = [
    '',
    `Finished: ${state.status} (${state.stopReason}) after ${state.iteration} iterations, ` +
      `${state.evaluations.filter((e) => e.iteration > 0).length} evaluations` +
      (failed > 0 ? `, ${failed} failed` : '') +
      (mdl.outcome_constraints.length > 0 ? `, ${results.evaluations.filter((e) => e.feasible).length} feasible` : ''),
    ...(state.stopMessage ? [state.stopMessage] : []),
    `Hypervolume ${formatNumber(results.hypervolume)} against reference ` +
      JSON.stringify(results.reference_point),
    ...(results.strategy ? [`Strategy: ${results.strategy.name} (${results.strategy.reason})`] : []),
    `Pareto front (${results.pareto_front.length} points${sorted.length > shown.length ? `, first ${shown.length} shown` : ''}):`,
    table,
  ];
  return lines.join('\n');
}

/** A progress bar on a terminal, one plain line per iteration otherwise. */
class Progress {
  private bar: cliProgress.SingleBar | null = null;

  constructor(private readonly io: CliIo, private readonly budget: number) {
    if (io.isTTY) {
      this.bar = new cliProgress.SingleBar(
        { format: 'iteration {iteration} |{bar}| {value}/{total} evaluations | hypervolume {hv}', hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(budget, 0, { iteration: 0, hv: '-' });
    }
  }

  update(r: IterationReport): void {
    const hv = formatNumber(r.hypervolume);
    if (this.bar) {
      this.bar.update(r.evaluationsCompleted, { iteration: r.iteration, hv });
      return;
    }
    this.io.out(
      `iteration ${r.iteration}: ${r.evaluationsCompleted}/${this.budget} evaluations, hypervolume ${hv}, ` +
        `pareto ${r.paretoSize}, ${r.strategy}, propose ${r.proposeSeconds.toFixed(2)} s` +
        (r.failed > 0 ? `, ${r.failed} failed` : '') +
        (r.infeasible > 0 ? `, ${r.infeasible} infeasible` : ''),
    );
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new InvalidArgumentError('must be an integer from 0 to 2147483647.');
  return n;
}
