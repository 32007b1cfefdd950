import type { Db, Executor, Patch, Transaction } from './db.js';
import { pageOf, type PageRequest } from './paging.js';
import type { JobStatusName, LogLevelName, ProgressFigures } from '../events.js';

export type JobStatus = JobStatusName;
export type LogLevel = LogLevelName;
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warning', 'error'];

/** Measured progress of a job, kept as one JSON column: the progress members of GET /v1/jobs/{id}. */
export type JobProgress = ProgressFigures;

export interface JobRow {
  id: string;
  organization_id: string;
  campaign_id: string;
  status: JobStatus;
  attempt: number;
  worker_id: string | null;
  lease_expires_at: Date | null;
  cancel_requested: boolean;
  timeout_seconds: number;
  retry_of: string | null;
  phase: string;
  progress: Partial<JobProgress>;
  iterations_run: number;
  iteration_seconds_total: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  /** a requeued job is claimable from then on (the backoff after its worker died) */
  available_at: Date | null;
  /** when the job last entered the queue: the claim order within an organization */
  queued_at: Date;
  /** when a worker last took the job up; an organization's latest is when it was last served (the claim order) */
  claimed_at: Date | null;
  /** since when a `waiting` job waits for results (cleared when a worker takes it up again) */
  waiting_since: Date | null;
  /** seconds spent waiting for results, left out of the job timeout */
  waited_seconds: number;
  /** claims that took the job up after a wait for results: they are not deaths of a worker */
  resumes: number;
  /** candidates of the batch still without a result, while the job waits */
  pending_results: number | null;
  /**
   * candidates a client asked to have waiting for results (GET candidates?count=N) while fewer
   * do: the job proposes the difference beside the pending ones (an asynchronous batch); 0 when
   * nothing is asked
   */
  candidates_requested: number;
  /** per pending iteration (its number), when its candidates still without a result are abandoned (ISO timestamps) */
  batch_deadlines: Record<string, string>;
}

/** The claim a worker slot holds on a job: every write it makes names this attempt. */
export interface Lease {
  id: string;
  attempt: number;
}

