import { z } from 'zod';

/**
 * The export document: one campaign as portable JSON, from GET /v1/campaigns/{id}/export or
 * `kiln export <run-folder>`, read back by POST /v1/campaigns/import and `kiln run --resume-from`.
 * It carries what continuing needs (the MDL, the seed, every evaluation, the engine state with
 * its pending batch) and what explains the past (each iteration's summary and receipt). Derived
 * data (the model report, results) are left out: they are recomputed where it lands.
 *
 * Schema only (no Node modules): the dashboard's types are derived from it.
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
  abandoned: z.boolean().default(false).describe('a failed one that was never measured (given up), which is no failure for the failure model'),
  external_id: z.string().max(200).nullable().default(null).describe("the id it had where it came from (a warm-start row's sample id)"),
  off_plan: z.boolean().default(false).describe('an experiment Kiln did not propose, told with its own parameters'),
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
    seed: z
      .int()
      .min(0)
      .max(2 ** 31 - 1),
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
export type ExportedEngineState = NonNullable<ExportDocument['engine_state']>;
