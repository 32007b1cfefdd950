import type { ReferenceDistance } from './engine/campaign/reference-distance.js';
import type { ResultRow } from './engine/campaign/result-row.js';
import type { FailedRow } from './engine/campaign/result-status.js';
import type { ErrorBody } from './errors.js';

/**
 * The live events of a campaign and its jobs. Workers publish them through Postgres NOTIFY in the
 * same transaction as the change they describe, so an event is seen only once its change is
 * committed, by every API node, whichever host ran the job. This file imports types only, so the
 * dashboard reads the same definitions without bundling server code.
 */

/** `waiting`: an external campaign's job waits for results and holds no worker. */
export type JobStatusName = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
export type CampaignStatusName = 'created' | 'running' | 'completed' | 'converged' | 'failed' | 'stopped';
export type LogLevelName = 'debug' | 'info' | 'warning' | 'error';

/** A job's progress members, as GET /v1/jobs/{id} shows them. */
export interface ProgressFigures {
  iteration: number;
  total_iterations: number;
  evaluations_completed: number;
  budget: number;
  /** of the feasible Pareto front, in the campaign's reference-point units */
  hypervolume: number;
  best_objectives: Record<string, number>;
  /** evaluations that succeeded and meet every outcome constraint (absent in progress saved before outcome constraints) */
  feasible_evaluations?: number;
  /**
   * while no feasible evaluation is inside the reference box (hypervolume 0): the evaluation
   * closest to it and how far it misses each objective's reference; absent otherwise
   */
  reference_distance?: ReferenceDistance;
}

/**
 * What one stored iteration added, enough for a page holding the results to append instead of
 * re-reading them: the new scored rows (their `is_pareto` as of this iteration), the ids of earlier
 * rows the new ones pushed off the Pareto front (adding rows never puts an earlier row back on it),
 * the new failures, and the campaign's figures after the iteration.
 */
export interface IterationSummary {
  iteration: number;
  hypervolume: number;
  pareto_size: number;
  evaluations_completed: number;
  best_objectives: Record<string, number>;
  /** noisy campaigns: `hypervolume` is the model front's predicted one, this the raw measurements' */
  measured_hypervolume?: number;
  noisy?: boolean;
  /** as in the progress: present only while no feasible evaluation is inside the reference box */
  reference_distance?: ReferenceDistance;
  /**
   * absent when they would not fit in one event, and in a noisy campaign (every row's prediction
   * moves with each iteration): the page re-reads the results then
   */
  evaluations?: ResultRow[];
  left_pareto_front?: string[];
  /** the new candidates without a value: failed, or abandoned (`status` says which) */
  failed_evaluations?: FailedRow[];
}

export interface JobTiming {
  elapsed_seconds: number;
  avg_iteration_seconds: number;
  estimated_remaining_seconds: number;
}

/** Each event type's `data`. */
export interface KilnEventData {
  'job.status': { status: JobStatusName; current_phase: string };
  /** one per stored iteration */
  'job.progress': ProgressFigures & { current_phase: string; timing: JobTiming; summary: IterationSummary };
  'job.log': { timestamp: string; level: LogLevelName; message: string };
  'campaign.status': { status: CampaignStatusName };
}

export type KilnEventType = keyof KilnEventData;

/** An event as published: `organization_id` is for routing only, the hub strips it. */
export type KilnEvent = {
  [T in KilnEventType]: { type: T; job_id: string | null; campaign_id: string; organization_id: string; data: KilnEventData[T]; timestamp: string };
}[KilnEventType];

/** An event as a WebSocket client receives it. */
export type EventMessage = {
  [T in KilnEventType]: { type: T; job_id: string | null; campaign_id: string; data: KilnEventData[T]; timestamp: string };
}[KilnEventType];

/** Every message the WebSocket sends: events, and the replies to subscribe and unsubscribe. */
export type ServerMessage =
  | EventMessage
  | { type: 'subscribed'; job_id: string | null; campaign_id: string }
  | { type: 'unsubscribed'; job_id: string | null; campaign_id: string | null }
  | { type: 'error'; error: ErrorBody; request?: unknown };

/** The one way to make an event: `data` is checked against the type's payload. */
export function kilnEvent<T extends KilnEventType>(
  type: T,
  job: { id: string | null; organization_id: string; campaign_id: string },
  data: KilnEventData[T],
): KilnEvent {
  return { type, job_id: job.id, campaign_id: job.campaign_id, organization_id: job.organization_id, data, timestamp: new Date().toISOString() } as KilnEvent;
}

/** A received event to send on, without its routing member. */
export function eventMessage(event: KilnEvent): EventMessage {
  const { organization_id: _routing, ...message } = event;
  return message;
}
