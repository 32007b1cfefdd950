import type { Mdl, ParameterValue } from '../mdl/schema.js';
import type { EvaluationRecord } from './types.js';

/**
 * The state of a result, one word for the API, the dashboard, the CSV exports, the job log and the
 * Python client: `measured` (every objective and outcome of the MDL), `partial` (some of them not
 * measured: kept with what it has, off the front), `failed` (no value: the evaluator or the lab
 * could not score it) and `abandoned` (never measured: given up, no failure for the failure
 * model). The `abandoned` flag is its source of truth; the reason is the error text as given.
 */
export const RESULT_STATUSES = ['measured', 'partial', 'failed', 'abandoned'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** What a client may say of a result it posts; `partial` follows from the values it leaves out. */
export const POSTED_STATUSES = ['measured', 'failed', 'abandoned'] as const;
export type PostedStatus = (typeof POSTED_STATUSES)[number];

/** A result's values as the engine, the store and a correction keep them. */
export interface ResultState {
  objectives: Record<string, number> | null;
  outcomes?: Record<string, number> | null;
  abandoned?: boolean;
}

/** The objectives and outcomes of the MDL a result has no value for (none for a failed or abandoned one). */
export function missingValues(mdl: Mdl, r: ResultState): string[] {
  if (r.objectives === null) return [];
  const outcomes = r.outcomes ?? {};
  return [
    ...mdl.objectives.filter((o) => !Number.isFinite(r.objectives![o.name])).map((o) => o.name),
    ...mdl.outcomes.filter((o) => !Number.isFinite(outcomes[o.name])).map((o) => o.name),
  ];
}

export function resultStatus(mdl: Mdl, r: ResultState): ResultStatus {
  if (r.abandoned) return 'abandoned';
  if (r.objectives === null) return 'failed';
  return missingValues(mdl, r).length > 0 ? 'partial' : 'measured';
}

/** A candidate with no value, as results list it apart from the scored rows. */
export interface FailedRow {
  id: string;
  iteration: number;
  parameters: Record<string, ParameterValue>;
  status: 'failed' | 'abandoned';
  /** why: the evaluator's or the lab's message, or the reason it was abandoned */
  error: string;
  /** never measured (given up by whoever measures); the same as status abandoned */
  abandoned?: true;
  /** a failed warm-start row's own id */
  external_id?: string;
}

/** The evaluations that have no value, in engine order. */
export function failedRows(evaluations: readonly EvaluationRecord[]): FailedRow[] {
  return evaluations
    .filter((e) => e.objectives === null)
    .map((e) => ({
      id: e.id,
      iteration: e.iteration,
      parameters: e.parameters,
      status: e.abandoned ? ('abandoned' as const) : ('failed' as const),
      error: e.error ?? 'no result',
      ...(e.abandoned ? { abandoned: true as const } : {}),
      ...(e.externalId !== undefined ? { external_id: e.externalId } : {}),
    }));
}

const LEGACY_PREFIX = 'abandoned: ';

/**
 * An abandoned candidate's reason read from a results payload or an export document written
 * before the flag alone marked it, which kept the reason behind an `abandoned: ` prefix too.
 */
export function abandonedReason(error: string): string {
  return error.startsWith(LEGACY_PREFIX) ? error.slice(LEGACY_PREFIX.length) : error;
}
