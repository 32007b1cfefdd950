import type { Logger } from 'pino';
import { describeReferenceDistance } from '../engine/campaign/reference-distance.js';
import { bestObjectives } from '../engine/campaign/results.js';
import { budgetUsed, completedEvaluations, evaluationRecord, tell } from '../engine/campaign/state.js';
import type { CampaignState, EvaluationResult, IterationSummary, Proposal, Receipt } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { describeBackend } from '../engine/tensor/backend.js';
import {
  countEvaluations,
  findCampaignById,
  insertEvaluations,
  insertIteration,
  updateCampaign,
  type CampaignRow,
  type WarmStartSummary,
  loadEvaluations,
  lockCampaign,
} from '../store/campaigns.js';
import { relaxedCommit, type Db, type Transaction } from '../store/db.js';
import { countPostedResults, deleteTakenResults, postedResults } from '../store/external-results.js';
import { handBackJobs, LeaseLost, parkJob, pastTimeout, readFenced, updateFenced, type JobRow, type Lease } from '../store/jobs.js';
import { announceJobs, publishEvent } from '../store/notify.js';
import { loadCampaignState, storedEngineState } from '../lifecycle/campaign-state.js';
import { evaluateProposals } from '../evaluators/evaluate-proposals.js';
import type { EnginePool } from './engine-pool.js';
import { abandonOverdue } from './deadlines.js';
import { ModelReporter } from './model-reporter.js';
import { saveModelReport } from '../store/model-reports.js';
import { createEvaluator, type ServiceEvaluatorOptions } from '../evaluators/create.js';
import { EvaluatorError, type Evaluator } from '../evaluators/types.js';
import { iterationSummary } from '../lifecycle/iteration-summary.js';
import { progressOf, timingOf } from '../lifecycle/progress.js';
import { endJob, logJob, timedOut } from '../lifecycle/transitions.js';
import { kilnEvent } from '../events.js';

export interface JobRunContext {
  db: Db;
  pool: EnginePool;
  /** computes model reports beside the loop, so a report never delays a proposal */
  reportPool: EnginePool;
  logger: Logger;
  workerId: string;
  evaluatorOptions: ServiceEvaluatorOptions;
  /** aborted when the supervisor shuts down: the job is handed back, not failed */
  shutdown: AbortSignal;
}

/** `waiting`: an external campaign's batch awaits its results; the job left its slot and lease. */
export type JobRunOutcome = 'completed' | 'failed' | 'cancelled' | 'released' | 'lost' | 'waiting';

class Released extends Error {}
class CancelRequested extends Error {}
/** The job's own time passed its timeout, seen by its worker at an iteration's start (the reaper sees it between). */
class TimedOut extends Error {}

/**
 * Runs one claimed job: rebuild the campaign's state from its rows, then iterate (propose on the
 * engine pool, evaluate, store the iteration in one transaction) until a stop rule, a cancel, a
 * timeout or a shutdown. Every write is fenced by the lease, so if another worker has taken the
 * job over, this one stops at its next write without touching anything.
 */
export async function runJob(ctx: JobRunContext, claimed: JobRow): Promise<JobRunOutcome> {
  const lease: Lease = { id: claimed.id, attempt: claimed.attempt };
  const log = ctx.logger.child({ job: claimed.id, attempt: claimed.attempt });
  try {
    const campaign = await findCampaignById(ctx.db, claimed.campaign_id);
    if (!campaign) throw new LeaseLost(claimed.id);
    return await iterate(ctx, claimed, lease, campaign);
  } catch (error) {
    // A write refused because the job was deleted under it (a foreign key) is a lost lease too.
    if (error instanceof LeaseLost || (await leaseLost(ctx.db, lease))) {
      log.warn('job was taken away from this worker (lease lapsed, cancelled or deleted); stopping without writing');
      return 'lost';
    }
    if (error instanceof Released) return release(ctx, claimed, lease);
    if (error instanceof TimedOut) return finishSafely(ctx, claimed, lease, timedOut(claimed.timeout_seconds));
    if (error instanceof CancelRequested) {
      return finishSafely(ctx, claimed, lease, {
        job: 'cancelled',
        campaign: 'stopped',
        level: 'info',
        message: 'Cancelled on request; results so far are kept.',
      });
    }
    log.error({ err: error }, 'job failed');
    const reason = error instanceof Error ? error.message : String(error);
    return finishSafely(ctx, claimed, lease, { job: 'failed', campaign: 'failed', level: 'error', message: `Job failed: ${reason}`, error: reason });
  }
}

