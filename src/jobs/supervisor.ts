import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { claimNextJob, handBackJobs, jobsPastDeadline, overdueJobs, renewLeases, requeueLapsed, type JobRow, type Lease } from '../store/jobs.js';
import { PgListener } from '../store/listener.js';
import { announceJobs, JOBS_CHANNEL, publishEvent } from '../store/notify.js';
import { markWorkerStopped, registerWorker, touchWorker } from '../store/workers.js';
import type { TensorBackendChoice } from '../engine/tensor/backend.js';
import { EnginePool } from './engine-pool.js';
import type { ServiceEvaluatorOptions } from '../evaluators/create.js';
import { runJob } from './job-runner.js';
import { endJob, logJob, timedOut, type JobEnding } from '../lifecycle/transitions.js';
import { wakeJob } from '../lifecycle/waiting.js';
import { kilnEvent } from '../events.js';

export interface SupervisorOptions {
  db: Db;
  databaseUrl: string;
  logger: Logger;
  /** worker slots: jobs run at once by this process */
  concurrency: number;
  evaluatorOptions: ServiceEvaluatorOptions;
  backend?: TensorBackendChoice;
  /** a slot that has not renewed its lease for this long is presumed dead */
  leaseSeconds?: number;
  /** fallback poll of the queue in case a notification was missed */
  pollSeconds?: number;
  /** attempts a job gets when its worker dies before it fails (default 5) */
  maxAttempts?: number;
}

/**
 * A worker process's job supervisor: it claims queued jobs into its slots (woken by NOTIFY, with a
 * slow poll only as a fallback), renews their leases by heartbeat, fails jobs whose worker died or
 * that ran past their timeout (any supervisor does this for all), and on shutdown hands its jobs
 * back to the queue so another worker resumes them at once.
 */
