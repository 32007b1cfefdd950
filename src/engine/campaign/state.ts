import { hypervolume } from '../hypervolume.js';
import { paretoIndices } from '../pareto.js';
import type { Mdl, ParameterValue } from '../mdl/schema.js';
import { isFeasible } from './feasibility.js';
import { noisyFront } from './noisy-front.js';
import { objectiveMatrix, referencePoint } from './objective-space.js';
import type { CampaignState, EvaluationRecord, EvaluationResult, IterationSummary, Proposal } from './types.js';

/**
 * A warm-start row: an evaluation made before the campaign (e.g. an uploaded dataset), or one that
 * failed then (`objectives` null, `error` why), which the failure model counts like any failure.
 */
export interface WarmStartRow {
  id?: string;
  parameters: Record<string, ParameterValue>;
  objectives: Record<string, number> | null;
  /** measured outcomes, for campaigns that declare them */
  outcomes?: Record<string, number>;
  error?: string;
  /** the row's own id in the data it came from (a sample id) */
  externalId?: string;
}

/** A stored iteration-0 evaluation as the warm-start row it came from (failed ones included). */
export function warmStartRow(e: EvaluationRecord): WarmStartRow {
  return {
    id: e.id,
    parameters: e.parameters,
    objectives: e.objectives,
    ...(e.outcomes ? { outcomes: e.outcomes } : {}),
    ...(e.objectives === null ? { error: e.error ?? 'failed' } : {}),
    ...(e.externalId !== undefined ? { externalId: e.externalId } : {}),
  };
}

export interface InitialStateOptions {
  /** overrides mdl.optimizer.seed; one of the two is required for reproducible proposals */
  seed?: number;
  warmStart?: readonly WarmStartRow[];
  /** prefix of the evaluation ids `step` hands out; default `eval_` */
  idPrefix?: string;
}

export function initialState(mdl: Mdl, options: InitialStateOptions = {}): CampaignState {
  const seed = options.seed ?? mdl.optimizer.seed;
  if (seed === undefined) {
    throw new Error('Kiln needs a seed for a campaign: set optimizer.seed in the MDL or pass one.');
  }
  const evaluations: EvaluationRecord[] = (options.warmStart ?? []).map((row, i) => ({
    id: row.id ?? `warm_${i + 1}`,
    iteration: 0,
    parameters: { ...row.parameters },
    objectives: row.objectives ? { ...row.objectives } : null,
    ...(row.outcomes ? { outcomes: { ...row.outcomes } } : {}),
    ...(row.objectives === null ? { error: row.error ?? 'failed' } : {}),
    ...(row.externalId !== undefined ? { externalId: row.externalId } : {}),
  }));
  const state: CampaignState = {
    version: 1,
    seed,
    iteration: 0,
    evaluations,
    pending: [],
    convergenceHistory: [],
    referencePoint: null,
    hyperparameters: null,
    status: 'running',
    stopReason: null,
    nextId: 1,
    ...(options.idPrefix !== undefined ? { idPrefix: options.idPrefix } : {}),
  };
  fixReferencePoint(mdl, state);
  return state;
}

/**
 * The evaluations the campaign has run: every one but the warm-start rows (iteration 0), which
 * train the surrogate without counting against the budget.
 */
export function completedEvaluations(state: CampaignState): EvaluationRecord[] {
  return state.evaluations.filter((e) => e.iteration > 0);
}

/** Evaluations that count against the budget: the completed ones plus the pending candidates. */
export function budgetUsed(state: CampaignState): number {
  return completedEvaluations(state).length + state.pending.length;
}

/**
 * A copy of `previous` to change into the next state. The evaluation records are shared, not
 * copied: `tell` builds each record whole and never changes it afterwards, so a step costs what
 * its own batch does rather than a copy of every evaluation so far (and the receipt's data hash
 * finds the records it has already written, receipt.ts).
 */
export function nextState(previous: CampaignState): CampaignState {
  const { evaluations, ...rest } = previous;
  return { ...structuredClone(rest), evaluations: evaluations.slice() };
}

/**
 * Records evaluation results for pending proposals (matched by id). When the last pending
 * proposal of an iteration is told, the iteration completes: its hypervolume joins the
 * convergence history and the stop rules are checked. Returns a new state.
 *
 * After asynchronous steps (step.ts, `StepOptions.count`) candidates of several iterations may
 * be pending at once. Iterations then complete in their order, each once none of its candidates
 * is pending and every earlier one has completed (results of a later iteration told first wait
 * for it), and the stop rules are checked only when nothing is pending any more, so no campaign
 * ends with candidates out. `summaries` lists every iteration the call completed (one in a
 * synchronous loop), `summary` the last of them.
 */
