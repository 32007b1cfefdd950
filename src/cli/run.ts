import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomInt } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { describeReferenceDistance, referenceDistance } from '../engine/campaign/reference-distance.js';
import { type campaignResults } from '../engine/campaign/results.js';
import { completedEvaluations, initialState } from '../engine/campaign/state.js';
import { diagnoseCampaign } from '../engine/diagnostics/report.js';
import type { CampaignState } from '../engine/campaign/types.js';
import { parseMdl } from '../engine/mdl/index.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { builtinEvaluators } from '../engine/problems/registry.js';
import { describeBackend, initTensorBackendInfo, type TensorBackendInfo } from '../engine/tensor/backend.js';
import { TENSOR_BACKEND_CHOICES, type TensorBackendChoice } from '../engine/tensor/choices.js';
import { computeScale } from '../jobs/compute-scale.js';
import { EnginePool, engineThreads } from '../jobs/engine-pool.js';
import { createEvaluator } from '../evaluators/create.js';
import { runLocalCampaign, type IterationReport } from '../jobs/local-runner.js';
import { CHECKPOINT, loadCheckpoint, saveRun, writeAtomically, type Checkpoint } from './checkpoint.js';
import { checkpointFromDocument } from './export.js';
import { modelSummary } from './model-summary.js';
import { formatNumber, formatTable, processIo, type CliIo } from './io.js';
import { formatProblem } from './problems.js';
import { packageVersion } from '../package-root.js';

export interface RunOptions {
  seed?: number;
  budget?: number;
  out: string;
  backend?: TensorBackendChoice;
  /** continue the run whose output folder this is */
  resume?: string;
  /** continue the campaign in this export document (from a Kiln service or kiln export), writing to `out` */
  resumeFrom?: string;
  /** aborting (a second Ctrl-C) cancels the batch in flight and stops after the last completed iteration, which stays resumable */
  signal?: AbortSignal;
  /** aborting (the first Ctrl-C) stops once the batch in flight is evaluated and saved, resumable */
  stopAfterBatch?: AbortSignal;
}

/** `kiln run campaign.yaml`: a whole campaign locally, with progress, a summary and result files. */
export function runCommand(io: CliIo = processIo): Command {
  return new Command('run')
    .description('run a campaign locally and write results.json and results.csv (after every iteration)')
    .argument('[campaign]', 'MDL document (YAML or JSON); not needed with --resume')
    .option('--seed <n>', 'random seed (default: optimizer.seed, else a fresh one)', nonNegativeInt)
    .option('--budget <n>', 'override optimizer.budget', positiveInt)
    .option('--out <dir>', 'output folder', 'kiln-out')
    .option('--resume <dir>', 'continue an interrupted run (Ctrl-C, a crash, a reboot) from the checkpoint in its output folder')
    .option('--resume-from <file>', 'continue the campaign in an export document (GET /v1/campaigns/{id}/export, kiln export), writing to --out')
    .option('--backend <name>', `tensor backend: ${TENSOR_BACKEND_CHOICES.join(', ')} (default: KILN_TENSOR_BACKEND, else auto)`)
    .action(async (file: string | undefined, opts: RunOptions) => {
      // the first Ctrl-C lets the batch in flight finish and be saved, a second one cancels it
      const gentle = new AbortController();
      const controller = new AbortController();
      const interrupt = () => {
        if (!gentle.signal.aborted) {
          gentle.abort();
          io.err('kiln: stopping after the batch in flight is evaluated and saved; press Ctrl-C again to abort it now');
        } else controller.abort();
      };
      process.on('SIGINT', interrupt);
      try {
        process.exitCode = await runCampaignFile(file, { ...opts, signal: controller.signal, stopAfterBatch: gentle.signal }, io);
      } finally {
        process.off('SIGINT', interrupt);
      }
    });
}