export class Supervisor {
  readonly workerId = newId('worker_');
  private readonly leaseSeconds: number;
  private readonly pollSeconds: number;
  private readonly pool: EnginePool;
  /** one thread for model reports: they trail the loops and never take a proposal's thread */
  private readonly reportPool: EnginePool;
  private readonly listener: PgListener;
  private readonly running = new Map<string, { lease: Lease; done: Promise<void> }>();
  private readonly shutdown = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];
  private filling = false;
  private refill = false;

  constructor(private readonly options: SupervisorOptions) {
    this.leaseSeconds = options.leaseSeconds ?? 30;
    this.pollSeconds = options.pollSeconds ?? 30;
    this.pool = new EnginePool({ threads: Math.max(1, options.concurrency), backend: options.backend ?? 'auto' });
    this.reportPool = new EnginePool({ threads: 1, backend: options.backend ?? 'auto', lazy: true });
    this.listener = new PgListener(options.databaseUrl, options.logger);
  }

  get log(): Logger {
    return this.options.logger;
  }

  async start(): Promise<void> {
    const { db } = this.options;
    await registerWorker(db, { id: this.workerId, hostname: hostname(), pid: process.pid, slots: this.options.concurrency });
    this.listener.on(JOBS_CHANNEL, () => void this.fill());
    this.listener.onReconnect(() => void this.fill());
    await this.listener.start();
    const heartbeatMs = (this.leaseSeconds * 1000) / 3;
    this.timers.push(setInterval(() => void this.heartbeat(), heartbeatMs));
    this.timers.push(setInterval(() => void this.fill(), this.pollSeconds * 1000));
    this.timers.push(setInterval(() => void this.reap(), Math.max(1000, heartbeatMs)));
    this.log.info({ worker: this.workerId, slots: this.options.concurrency }, 'supervisor started');
    await this.reap();
    await this.fill();
  }

  /** Jobs in the slots, for tests and the health report. */
  activeJobs(): string[] {
    return [...this.running.values()].map((r) => r.lease.id);
  }

  /**
   * Stops claiming, lets running iterations finish for up to `graceMs`, then hands every job still
   * held back to the queue and releases the leases.
   */
  async stop(graceMs = 30_000): Promise<void> {
    if (this.shutdown.signal.aborted) return;
    this.shutdown.abort();
    for (const timer of this.timers) clearInterval(timer);
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref())]);
    const { db } = this.options;
    if (timedOut) {
      const leases = [...this.running.values()].map((r) => r.lease);
      if (leases.length > 0) {
        await handBackJobs(db, this.workerId, leases);
        await announceJobs(db);
        this.log.warn({ jobs: leases.map((l) => l.id) }, 'grace period over: jobs handed back to the queue mid-iteration');
      }
    }
    await markWorkerStopped(db, this.workerId).catch(() => undefined);
    await this.listener.close();
    await this.pool.destroy();
    await this.reportPool.destroy();
    this.log.info({ worker: this.workerId }, 'supervisor stopped');
  }

  private async fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.filling = true;
    try {
      do {
        this.refill = false;
        while (!this.shutdown.signal.aborted && this.running.size < this.options.concurrency) {
          const job = await claimNextJob(this.options.db, this.workerId, this.leaseSeconds);
          if (!job) break;
          this.launch(job);
        }
      } while (this.refill && !this.shutdown.signal.aborted);
    } catch (error) {
      this.log.error({ err: error }, 'claiming jobs failed; will retry');
    } finally {
      this.filling = false;
    }
  }

  private launch(job: JobRow): void {
    const lease = { id: job.id, attempt: job.attempt };
    const slotKey = `${job.id}#${job.attempt}`;
    this.log.info({ job: job.id, attempt: job.attempt, campaign: job.campaign_id }, 'job claimed');
    const done = runJob(
      {
        db: this.options.db,
        pool: this.pool,
        reportPool: this.reportPool,
        logger: this.log,
        workerId: this.workerId,
        evaluatorOptions: this.options.evaluatorOptions,
        shutdown: this.shutdown.signal,
      },
      job,
    )
      .then((outcome) => this.log.info({ job: job.id, attempt: job.attempt, outcome }, 'job left its slot'))
      .catch((error) => this.log.error({ err: error, job: job.id }, 'job run crashed'))
      .finally(() => {
        // by attempt: a job parked to wait for results may be taken up again before this run returns
        this.running.delete(slotKey);
        void this.fill();
      });
    this.running.set(slotKey, { lease, done });
  }

  private async heartbeat(): Promise<void> {
    const { db } = this.options;
    try {
      const leases = [...this.running.values()].map((r) => r.lease);
      const lost = await renewLeases(db, this.workerId, leases, this.leaseSeconds);
      if (lost.length > 0) this.log.warn({ jobs: lost }, 'leases no longer held; those runs stop at their next write');
      await touchWorker(db, this.workerId, this.pool.backendInUse());
    } catch (error) {
      this.log.warn({ err: error }, 'heartbeat failed; retrying at the next beat');
    }
  }

  /**
   * Jobs whose lease lapsed (their worker died: killed, preempted, out of memory) go back to the
   * queue by themselves, after a backoff of 2^(attempt − 1) seconds up to a minute, and resume
   * after their last saved iteration on any worker; their campaign keeps running. After
   * `maxAttempts` such deaths, or past its timeout, a job fails (and a manual retry still works).
   * A waiting job with a batch past its deadline (optimizer.batch_deadline_hours) is queued again.
   */
  private async reap(): Promise<void> {
    const maxAttempts = this.options.maxAttempts ?? 5;
    try {
      await this.options.db.transaction(async (trx) => {
        for (const job of await overdueJobs(trx)) {
          // claims after a wait for results are not deaths of a worker
          const deaths = job.attempt - job.resumes;
          if (job.overdue === 'lease' && deaths < maxAttempts) {
            const delay = Math.min(60, 2 ** (deaths - 1));
            await requeueLapsed(trx, job.id, delay);
            await logJob(
              trx,
              job,
              'warning',
              `Worker ${job.worker_id} stopped renewing its lease (it crashed or lost the database); the job goes back to the queue ` +
                `and resumes after the last saved iteration in ${delay} s on any worker (attempt ${deaths + 1} of ${maxAttempts}).`,
            );
            await publishEvent(trx, kilnEvent('job.status', job, { status: 'queued', current_phase: 'queued' }));
            this.log.warn({ job: job.id, attempt: job.attempt }, 'lapsed job requeued');
            setTimeout(() => void this.fill(), delay * 1000 + 50).unref();
            continue;
          }
          const ending: JobEnding =
            job.overdue === 'lease'
              ? {
                  job: 'failed',
                  campaign: 'failed',
                  level: 'error',
                  message: `Worker ${job.worker_id} stopped renewing its lease (it crashed or lost the database), the job's attempt ${deaths} of ${maxAttempts} (KILN_MAX_ATTEMPTS); the job is failed. Retry it to resume after the last saved iteration.`,
                  error: 'lease lapsed',
                }
              : timedOut(job.timeout_seconds);
          await endJob(trx, job, null, ending);
          this.log.warn({ job: job.id, reason: job.overdue }, 'overdue job failed');
        }
      });
    } catch (error) {
      this.log.warn({ err: error }, 'looking for overdue jobs failed; retrying later');
    }
    try {
      // a waiting job holds no worker to notice its batch deadline: the sweep queues it
      await this.options.db.transaction(async (trx) => {
        for (const job of await jobsPastDeadline(trx)) {
          await wakeJob(
            trx,
            job,
            'A batch is past its deadline (optimizer.batch_deadline_hours); the job is queued to abandon its candidates without a result and go on.',
          );
        }
      });
    } catch (error) {
      this.log.warn({ err: error }, 'looking for batches past their deadline failed; retrying later');
    }
  }
}