/** Whether this attempt no longer holds its job (lapsed, cancelled away or deleted); false when the database cannot say. */
async function leaseLost(db: JobRunContext['db'], lease: Lease): Promise<boolean> {
  try {
    await readFenced(db, lease);
    return false;
  } catch (error) {
    return error instanceof LeaseLost;
  }
}

async function iterate(ctx: JobRunContext, claimed: JobRow, lease: Lease, campaign: CampaignRow): Promise<JobRunOutcome> {
  const mdl = campaign.mdl;
  let state = await loadCampaignState(ctx.db, campaign);
  // Only a retry runs a campaign the engine stopped for failing evaluations: it tries again.
  if (state.status === 'failed') state = { ...state, status: 'running', stopReason: null, stopMessage: undefined };
  let stored = await countEvaluations(ctx.db, campaign.id);
  const external = (mdl.evaluator ?? { type: 'external' }).type === 'external';
  const evaluator = external ? null : createEvaluator(mdl, ctx.evaluatorOptions);
  const reporter = new ModelReporter(
    ctx.reportPool,
    (report) => saveModelReport(ctx.db, campaign, report),
    ctx.logger.child({ job: claimed.id, campaign: campaign.id }),
  );
  await ctx.db.transaction(async (trx) => {
    await logJob(trx, claimed, 'info', startMessage(ctx.workerId, claimed, state, mdl));
    if (campaign.warm_start && state.iteration === 0) await logWarmStart(trx, claimed, campaign.warm_start);
    await announce(trx, claimed, lease, state, mdl, 'starting');
  });

  // how each batch proposed by this run was chosen, for its iteration's row when it completes
  const proposedHere = new Map<number, { strategy: string; proposeSeconds: number }>();
  // the first step of each run names where it computed, so a user can see that the GPU was used
  let backendLogged = false;
  while (state.status === 'running') {
    if (ctx.shutdown.aborted) throw new Released();
    const started = performance.now();
    let ask: number | undefined;
    if (external && state.pending.length > 0) {
      // an external campaign: complete the earliest batch whose results are in, propose what a
      // client asked for beside the pending ones, or park until one of the two can happen
      const taken = await takeExternal(ctx, claimed, lease, mdl, state);
      if (taken.kind === 'parked') return 'waiting';
      if (taken.kind === 'ask') ask = taken.count;
      else {
        const evaluateSeconds = (performance.now() - started) / 1000;
        // results told earlier may have been corrected while the batch was out: the stored rows win
        const before: CampaignState = { ...state, evaluations: await loadEvaluations(ctx.db, campaign) };
        const told = tell(mdl, before, taken.results);
        const fresh = told.state.evaluations.slice(before.evaluations.length);
        state = told.state;
        for (const [k, summary] of told.summaries.entries()) {
          const proposed = proposedHere.get(summary.iteration);
          await storeIteration(ctx, claimed, lease, campaign, state, summary, {
            strategy: proposed?.strategy ?? 'resumed',
            stored,
            proposeSeconds: proposed?.proposeSeconds ?? 0,
            evaluateSeconds,
            iterationStarted: started,
            fresh: k === 0 ? fresh : [],
            external,
            receipt: receiptOf(before, summary.iteration),
          });
        }
        stored += fresh.length;
        continue;
      }
    }
    let proposeSeconds = 0;
    let proposals: Proposal[] = state.pending;
    let strategy = 'resumed';
    let job: JobRow;
    const phase = external ? 'awaiting_evaluations' : 'evaluating';
    if (proposals.length === 0 || ask !== undefined) {
      job = await ctx.db.transaction(async (trx) => {
        await relaxedCommit(trx);
        if (await pastTimeout(trx, lease)) throw new TimedOut();
        return announce(trx, claimed, lease, state, mdl, 'proposing');
      });
      if (job.cancel_requested) throw new CancelRequested();
      // what a client asked for: beside the pending candidates, or a first batch larger than batch_size
      const requested = job.candidates_requested;
      const count = ask ?? (external && requested > mdl.optimizer.batch_size ? requested : undefined);
      const stepStarted = performance.now();
      const next = await ctx.pool.step(mdl, state, count !== undefined ? { count } : {});
      proposeSeconds = (performance.now() - stepStarted) / 1000;
      if (next.proposals.length === 0) {
        if (ask === undefined) break;
        // the budget is spent with what is pending: nothing more to propose for the request
        await ctx.db.transaction((trx) => servedRequest(trx, lease, requested));
        continue;
      }
      const chosen = state.strategy === undefined ? next.state.strategy : undefined;
      state = next.state;
      proposals = next.proposals;
      strategy = next.strategy;
      proposedHere.set(proposals[0].iteration, { strategy, proposeSeconds });
      const logBackend = !backendLogged;
      backendLogged = true;
      // The pending batch is saved before evaluation: a crash re-evaluates the same candidates, and
      // an external campaign lists them.
      await ctx.db.transaction(async (trx) => {
        await relaxedCommit(trx);
        await updateCampaign(trx, campaign.id, { engine_state: storedEngineState(state) });
        if (chosen) await logJob(trx, claimed, 'info', `Strategy: ${chosen.name} (${chosen.reason}).`);
        if (logBackend) await logJob(trx, claimed, 'info', `Proposing on the ${describeBackend(next.backend)} tensor backend.`);
        if (ask !== undefined) {
          await logJob(
            trx,
            claimed,
            'info',
            `Iteration ${proposals[0].iteration}: ${proposals.length} candidates proposed as asked (GET candidates?count=${requested}), beside the ${state.pending.length - proposals.length} still pending, which the model takes into account.`,
          );
        }
        if (ask !== undefined) await servedRequest(trx, lease, requested);
        await logSurrogate(trx, claimed, mdl, state);
        await announce(trx, claimed, lease, state, mdl, phase);
      });
      reporter.schedule(mdl, state);
    } else {
      job = await ctx.db.transaction(async (trx) => {
        if (await pastTimeout(trx, lease)) throw new TimedOut();
        await logJob(
          trx,
          claimed,
          'info',
          `Resuming iteration ${proposals[0].iteration}: its ${proposals.length} candidates were proposed before the last interruption.`,
        );
        return announce(trx, claimed, lease, state, mdl, phase);
      });
      if (job.cancel_requested) throw new CancelRequested();
    }
    // an external batch waits for its results: the next pass takes them or parks
    if (external) continue;
    const evaluating = performance.now();
    const results = await evaluateBatch(ctx, claimed, evaluator!, proposals);
    const evaluateSeconds = (performance.now() - evaluating) / 1000;
    const before = state;
    const told = tell(mdl, state, results);
    const fresh = told.state.evaluations.slice(told.state.evaluations.length - results.length);
    state = told.state;
    await storeIteration(ctx, claimed, lease, campaign, state, told.summary!, {
      strategy,
      stored,
      proposeSeconds,
      evaluateSeconds,
      iterationStarted: started,
      fresh,
      external,
      receipt: receiptOf(before, told.summary!.iteration),
    });
    stored += fresh.length;
  }
  // The report of the final state is stored before the job ends, so a finished campaign has it.
  reporter.schedule(mdl, state);
  await reporter.flush();
  const converged = state.status === 'converged';
  if (state.status === 'failed') {
    await finish(ctx, claimed, lease, {
      job: 'failed',
      campaign: 'failed',
      level: 'error',
      message: `Failed: ${state.stopMessage ?? 'every evaluation failed in consecutive iterations'} See the warnings above for each failure.`,
      error: 'evaluations failing',
    });
    return 'failed';
  }
  await finish(ctx, claimed, lease, {
    job: 'completed',
    campaign: converged ? 'converged' : 'completed',
    level: 'info',
    message: converged
      ? `Converged: ${state.stopMessage ?? 'the hypervolume stagnated.'} Final hypervolume ${fmt(state.convergenceHistory.at(-1) ?? 0)}.`
      : `Completed: the budget of ${mdl.optimizer.budget} evaluations is spent; final hypervolume ${fmt(state.convergenceHistory.at(-1) ?? 0)}.`,
  });
  return 'completed';
}

