import type { EvaluationResult, Proposal } from '../engine/campaign/types.js';
import type { ParameterValue } from '../engine/mdl/schema.js';
import type { Executor } from './db.js';

/**
 * A result posted for an external (ask/tell) campaign's pending candidate. It waits here until the
 * job has all of its batch; the iteration's transaction then moves it into evaluations.
 */
export interface ExternalResultRow {
  campaign_id: string;
  candidate_id: string;
  organization_id: string;
  objectives: Record<string, number> | null;
  outcomes: Record<string, number> | null;
  error: string | null;
  /** never measured: given up by whoever measures */
  abandoned: boolean;
  /** an off-plan experiment's own inputs (null for a proposed candidate's result) */
  parameters?: Record<string, ParameterValue> | null;
  received_at: Date;
}

/** The ids of the candidates of a campaign that have a posted result. */
export async function receivedCandidateIds(db: Executor, campaignId: string): Promise<string[]> {
  const rows = await db('external_results').where({ campaign_id: campaignId }).select('candidate_id');
  return rows.map((r) => r.candidate_id);
}

export async function findPostedResult(
  db: Executor,
  campaignId: string,
  candidateId: string,
): Promise<Pick<ExternalResultRow, 'objectives' | 'outcomes' | 'error' | 'abandoned' | 'parameters'> | undefined> {
  return db('external_results')
    .where({ campaign_id: campaignId, candidate_id: candidateId })
    .first('objectives', 'outcomes', 'error', 'abandoned', 'parameters');
}

/** The off-plan experiments of a campaign, waiting or stored: their parameters and values. */
export async function offPlanResults(
  db: Executor,
  campaignId: string,
): Promise<{ parameters: Record<string, ParameterValue>; objectives: Record<string, number> | null; outcomes: Record<string, number> | null }[]> {
  const waiting = await db('external_results').where({ campaign_id: campaignId }).whereNotNull('parameters').select('parameters', 'objectives', 'outcomes');
  const stored = await db('evaluations').where({ campaign_id: campaignId, off_plan: true }).select('parameters', 'objectives', 'outcomes');
  return [...waiting.map((r) => ({ ...r, parameters: r.parameters! })), ...stored];
}

/** Replaces a posted result that no iteration has taken yet (a correction; the caller keeps the history). */
export async function updatePostedResult(
  db: Executor,
  campaignId: string,
  candidateId: string,
  result: Pick<ExternalResultRow, 'objectives' | 'outcomes' | 'error' | 'abandoned'>,
): Promise<void> {
  await db('external_results')
    .where({ campaign_id: campaignId, candidate_id: candidateId })
    .update({
      objectives: result.objectives === null ? null : JSON.stringify(result.objectives),
      outcomes: result.outcomes === null ? null : JSON.stringify(result.outcomes),
      error: result.error,
      abandoned: result.abandoned,
    });
}

export async function insertPostedResult(db: Executor, row: Omit<ExternalResultRow, 'received_at'>): Promise<void> {
  await db('external_results').insert({
    ...row,
    objectives: row.objectives === null ? null : JSON.stringify(row.objectives),
    outcomes: row.outcomes === null ? null : JSON.stringify(row.outcomes),
    parameters: row.parameters ? JSON.stringify(row.parameters) : null,
  });
}

/** Every result posted for a campaign and not yet taken by its iteration, by candidate id. */
export async function allPostedResults(
  db: Executor,
  campaignId: string,
): Promise<Pick<ExternalResultRow, 'candidate_id' | 'objectives' | 'outcomes' | 'error' | 'abandoned'>[]> {
  return db('external_results').where({ campaign_id: campaignId }).select('candidate_id', 'objectives', 'outcomes', 'error', 'abandoned');
}

/** How many of these candidates have a posted result. */
export async function countPostedResults(db: Executor, campaignId: string, candidateIds: readonly string[]): Promise<number> {
  const [{ n }] = await db('external_results').where({ campaign_id: campaignId }).whereIn('candidate_id', candidateIds).count({ n: '*' });
  return Number(n);
}

/**
 * The posted results for a batch, as the engine takes them, followed by the off-plan experiments
 * posted meanwhile (their own parameters with them).
 */
export async function postedResults(db: Executor, campaignId: string, proposals: readonly Proposal[]): Promise<EvaluationResult[]> {
  const rows = await db('external_results')
    .where({ campaign_id: campaignId })
    .where((q) => {
      void q
        .whereIn(
          'candidate_id',
          proposals.map((p) => p.id),
        )
        .orWhereNotNull('parameters');
    })
    .orderBy('received_at')
    .select('candidate_id', 'objectives', 'outcomes', 'error', 'abandoned', 'parameters');
  const ordered = [...rows.filter((r) => !r.parameters), ...rows.filter((r) => r.parameters)];
  return ordered.map((r) =>
    r.objectives !== null
      ? { id: r.candidate_id, objectives: r.objectives, ...(r.outcomes ? { outcomes: r.outcomes } : {}), ...(r.parameters ? { parameters: r.parameters } : {}) }
      : { id: r.candidate_id, error: r.error ?? 'no result', ...(r.abandoned ? { abandoned: true as const } : {}) },
  );
}

/** Results the iteration has stored as evaluations wait no longer. */
export async function deleteTakenResults(db: Executor, campaignId: string, candidateIds: readonly string[]): Promise<void> {
  await db('external_results').where({ campaign_id: campaignId }).whereIn('candidate_id', candidateIds).delete();
}
