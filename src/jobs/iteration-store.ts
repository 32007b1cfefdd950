import { describeReferenceDistance } from '../engine/campaign/reference-distance.js';
import { bestObjectives } from '../engine/campaign/results.js';
import { budgetUsed, completedEvaluations, evaluationRecord } from '../engine/campaign/state.js';
import type { CampaignState, IterationSummary, Receipt } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { kilnEvent } from '../events.js';
import { storedEngineState } from '../lifecycle/campaign-state.js';
import { iterationSummary } from '../lifecycle/iteration-summary.js';
import { progressOf, timingOf } from '../lifecycle/progress.js';
import { logJob } from '../lifecycle/transitions.js';
import { insertEvaluations, insertIteration, lockCampaign, updateCampaign, type CampaignRow, type WarmStartSummary } from '../store/campaigns.js';
import type { Db, Transaction } from '../store/db.js';
import { deleteTakenResults, postedResults } from '../store/external-results.js';
import { readFenced, updateFenced, type JobRow, type Lease } from '../store/jobs.js';
import { publishEvent } from '../store/notify.js';

/** What a stored iteration's row and log line say besides its summary. */
export interface IterationTiming {
  strategy: string;
  /** evaluations stored before this iteration (their numbering continues) */
  stored: number;
  /** the engine step on the pool (surrogate fit + acquisition) */
  proposeSeconds: number;
  /** the evaluator, or taking the external results (the wait for them is not counted) */
  evaluateSeconds: number;
  /** performance.now() when the iteration began, for its wall time */
  iterationStarted: number;
  fresh: CampaignState['evaluations'];
  /** results came from the API (they may have been corrected since they were read) */
  external: boolean;
  /** the receipt of the iteration's batch */
  receipt: Receipt | null;
}

/** The batch's evaluations as their posted results stand now, under the campaign's lock. */
async function latestPosted(trx: Transaction, mdl: Mdl, campaignId: string, fresh: CampaignState['evaluations']) {
  await lockCampaign(trx, campaignId);
  const posted = new Map((await postedResults(trx, campaignId, fresh)).map((r) => [r.id, r]));
  return fresh.map((e) => {
    const result = posted.get(e.id);
    return result ? { ...evaluationRecord(mdl, e, result), ...(e.offPlan ? { offPlan: true as const } : {}) } : e;
  });
}

/** ONE transaction per iteration: evaluations, the iteration, campaign figures, job progress, log, events. */
export async function storeIteration(
  db: Db,
  job: JobRow,
  lease: Lease,
  campaign: CampaignRow,
  state: CampaignState,
  summary: IterationSummary,
  timing: IterationTiming,
): Promise<void> {
  const mdl = campaign.mdl;
  const best = bestObjectives(mdl, state);
  const evaluationsCompleted = completedEvaluations(state).length;
  const storeStarted = performance.now();
  await db.transaction(async (trx) => {
    // A correction takes the campaign row too: one made after the results were read is in the
    // rows read here, and one made later finds the stored evaluation. Campaign row before job row.
    const fresh = timing.external ? await latestPosted(trx, mdl, campaign.id, timing.fresh) : timing.fresh;
    const current = await readFenced(trx, lease);
    await insertEvaluations(trx, campaign, fresh, timing.stored);
    await deleteTakenResults(
      trx,
      campaign.id,
      timing.fresh.map((e) => e.id),
    );
    await updateCampaign(trx, campaign.id, {
      evaluations_completed: evaluationsCompleted,
      current_iteration: state.iteration,
      hypervolume: summary.hypervolume,
      pareto_size: summary.paretoSize,
      best_objectives: best,
      engine_state: storedEngineState(state),
    });
    const progress = progressOf(mdl, state, best);
    const updated = await updateFenced(trx, lease, {
      progress,
      iterations_run: current.iterations_run + 1,
      // wall time, database work included, so that the remaining-time estimate is honest
      iteration_seconds_total: current.iteration_seconds_total + (performance.now() - timing.iterationStarted) / 1000,
    });
    const iteration = iterationSummary(mdl, state, timing.fresh.length, progress);
    await publishEvent(trx, kilnEvent('job.progress', job, { ...progress, current_phase: updated.phase, timing: timingOf(updated), summary: iteration }));
    const counts = [
      summary.failed > 0 ? `, ${summary.failed} failed` : '',
      summary.abandoned > 0 ? `, ${summary.abandoned} abandoned` : '',
      summary.infeasible > 0 ? `, ${summary.infeasible} infeasible` : '',
    ].join('');
    const reach = progress.reference_distance ? ` (${describeReferenceDistance(progress.reference_distance)})` : '';
    await logJob(
      trx,
      job,
      'info',
      `Iteration ${summary.iteration} (${timing.strategy}): ${summary.evaluated} evaluated${counts}; hypervolume ${fmt(summary.hypervolume)}${reach}, Pareto set ${summary.paretoSize}; propose ${timing.proposeSeconds.toFixed(2)} s, evaluate ${timing.evaluateSeconds.toFixed(2)} s.`,
    );
    for (const e of fresh.filter((r) => r.objectives === null)) {
      if (e.abandoned) await logJob(trx, job, 'info', `Evaluation ${e.id} abandoned (never measured): ${e.error}`);
      else await logJob(trx, job, 'warning', `Evaluation ${e.id} failed: ${e.error}`);
    }
    await insertIteration(trx, {
      campaign_id: campaign.id,
      iteration: summary.iteration,
      organization_id: campaign.organization_id,
      job_id: job.id,
      hypervolume: summary.hypervolume,
      pareto_size: summary.paretoSize,
      evaluated: summary.evaluated,
      failed: summary.failed,
      strategy: timing.strategy,
      propose_seconds: timing.proposeSeconds,
      evaluate_seconds: timing.evaluateSeconds,
      // the step's receipt travels in the state with its pending batch, so a resumed batch keeps it
      receipt: timing.receipt,
      // last statement of the transaction, so this is all of the store but its commit
      store_seconds: (performance.now() - storeStarted) / 1000,
    });
  });
}