async function evaluateBatch(ctx: JobRunContext, job: JobRow, evaluator: Evaluator, proposals: readonly Proposal[]): Promise<EvaluationResult[]> {
  const batch = await evaluateProposals(evaluator, proposals, ctx.shutdown);
  if (batch.status === 'cancelled') throw new Released();
  if (batch.status === 'failed') {
    // A host that is refused or settings that do not fit fail the job: no retry of the batch helps.
    const { error } = batch;
    if (error instanceof EvaluatorError && (error.code === 'refused' || error.code === 'invalid')) throw error;
    await logJob(ctx.db, job, 'warning', `The evaluator failed for the whole batch of iteration ${proposals[0].iteration}: ${error.message}`);
  }
  return batch.results;
}

/** What an external campaign's job does next (takeExternal). */
type ExternalTake = { kind: 'results'; results: EvaluationResult[] } | { kind: 'ask'; count: number } | { kind: 'parked' };

/**
 * Under the campaign's lock, which posting results and asking for candidates take too: abandons
 * what is past its batch deadline, then takes the posted results of the earliest pending batch
 * when all have arrived (with the off-plan experiments posted meanwhile), or else the candidates
 * a client asked for beyond those awaiting results, if the budget leaves any; otherwise the job
 * parks (status waiting, no worker, no lease) until results or a request queue it again. A result
 * or a request made at the same moment is either seen here or wakes the parked job.
 */
