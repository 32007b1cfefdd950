import type { CampaignState, EvaluationRecord, Proposal } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import type { Executor } from '../store/db.js';
import { receivedCandidateIds } from '../store/external-results.js';

/**
 * The batch and budget rules of a campaign, for the API (posting results, asking for candidates)
 * and the job that tells and proposes alike. Batches complete in their order: the earliest
 * pending iteration's candidates are told together once each has a result.
 */

/** The candidates of the earliest pending iteration (none when nothing is pending). */
export function earliestBatch(pending: readonly Proposal[]): Proposal[] {
  if (pending.length === 0) return [];
  const earliest = Math.min(...pending.map((p) => p.iteration));
  return pending.filter((p) => p.iteration === earliest);
}

/**
 * Evaluations the budget still allows beyond what is done and pending: every evaluation of an
 * iteration (failed and abandoned ones too, warm-start rows not) and every pending candidate count.
 */
export function budgetLeft(mdl: Mdl, completed: number, pending: number): number {
  return Math.max(0, mdl.optimizer.budget - completed - pending);
}

/** The rows a tell added to the state: the batch's new evaluations (off-plan experiments included). */
export function newRows(before: CampaignState, after: CampaignState): EvaluationRecord[] {
  return after.evaluations.slice(before.evaluations.length);
}

/** How the pending candidates stand: how many still await a result, and whether the earliest batch has all of its own. */
export interface PendingResults {
  awaiting: number;
  earliestComplete: boolean;
}

export async function pendingResults(db: Executor, campaignId: string, pending: readonly Proposal[]): Promise<PendingResults> {
  const received = new Set(await receivedCandidateIds(db, campaignId));
  return {
    awaiting: pending.filter((p) => !received.has(p.id)).length,
    earliestComplete: earliestBatch(pending).every((p) => received.has(p.id)),
  };
}