export function tell(
  mdl: Mdl,
  previous: CampaignState,
  results: readonly EvaluationResult[],
): { state: CampaignState; summary: IterationSummary | null; summaries: IterationSummary[] } {
  const state = nextState(previous);
  const pending = new Map(state.pending.map((p) => [p.id, p]));
  // recorded in the order the candidates were proposed (eval_…_1, 2, …, 10, 11), whatever order
  // the results came in; off-plan experiments after them
  const rank = new Map(state.pending.map((p, i) => [p.id, i]));
  const ordered = [...results].sort((a, b) => (rank.get(a.id) ?? rank.size) - (rank.get(b.id) ?? rank.size));
  // an off-plan experiment joins the earliest iteration still open when it is told
  const open = Math.min(...state.pending.map((p) => p.iteration), state.iteration + 1);
  for (const result of ordered) {
    const proposal = pending.get(result.id);
    if (!proposal) {
      if ('parameters' in result && result.parameters && !state.evaluations.some((e) => e.id === result.id)) {
        state.evaluations.push({ ...evaluationRecord(mdl, { id: result.id, iteration: open, parameters: result.parameters }, result), offPlan: true });
        continue;
      }
      throw new Error(`Evaluation ${result.id} does not match any pending candidate of this campaign.`);
    }
    pending.delete(result.id);
    const record = evaluationRecord(mdl, proposal, result);
    state.evaluations.push(record);
  }
  state.pending = state.pending.filter((p) => pending.has(p.id));
  const summaries: IterationSummary[] = [];
  // the earliest iteration with results completes once none of its candidates (nor any earlier one) is pending
  for (;;) {
    let next = Infinity;
    for (const e of state.evaluations) if (e.iteration > state.iteration && e.iteration < next) next = e.iteration;
    if (next === Infinity || state.pending.some((p) => p.iteration <= next)) break;
    summaries.push(completeIteration(mdl, state, next));
  }
  return { state, summary: summaries.at(-1) ?? null, summaries };
}

/**
 * Completes `iteration` in place: the reference point, the hypervolume of what is told up to it
 * and, when nothing is pending any more, the stop rules.
 */
function completeIteration(mdl: Mdl, state: CampaignState, iteration: number): IterationSummary {
  state.iteration = iteration;
  fixReferencePoint(mdl, state);
  // the front after this iteration: results of a later one, told while it was pending, wait for theirs
  const later = state.evaluations.some((e) => e.iteration > iteration);
  const { hypervolume: hv, paretoSize } = frontSummary(
    mdl,
    later ? { ...state, evaluations: state.evaluations.filter((e) => e.iteration <= iteration) } : state,
  );
  state.convergenceHistory.push(hv);
  if (state.earlierReceipts) {
    state.earlierReceipts = state.earlierReceipts.filter((r) => r.iteration > iteration);
    if (state.earlierReceipts.length === 0) delete state.earlierReceipts;
  }
  const ofIteration = state.evaluations.filter((e) => e.iteration === iteration);
  const failed = ofIteration.filter((e) => e.objectives === null && !e.abandoned).length;
  const abandoned = ofIteration.filter((e) => e.abandoned).length;
  const infeasible = ofIteration.filter((e) => e.objectives !== null && !isFeasible(mdl, e)).length;
  if (state.pending.length === 0 && !later) applyStopRules(mdl, state);
  return {
    iteration,
    evaluated: ofIteration.length,
    failed,
    abandoned,
    infeasible,
    hypervolume: hv,
    paretoSize,
    status: state.status,
    stopReason: state.stopReason,
    ...(state.stopMessage ? { stopMessage: state.stopMessage } : {}),
  };
}

/**
 * Hypervolume and Pareto-set size of the feasible evaluations against the fixed reference; in a
 * noisy campaign with a fitted model, those of the model's front (noisy-front.ts): the
 * hypervolume of its predicted values and its number of designs.
 */
export function frontSummary(mdl: Mdl, state: CampaignState): { hypervolume: number; paretoSize: number } {
  const modelled = noisyFront(mdl, state);
  if (modelled) return { hypervolume: modelled.hypervolume, paretoSize: modelled.designs.filter((x) => x.onFront).length };
  const { Y, n, m } = objectiveMatrix(mdl, state.evaluations, 'feasible');
  if (n === 0 || state.referencePoint === null) return { hypervolume: 0, paretoSize: 0 };
  return {
    hypervolume: hypervolume(Y, n, m, state.referencePoint),
    paretoSize: paretoIndices(Y, n, m).length,
  };
}