async function takeExternal(ctx: JobRunContext, job: JobRow, lease: Lease, mdl: Mdl, state: CampaignState): Promise<ExternalTake> {
  return ctx.db.transaction(async (trx) => {
    await lockCampaign(trx, job.campaign_id);
    const current = await readFenced(trx, lease);
    if (current.cancel_requested) throw new CancelRequested();
    if (await pastTimeout(trx, lease)) throw new TimedOut();
    await abandonOverdue(trx, job, lease, mdl, state.pending);
    const earliest = Math.min(...state.pending.map((p) => p.iteration));
    const batch = state.pending.filter((p) => p.iteration === earliest);
    const results = await postedResults(trx, job.campaign_id, batch);
    const inBatch = new Set(batch.map((p) => p.id));
    const received = results.filter((r) => inBatch.has(r.id)).length;
    if (received === batch.length) {
      await logJob(trx, job, 'info', `Taking up iteration ${earliest}: the results of its ${batch.length} candidates have arrived.`);
      await announce(trx, job, lease, state, mdl, 'awaiting_evaluations');
      return { kind: 'results', results };
    }
    const awaiting =
      state.pending.length -
      (await countPostedResults(
        trx,
        job.campaign_id,
        state.pending.map((p) => p.id),
      ));
    const more = Math.min(current.candidates_requested - awaiting, mdl.optimizer.budget - budgetUsed(state));
    if (more > 0) return { kind: 'ask', count: more };
    if (current.candidates_requested > 0) await servedRequest(trx, lease, current.candidates_requested);
    await parkJob(trx, lease, awaiting, progressOf(mdl, state, bestObjectives(mdl, state)));
    await publishEvent(trx, kilnEvent('job.status', job, { status: 'waiting', current_phase: 'awaiting_evaluations' }));
    await logJob(
      trx,
      job,
      'info',
      `Waiting for results of ${awaiting} of ${state.pending.length} candidates, holding no worker meanwhile: GET /v1/campaigns/${job.campaign_id}/candidates, ` +
        `then POST their results to /v1/campaigns/${job.campaign_id}/evaluations; the job is queued again when the batch's last one arrives, or when more candidates are asked for (candidates?count=N).`,
    );
    return { kind: 'parked' };
  });
}

/** The request for candidates is served (or cannot be): cleared, unless a larger one came meanwhile. */
async function servedRequest(trx: Transaction, lease: Lease, requested: number): Promise<void> {
  await updateFenced(trx, lease, { candidates_requested: trx.raw('case when candidates_requested <= ? then 0 else candidates_requested end', [requested]) });
}

/** The receipt of `iteration`'s batch, kept in the state with it while it was pending. */
function receiptOf(state: CampaignState, iteration: number) {
  return [state.receipt, ...(state.earlierReceipts ?? [])].find((r) => r?.iteration === iteration) ?? null;
}

