/**
 * Why a job's run stops before its campaign ends, thrown from inside the loop to runJob, which
 * ends the job accordingly (job-runner.ts).
 */

/** The supervisor is shutting down: the job goes back to the queue, not failed. */
export class Released extends Error {}

/** Someone stopped the campaign or cancelled the job: it ends cancelled after its current iteration. */
export class CancelRequested extends Error {}

/** The job's own time passed its timeout, seen by its worker at an iteration's start (the reaper sees it between). */
export class TimedOut extends Error {}