/** A write was fenced off: the job is no longer this attempt's (lapsed, cancelled away or deleted). */
export class LeaseLost extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId} is no longer held by this worker`);
    this.name = 'LeaseLost';
  }
}

export interface JobFilter extends PageRequest {
  campaignId?: string;
  status?: JobStatus;
}

export async function insertJob(
  db: Executor,
  row: Pick<JobRow, 'id' | 'organization_id' | 'campaign_id' | 'timeout_seconds' | 'retry_of' | 'progress'>,
): Promise<JobRow> {
  const [job] = await db('jobs')
    .insert({ ...row, status: 'queued', phase: 'queued', progress: JSON.stringify(row.progress) })
    .returning('*');
  return job;
}

export async function findJob(db: Executor, organizationId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<JobRow | undefined> {
  const query = db('jobs').where({ organization_id: organizationId, id }).first();
  if (options.forUpdate) query.forUpdate();
  return query;
}

export async function findJobById(db: Executor, id: string): Promise<JobRow | undefined> {
  return db('jobs').where({ id }).first();
}

/** A job in one of these is its campaign's active job (at most one per campaign). */
export const ACTIVE_JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'waiting'];

/** The campaign's queued, running or waiting job, if any (there is at most one). */
export async function activeJob(db: Executor, campaignId: string, options: { forUpdate?: boolean } = {}): Promise<JobRow | undefined> {
  const query = db('jobs').where({ campaign_id: campaignId }).whereIn('status', ACTIVE_JOB_STATUSES).orderBy('created_at', 'desc').first();
  if (options.forUpdate) query.forUpdate();
  return query;
}

export async function latestJob(db: Executor, campaignId: string): Promise<JobRow | undefined> {
  return db('jobs').where({ campaign_id: campaignId }).orderBy('created_at', 'desc').first();
}

export async function listJobs(db: Executor, organizationId: string, filter: JobFilter): Promise<{ rows: JobRow[]; total: number }> {
  const base = db('jobs').where({ organization_id: organizationId });
  if (filter.campaignId) base.andWhere({ campaign_id: filter.campaignId });
  if (filter.status) base.andWhere({ status: filter.status });
  return pageOf<JobRow>(base, filter);
}

/**
 * The claim order, one rule for claimNextJob and queuePosition: organizations take turns. First
 * the organization with the fewest jobs running now, so one organization's long queue never holds
 * every slot; among those (with one slot free, every organization runs none), the one served least
 * recently (its latest claim the oldest; never served first), so a burst of one organization's
 * jobs re-queued by results arriving cannot keep another's waiting behind all of them; within an
 * organization, the job that entered the queue first. A waiting job holds no worker and is not
 * counted as running. Each is a per-organization figure over a queued job's `organization_id`.
 */
const RUNNING_JOBS = `(select count(*) from jobs held where held.organization_id = jobs.organization_id and held.status = 'running')`;
const LAST_SERVED = `(select max(served.claimed_at) from jobs served where served.organization_id = jobs.organization_id)`;

/**
 * Takes a queued job for a worker slot, the first in the claim order above. SKIP LOCKED lets any
 * number of supervisors claim at once without waiting on each other or ever taking the same job.
 */
export async function claimNextJob(db: Db, workerId: string, leaseSeconds: number): Promise<JobRow | undefined> {
  return db.transaction(async (trx) => {
    const next = await trx('jobs')
      .where({ status: 'queued' })
      // a grouping callback builds on q; q is a thenable query, so its value is voided, not awaited
      .andWhere((q) => void q.whereNull('available_at').orWhere('available_at', '<=', trx.fn.now()))
      .orderByRaw(RUNNING_JOBS)
      .orderByRaw(`${LAST_SERVED} asc nulls first`)
      .orderBy('queued_at')
      .first('id')
      .forUpdate()
      .skipLocked();
    if (!next) return undefined;
    const [job] = await trx('jobs')
      .where({ id: next.id })
      .update({
        status: 'running',
        attempt: trx.raw('attempt + 1'),
        worker_id: workerId,
        lease_expires_at: trx.raw(`now() + make_interval(secs => ?)`, [leaseSeconds]),
        started_at: trx.raw('coalesce(started_at, now())'),
        claimed_at: trx.fn.now(),
        phase: 'starting',
        // a job taken up after a wait for results: the wait is not compute, nor a worker's death
        waited_seconds: trx.raw('waited_seconds + coalesce(extract(epoch from now() - waiting_since), 0)'),
        resumes: trx.raw('resumes + (waiting_since is not null)::int'),
        waiting_since: null,
        pending_results: null,
      })
      .returning('*');
    return job;
  });
}

/**
 * Where a queued job stands in the claim order (claimNextJob) now: the queued jobs a free slot
 * takes before it, and the jobs holding worker slots.
 */
export async function queuePosition(db: Executor, jobId: string): Promise<{ ahead: number; running: number }> {
  const result: { rows: { ahead: number; running: number }[] } = await db.raw(
    `with q as (select jobs.id, ${RUNNING_JOBS} as n, coalesce(${LAST_SERVED}, '-infinity') as served, jobs.queued_at
                from jobs where jobs.status = 'queued')
     select (select count(*) from q where (q.n, q.served, q.queued_at) < (me.n, me.served, me.queued_at))::int as ahead,
            (select count(*) from jobs where status = 'running')::int as running
     from q me where me.id = ?`,
    [jobId],
  );
  const [row] = result.rows;
  return row ?? { ahead: 0, running: 0 };
}

/** Extends the leases this worker still holds; returns the ids it lost. */
export async function renewLeases(db: Db, workerId: string, leases: readonly Lease[], leaseSeconds: number): Promise<string[]> {
  if (leases.length === 0) return [];
  const held = await db('jobs')
    .where({ worker_id: workerId, status: 'running' })
    .whereIn(
      ['id', 'attempt'],
      leases.map((l) => [l.id, l.attempt]),
    )
    .update({ lease_expires_at: db.raw(`now() + make_interval(secs => ?)`, [leaseSeconds]) })
    .returning('id');
  const heldIds = new Set(held.map((r) => r.id));
  return leases.filter((l) => !heldIds.has(l.id)).map((l) => l.id);
}

/** A change to a job, its progress and batch deadlines given as objects. */
export type JobPatch = Patch<Omit<JobRow, 'progress' | 'batch_deadlines'>> & { progress?: Partial<JobProgress>; batch_deadlines?: Record<string, string> };

function jobValues(patch: JobPatch) {
  const { progress, batch_deadlines, ...values } = patch;
  return {
    ...values,
    ...('progress' in patch ? { progress: JSON.stringify(progress) } : {}),
    ...(batch_deadlines !== undefined ? { batch_deadlines: JSON.stringify(batch_deadlines) } : {}),
  };
}

/** Updates a running job only if this attempt still holds it; otherwise throws LeaseLost. */
export async function updateFenced(db: Executor, lease: Lease, patch: JobPatch): Promise<JobRow> {
  const [job] = await db('jobs').where({ id: lease.id, attempt: lease.attempt, status: 'running' }).update(jobValues(patch)).returning('*');
  if (!job) throw new LeaseLost(lease.id);
  return job;
}

/** Reads a running job under this attempt's fence (for the cancel flag between iterations). */
export async function readFenced(db: Executor, lease: Lease): Promise<JobRow> {
  const job = await db('jobs').where({ id: lease.id, attempt: lease.attempt, status: 'running' }).first();
  if (!job) throw new LeaseLost(lease.id);
  return job;
}

/**
 * Whether a job's own time (its wait for external results left out) has passed its timeout, by
 * the database's clock, the one the reaper uses too.
 */
export async function pastTimeout(db: Executor, lease: Lease): Promise<boolean> {
  const row = await db('jobs')
    .where({ id: lease.id, attempt: lease.attempt })
    .first<{ overdue: boolean } | undefined>(db.raw('started_at + make_interval(secs => timeout_seconds + waited_seconds) < now() as overdue'));
  return row?.overdue === true;
}

export async function updateJob(db: Executor, id: string, patch: JobPatch): Promise<JobRow | undefined> {
  const [job] = await db('jobs').where({ id }).update(jobValues(patch)).returning('*');
  return job;
}

/**
 * Hands jobs this worker still holds back to the queue (it is shutting down), so that any worker
 * resumes them at once; returns the ids handed back, which leaves out the leases already lost.
 */
export async function handBackJobs(db: Executor, workerId: string, leases: readonly Lease[]): Promise<string[]> {
  const rows = await db('jobs')
    .where({ worker_id: workerId, status: 'running' })
    .whereIn(
      ['id', 'attempt'],
      leases.map((l) => [l.id, l.attempt]),
    )
    .update({ status: 'queued', phase: 'queued', worker_id: null, lease_expires_at: null, queued_at: db.fn.now() })
    .returning('id');
  return rows.map((r) => r.id);
}

/**
 * Parks a running job of an external campaign that waits for results: it gives up its worker and
 * its lease (fenced: only the attempt that holds it may) and waits, counting `pending` candidates,
 * until wakeWaitingJob queues it again. The caller holds the campaign row, so results posted at
 * the same time either came before (and the caller saw them) or wake the job after.
 */
export async function parkJob(db: Executor, lease: Lease, pending: number, progress: Partial<JobProgress>): Promise<JobRow> {
  return updateFenced(db, lease, {
    status: 'waiting',
    phase: 'awaiting_evaluations',
    worker_id: null,
    lease_expires_at: null,
    waiting_since: db.fn.now(),
    pending_results: pending,
    progress,
  });
}

/** The count of candidates a waiting job still waits for (results arrived, but not all). */
export async function updateWaitingJob(db: Executor, jobId: string, pending: number): Promise<void> {
  await db('jobs').where({ id: jobId, status: 'waiting' }).update({ pending_results: pending });
}

/** Queues a waiting job again (its results arrived); returns it, or undefined when it was not waiting. */
export async function wakeWaitingJob(db: Executor, jobId: string): Promise<JobRow | undefined> {
  const [job] = await db('jobs')
    .where({ id: jobId, status: 'waiting' })
    .update({ status: 'queued', phase: 'queued', pending_results: 0, queued_at: db.fn.now() })
    .returning('*');
  return job;
}

/**
 * Asks an active job for candidates: `wanted` waiting for results in all (the larger of this and
 * an earlier request stands). The caller holds the campaign row. Returns the job as it stands.
 */
export async function requestCandidates(db: Executor, jobId: string, wanted: number): Promise<JobRow | undefined> {
  const [job] = await db('jobs')
    .where({ id: jobId })
    .whereIn('status', ACTIVE_JOB_STATUSES)
    .update({ candidates_requested: db.raw('greatest(candidates_requested, ?)', [wanted]) })
    .returning('*');
  return job;
}

/**
 * Keeps a running job's batch deadlines to `iterations` (those pending), giving each one without
 * a deadline its own, `hours` from now by the database's clock; returns the iterations whose
 * deadline has passed. Fenced by the lease.
 */
export async function keepBatchDeadlines(db: Executor, lease: Lease, iterations: readonly number[], hours: number): Promise<number[]> {
  const keys = iterations.map(String);
  await db('jobs')
    .where({ id: lease.id, attempt: lease.attempt, status: 'running' })
    .update({
      batch_deadlines: db.raw(
        `(select coalesce(jsonb_object_agg(k, coalesce(batch_deadlines -> k, to_jsonb(now() + make_interval(secs => ?)))), '{}'::jsonb) from unnest(?::text[]) k)`,
        [hours * 3600, keys],
      ),
    });
  const result: { rows: { iteration: string }[] } = await db.raw(
    `select d.key as iteration from jobs, jsonb_each_text(jobs.batch_deadlines) d where jobs.id = ? and d.value::timestamptz <= now()`,
    [lease.id],
  );
  return result.rows.map((r) => Number(r.iteration));
}

/**
 * Waiting jobs with a batch past its deadline (optimizer.batch_deadline_hours), locked with
 * their campaign rows, SKIP LOCKED like the reaper's sweep: queued again, the job abandons the
 * overdue candidates and goes on.
 */
export async function jobsPastDeadline(trx: Transaction): Promise<JobRow[]> {
  return (await trx('jobs')
    .join('campaigns', 'campaigns.id', 'jobs.campaign_id')
    .where('jobs.status', 'waiting')
    .whereRaw(`exists (select 1 from jsonb_each_text(jobs.batch_deadlines) d where d.value::timestamptz <= now())`)
    .select('jobs.*')
    .forUpdate()
    .skipLocked()) as JobRow[];
}

/**
 * Ends a job. With a lease the write is fenced (a worker ending its own job); without one it is
 * an ending decided elsewhere (cancel of a queued job, a lapsed lease found by a reaper).
 */
export async function finishJob(db: Executor, jobId: string, lease: Lease | null, status: JobStatus, error: string | null): Promise<void> {
  const patch = { status, phase: status, finished_at: db.fn.now(), lease_expires_at: null, error };
  if (lease) await updateFenced(db, lease, patch);
  else await updateJob(db, jobId, patch);
}

/**
 * Puts a job whose worker died back in the queue, claimable after `delaySeconds` (the next claim
 * counts the next attempt); its campaign keeps running.
 */
export async function requeueLapsed(trx: Transaction, id: string, delaySeconds: number): Promise<JobRow> {
  const [job] = await trx('jobs')
    .where({ id, status: 'running' })
    .update({
      status: 'queued',
      phase: 'queued',
      worker_id: null,
      lease_expires_at: null,
      available_at: trx.raw(`now() + make_interval(secs => ?)`, [delaySeconds]),
      queued_at: trx.fn.now(),
    })
    .returning('*');
  return job;
}

/**
 * Running jobs whose worker stopped renewing its lease, or that ran past their timeout, locked
 * for the caller's transaction so that exactly one reaper fails each of them.
 */
export async function overdueJobs(trx: Transaction): Promise<(JobRow & { overdue: 'lease' | 'timeout' })[]> {
  const rows = (await trx('jobs')
    .join('campaigns', 'campaigns.id', 'jobs.campaign_id')
    .where('jobs.status', 'running')
    .andWhere(
      (q) =>
        void q
          .where('jobs.lease_expires_at', '<', trx.fn.now())
          // the timeout measures the optimizer's own time: waits for external results are left out
          .orWhereRaw('jobs.started_at + make_interval(secs => jobs.timeout_seconds + jobs.waited_seconds) < now()'),
    )
    .select('jobs.*', trx.raw(`case when jobs.lease_expires_at < now() then 'lease' else 'timeout' end as overdue`))
    // the job and its campaign row, both or neither: a job whose campaign another transaction holds
    // (a delete, a stop) waits for the next sweep instead of taking the two in the opposite order
    .forUpdate()
    .skipLocked()) as (JobRow & { overdue: 'lease' | 'timeout' })[];
  return rows;
}

export interface LogEntry {
  id: number;
  timestamp: Date;
  level: LogLevel;
  message: string;
}

export interface JobLogRow extends LogEntry {
  job_id: string;
  organization_id: string;
}

export async function appendLog(db: Executor, job: { id: string; organization_id: string }, level: LogLevel, message: string): Promise<LogEntry> {
  const [entry] = await db('job_logs')
    .insert({ job_id: job.id, organization_id: job.organization_id, level, message })
    .returning(['id', 'timestamp', 'level', 'message']);
  return entry;
}

export async function listLogs(db: Executor, jobId: string, options: { minLevel: LogLevel; since?: Date; tail: number }): Promise<LogEntry[]> {
  const levels = LOG_LEVELS.slice(LOG_LEVELS.indexOf(options.minLevel));
  const query = db('job_logs').where({ job_id: jobId }).whereIn('level', levels);
  // Clients see millisecond timestamps; compare at that precision so `since` of an entry excludes it.
  if (options.since) query.andWhereRaw(`date_trunc('milliseconds', "timestamp") > ?`, [options.since]);
  const rows = await query.orderBy('id', 'desc').limit(options.tail).select('id', 'timestamp', 'level', 'message');
  return rows.reverse();
}
