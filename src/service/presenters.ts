import { timingOf } from '../lifecycle/progress.js';
import type { CampaignRow } from '../store/campaigns.js';
import type { JobRow, LogEntry } from '../store/jobs.js';

/** Resources as the API shows them: snake_case members, ISO 8601 timestamps, ids with their kind prefix. */

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function campaignSummary(c: CampaignRow) {
  return {
    id: c.id,
    name: c.name,
    domain: c.domain,
    status: c.status,
    created_at: iso(c.created_at),
    ...(c.started_at ? { started_at: iso(c.started_at) } : {}),
    budget: c.budget,
    evaluations_completed: c.evaluations_completed,
    parameters_count: c.parameters_count,
    objectives_count: c.objectives_count,
  };
}

export function campaignListItem(c: CampaignRow) {
  return { ...campaignSummary(c), current_iteration: c.current_iteration, hypervolume: c.hypervolume, pareto_size: c.pareto_size };
}

export function campaignDetail(c: CampaignRow, latestJobId: string | null) {
  return {
    ...campaignListItem(c),
    updated_at: iso(c.updated_at),
    best_objectives: c.best_objectives,
    mdl: c.mdl,
    dataset_id: c.dataset_id,
    latest_job_id: latestJobId,
    stop_message: c.status === 'running' ? null : (c.engine_state?.stopMessage ?? null),
  };
}

export function jobListItem(j: JobRow) {
  return {
    id: j.id,
    campaign_id: j.campaign_id,
    status: j.status,
    created_at: iso(j.created_at),
    started_at: iso(j.started_at),
    finished_at: iso(j.finished_at),
    worker_id: j.worker_id,
    progress: {
      iteration: j.progress.iteration ?? 0,
      total_iterations: j.progress.total_iterations ?? 0,
      evaluations_completed: j.progress.evaluations_completed ?? 0,
      budget: j.progress.budget ?? 0,
    },
    retry_of: j.retry_of,
    cancel_requested: j.cancel_requested,
    ...(j.status === 'waiting' ? { pending_results: j.pending_results ?? 0 } : {}),
  };
}

export function jobDetail(j: JobRow, now = new Date()) {
  const item = jobListItem(j);
  return {
    ...item,
    attempt: j.attempt,
    timeout_hours: j.timeout_seconds / 3600,
    error: j.error,
    progress: {
      ...item.progress,
      current_phase: j.phase,
      hypervolume: j.progress.hypervolume ?? 0,
      best_objectives: j.progress.best_objectives ?? {},
      ...(j.progress.feasible_evaluations !== undefined ? { feasible_evaluations: j.progress.feasible_evaluations } : {}),
      ...(j.progress.reference_distance ? { reference_distance: j.progress.reference_distance } : {}),
    },
    timing: timingOf(j, now),
  };
}

export function logEntry(e: LogEntry) {
  return { timestamp: e.timestamp.toISOString(), level: e.level, message: e.message };
}
