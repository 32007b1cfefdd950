import { kilnEvent } from '../events.js';
import type { CampaignStatus } from '../store/campaigns.js';
import { updateCampaign } from '../store/campaigns.js';
import type { Executor, Transaction } from '../store/db.js';
import { appendLog, finishJob, type JobRow, type JobStatus, type Lease, type LogLevel } from '../store/jobs.js';
import { publishEvent } from '../store/notify.js';

type JobRef = Pick<JobRow, 'id' | 'organization_id' | 'campaign_id'>;

/** A job log entry, stored and sent live to the job's subscribers. */
export async function logJob(db: Executor, job: JobRef, level: LogLevel, message: string): Promise<void> {
  const entry = await appendLog(db, job, level, message);
  await publishEvent(db, kilnEvent('job.log', job, { timestamp: entry.timestamp.toISOString(), level, message }));
}

export async function announceStatus(db: Executor, job: JobRef, status: JobStatus, phase: string): Promise<void> {
  await publishEvent(db, kilnEvent('job.status', job, { status, current_phase: phase }));
}

export async function announceCampaignStatus(
  db: Executor,
  campaign: { id: string; organization_id: string },
  status: CampaignStatus,
  jobId: string | null,
): Promise<void> {
  await publishEvent(db, kilnEvent('campaign.status', { id: jobId, organization_id: campaign.organization_id, campaign_id: campaign.id }, { status }));
}

export interface JobEnding {
  job: JobStatus;
  campaign: CampaignStatus;
  level: LogLevel;
  message: string;
  error?: string;
}

/**
 * Ends a job and moves its campaign in one transaction, with the log entry and the events. With
 * a lease the write is fenced (a worker ending its own job); without one it is an ending decided
 * elsewhere (cancel of a queued job, a lapsed lease found by a reaper). The campaign row is written
 * before the job row, the order every transaction keeps (see store/campaigns.ts lockCampaign), so
 * that ending a job never deadlocks with a delete, start or stop of its campaign. A lost lease rolls
 * the campaign write back with the rest.
 */
export async function endJob(trx: Transaction, job: JobRef, lease: Lease | null, ending: JobEnding): Promise<void> {
  await updateCampaign(trx, job.campaign_id, { status: ending.campaign });
  await finishJob(trx, job.id, lease, ending.job, ending.error ?? null);
  await logJob(trx, job, ending.level, ending.message);
  await announceStatus(trx, job, ending.job, ending.job);
  await announceCampaignStatus(trx, { id: job.campaign_id, organization_id: job.organization_id }, ending.campaign, job.id);
}

/** The ending of a job that ran past its timeout, whoever finds it: the reaper or its own worker. */
export function timedOut(timeoutSeconds: number): JobEnding {
  return {
    job: 'failed',
    campaign: 'failed',
    level: 'error',
    message:
      `The job ran past its timeout of ${duration(timeoutSeconds)} and is failed (time spent waiting for external results is not counted). ` +
      'Retry it to continue after the last saved iteration (give the retry a new timeout_hours to change it).',
    error: 'timed out',
  };
}

function duration(seconds: number): string {
  if (seconds >= 3600) return `${Number((seconds / 3600).toFixed(2))} hours`;
  if (seconds >= 60) return `${Number((seconds / 60).toFixed(1))} minutes`;
  return `${Number(seconds.toFixed(1))} seconds`;
}
