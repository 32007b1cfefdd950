import type { Mdl } from '../mdl/schema.js';
import { canonicalJson, type IterationReceipt, type Receipt, type ReceiptEnvironment } from './receipt.js';
import { initialState, tell, warmStartRow } from './state.js';
import { step } from './step.js';
import type { CampaignState, EvaluationRecord, EvaluationResult, Proposal } from './types.js';

/** A campaign as its results record it: enough to propose every batch again. */
export interface RecordedCampaign {
  mdl: Mdl;
  /** every evaluation with its result or failure; warm-start rows are iteration 0 */
  evaluations: readonly EvaluationRecord[];
  /** the completed iterations in order, each with its receipt and its evaluations in told order */
  iterations: readonly IterationReceipt[];
}

export interface IterationReplay {
  iteration: number;
  /** the replayed proposals equal the recorded ones and every recorded hash matches */
  identical: boolean;
  /** proposals replayed (and recorded) */
  proposals: number;
  recorded: Receipt | null;
  replayed: Receipt | null;
  /** what differs, first difference first, in sentences */
  differences: string[];
  /** engine version or backend of the receipt that differ from this replay's (not a difference by themselves) */
  notes: string[];
}

/**
 * Proposes the recorded iterations again: the state is rebuilt from the seed and the warm-start
 * rows, then for each iteration the engine steps, the replayed batch is compared with the recorded
 * one (ids and parameters, exactly) and with the receipt's hashes, and the recorded results are
 * told in their recorded order. The recorded batch (not the replayed one) is what gets told, so a
 * difference in one iteration does not spill into the next: each iteration is judged on the
 * recorded history before it. Later iterations cannot be checked without the earlier ones, so
 * `only` limits the report, not the work. Pure, like `step`.
 */
export async function replayCampaign(recorded: RecordedCampaign, environment: ReceiptEnvironment, only?: ReadonlySet<number>): Promise<IterationReplay[]> {
  const { mdl } = recorded;
  const seed = recorded.iterations.find((i) => i.receipt)?.receipt?.seed.campaign;
  if (seed === undefined) throw new Error('the results carry no receipts: they were made before Kiln recorded them, so there is nothing to replay against');
  const byId = new Map(recorded.evaluations.map((e) => [e.id, e]));
  const warmStart = recorded.evaluations.filter((e) => e.iteration === 0).map((e) => warmStartRow(e));
  let state = initialState(mdl, { seed, warmStart, idPrefix: idPrefixOf(recorded.iterations) });
  const replays: IterationReplay[] = [];
  // batches proposed and not yet told, oldest first: an asynchronous batch was proposed beside them
  const open: (readonly EvaluationRecord[])[] = [];
  const stillPending = () => open.reduce((sum, told) => sum + told.filter((e) => !e.offPlan).length, 0);
  for (const entry of recorded.iterations) {
    const told = entry.evaluation_ids.map((id) => {
      const record = byId.get(id);
      if (!record) throw new Error(`iteration ${entry.iteration} lists evaluation ${id}, which the results do not hold`);
      return record;
    });
    const asked = entry.receipt?.asked;
    // the batches told before this one was proposed: all but those its receipt says were pending beside it
    while (open.length > 0 && stillPending() > (asked?.pending ?? 0)) state = tellRecorded(mdl, state, open.shift()!);
    // A retried job runs a campaign the engine had stopped for failing evaluations (jobs/job-runner.ts).
    if (state.status === 'failed') state = { ...state, status: 'running', stopReason: null, stopMessage: undefined };
    // the search was as wide as the machine that proposed it afforded: replayed alike
    const scaled = { ...environment, compute_scale: entry.receipt?.compute_scale ?? 1 };
    const next = await step(mdl, state, scaled, asked ? { count: asked.count } : {});
    // off-plan experiments were told beside the batch, never proposed
    const proposed = told.filter((e) => !e.offPlan);
    if (!only || only.has(entry.iteration)) replays.push(compare(entry, proposed, next.proposals, next.receipt, environment));
    // the recorded batch, not the replayed one, is what waits to be told
    const recordedBatch: Proposal[] = proposed.map((e) => ({ id: e.id, iteration: entry.iteration, parameters: e.parameters }));
    state = { ...next.state, pending: [...state.pending, ...recordedBatch] };
    open.push(told);
  }
  return replays;
}

