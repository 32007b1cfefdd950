import { bestObjectives } from '../engine/campaign/results.js';
import { completedEvaluations, tell } from '../engine/campaign/state.js';
import type { CampaignState, EvaluationResult, Proposal } from '../engine/campaign/types.js';
import { kilnEvent } from '../events.js';
import { createEvaluator, type ServiceEvaluatorOptions } from '../evaluators/create.js';
import { evaluateProposals } from '../evaluators/evaluate-proposals.js';
import { EvaluatorError, type Evaluator } from '../evaluators/types.js';
import { budgetLeft, earliestBatch, newRows, pendingResults } from '../lifecycle/batches.js';
import { loadCampaignState, storedEngineState } from '../lifecycle/campaign-state.js';
import { progressOf } from '../lifecycle/progress.js';
import { logJob } from '../lifecycle/transitions.js';
import { describeBackend } from '../engine/tensor/backend.js';
import { countEvaluations, loadEvaluations, lockCampaign, updateCampaign, type CampaignRow } from '../store/campaigns.js';
import { relaxedCommit, type Db, type Transaction } from '../store/db.js';
import { postedResults } from '../store/external-results.js';
import { parkJob, pastTimeout, readFenced, updateFenced, type JobRow, type Lease } from '../store/jobs.js';
import { saveModelReport } from '../store/model-reports.js';
import { publishEvent } from '../store/notify.js';
import { abandonOverdue } from './deadlines.js';
import { announce, logSurrogate, logWarmStart, startMessage, storeIteration } from './iteration-store.js';
import { ModelReporter } from './model-reporter.js';
import { CancelRequested, Released, TimedOut } from './run-signals.js';
import type { EnginePool } from './engine-pool.js';
import type { Logger } from 'pino';

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

/**
 * One claimed job's run of its campaign: the state rebuilt from the rows, then the loop of its
 * evaluator until a stop rule, a cancel, a timeout or a shutdown. An evaluated campaign proposes a
 * batch, evaluates it and completes its iteration; an external (ask/tell) one proposes, then takes
 * the results people post, batch by batch, and parks while it waits for them. Both propose and
 * complete alike (propose, complete), and follow the batch and budget rules of lifecycle/batches.
 */
interface CampaignRun {
  ctx: JobRunContext;
  job: JobRow;
  lease: Lease;
  campaign: CampaignRow;
  state: CampaignState;
  /** evaluations stored so far (the next ones are numbered after them) */
  stored: number;
  external: boolean;
  reporter: ModelReporter;
  /** how each batch proposed by this run was chosen, for its iteration's row when it completes */
  proposedHere: Map<number, { strategy: string; proposeSeconds: number }>;
  /** whether the job log names the tensor backend yet: the run's first step does, so a user sees that the GPU was used */
  backendNamed: boolean;
}

/** How a run ends: its campaign ended by the engine's rules, or its job parked to wait for results. */
export type RunEnd = { kind: 'ended'; state: CampaignState } | { kind: 'waiting' };

export async function runCampaign(ctx: JobRunContext, job: JobRow, lease: Lease, campaign: CampaignRow): Promise<RunEnd> {
  const mdl = campaign.mdl;
  let state = await loadCampaignState(ctx.db, campaign);
  // Only a retry runs a campaign the engine stopped for failing evaluations: it tries again.
  if (state.status === 'failed') state = { ...state, status: 'running', stopReason: null, stopMessage: undefined };
  const external = (mdl.evaluator ?? { type: 'external' }).type === 'external';
  const run: CampaignRun = {
    ctx,
    job,
    lease,
    campaign,
    state,
    stored: await countEvaluations(ctx.db, campaign.id),
    external,
    reporter: new ModelReporter(
      ctx.reportPool,
      (report) => saveModelReport(ctx.db, campaign, report),
      ctx.logger.child({ job: job.id, campaign: campaign.id }),
    ),
    proposedHere: new Map(),
    backendNamed: false,
  };
  await ctx.db.transaction(async (trx) => {
    await logJob(trx, job, 'info', startMessage(ctx.workerId, job, state, mdl));
    if (campaign.warm_start && state.iteration === 0) await logWarmStart(trx, job, campaign.warm_start);
    await announce(trx, job, lease, state, mdl, 'starting');
  });
  const end = external ? await externalLoop(run) : await evaluatedLoop(run, createEvaluator(mdl, ctx.evaluatorOptions));
  if (end === 'waiting') return { kind: 'waiting' };
  // The report of the final state is stored before the job ends, so a finished campaign has it.
  run.reporter.schedule(mdl, run.state);
  await run.reporter.flush();
  return { kind: 'ended', state: run.state };
}

