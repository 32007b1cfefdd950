import type { CampaignState } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { kilnEvent } from '../events.js';
import { endJob, logJob, timedOut } from '../lifecycle/transitions.js';
import { findCampaignById } from '../store/campaigns.js';
import { handBackJobs, LeaseLost, readFenced, type JobRow, type Lease } from '../store/jobs.js';
import { announceJobs, publishEvent } from '../store/notify.js';
import { runCampaign, type JobRunContext } from './campaign-run.js';
import { fmt } from './iteration-store.js';
import { CancelRequested, Released, TimedOut } from './run-signals.js';

export type { JobRunContext } from './campaign-run.js';

/** `waiting`: an external campaign's batch awaits its results; the job left its slot and lease. */
export type JobRunOutcome = 'completed' | 'failed' | 'cancelled' | 'released' | 'lost' | 'waiting';

/**
 * Runs one claimed job: its campaign's loop (campaign-run.ts) until a stop rule, a cancel, a
 * timeout or a shutdown, then ends the job accordingly. Every write is fenced by the lease, so if
 * another worker has taken the job over, this one stops at its next write without touching anything.
 */
export async function runJob(ctx: JobRunContext, claimed: JobRow): Promise<JobRunOutcome> {
  const lease: Lease = { id: claimed.id, attempt: claimed.attempt };
  const log = ctx.logger.child({ job: claimed.id, attempt: claimed.attempt });
  try {
    const campaign = await findCampaignById(ctx.db, claimed.campaign_id);
    if (!campaign) throw new LeaseLost(claimed.id);
    const end = await runCampaign(ctx, claimed, lease, campaign);
    if (end.kind === 'waiting') return 'waiting';
    return await ended(ctx, claimed, lease, campaign.mdl, end.state);
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

/** The campaign ended by the engine's rules: failed for failing evaluations, else completed or converged. */
async function ended(ctx: JobRunContext, job: JobRow, lease: Lease, mdl: Mdl, state: CampaignState): Promise<JobRunOutcome> {
  if (state.status === 'failed') {
    await finish(ctx, job, lease, {
      job: 'failed',
      campaign: 'failed',
      level: 'error',
      message: `Failed: ${state.stopMessage ?? 'every evaluation failed in consecutive iterations'} See the warnings above for each failure.`,
      error: 'evaluations failing',
    });
    return 'failed';
  }
  const converged = state.status === 'converged';
  await finish(ctx, job, lease, {
    job: 'completed',
    campaign: converged ? 'converged' : 'completed',
    level: 'info',
    message: converged
      ? `Converged: ${state.stopMessage ?? 'the hypervolume stagnated.'} Final hypervolume ${fmt(state.convergenceHistory.at(-1) ?? 0)}.`
      : `Completed: the budget of ${mdl.optimizer.budget} evaluations is spent; final hypervolume ${fmt(state.convergenceHistory.at(-1) ?? 0)}.`,
  });
  return 'completed';
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
