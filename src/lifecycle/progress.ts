import { isFeasible } from '../engine/campaign/feasibility.js';
import { plannedIterations } from '../engine/campaign/progress.js';
import { referenceDistance } from '../engine/campaign/reference-distance.js';
import { completedEvaluations } from '../engine/campaign/state.js';
import type { CampaignState } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import type { JobProgress, JobRow } from '../store/jobs.js';

/** Progress of a job (iteration, evaluations, budget, phase, hypervolume, best objectives, distance to the reference box while it is 0), from its campaign state. */
export function progressOf(mdl: Mdl, state: CampaignState, best: Record<string, number>): JobProgress {
  const completed = completedEvaluations(state);
  const distance = referenceDistance(mdl, state);
  return {
    iteration: state.iteration,
    total_iterations: plannedIterations(mdl, state),
    evaluations_completed: completed.length,
    budget: mdl.optimizer.budget,
    hypervolume: state.convergenceHistory.at(-1) ?? 0,
    best_objectives: best,
    feasible_evaluations: completed.filter((e) => isFeasible(mdl, e)).length,
    ...(distance ? { reference_distance: distance } : {}),
  };
}

/** A job's timing (elapsed, average per iteration, estimated remaining seconds), from its measured iterations. */
export function timingOf(
  job: Pick<JobRow, 'started_at' | 'finished_at' | 'iterations_run' | 'iteration_seconds_total' | 'progress'>,
  now = new Date(),
): { elapsed_seconds: number; avg_iteration_seconds: number; estimated_remaining_seconds: number } {
  const end = job.finished_at ?? now;
  const elapsed = job.started_at ? Math.max(0, (end.getTime() - job.started_at.getTime()) / 1000) : 0;
  const avg = job.iterations_run > 0 ? job.iteration_seconds_total / job.iterations_run : 0;
  const left = job.finished_at ? 0 : Math.max(0, (job.progress.total_iterations ?? 0) - (job.progress.iteration ?? 0));
  return { elapsed_seconds: round(elapsed), avg_iteration_seconds: round(avg), estimated_remaining_seconds: round(avg * left) };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
