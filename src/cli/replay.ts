import { Command } from 'commander';
import { replayCampaign, type IterationReplay } from '../engine/campaign/replay.js';
import { describeBackend, initTensorBackendInfo } from '../engine/tensor/backend.js';
import { TENSOR_BACKEND_CHOICES, type TensorBackendChoice } from '../engine/tensor/choices.js';
import { packageVersion } from '../package-root.js';
import { processIo, type CliIo } from './io.js';
import { readReplayInput, recordedCampaign } from './replay-input.js';
import { positiveInt } from './run.js';

export interface ReplayOptions {
  iteration?: number;
  mdl?: string;
  backend?: TensorBackendChoice;
}

/** `kiln replay DIR|results.json`: proposes recorded iterations again and says whether they are identical. */
export function replayCommand(io: CliIo = processIo): Command {
  return new Command('replay')
    .description('propose the recorded iterations again from their receipts and say whether the proposals are identical')
    .argument('<results>', 'a kiln run output folder, a results JSON (results.json, or GET /v1/campaigns/{id}/results), or an export document')
    .option('--iteration <n>', 'report this iteration only (the earlier ones are replayed to reach it)', positiveInt)
    .option('--mdl <file>', "the campaign's MDL (needed for results from the service; a run folder has its own)")
    .option('--backend <name>', `tensor backend: ${TENSOR_BACKEND_CHOICES.join(', ')} (default: the one the receipts name)`)
    .action(async (path: string, opts: ReplayOptions) => {
      process.exitCode = await replayResults(path, opts, io);
    });
}

/** Replays `path`; returns the exit code: 0 when every reported iteration is identical, else 1. */
export async function replayResults(path: string, opts: ReplayOptions, io: Pick<CliIo, 'out' | 'err'>): Promise<number> {
  let replays: IterationReplay[];
  try {
    const input = readReplayInput(path, opts.mdl);
    const recorded = recordedCampaign(input.mdl, input.results);
    const last = recorded.iterations.at(-1)?.iteration ?? 0;
    if (opts.iteration !== undefined && !recorded.iterations.some((i) => i.iteration === opts.iteration)) {
      throw new Error(`--iteration ${opts.iteration}: the results record iterations 1 to ${last}`);
    }
    // Replaying on the backend the batches were proposed on is what makes "identical" meaningful.
    const recordedBackend = recorded.iterations.find((i) => i.receipt?.tensor_backend)?.receipt?.tensor_backend;
    const choices = TENSOR_BACKEND_CHOICES as readonly string[];
    const requested = opts.backend ?? (recordedBackend && choices.includes(recordedBackend) ? recordedBackend : 'auto');
    if (!choices.includes(requested)) throw new Error(`--backend must be one of ${TENSOR_BACKEND_CHOICES.join(', ')}, not "${requested}"`);
    const backend = await initTensorBackendInfo(requested as TensorBackendChoice);
    io.out(
      `Replaying ${recorded.iterations.length} iterations of ${input.mdl.name ?? input.source} with Kiln ${packageVersion()} on the ${describeBackend(backend)} tensor backend`,
    );
    const only = opts.iteration !== undefined ? new Set([opts.iteration]) : undefined;
    replays = await replayCampaign(recorded, { engine_version: packageVersion(), tensor_backend: backend.name, tensor_device: backend.device }, only);
  } catch (error) {
    io.err(`kiln: cannot replay: ${(error as Error).message}`);
    return 1;
  }
  for (const r of replays) io.out(describe(r));
  const different = replays.filter((r) => !r.identical).length;
  io.out(different === 0 ? `All ${replays.length} iterations replayed identically.` : `${different} of ${replays.length} iterations differ from the record.`);
  return different === 0 ? 0 : 1;
}

function describe(r: IterationReplay): string {
  const how = r.recorded ? ` (${r.recorded.strategy}, ${r.recorded.acquisition})` : '';
  const verdict = r.identical ? `identical, ${r.proposals} proposals` : `DIFFERENT: ${r.differences[0]}`;
  return [`Iteration ${r.iteration}${how}: ${verdict}`, ...r.differences.slice(1), ...r.notes].join('\n  ');
}