/** Propose, evaluate, complete, until the campaign ends. */
async function evaluatedLoop(run: CampaignRun, evaluator: Evaluator): Promise<'ended'> {
  while (run.state.status === 'running') {
    if (run.ctx.shutdown.aborted) throw new Released();
    const started = performance.now();
    const proposals = run.state.pending.length > 0 ? await resume(run) : await propose(run);
    if (!proposals) break;
    const evaluating = performance.now();
    const results = await evaluateBatch(run, evaluator, proposals);
    await complete(run, results, started, (performance.now() - evaluating) / 1000);
  }
  return 'ended';
}

/**
 * Propose, then for each pending batch in turn: complete it once its results are in, propose what
 * a client asked for beside the pending ones, or park until one of the two can happen.
 */
async function externalLoop(run: CampaignRun): Promise<'ended' | 'waiting'> {
  while (run.state.status === 'running') {
    if (run.ctx.shutdown.aborted) throw new Released();
    const started = performance.now();
    if (run.state.pending.length === 0) {
      if (!(await propose(run))) break;
      continue;
    }
    const taken = await takeExternal(run);
    if (taken.kind === 'parked') return 'waiting';
    if (taken.kind === 'ask') await propose(run, taken.count);
    else await complete(run, taken.results, started, (performance.now() - started) / 1000);
  }
  return 'ended';
}

/**
 * Proposes the next batch on the engine pool (or, `asked`, that many candidates beside the
 * pending ones) and saves it pending before anything evaluates it: a crash re-evaluates the same
 * candidates, and an external campaign lists them. Null when the budget leaves nothing to propose.
 */
async function propose(run: CampaignRun, asked?: number): Promise<Proposal[] | null> {
  const { ctx, job, lease, campaign } = run;
  const mdl = campaign.mdl;
  const current = await ctx.db.transaction(async (trx) => {
    await relaxedCommit(trx);
    if (await pastTimeout(trx, lease)) throw new TimedOut();
    return announce(trx, job, lease, run.state, mdl, 'proposing');
  });
  if (current.cancel_requested) throw new CancelRequested();
  // what a client asked for: beside the pending candidates, or a first batch larger than batch_size
  const requested = current.candidates_requested;
  const count = asked ?? (run.external && requested > mdl.optimizer.batch_size ? requested : undefined);
  const stepStarted = performance.now();
  const next = await ctx.pool.step(mdl, run.state, count !== undefined ? { count } : {});
  const proposeSeconds = (performance.now() - stepStarted) / 1000;
  if (next.proposals.length === 0) {
    // the budget is spent with what is pending: nothing more to propose for the request
    if (asked !== undefined) await ctx.db.transaction((trx) => servedRequest(trx, lease, requested));
    return null;
  }
  const chosen = run.state.strategy === undefined ? next.state.strategy : undefined;
  run.state = next.state;
  const { proposals } = next;
  run.proposedHere.set(proposals[0].iteration, { strategy: next.strategy, proposeSeconds });
  const nameBackend = !run.backendNamed;
  run.backendNamed = true;
  await ctx.db.transaction(async (trx) => {
    await relaxedCommit(trx);
    await updateCampaign(trx, campaign.id, { engine_state: storedEngineState(run.state) });
    if (chosen) await logJob(trx, job, 'info', `Strategy: ${chosen.name} (${chosen.reason}).`);
    if (nameBackend) await logJob(trx, job, 'info', `Proposing on the ${describeBackend(next.backend)} tensor backend.`);
    if (asked !== undefined) {
      await logJob(
        trx,
        job,
        'info',
        `Iteration ${proposals[0].iteration}: ${proposals.length} candidates proposed as asked (GET candidates?count=${requested}), beside the ${run.state.pending.length - proposals.length} still pending, which the model takes into account.`,
      );
      await servedRequest(trx, lease, requested);
    }
    await logSurrogate(trx, job, mdl, run.state);
    await announce(trx, job, lease, run.state, mdl, run.external ? 'awaiting_evaluations' : 'evaluating');
  });
  run.reporter.schedule(mdl, run.state);
  return proposals;
}

