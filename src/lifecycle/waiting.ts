import { kilnEvent } from '../events.js';
import type { Transaction } from '../store/db.js';
import { activeJob, updateWaitingJob, wakeWaitingJob } from '../store/jobs.js';
import { announceJobs, publishEvent } from '../store/notify.js';
import { logJob } from './transitions.js';

/**
 * Results arrived for a campaign whose job may be waiting for them: once none of the batch is
 * awaited the job goes back to the queue (a worker proposes the next batch), otherwise it only
 * counts what is still awaited. The caller holds the campaign row (campaign before job, the order
 * every transaction keeps); the job parks under the same lock, so no arrival is missed.
 */
export async function resultsArrived(trx: Transaction, campaignId: string, awaiting: number): Promise<void> {
  const job = await activeJob(trx, campaignId, { forUpdate: true });
  if (job?.status !== 'waiting') return;
  if (awaiting > 0) {
    await updateWaitingJob(trx, job.id, awaiting);
    return;
  }
  await wakeWaitingJob(trx, job.id);
  await logJob(trx, job, 'info', 'Every result of the batch has arrived; the job is queued for a worker to take up the next batch.');
  await publishEvent(trx, kilnEvent('job.status', job, { status: 'queued', current_phase: 'queued' }));
  await announceJobs(trx);
}