function fixReferencePoint(mdl: Mdl, state: CampaignState): void {
  if (state.referencePoint !== null) return;
  const { Y, n } = objectiveMatrix(mdl, state.evaluations);
  if (n > 0) state.referencePoint = referencePoint(mdl, Y, n);
}

/**
 * Budget: every allowed evaluation made. Stagnation: the hypervolume grew by less than
 * `tolerance` (relative) over the last `window` iterations, judged only once `min_budget_share`
 * of the budget is spent and while something dominates the reference point (a flat zero, or a
 * flat start, is no optimum). Failures: every evaluation failed in `max_failed_iterations`
 * consecutive iterations, or the budget is spent without one evaluation that succeeded. Each sets `stopMessage` to say which and why.
 */
function applyStopRules(mdl: Mdl, state: CampaignState): void {
  const { budget } = mdl.optimizer;
  const used = budgetUsed(state);
  if (used >= budget) {
    // a campaign whose every measured candidate failed has no result: that is a failure, not a completion
    const told = completedEvaluations(state).filter((e) => !e.abandoned);
    if (told.length > 0 && told.every((e) => e.objectives === null)) {
      const last = [...told].reverse().find((e) => e.error)?.error ?? 'unknown error';
      state.status = 'failed';
      state.stopReason = 'error';
      state.stopMessage = `The budget of ${budget} evaluations is spent and no evaluation succeeded (${told.length} failed); the last error: ${last}`;
      return;
    }
    state.status = 'completed';
    state.stopReason = 'budget';
    state.stopMessage = `The budget of ${budget} evaluations is spent.`;
    return;
  }
  const stagnation = mdl.optimizer.stagnation ?? { window: 10, tolerance: 1e-5, min_budget_share: 0.5 };
  const history = state.convergenceHistory;
  if (history.length > stagnation.window && used >= stagnation.min_budget_share * budget) {
    const before = history[history.length - 1 - stagnation.window];
    const now = history[history.length - 1];
    if (before > 0 && (now - before) / before < stagnation.tolerance) {
      state.status = 'converged';
      state.stopReason = 'stagnation';
      state.stopMessage =
        `The hypervolume grew by ${formatShare((now - before) / before)} over the last ${stagnation.window} iterations ` +
        `(stagnation.tolerance ${stagnation.tolerance}), after ${used} of ${budget} evaluations.`;
      return;
    }
  }
  const limit = mdl.optimizer.max_failed_iterations;
  if (limit === 0 || state.iteration < limit) return;
  const recent = Array.from({ length: limit }, (_, k) => state.iteration - k);
  const allFailed = recent.every((i) => {
    const evals = state.evaluations.filter((e) => e.iteration === i);
    // abandoned candidates were never measured: they neither fail an iteration nor save it
    const measured = evals.filter((e) => !e.abandoned);
    return measured.length > 0 && measured.every((e) => e.objectives === null);
  });
  if (allFailed) {
    const last = [...state.evaluations].reverse().find((e) => e.error && !e.abandoned)?.error ?? 'unknown error';
    state.status = 'failed';
    state.stopReason = 'error';
    state.stopMessage = `Every evaluation failed in the last ${limit} iterations (optimizer.max_failed_iterations); the last error: ${last}`;
  }
}

/**
 * The evaluation a result makes of its proposal: the finite values measured (a partial
 * measurement keeps what it has), a failure when nothing finite is left, or the failure or
 * abandonment the result reports.
 */
export function evaluationRecord(mdl: Mdl, proposal: Proposal, result: EvaluationResult): EvaluationRecord {
  const record: EvaluationRecord = { id: proposal.id, iteration: proposal.iteration, parameters: proposal.parameters, objectives: null };
  if ('error' in result) {
    record.error = result.error;
    if (result.abandoned) record.abandoned = true;
    return record;
  }
  const objectives = finiteValues(mdl.objectives, result.objectives);
  const outcomes = finiteValues(mdl.outcomes, result.outcomes ?? {});
  if (Object.keys(objectives).length + Object.keys(outcomes).length === 0) {
    record.error = `no finite value for ${[...mdl.objectives, ...mdl.outcomes].map((o) => o.name).join(', ')}`;
  } else {
    record.objectives = objectives;
    if (mdl.outcomes.length > 0) record.outcomes = outcomes;
  }
  return record;
}

/** The finite values posted for these names, in MDL order; the others were not measured. */
function finiteValues(wanted: readonly { name: string }[], posted: Record<string, number>): Record<string, number> {
  return Object.fromEntries(wanted.filter((w) => Number.isFinite(posted[w.name])).map((w) => [w.name, posted[w.name]]));
}

function formatShare(share: number): string {
  return `${(100 * share).toPrecision(2)} %`;
}