/** An evaluated campaign's batch proposed before the last interruption: evaluated again as it was. */
async function resume(run: CampaignRun): Promise<Proposal[]> {
  const { ctx, job, lease, campaign } = run;
  const proposals = run.state.pending;
  const current = await ctx.db.transaction(async (trx) => {
    if (await pastTimeout(trx, lease)) throw new TimedOut();
    await logJob(
      trx,
      job,
      'info',
      `Resuming iteration ${proposals[0].iteration}: its ${proposals.length} candidates were proposed before the last interruption.`,
    );
    return announce(trx, job, lease, run.state, campaign.mdl, 'evaluating');
  });
  if (current.cancel_requested) throw new CancelRequested();
  return proposals;
}

/**
 * Tells the results and stores each iteration they complete, in its own transaction. Results of
 * an external batch told earlier may have been corrected while the batch was out: the stored
 * rows win.
 */
async function complete(run: CampaignRun, results: EvaluationResult[], started: number, evaluateSeconds: number): Promise<void> {
  const { ctx, campaign } = run;
  const before: CampaignState = run.external ? { ...run.state, evaluations: await loadEvaluations(ctx.db, campaign) } : run.state;
  const told = tell(campaign.mdl, before, results);
  const fresh = newRows(before, told.state);
  run.state = told.state;
  for (const [k, summary] of told.summaries.entries()) {
    const proposed = run.proposedHere.get(summary.iteration);
    await storeIteration(ctx.db, run.job, run.lease, campaign, run.state, summary, {
      strategy: proposed?.strategy ?? 'resumed',
      stored: run.stored,
      proposeSeconds: proposed?.proposeSeconds ?? 0,
      evaluateSeconds,
      iterationStarted: started,
      // every row told goes in with the first iteration's transaction
      fresh: k === 0 ? fresh : [],
      external: run.external,
      receipt: receiptOf(before, summary.iteration),
    });
  }
  run.stored += fresh.length;
}

async function evaluateBatch(run: CampaignRun, evaluator: Evaluator, proposals: readonly Proposal[]): Promise<EvaluationResult[]> {
  const batch = await evaluateProposals(evaluator, proposals, run.ctx.shutdown);
  if (batch.status === 'cancelled') throw new Released();
  if (batch.status === 'failed') {
    // A host that is refused or settings that do not fit fail the job: no retry of the batch helps.
    const { error } = batch;
    if (error instanceof EvaluatorError && (error.code === 'refused' || error.code === 'invalid')) throw error;
    await logJob(run.ctx.db, run.job, 'warning', `The evaluator failed for the whole batch of iteration ${proposals[0].iteration}: ${error.message}`);
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
async function takeExternal(run: CampaignRun): Promise<ExternalTake> {
  const { ctx, job, lease, state } = run;
  const mdl = run.campaign.mdl;
  return ctx.db.transaction(async (trx) => {
    await lockCampaign(trx, job.campaign_id);
    const current = await readFenced(trx, lease);
    if (current.cancel_requested) throw new CancelRequested();
    if (await pastTimeout(trx, lease)) throw new TimedOut();
    await abandonOverdue(trx, job, lease, mdl, state.pending);
    const { awaiting, earliestComplete } = await pendingResults(trx, job.campaign_id, state.pending);
    if (earliestComplete) {
      const batch = earliestBatch(state.pending);
      await logJob(trx, job, 'info', `Taking up iteration ${batch[0].iteration}: the results of its ${batch.length} candidates have arrived.`);
      await announce(trx, job, lease, state, mdl, 'awaiting_evaluations');
      return { kind: 'results', results: await postedResults(trx, job.campaign_id, batch) };
    }
    const more = Math.min(current.candidates_requested - awaiting, budgetLeft(mdl, completedEvaluations(state).length, state.pending.length));
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