function compare(
  entry: IterationReceipt,
  told: readonly EvaluationRecord[],
  proposals: readonly Proposal[],
  replayed: Receipt | null,
  environment: ReceiptEnvironment,
): IterationReplay {
  const differences: string[] = [];
  const notes: string[] = [];
  const recorded = entry.receipt;
  // What the step saw comes first: a changed input explains changed proposals.
  if (recorded && replayed) {
    if (recorded.mdl_hash !== replayed.mdl_hash) differences.push('the campaign definition differs from the one that ran (mdl_hash)');
    if (recorded.data_hash !== replayed.data_hash) {
      differences.push(
        `the recorded evaluations before this iteration are not the data the surrogate saw (data_hash over ${replayed.evaluations_seen} evaluations; ${recorded.evaluations_seen} then)`,
      );
    } else if (recorded.state_hash !== replayed.state_hash) {
      differences.push('the engine state the step started from differs (state_hash)');
    }
    if (recorded.strategy !== replayed.strategy || recorded.acquisition !== replayed.acquisition) {
      differences.push(`recorded ${recorded.strategy}/${recorded.acquisition}, replayed ${replayed.strategy}/${replayed.acquisition}`);
    }
  }
  const byId = new Map(told.map((e) => [e.id, e]));
  if (proposals.length !== told.length) differences.push(`${proposals.length} proposals replayed, ${told.length} recorded`);
  const changed: string[] = [];
  for (const p of proposals) {
    const r = byId.get(p.id);
    if (!r) {
      changed.push(`replayed proposal ${p.id} is not among the iteration's recorded evaluations`);
      continue;
    }
    const names = Object.keys({ ...p.parameters, ...r.parameters }).filter((name) => canonicalJson(p.parameters[name]) !== canonicalJson(r.parameters[name]));
    if (names.length > 0) changed.push(`${p.id} ${names[0]} recorded ${String(r.parameters[names[0]])}, replayed ${String(p.parameters[names[0]])}`);
  }
  if (changed.length > 0) differences.push(`${changed.length} of ${proposals.length} proposals differ; first: ${changed[0]}`);
  if (recorded && replayed && differences.length === 0 && recorded.proposals_hash !== replayed.proposals_hash) {
    differences.push('the proposals hash differs although every proposal matches (the batch order or the record changed)');
  }
  if (!recorded) notes.push('no receipt recorded: only the proposals were compared');
  if (recorded?.engine_version !== undefined && recorded.engine_version !== environment.engine_version) {
    notes.push(`recorded by Kiln ${recorded.engine_version ?? 'unknown'}, replayed by ${environment.engine_version}`);
  }
  if (recorded && recorded.tensor_backend !== environment.tensor_backend) {
    notes.push(`recorded on the ${recorded.tensor_backend ?? 'unknown'} tensor backend, replayed on ${environment.tensor_backend}`);
  }
  return { iteration: entry.iteration, identical: differences.length === 0, proposals: proposals.length, recorded, replayed, differences, notes };
}

/** The state after telling the recorded batch (pending in `state`), as recorded, in its recorded order. */
function tellRecorded(mdl: Mdl, state: CampaignState, told: readonly EvaluationRecord[]): CampaignState {
  const results: EvaluationResult[] = told.map((e) =>
    e.objectives === null
      ? { id: e.id, error: e.error ?? 'no result', ...(e.abandoned ? { abandoned: true as const } : {}) }
      : { id: e.id, objectives: e.objectives, ...(e.outcomes ? { outcomes: e.outcomes } : {}), ...(e.offPlan ? { parameters: e.parameters } : {}) },
  );
  return tell(mdl, state, results).state;
}

/**
 * The prefix of the engine's evaluation ids, from the first recorded id: undefined for the
 * engine's default `eval_` (a state that never set one has no `idPrefix`, and the state hash
 * sees the difference), else the service's per-campaign prefix.
 */
function idPrefixOf(iterations: readonly IterationReceipt[]): string | undefined {
  const prefix = iterations[0]?.evaluation_ids[0]?.match(/^(.*?)\d+$/)?.[1];
  return prefix === 'eval_' ? undefined : prefix;
}
