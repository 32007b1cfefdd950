import { initialState, warmStartRow } from '../engine/campaign/state.js';
import type { CampaignState } from '../engine/campaign/types.js';
import { loadEvaluations, loadIterations, type CampaignRow, type StoredEngineState } from '../store/campaigns.js';
import type { Db } from '../store/db.js';

/** Evaluation ids of a campaign: `eval_<the campaign id's random part>_<n>`, unique everywhere. */
export function evaluationIdPrefix(campaignId: string): string {
  return `eval_${campaignId.replace(/^camp_/, '')}_`;
}

/**
 * The engine state of a campaign rebuilt from its rows: evaluations and the convergence history
 * are tables, the rest is the stored engine_state. A campaign that never ran starts from its seed,
 * with any warm-start rows (iteration 0) as prior data.
 */
export async function loadCampaignState(db: Db, campaign: CampaignRow): Promise<CampaignState> {
  const evaluations = await loadEvaluations(db, campaign);
  if (campaign.engine_state === null) {
    const warmStart = evaluations.filter((e) => e.iteration === 0).map((e) => warmStartRow(e));
    return initialState(campaign.mdl, { seed: campaign.seed, warmStart, idPrefix: evaluationIdPrefix(campaign.id) });
  }
  const iterations = await loadIterations(db, campaign.id);
  return { ...campaign.engine_state, evaluations, convergenceHistory: iterations.map((i) => i.hypervolume) };
}

export function storedEngineState(state: CampaignState): StoredEngineState {
  const { evaluations: _evaluations, convergenceHistory: _history, ...rest } = state;
  return rest;
}
