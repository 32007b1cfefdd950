import { isFeasible } from '../engine/campaign/feasibility.js';
import { abandonedReason } from '../engine/campaign/result-status.js';
import type { Receipt } from '../engine/campaign/receipt.js';
import { initialState, warmStartRow } from '../engine/campaign/state.js';
import type { CampaignState, EvaluationRecord, Proposal } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import type { ExportDocument, ExportedEvaluation } from './export-schema.js';

/** Between the engine's state and the export document (export-schema.ts), both ways; pure. */

/** A result posted for a pending candidate (ask/tell) that its iteration has not taken yet. */
export interface PostedForPending {
  objectives: Record<string, number> | null;
  outcomes: Record<string, number> | null;
  error: string | null;
  abandoned?: boolean;
}

/**
 * The document's evaluations: the told ones in order (`feasible` judged against the MDL's outcome
 * constraints), then the pending batch with any result already posted for it.
 */
export function exportedEvaluations(
  mdl: Mdl,
  told: readonly EvaluationRecord[],
  pending: readonly Proposal[],
  posted: ReadonlyMap<string, PostedForPending>,
): ExportedEvaluation[] {
  const rows: ExportedEvaluation[] = told.map((e) => ({
    id: e.id,
    iteration: e.iteration,
    status: e.objectives === null ? 'failed' : 'completed',
    parameters: e.parameters,
    objectives: e.objectives,
    outcomes: e.outcomes ?? null,
    error: e.objectives === null ? (e.error ?? 'no result') : null,
    feasible: e.objectives === null ? null : isFeasible(mdl, e),
    abandoned: e.abandoned === true,
    external_id: e.externalId ?? null,
    off_plan: e.offPlan === true,
  }));
  for (const p of pending) {
    const result = posted.get(p.id);
    rows.push({
      id: p.id,
      iteration: p.iteration,
      status: 'pending',
      parameters: p.parameters,
      objectives: result?.objectives ?? null,
      outcomes: result?.outcomes ?? null,
      error: result?.error ?? null,
      feasible: null,
      abandoned: result?.abandoned ?? false,
      external_id: null,
      off_plan: false,
    });
  }
  return rows;
}

/** The told evaluations of a document, as the engine keeps them (pending ones left out). */
export function toldEvaluations(doc: Pick<ExportDocument, 'evaluations'>): EvaluationRecord[] {
  return doc.evaluations
    .filter((e) => e.status !== 'pending')
    .map((e) => ({
      id: e.id,
      iteration: e.iteration,
      parameters: e.parameters,
      objectives: e.status === 'completed' ? e.objectives : null,
      ...(e.status === 'completed' && e.outcomes ? { outcomes: e.outcomes } : {}),
      ...(e.status === 'failed' ? { error: e.abandoned ? abandonedReason(e.error ?? 'never measured') : (e.error ?? 'no result') } : {}),
      ...(e.status === 'failed' && e.abandoned ? { abandoned: true as const } : {}),
      ...(e.external_id !== null ? { externalId: e.external_id } : {}),
      ...(e.off_plan ? { offPlan: true as const } : {}),
    }));
}

/**
 * The engine state to continue from: the stored state with the told evaluations and the
 * convergence history put back; a campaign that never ran starts from its seed with its
 * iteration-0 rows as prior data.
 */
export function stateFromDocument(doc: ExportDocument, mdl: Mdl, idPrefix?: string): CampaignState {
  const evaluations = toldEvaluations(doc);
  if (doc.engine_state === null) {
    const warmStart = evaluations.filter((e) => e.iteration === 0).map((e) => warmStartRow(e));
    return initialState(mdl, { seed: doc.campaign.seed, warmStart, ...(idPrefix !== undefined ? { idPrefix } : {}) });
  }
  const engine = doc.engine_state as unknown as Omit<CampaignState, 'evaluations' | 'convergenceHistory'>;
  return { ...engine, evaluations, convergenceHistory: doc.iterations.map((i) => i.hypervolume) };
}

/** The receipts of the document's iterations, in order, for those that have one. */
export function documentReceipts(doc: Pick<ExportDocument, 'iterations'>): Receipt[] {
  return doc.iterations.flatMap((i) => (i.receipt ? [i.receipt as unknown as Receipt] : []));
}
