import type { ModelReport } from '../engine/diagnostics/report.js';
import type { Db } from './db.js';

export interface ModelReportRow {
  campaign_id: string;
  organization_id: string;
  iteration: number;
  report: ModelReport;
  computed_at: Date;
}

/**
 * Stores a campaign's model report unless a report of a later iteration is already there (two
 * workers of a campaign handed over mid-report may finish out of order).
 */
export async function saveModelReport(db: Db, campaign: { id: string; organization_id: string }, report: ModelReport): Promise<void> {
  await db.raw(
    `INSERT INTO campaign_model_reports (campaign_id, organization_id, iteration, report, computed_at)
     VALUES (?, ?, ?, ?::jsonb, now())
     ON CONFLICT (campaign_id) DO UPDATE SET iteration = EXCLUDED.iteration, report = EXCLUDED.report, computed_at = EXCLUDED.computed_at
     WHERE campaign_model_reports.iteration <= EXCLUDED.iteration`,
    [campaign.id, campaign.organization_id, report.iteration, JSON.stringify(report)],
  );
}

/** The latest model report of a campaign of the organization, with when it was computed. */
export async function findModelReport(db: Db, organizationId: string, campaignId: string): Promise<Pick<ModelReportRow, 'report' | 'computed_at'> | undefined> {
  return db('campaign_model_reports').where({ campaign_id: campaignId, organization_id: organizationId }).first('report', 'computed_at');
}
