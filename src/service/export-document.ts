import { z } from 'zod';
import { isFeasible } from '../engine/campaign/feasibility.js';
import type { Receipt } from '../engine/campaign/receipt.js';
import { initialState } from '../engine/campaign/state.js';
import type { CampaignState, EvaluationRecord, Proposal } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';

/**
 * The export document: one campaign as portable JSON, from GET /v1/campaigns/{id}/export or
 * `kiln export <run-folder>`, read back by POST /v1/campaigns/import and `kiln run --resume-from`.
 * It carries what continuing needs (the MDL, the seed, every evaluation, the engine state with
 * its pending batch) and what explains the past (each iteration's summary and receipt). Derived
 * data (the model report, results) are left out: they are recomputed where it lands.
 */

export const EXPORT_VERSION = 1;

const values = z.record(z.string(), z.number());
const parameterValues = z.record(z.string(), z.union([z.number(), z.string()]));

export const exportedEvaluationSchema = z.object({
  id: z.string().min(1).max(200),
  iteration: z.int().min(0).describe('0: warm-start data; 1: the initial design; then one per batch'),
  status: z
    .enum(['completed', 'failed', 'pending'])
    .describe('pending: proposed in the unfinished iteration, not yet evaluated (objectives hold a result already posted for it, if any)'),
  parameters: parameterValues,
  objectives: values.nullable(),
  outcomes: values.nullable().default(null),
  error: z.string().max(10_000).nullable().default(null),
  feasible: z.boolean().nullable().default(null).describe('meets the outcome constraints; null unless completed'),
});

export const exportedIterationSchema = z.object({
  iteration: z.int().min(1),
  hypervolume: z.number(),
  pareto_size: z.int().min(0),
  evaluated: z.int().min(0),
  failed: z.int().min(0),
  strategy: z.string().max(200),
  propose_seconds: z.number().min(0).nullable().describe('null where the source did not time it (kiln run)'),
  evaluate_seconds: z.number().min(0).nullable(),
  store_seconds: z.number().min(0).nullable(),
  receipt: z
    .looseObject({ version: z.literal(1), iteration: z.int() })
    .nullable()
    .describe('the reproducibility receipt as recorded (kiln replay reads it); null for iterations from before receipts'),
});

/**
 * The engine state without the evaluations and convergence history (those are `evaluations` and
 * `iterations`). The members the import relies on are checked; the strategies' own state passes
 * through as recorded.
 */
export const exportedEngineStateSchema = z.looseObject({
  version: z.literal(1),
  seed: z.int(),
  iteration: z.int().min(0),
  pending: z.array(z.object({ id: z.string().min(1).max(200), iteration: z.int().min(1), parameters: parameterValues })),
  referencePoint: z.array(z.number()).nullable(),
  hyperparameters: z.array(z.unknown()).nullable(),
  status: z.enum(['running', 'completed', 'converged', 'failed']),
  stopReason: z.enum(['budget', 'stagnation', 'error']).nullable(),
  nextId: z.int().min(1),
  idPrefix: z.string().max(200).optional(),
});

export const exportDocumentSchema = z.object({
  kiln_export_version: z.literal(EXPORT_VERSION).describe('the document format; this Kiln reads version 1'),
  engine_version: z.string().max(100).describe('the Kiln version that exported it'),
  exported_at: z.iso.datetime({ offset: true }),
  source: z
    .object({ kind: z.enum(['service', 'kiln-run']), campaign_id: z.string().max(200).nullable() })
    .describe('where the campaign ran: a Kiln service (with its campaign id) or a local kiln run'),
  campaign: z.object({
    name: z.string().min(1).max(200),
    domain: z.string().max(64).nullable().describe('null for a kiln run whose MDL names none (the import then needs domain)'),
    status: z.enum(['created', 'running', 'completed', 'converged', 'failed', 'stopped']).describe('the status when exported'),
    seed: z.int().min(0).max(2 ** 31 - 1),
    mdl: z.record(z.string(), z.unknown()).describe('the MDL document as run (defaults filled in)'),
    warm_start: z.looseObject({}).nullable().default(null).describe('where the iteration-0 rows came from, as the campaign detail shows it'),
  }),
  evaluations: z.array(exportedEvaluationSchema).max(200_000).describe('in the order the engine was told them (its data order)'),
  iterations: z.array(exportedIterationSchema).max(100_000),
  engine_state: exportedEngineStateSchema.nullable().describe('null for a campaign that never ran'),
});

export type ExportDocument = z.output<typeof exportDocumentSchema>;
export type ExportedEvaluation = z.output<typeof exportedEvaluationSchema>;
export type ExportedIteration = z.output<typeof exportedIterationSchema>;
type ExportedEngineState = NonNullable<ExportDocument['engine_state']>;

/** A result posted for a pending candidate (ask/tell) that its iteration has not taken yet. */
export interface PostedForPending {
  objectives: Record<string, number> | null;
  outcomes: Record<string, number> | null;
  error: string | null;
}

/**
 * The document's evaluations: the told ones in order (`feasible` judged against the MDL's outcome
 * constraints), then the pending batch with any result already posted for it.
 */
export function exportedEvaluations(mdl: Mdl, told: readonly EvaluationRecord[], pending: readonly Proposal[], posted: ReadonlyMap<string, PostedForPending>): ExportedEvaluation[] {
  const rows: ExportedEvaluation[] = told.map((e) => ({
    id: e.id,
    iteration: e.iteration,
    status: e.objectives === null ? 'failed' : 'completed',
    parameters: e.parameters,
    objectives: e.objectives,
    outcomes: e.outcomes ?? null,
    error: e.objectives === null ? (e.error ?? 'no result') : null,
    feasible: e.objectives === null ? null : isFeasible(mdl, e),
  }));
  for (const p of pending) {
    const result = posted.get(p.id);
    rows.push({ id: p.id, iteration: p.iteration, status: 'pending', parameters: p.parameters, objectives: result?.objectives ?? null, outcomes: result?.outcomes ?? null, error: result?.error ?? null, feasible: null });
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
      ...(e.status === 'failed' ? { error: e.error ?? 'no result' } : {}),
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
    const warmStart = evaluations
      .filter((e) => e.iteration === 0 && e.objectives !== null)
      .map((e) => ({ id: e.id, parameters: e.parameters, objectives: e.objectives!, ...(e.outcomes ? { outcomes: e.outcomes } : {}) }));
    return initialState(mdl, { seed: doc.campaign.seed, warmStart, ...(idPrefix !== undefined ? { idPrefix } : {}) });
  }
  const engine = doc.engine_state as unknown as Omit<CampaignState, 'evaluations' | 'convergenceHistory'>;
  return { ...engine, evaluations, convergenceHistory: doc.iterations.map((i) => i.hypervolume) };
}

/** The receipts of the document's iterations, in order, for those that have one. */
export function documentReceipts(doc: Pick<ExportDocument, 'iterations'>): Receipt[] {
  return doc.iterations.flatMap((i) => (i.receipt ? [i.receipt as unknown as Receipt] : []));
}

export type { ExportedEngineState };
