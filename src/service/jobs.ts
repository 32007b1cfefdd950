import type { Db, Transaction } from '../store/db.js';
import { findCampaign, lockCampaign, updateCampaign } from '../store/campaigns.js';
import { activeJob, findJob, listJobs, listLogs, type JobRow, type JobStatus, type LogLevel } from '../store/jobs.js';
import { announceCampaignStatus, logJob } from '../lifecycle/transitions.js';
import { checkConcurrentLimit, queueJob, requestCancel } from './campaigns.js';
import type { Principal } from './principal.js';
import { jobDetail, jobListItem, logEntry } from './presenters.js';
import { invalidState, notFound } from './validation.js';

export interface JobListQuery {
  campaignId?: string;
  status?: JobStatus;
  sort: { column: string; descending: boolean };
  page: number;
  perPage: number;
}

export async function listJobsFor(db: Db, principal: Principal, query: JobListQuery) {
  const { rows, total } = await listJobs(db, principal.organizationId, query);
  return { data: rows.map(jobListItem), total };
}

export async function getJob(db: Db, principal: Principal, id: string): Promise<JobRow> {
  const job = await findJob(db, principal.organizationId, id);
  if (!job) throw notFound('job', id);
  return job;
}

export async function jobDetailFor(db: Db, principal: Principal, id: string) {
  return jobDetail(await getJob(db, principal, id));
}

export async function jobLogs(db: Db, principal: Principal, id: string, query: { level: LogLevel; since?: Date; tail: number }) {
  const job = await getJob(db, principal, id);
  return (await listLogs(db, job.id, { minLevel: query.level, since: query.since, tail: query.tail })).map(logEntry);
}

/**
 * A job of the organization, held for the caller's transaction after its campaign (campaign row
 * first, then the job row: the order every transaction keeps, so none deadlocks with another).
 */
async function lockedJob(trx: Transaction, principal: Principal, id: string): Promise<JobRow> {
  const job = await findJob(trx, principal.organizationId, id);
  if (!job) throw notFound('job', id);
  await lockCampaign(trx, job.campaign_id);
  const locked = await findJob(trx, principal.organizationId, id, { forUpdate: true });
  if (!locked) throw notFound('job', id);
  return locked;
}

export async function cancelJob(db: Db, principal: Principal, id: string) {
  const job = await db.transaction(async (trx) => {
    const job = await lockedJob(trx, principal, id);
    if (job.status !== 'queued' && job.status !== 'running' && job.status !== 'waiting') {
      throw invalidState(`The job is ${job.status}; only a queued, running or waiting job can be cancelled.`, job.status);
    }
    if (job.cancel_requested) return job;
    return requestCancel(trx, job, 'Cancel requested');
  });
  return jobDetail(job);
}

/**
 * Retry a failed job: a new job for the same campaign that resumes after the last saved
 * iteration, with the failed job's timeout unless a new one is given.
 */
export async function retryJob(db: Db, principal: Principal, id: string, options: { timeoutHours?: number } = {}) {
  const job = await db.transaction(async (trx) => {
    const failed = await lockedJob(trx, principal, id);
    if (failed.status !== 'failed') throw invalidState(`The job is ${failed.status}; only a failed job can be retried.`, failed.status);
    const campaign = (await findCampaign(trx, principal.organizationId, failed.campaign_id))!;
    const active = await activeJob(trx, campaign.id);
    if (active) throw invalidState(`The campaign already has a ${active.status} job (${active.id}).`, campaign.status);
    if (campaign.status !== 'failed') {
      throw invalidState(`The campaign is ${campaign.status}; a retry resumes a failed campaign only.`, campaign.status);
    }
    await checkConcurrentLimit(trx, principal);
    const job = await queueJob(trx, campaign, options.timeoutHours ?? failed.timeout_seconds / 3600, failed.id);
    await updateCampaign(trx, campaign.id, { status: 'running' });
    await announceCampaignStatus(trx, campaign, 'running', job.id);
    await logJob(trx, job, 'info', `Retry of ${failed.id}: queued to resume after iteration ${campaign.current_iteration} with every saved evaluation.`);
    return job;
  });
  return jobDetail(job);
}
