import { kilnEvent } from '../events.js';
import type { Transaction } from '../store/db.js';
import { activeJob, updateWaitingJob, wakeWaitingJob, type JobRow } from '../store/jobs.js';
import { announceJobs, publishEvent } from '../store/notify.js';
import { logJob } from './transitions.js';

/**
 * Results arrived for a campaign whose job may be waiting for them. Once the earliest pending
 * batch has all its results (`batchIn`: with nothing else pending, every result) the job goes
 * back to the queue: a worker completes that iteration and, with nothing left pending, proposes
 * the next batch; otherwise it only counts the `awaiting` candidates. The caller holds the
 * campaign row (campaign before job, the order every transaction keeps); the job parks under the
 * same lock, so no arrival is missed.
 */
export async function resultsArrived(trx: Transaction, campaignId: string, awaiting: number, batchIn: boolean): Promise<void> {
  const job = await activeJob(trx, campaignId, { forUpdate: true });
  if (job?.status !== 'waiting') return;
  if (!batchIn) {
    await updateWaitingJob(trx, job.id, awaiting);
    return;
  }
  await wakeJob(
    trx,
    job,
    awaiting === 0
      ? 'Every result of the batch has arrived; the job is queued for a worker to take up the next batch.'
      : `Every result of the earliest pending batch has arrived (${awaiting} candidates of later batches still wait); the job is queued for a worker to complete its iteration.`,
  );
}

/**
 * Queues a waiting job again, saying why (results in, more candidates asked for, a batch past
 * its deadline). The caller holds the campaign row and the job row.
 */
export async function wakeJob(trx: Transaction, job: JobRow, reason: string): Promise<void> {
  if (!(await wakeWaitingJob(trx, job.id))) return;
  await logJob(trx, job, 'info', reason);
  await publishEvent(trx, kilnEvent('job.status', job, { status: 'queued', current_phase: 'queued' }));
  await announceJobs(trx);
}
