import type { Executor } from './db.js';
import { pageOf } from './paging.js';

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

/** A page of a campaign's corrections (of one evaluation when `evaluationId` is given), oldest first, and their total. */
export async function listCorrections(
  db: Executor,
  organizationId: string,
  campaignId: string,
  request: { evaluationId?: string; page: number; perPage: number },
): Promise<{ rows: CorrectionRow[]; total: number }> {
  const query = db('evaluation_corrections').where({ organization_id: organizationId, campaign_id: campaignId });
  if (request.evaluationId !== undefined) void query.andWhere({ evaluation_id: request.evaluationId });
  return pageOf<CorrectionRow>(query, { sort: { column: 'id', descending: false }, page: request.page, perPage: request.perPage });
}

/** How many corrections one evaluation has. */
export async function countCorrections(db: Executor, campaignId: string, evaluationId: string): Promise<number> {
  const [{ count }] = (await db('evaluation_corrections').where({ campaign_id: campaignId, evaluation_id: evaluationId }).count({ count: '*' })) as [
    { count: number },
  ];
  return Number(count);
}