/** The job's phase and progress, with the status event and a log entry, inside the caller's transaction; returns the job row. */
export async function announce(trx: Transaction, job: JobRow, lease: Lease, state: CampaignState, mdl: Mdl, phase: string): Promise<JobRow> {
  const updated = await updateFenced(trx, lease, { phase, progress: progressOf(mdl, state, bestObjectives(mdl, state)) });
  await publishEvent(trx, kilnEvent('job.status', job, { status: 'running', current_phase: phase }));
  await logJob(trx, job, 'debug', `Phase: ${phase}.`);
  // job.status carries the phase; job.progress is sent once per stored iteration, with its summary.
  return updated;
}

/** The dataset a campaign starts from, with what was left out and why, once, at its first job. */
export async function logWarmStart(trx: Transaction, job: JobRow, warm: WarmStartSummary): Promise<void> {
  const flagged = warm.flagged > 0 ? `; ${warm.flagged} rows with missing objective values were left out` : '';
  await logJob(
    trx,
    job,
    'info',
    `Warm start from dataset ${warm.dataset_id}: ${warm.rows} evaluated rows train the surrogate before the first acquisition, so no initial design is run${flagged}.`,
  );
  for (const w of warm.warnings.slice(0, 20)) {
    await logJob(trx, job, 'warning', `Dataset ${warm.dataset_id} row ${w.row ?? '-'}, ${w.column ?? '-'}: ${w.message}.`);
  }
  if (warm.warning_count > 20) await logJob(trx, job, 'warning', `… and ${warm.warning_count - 20} more warnings on dataset ${warm.dataset_id}.`);
}

/** Fit quality per objective: the signal-to-noise ratio and the most relevant parameters. */
export async function logSurrogate(trx: Transaction, job: JobRow, mdl: Mdl, state: CampaignState): Promise<void> {
  if (!state.hyperparameters) return;
  // Categorical parameters are one-hot encoded, so lengthscales then name encoded dimensions.
  const names = state.hyperparameters[0].lengthscales.length === mdl.parameters.length ? mdl.parameters.map((p) => p.name) : [];
  const lines = state.hyperparameters.map((h, k) => {
    const snr = Math.sqrt(h.outputScale / Math.max(h.noise, 1e-12));
    const relevant = h.lengthscales
      .map((l, i) => ({ l, name: names[i] ?? `x${i}` }))
      .sort((a, b) => a.l - b.l)
      .slice(0, 3)
      .map((r) => `${r.name} (${fmt(r.l)})`);
    return `${mdl.objectives[k]?.name}: signal/noise ${fmt(snr)}, shortest lengthscales ${relevant.join(', ')}`;
  });
  await logJob(trx, job, 'debug', `Surrogate fit for iteration ${state.iteration + 1}: ${lines.join('; ')}.`);
}

export function startMessage(workerId: string, job: JobRow, state: CampaignState, mdl: Mdl): string {
  const where =
    state.iteration > 0
      ? `resuming after iteration ${state.iteration} with ${budgetUsed(state)} of ${mdl.optimizer.budget} evaluations saved`
      : 'starting from the initial design';
  const warm = state.iteration === 0 && state.evaluations.length > 0 ? ` (${state.evaluations.length} warm-start evaluations)` : '';
  return `Worker ${workerId} picked up the job (attempt ${job.attempt}); ${where}${warm}.`;
}

export function fmt(x: number): string {
  return Number(x.toPrecision(5)).toString(); // the dashboard's formatNumber (web/src/format.ts) writes numbers alike
}