/** The campaign to run: from its file, or from the checkpoint of an interrupted run. */
function prepare(file: string | undefined, opts: RunOptions, io: CliIo): Checkpoint | null {
  if (opts.resume !== undefined && opts.resumeFrom !== undefined) {
    io.err('kiln: give --resume DIR (a run folder) or --resume-from FILE (an export document), not both');
    return null;
  }
  if (opts.resumeFrom !== undefined) {
    try {
      return checkpointFromDocument(opts.resumeFrom);
    } catch (error) {
      io.err(`kiln: cannot resume: ${(error as Error).message}`);
      return null;
    }
  }
  if (opts.resume !== undefined) {
    try {
      return loadCheckpoint(opts.resume);
    } catch (error) {
      io.err(`kiln: cannot resume: ${(error as Error).message}`);
      return null;
    }
  }
  if (file === undefined) {
    io.err('kiln: name a campaign file (kiln run campaign.yaml), or --resume DIR to continue an interrupted run');
    return null;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    io.err(`kiln: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    return null;
  }
  const parsed = parseMdl(text, /\.json$/i.test(file) ? 'json' : undefined, { builtins: builtinEvaluators, budget: opts.budget });
  if (!parsed.ok) {
    for (const issue of parsed.errors) io.err(formatProblem(file, issue));
    io.err(`${file} is not a valid campaign: ${parsed.errors.length} ${parsed.errors.length === 1 ? 'problem' : 'problems'}`);
    return null;
  }
  for (const issue of parsed.warnings) io.err(formatProblem(file, issue, 'warning'));
  const mdl: Mdl = structuredClone(parsed.mdl);
  const seed = opts.seed ?? mdl.optimizer.seed ?? randomInt(2 ** 31 - 1);
  return { version: 1, mdl, seed, cwd: dirname(resolve(file)), state: initialState(mdl, { seed }) };
}

/**
 * Runs the campaign in `file` (or resumes one); returns the process exit code: 0 done, 1 invalid
 * input or a campaign that failed, 130 interrupted (resumable).
 */
export async function runCampaignFile(file: string | undefined, opts: RunOptions, io: CliIo): Promise<number> {
  const start = prepare(file, opts, io);
  if (!start) return 1;
  const { mdl, seed, cwd } = start;
  const out = opts.resume ?? opts.out;
  let evaluator;
  try {
    evaluator = createEvaluator(mdl, { allowCommand: true, cwd });
  } catch (error) {
    io.err(`kiln: ${(error as Error).message}`);
    return 1;
  }
  const requested = opts.backend ?? process.env.KILN_TENSOR_BACKEND ?? 'auto';
  if (!(TENSOR_BACKEND_CHOICES as readonly string[]).includes(requested)) {
    io.err(`kiln: ${opts.backend ? '--backend' : 'KILN_TENSOR_BACKEND'} must be one of ${TENSOR_BACKEND_CHOICES.join(', ')}, not "${requested}".`);
    return 1;
  }
  const threads = engineThreads();
  // with two cores or more, a step's GP fits (per objective, per trust region) run side by side;
  // the pool opens the GPU on its own device thread, so this thread never does
  const pool = threads > 1 ? new EnginePool({ threads, backend: requested as TensorBackendChoice }) : undefined;
  let backend: TensorBackendInfo;
  try {
    backend = pool ? await pool.backend() : await initTensorBackendInfo(requested as TensorBackendChoice);
  } catch (error) {
    await pool?.destroy();
    io.err(`kiln: the tensor backend did not start: ${(error as Error).message}`);
    return 1;
  }
  io.out(
    `Campaign ${mdl.name ?? file}: ${mdl.parameters.length} parameters, ${mdl.objectives.length} objectives, ` +
      `budget ${mdl.optimizer.budget}, batch ${mdl.optimizer.batch_size}, method ${mdl.optimizer.method}, ` +
      `seed ${seed}, tensor backend ${describeBackend(backend)}, ${threads} engine thread${threads === 1 ? '' : 's'}${backend.name === 'webgpu' && pool ? ' and a GPU thread' : ''}`,
  );
  if (backend.passedOver.length > 0 && requested === 'auto') io.out(`(auto passed over ${backend.passedOver.join('; ')})`);
  if (opts.resume !== undefined) io.out(`Resuming after iteration ${start.state.iteration} from ${join(out, CHECKPOINT)}`);
  if (opts.resumeFrom !== undefined) {
    const pending = start.state.pending.length > 0 ? `, evaluating its pending batch of ${start.state.pending.length} first` : '';
    io.out(`Resuming after iteration ${start.state.iteration} from ${opts.resumeFrom}${pending}; writing to ${out}`);
  }
  const receipts = [...(start.receipts ?? [])];
  const save = (state: CampaignState) => saveRun(out, { ...start, state, receipts }, { tensor_backend: backend.name, tensor_device: backend.device });
  save(start.state);
  const progress = new Progress(io, mdl);
  let state: CampaignState;
  try {
    state = await runLocalCampaign(mdl, evaluator, {
      state: start.state,
      pool,
      signal: opts.signal,
      stopAfterBatch: opts.stopAfterBatch,
      environment: {
        engine_version: packageVersion(),
        tensor_backend: backend.name,
        tensor_device: backend.device,
        ...(pool ? {} : { compute_scale: await computeScale(backend) }),
      },
      onIteration: (r, s) => {
        if (s.receipt?.iteration === r.iteration) receipts.push(s.receipt);
        progress.update(r, s);
        save(s);
      },
      onBatchFailure: (iteration, error) => io.err(`kiln: the whole batch of iteration ${iteration} failed, its candidates count as failed: ${error.message}`),
    });
  } catch (error) {
    io.err(`kiln: the campaign failed: ${(error as Error).message}; what was done so far is in ${out}, and kiln run --resume ${out} continues it`);
    return 1;
  } finally {
    progress.stop();
    await pool?.destroy();
  }
  if ((opts.signal?.aborted || opts.stopAfterBatch?.aborted) && state.status === 'running') {
    io.out(`Interrupted after iteration ${state.iteration}; results so far are in ${out}. Continue with: kiln run --resume ${out}`);
    return 130;
  }
  const results = save(state);
  const failed = state.evaluations.filter((e) => e.objectives === null);
  io.out(summary(mdl, state, results, failed.length));
  const model = writeModelReport(mdl, state, out, io);
  io.out(`Wrote ${join(out, 'results.json')}, ${join(out, 'results.csv')}${model ? ` and ${model}` : ''}`);
  return state.status === 'failed' ? 1 : 0;
}

/**
 * The model report (model.json) and its short reading; a report that cannot be made is said and
 * costs the run nothing. Returns the file written, if any.
 */
function writeModelReport(mdl: Mdl, state: CampaignState, out: string, io: CliIo): string | undefined {
  try {
    const report = diagnoseCampaign(mdl, state);
    io.out(modelSummary(mdl, report));
    const file = join(out, 'model.json');
    writeAtomically(file, JSON.stringify(report, null, 2) + '\n');
    return file;
  } catch (error) {
    io.err(`kiln: no model report: ${(error as Error).message}`);
    return undefined;
  }
}

function summary(mdl: Mdl, state: CampaignState, results: ReturnType<typeof campaignResults>, failed: number): string {
  const names = [...mdl.parameters.map((p) => p.name), ...mdl.objectives.map((o) => o.name)];
  const first = mdl.objectives[0];
  const sorted = [...results.pareto_front].sort((a, b) => a.objectives[first.name] - b.objectives[first.name]);
  const shown = sorted.slice(0, 25);
  // a noisy campaign's front shows, per objective, the measured mean and the model's prediction ± sd
  const table = results.noisy
    ? formatTable(
        [...mdl.parameters.map((p) => p.name), 'n', ...mdl.objectives.flatMap((o) => [`${o.name} measured`, `${o.name} predicted`])],
        shown.map((r) => [
          ...mdl.parameters.map((p) => formatNumber(r.parameters[p.name])),
          String(r.measurements ?? 1),
          ...mdl.objectives.flatMap((o) => [
            formatNumber(r.objectives[o.name]),
            `${formatNumber(r.predicted?.[o.name].mean ?? NaN)} ± ${formatNumber(r.predicted?.[o.name].sd ?? NaN)}`,
          ]),
        ]),
      )
    : formatTable(
        names,
        shown.map((r) => [...mdl.parameters.map((p) => formatNumber(r.parameters[p.name])), ...mdl.objectives.map((o) => formatNumber(r.objectives[o.name]))]),
      );
  const lines = [
    '',
    `Finished: ${state.status} (${state.stopReason}) after ${state.iteration} iterations, ` +
      `${completedEvaluations(state).length} evaluations` +
      (failed > 0 ? `, ${failed} failed` : '') +
      (mdl.outcome_constraints.length > 0 ? `, ${results.evaluations.filter((e) => e.feasible).length} feasible` : ''),
    ...(state.stopMessage ? [state.stopMessage] : []),
    `Hypervolume ${formatNumber(results.hypervolume)} against reference ` + JSON.stringify(results.reference_point),
    ...(results.noisy
      ? [
          `Noisy measurements (${results.noise_reason}): the front and its hypervolume are the model's predictions; ` +
            `the raw measurements' hypervolume is ${formatNumber(results.measured_hypervolume)}`,
        ]
      : []),
    ...(results.strategy ? [`Strategy: ${results.strategy.name} (${results.strategy.reason})`] : []),
    `Pareto front (${results.pareto_front.length} points${sorted.length > shown.length ? `, first ${shown.length} shown` : ''}):`,
    table,
  ];
  return lines.join('\n');
}

/** A progress bar on a terminal, one plain line per iteration otherwise. */
class Progress {
  private bar: cliProgress.SingleBar | null = null;

  constructor(
    private readonly io: CliIo,
    private readonly mdl: Mdl,
  ) {
    if (io.isTTY) {
      this.bar = new cliProgress.SingleBar(
        { format: 'iteration {iteration} |{bar}| {value}/{total} evaluations | hypervolume {hv}', hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(mdl.optimizer.budget, 0, { iteration: 0, hv: '-' });
    }
  }

  /** While the hypervolume is 0, the line also says how far the closest point is from the reference box. */
  update(r: IterationReport, state: CampaignState): void {
    const distance = referenceDistance(this.mdl, state);
    const hv = formatNumber(r.hypervolume) + (distance ? ` (${describeReferenceDistance(distance)})` : '');
    if (this.bar) {
      this.bar.update(r.evaluationsCompleted, { iteration: r.iteration, hv });
      return;
    }
    this.io.out(
      `iteration ${r.iteration}: ${r.evaluationsCompleted}/${this.mdl.optimizer.budget} evaluations, hypervolume ${hv}, ` +
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

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new InvalidArgumentError('must be an integer from 0 to 2147483647.');
  return n;
}