interface IterationTiming {
  strategy: string;
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
async function storeIteration(
  ctx: JobRunContext,
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
  await ctx.db.transaction(async (trx) => {
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
    const failures = (summary.failed > 0 ? `, ${summary.failed} failed` : '') + (summary.infeasible > 0 ? `, ${summary.infeasible} infeasible` : '');
    const reach = progress.reference_distance ? ` (${describeReferenceDistance(progress.reference_distance)})` : '';
    await logJob(
      trx,
      job,
      'info',
      `Iteration ${summary.iteration} (${timing.strategy}): ${summary.evaluated} evaluated${failures}; hypervolume ${fmt(summary.hypervolume)}${reach}, Pareto set ${summary.paretoSize}; propose ${timing.proposeSeconds.toFixed(2)} s, evaluate ${timing.evaluateSeconds.toFixed(2)} s.`,
    );
    for (const failed of timing.fresh.filter((e) => e.error)) {
      await logJob(trx, job, 'warning', `Evaluation ${failed.id} failed: ${failed.error}`);
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
async function announce(trx: Transaction, job: JobRow, lease: Lease, state: CampaignState, mdl: Mdl, phase: string): Promise<JobRow> {
  const updated = await updateFenced(trx, lease, { phase, progress: progressOf(mdl, state, bestObjectives(mdl, state)) });
  await publishEvent(trx, kilnEvent('job.status', job, { status: 'running', current_phase: phase }));
  await logJob(trx, job, 'debug', `Phase: ${phase}.`);
  // job.status carries the phase; job.progress is sent once per stored iteration, with its summary.
  return updated;
}

async function finish(ctx: JobRunContext, job: JobRow, lease: Lease, ending: Parameters<typeof endJob>[3]): Promise<void> {
  await ctx.db.transaction((trx) => endJob(trx, job, lease, ending));
}

async function finishSafely(ctx: JobRunContext, job: JobRow, lease: Lease, ending: Parameters<typeof endJob>[3]): Promise<JobRunOutcome> {
  try {
    await finish(ctx, job, lease, ending);
    return ending.job === 'cancelled' ? 'cancelled' : 'failed';
  } catch (error) {
    if (error instanceof LeaseLost) return 'lost';
    throw error;
  }
}

/** Shutdown: hand the job back to the queue so another worker resumes it at once. */
async function release(ctx: JobRunContext, job: JobRow, lease: Lease): Promise<JobRunOutcome> {
  try {
    await ctx.db.transaction(async (trx) => {
      if (!(await handBackJobs(trx, ctx.workerId, [lease])).includes(lease.id)) throw new LeaseLost(lease.id);
      await logJob(trx, job, 'info', `Worker ${ctx.workerId} is shutting down; the job goes back to the queue and resumes after its last saved iteration.`);
      await publishEvent(trx, kilnEvent('job.status', job, { status: 'queued', current_phase: 'queued' }));
      await announceJobs(trx);
    });
    return 'released';
  } catch (error) {
    if (error instanceof LeaseLost) return 'lost';
    throw error;
  }
}

/** The dataset a campaign starts from, with what was left out and why, once, at its first job. */
async function logWarmStart(trx: Transaction, job: JobRow, warm: WarmStartSummary): Promise<void> {
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
async function logSurrogate(trx: Transaction, job: JobRow, mdl: Mdl, state: CampaignState): Promise<void> {
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

function startMessage(workerId: string, job: JobRow, state: CampaignState, mdl: Mdl): string {
  const where =
    state.iteration > 0
      ? `resuming after iteration ${state.iteration} with ${budgetUsed(state)} of ${mdl.optimizer.budget} evaluations saved`
      : 'starting from the initial design';
  const warm = state.iteration === 0 && state.evaluations.length > 0 ? ` (${state.evaluations.length} warm-start evaluations)` : '';
  return `Worker ${workerId} picked up the job (attempt ${job.attempt}); ${where}${warm}.`;
}

function fmt(x: number): string {
  return Number(x.toPrecision(5)).toString(); // the dashboard's formatNumber (web/src/format.ts) writes numbers alike
}
