import type { Executor } from './db.js';

/** What a result holds: measured values, or why there are none. */
export interface ResultValues {
  objectives: Record<string, number> | null;
  outcomes: Record<string, number> | null;
  error: string | null;
  abandoned: boolean;
}

/** One correction of a result: the values it replaced and the ones it set, by whom and when. */
export interface CorrectionRow {
  id: string;
  organization_id: string;
  campaign_id: string;
  evaluation_id: string;
  previous: ResultValues;
  corrected: ResultValues;
  reason: string | null;
  corrected_by: string;
  corrected_at: Date;
}

export async function insertCorrection(db: Executor, row: Omit<CorrectionRow, 'id' | 'corrected_at'>): Promise<CorrectionRow> {
  const [stored] = await db('evaluation_corrections')
    .insert({ ...row, previous: JSON.stringify(row.previous), corrected: JSON.stringify(row.corrected) })
    .returning('*');
  return stored;
}

/** The corrections of a campaign's results (of one evaluation when `evaluationId` is given), oldest first. */
export async function listCorrections(db: Executor, organizationId: string, campaignId: string, evaluationId?: string): Promise<CorrectionRow[]> {
  const query = db('evaluation_corrections').where({ organization_id: organizationId, campaign_id: campaignId });
  if (evaluationId !== undefined) void query.andWhere({ evaluation_id: evaluationId });
  return query.orderBy('id');
}
