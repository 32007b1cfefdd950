import type { EvaluationResult, Proposal } from '../engine/campaign/types.js';
import type { Db } from '../store/db.js';

/**
 * Results posted for an external (ask/tell) campaign wait in `external_results` until the job
 * has all of its batch; the iteration's transaction then moves them into evaluations.
 */
export async function postedResults(db: Db, campaignId: string, proposals: readonly Proposal[]): Promise<EvaluationResult[]> {
  const rows = (await db('external_results')
    .where({ campaign_id: campaignId })
    .whereIn('candidate_id', proposals.map((p) => p.id))
    .select('candidate_id', 'objectives', 'outcomes', 'error')) as {
    candidate_id: string;
    objectives: Record<string, number> | null;
    outcomes: Record<string, number> | null;
    error: string | null;
  }[];
  return rows.map((r) =>
    r.objectives !== null
      ? { id: r.candidate_id, objectives: r.objectives, ...(r.outcomes ? { outcomes: r.outcomes } : {}) }
      : { id: r.candidate_id, error: r.error ?? 'no result' },
  );
}
