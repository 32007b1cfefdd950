import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { campaignResults } from '../engine/campaign/results.js';
import { resultsCsv } from '../engine/campaign/results-csv.js';
import { failedRows } from '../engine/campaign/result-status.js';
import { iterationReceipts, type Receipt } from '../engine/campaign/receipt.js';
import { completedEvaluations } from '../engine/campaign/state.js';
import type { CampaignState, ReceiptDevice } from '../engine/campaign/types.js';
import { mdlSchema, type Mdl } from '../engine/mdl/schema.js';

/**
 * What `kiln run` keeps in its output folder after every iteration, so a crash, a reboot or
 * Ctrl-C loses nothing: results.json and results.csv as they stand, and checkpoint.json, from
 * which `kiln run --resume DIR` continues. Every file is written to a temporary name and renamed,
 * so a reader (or a crash mid-write) never sees half a file.
 */

export const CHECKPOINT = 'checkpoint.json';

export interface Checkpoint {
  version: 1;
  /** the campaign as run (overrides such as --budget applied) */
  mdl: Mdl;
  seed: number;
  /** folder a command evaluator runs in (the campaign file's) */
  cwd: string;
  state: CampaignState;
  /** the receipt of each completed iteration, in order (absent in checkpoints of older versions) */
  receipts?: Receipt[];
}

/** Writes results.json, results.csv and the checkpoint for `state` into `out`. */
export function saveRun(
  out: string,
  checkpoint: Checkpoint,
  extra: { tensor_backend: string; tensor_device: ReceiptDevice | null },
): ReturnType<typeof campaignResults> {
  const { mdl, state, seed } = checkpoint;
  const receipts = new Map((checkpoint.receipts ?? []).map((r) => [r.iteration, r]));
  mkdirSync(out, { recursive: true });
  const results = campaignResults(mdl, state);
  const failed = failedRows(state.evaluations);
  const json = {
    ...results,
    campaign: {
      name: mdl.name ?? null,
      status: state.status,
      stop_reason: state.stopReason,
      stop_message: state.stopMessage ?? null,
      seed,
      iterations: state.iteration,
      evaluations_completed: completedEvaluations(state).length,
      tensor_backend: extra.tensor_backend,
      tensor_device: extra.tensor_device,
    },
    failed_evaluations: failed,
    iterations: iterationReceipts(state, (iteration) => receipts.get(iteration)),
  };
  writeAtomically(join(out, 'results.json'), JSON.stringify(json, null, 2) + '\n');
  writeAtomically(join(out, 'results.csv'), resultsCsv(mdl, results.evaluations, failed));
  writeAtomically(join(out, CHECKPOINT), JSON.stringify(checkpoint) + '\n');
  return results;
}

/** The checkpoint in `dir`; throws an Error a person can act on when there is none or it is unreadable. */
export function loadCheckpoint(dir: string): Checkpoint {
  const file = join(dir, CHECKPOINT);
  if (!existsSync(file)) throw new Error(`${dir} holds no ${CHECKPOINT}: resume from the --out folder of an earlier kiln run`);
  let raw: Partial<Checkpoint>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<Checkpoint>;
  } catch (error) {
    throw new Error(`${file} is not readable JSON (${(error as Error).message}); it was not written by kiln run`);
  }
  const mdl = mdlSchema.safeParse(raw.mdl);
  if (raw.version !== 1 || !mdl.success || typeof raw.seed !== 'number' || typeof raw.cwd !== 'string' || !raw.state || !Array.isArray(raw.state.evaluations)) {
    throw new Error(`${file} is not a kiln run checkpoint of this version`);
  }
  return { version: 1, mdl: mdl.data, seed: raw.seed, cwd: raw.cwd, state: raw.state, receipts: Array.isArray(raw.receipts) ? raw.receipts : [] };
}

/** Writes `text` to a temporary name beside `file` and renames it over `file`. */
export function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}
