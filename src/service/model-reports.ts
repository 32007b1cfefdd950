import type { ModelReport } from '../engine/diagnostics/report.js';
import { findModelReport } from '../store/model-reports.js';
import type { Db } from '../store/db.js';
import { getCampaign } from './campaigns.js';
import type { Principal } from './principal.js';

/**
 * A campaign's latest model report, as a worker computed it after an iteration; before the first
 * one, an empty report that says so. `computed_at` tells how fresh it is.
 */
export async function modelReportOf(db: Db, principal: Principal, id: string): Promise<ModelReport & { computed_at: string | null }> {
  const campaign = await getCampaign(db, principal, id);
  const stored = await findModelReport(db, principal.organizationId, campaign.id);
  if (stored) return { ...stored.report, computed_at: stored.computed_at.toISOString() };
  return {
    iteration: campaign.current_iteration,
    evaluations: campaign.evaluations_completed,
    points: 0,
    outputs: [],
    importance: [],
    next: [],
    message:
      campaign.status === 'created'
        ? 'The campaign has not started: its model report is computed after each iteration once it runs.'
        : 'No model report yet: a worker computes it after each iteration, from the fifth successful evaluation on.',
    computed_at: null,
  };
}
