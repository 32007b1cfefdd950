import { z } from 'zod';
import { POSTED_STATUSES, RESULT_STATUSES } from '../engine/campaign/result-status.js';
import { mdlSchema } from '../engine/mdl/schema.js';
import { exportDocumentSchema } from '../service/export-schema.js';

/**
 * The API's request and response schemas. Requests are validated with them; the OpenAPI document
 * at /v1/openapi.json is generated from them, so the docs cannot drift from what is enforced.
 */

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, { message: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { message: `must be at least ${min}` })
        .max(max, { message: `must be at most ${max}` }),
    );

export const pageQuery = {
  page: wholeNumber(1, 1_000_000).optional().describe('1-based page; default 1'),
  per_page: wholeNumber(1, 100).optional().describe('items per page; default 20, at most 100'),
};

/** `sort` with a leading `-` for descending, over the listed fields. */
export function sortQuery(fields: readonly string[], fallback: string) {
  return z
    .string()
    .refine((s) => fields.includes(s.replace(/^-/, '')), { message: `must be one of ${fields.join(', ')}, optionally with a leading - for descending` })
    .optional()
    .describe(`sort field (${fields.join(', ')}); a leading - means descending; default ${fallback}`);
}

export function parseSort(sort: string | undefined, fallback: string): { column: string; descending: boolean } {
  const value = sort ?? fallback;
  return { column: value.replace(/^-/, ''), descending: value.startsWith('-') };
}

export const campaignStatus = z.enum(['created', 'running', 'completed', 'converged', 'failed', 'stopped']);
export const jobStatus = z.enum(['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled']);
const timestamp = z.iso.datetime();

export const campaignListQuery = z.object({
  status: campaignStatus.optional(),
  domain: z.string().max(64).optional(),
  sort: sortQuery(['created_at', 'started_at', 'updated_at', 'name', 'domain', 'status', 'budget', 'evaluations_completed', 'hypervolume'], '-created_at'),
  ...pageQuery,
});

export const createCampaignBody = z
  .strictObject({
    name: z
      .string()
      .min(1, { message: "is empty: give a name, or leave name out to use the MDL's (or template's)" })
      .max(200)
      .optional()
      .describe('required unless the MDL (or template) has a name'),
    domain: z
      .string()
      .min(1, { message: "is empty: give a domain such as water or battery, or leave domain out to use the MDL's" })
      .max(64)
      .optional()
      .describe('material domain, e.g. water or battery; from the MDL or template when absent'),
    // validated by validateMdl (built on mdlSchema), which reports semantic problems too
    mdl: z.unknown().optional().describe('form 1: the MDL document'),
    template_id: z
      .string()
      .min(1, { message: 'is empty: give a template id (tmpl_...) or slug such as water/desalination-membrane' })
      .max(200)
      .optional()
      .describe('form 2: a template id (tmpl_...) or slug'),
    overrides: z.record(z.string(), z.unknown()).optional().describe('form 2: members merged into the template MDL'),
    dataset_id: z
      .string()
      .min(1, { message: 'is empty: give a dataset id (ds_...) to warm-start from, or leave dataset_id out to start from an initial design' })
      .max(100)
      .optional()
      .describe('warm-start dataset (ds_...)'),
    id_column: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("with dataset_id: the dataset's column of sample ids, kept as each warm-start evaluation's external_id"),
  })
  .describe('Form 1 {name, domain, mdl, dataset_id?} or form 2 {template_id, name, overrides?, dataset_id?}; form 3 is multipart with an mdl_file part.');

export const createCampaignBodyDoc = createCampaignBody.extend({ mdl: mdlSchema.optional().describe('form 1: the MDL document') });

export const multipartCampaignBody = z.object({
  mdl_file: z.string().describe('MDL document, YAML or JSON (file part)'),
  name: z.string().optional(),
  domain: z.string().optional(),
  dataset_id: z.string().optional(),
  id_column: z.string().optional(),
});

export const startCampaignBody = z.strictObject({
  timeout_hours: z
    .number()
    .positive()
    .max(8760)
    .optional()
    .describe("job timeout, measuring the optimizer's own time (waits for external results are not counted); default 24"),
});

export const resultsQuery = z.object({
  pareto_only: z.enum(['true', 'false']).optional().describe('true: only Pareto-optimal evaluations; default false'),
  format: z.enum(['json', 'csv']).optional().describe('json (default) or csv'),
});

export const jobListQuery = z.object({
  campaign_id: z.string().max(100).optional(),
  status: jobStatus.optional(),
  sort: sortQuery(['created_at', 'started_at', 'finished_at', 'status'], '-created_at'),
  ...pageQuery,
});

export const logLevel = z.enum(['debug', 'info', 'warning', 'error']);

export const logsQuery = z.object({
  level: logLevel.optional().describe('minimum level; default debug'),
  since: timestamp.optional().describe('only entries after this ISO 8601 time'),
  tail: wholeNumber(1, 10_000).optional().describe('the last N entries; default 100'),
});

const objectiveValues = z.record(z.string(), z.unknown());

const resultMembers = {
  status: z
    .enum(POSTED_STATUSES)
    .optional()
    .describe('measured (the default when objectives are given; partial when some values are null), failed (with a reason), or abandoned: never measured'),
  objectives: objectiveValues.optional().describe('objective name → measured value; null (or NaN) where it was not measured'),
  outcomes: objectiveValues.optional().describe('outcome name → measured value, for campaigns that declare outcomes; null where not measured'),
  error: z
    .union([z.null(), z.literal(false), z.string().max(2000)])
    .optional()
    .describe('why the candidate could not be measured (a failure); null, false or "" beside values: no error'),
  reason: z.string().min(1).max(2000).optional().describe('why the candidate failed or was abandoned'),
};

export const postEvaluationsBody = z.strictObject({
  evaluations: z
    .array(
      z.strictObject({
        id: z.string().min(1).optional().describe('the candidate; leave it out for an off-plan experiment, which gives parameters'),
        parameters: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('an off-plan experiment: its inputs, every parameter of the MDL (Kiln did not propose it)'),
        ...resultMembers,
      }),
    )
    .min(1)
    .max(10_000),
});

export const postEvaluationsMultipart = z.object({
  file: z.string().describe('the filled worklist as CSV (binary part): id, then objective (and outcome) columns, optional status and reason'),
});

export const correctResultBody = z.strictObject({
  ...resultMembers,
  comment: z.string().min(1).max(2000).optional().describe('why the value is corrected, kept with the correction'),
});

/** A result's state, the same word everywhere: measured, partial (some values not measured), failed, abandoned (never measured). */
export const resultStatusSchema = z
  .enum(RESULT_STATUSES)
  .describe('measured (every objective and outcome), partial (some not measured), failed (no value), abandoned (never measured; no failure)');

const resultValuesSchema = z.object({
  status: resultStatusSchema,
  objectives: z.record(z.string(), z.number()).nullable(),
  outcomes: z.record(z.string(), z.number()).nullable(),
  error: z.string().nullable(),
});

export const correctionSchema = z.object({
  id: z.int(),
  evaluation_id: z.string(),
  previous: resultValuesSchema,
  corrected: resultValuesSchema,
  comment: z.string().nullable(),
  corrected_by: z.string().describe('the API key (or token) id that made it'),
  corrected_at: z.string(),
});

export const correctedResultSchema = z.object({
  evaluation_id: z.string(),
  changed: z.boolean().describe('false when the values were already these (nothing recorded)'),
  result: resultValuesSchema,
  correction: correctionSchema.nullable(),
});

export const correctionsQuery = z.strictObject({ evaluation_id: z.string().min(1).optional(), ...pageQuery });

// Response shapes (documentation).
const parameterValues = z.record(z.string(), z.union([z.number(), z.string()]));
export const campaignSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  domain: z.string(),
  status: campaignStatus,
  created_at: timestamp,
  started_at: timestamp.optional(),
  budget: z.int(),
  evaluations_completed: z.int(),
  parameters_count: z.int(),
  objectives_count: z.int(),
});
export const mdlWarningSchema = z
  .object({
    path: z.string().describe('member of the campaign MDL, e.g. constraints or optimizer.budget; "" for the whole document'),
    message: z.string(),
    line: z.int().optional().describe('1-based, when the MDL was uploaded as a file'),
    column: z.int().optional(),
  })
  .describe('a pre-flight warning: the campaign is valid but may spend its budget poorly');
export const campaignCreatedSchema = campaignSummarySchema.extend({
  warnings: z.array(mdlWarningSchema).describe('pre-flight warnings about the MDL; empty when none'),
});
export const campaignListItemSchema = campaignSummarySchema.extend({ current_iteration: z.int(), hypervolume: z.number(), pareto_size: z.int() });
export const campaignDetailSchema = campaignListItemSchema.extend({
  updated_at: timestamp,
  best_objectives: z.record(z.string(), z.number()),
  mdl: mdlSchema,
  dataset_id: z.string().nullable(),
  latest_job_id: z.string().nullable(),
  stop_message: z
    .string()
    .nullable()
    .describe('why the engine ended the campaign (budget spent, stagnation, repeated failures), in a sentence; null otherwise'),
});
const referenceDistanceSchema = z
  .object({
    evaluation_id: z
      .string()
      .describe("the feasible evaluation closest to the reference box (smallest worst gap in units of each objective's observed spread)"),
    distance: z
      .record(z.string(), z.number())
      .describe("objective name → how far that evaluation misses the objective's reference value, in its units (0 where met)"),
  })
  .describe('present only while no feasible evaluation is inside the reference box, i.e. while the hypervolume is 0');
const progressSchema = z.object({ iteration: z.int(), total_iterations: z.int(), evaluations_completed: z.int(), budget: z.int() });
export const jobListItemSchema = z.object({
  id: z.string(),
  campaign_id: z.string(),
  status: jobStatus,
  created_at: timestamp,
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  worker_id: z.string().nullable(),
  progress: progressSchema,
  retry_of: z.string().nullable(),
  cancel_requested: z.boolean(),
  pending_results: z
    .int()
    .optional()
    .describe(
      'while the job is waiting (an external campaign, holding no worker): candidates still without a result (of every pending batch, with asynchronous batches)',
    ),
});
export const jobDetailSchema = jobListItemSchema.extend({
  attempt: z.int(),
  timeout_hours: z.number(),
  error: z.string().nullable(),
  progress: progressSchema.extend({
    current_phase: z.string(),
    hypervolume: z.number(),
    best_objectives: z.record(z.string(), z.number()).describe('best value of each objective among the feasible evaluations'),
    feasible_evaluations: z.int().optional().describe('evaluations that succeeded and meet every outcome constraint'),
    reference_distance: referenceDistanceSchema.optional(),
  }),
  timing: z.object({ elapsed_seconds: z.number(), avg_iteration_seconds: z.number(), estimated_remaining_seconds: z.number() }),
});
export const logEntrySchema = z.object({ timestamp, level: logLevel, message: z.string() });
const resultRow = z.object({
  id: z.string(),
  parameters: parameterValues,
  objectives: z.record(z.string(), z.number()),
  outcomes: z.record(z.string(), z.number()).optional().describe('measured outcomes, when the campaign declares any'),
  iteration: z.int(),
  status: resultStatusSchema.extract(['measured', 'partial']).describe('measured, or partial: the values not measured are absent'),
  feasible: z.boolean().describe('meets every outcome constraint (always true for a campaign without them)'),
  is_pareto: z.boolean().describe("on the Pareto front of the feasible evaluations (in a noisy campaign: its design is on the model's front)"),
  predicted: z
    .record(z.string(), z.object({ mean: z.number(), sd: z.number() }))
    .optional()
    .describe("noisy campaigns: the model's in-sample prediction of each objective for this design, posterior mean and its sd"),
  design_id: z
    .string()
    .optional()
    .describe(
      'noisy campaigns: the design this measurement belongs to, named by the id of its first measurement; noiseless ones: on a pareto_front row measured more than once',
    ),
  measurements: z
    .int()
    .optional()
    .describe(
      'how many measurements the design has (noisy campaigns: every row, and on a pareto_front row the objectives are their mean; noiseless ones: a pareto_front row measured more than once with the same values)',
    ),
  external_id: z.string().optional().describe("a warm-start row's own sample id"),
  off_plan: z.literal(true).optional().describe('an experiment Kiln did not propose, told with its own parameters'),
});
const sha256 = z.string().describe('sha-256, hex, of a canonical JSON serialization (keys sorted, no spaces)');
const tensorDeviceSchema = z
  .object({
    vendor: z.string(),
    architecture: z.string(),
    device: z.string(),
    description: z.string(),
    software: z.boolean().describe("a software rasterizer (Mesa's lavapipe), not a GPU"),
  })
  .nullable()
  .describe('the GPU adapter of the webgpu backend, as it describes itself; null on the CPU backends (tensorflow, wasm, cpu)');
const receiptSchema = z.object({
  version: z.literal(1),
  iteration: z.int(),
  engine_version: z.string().nullable().describe("Kiln's package version that proposed the batch"),
  tensor_backend: z.string().nullable().describe('the tensor backend the step ran on (tensorflow, webgpu, wasm or cpu)'),
  tensor_device: tensorDeviceSchema
    .optional()
    .describe('the GPU adapter a webgpu step ran on; null on the CPU backends; absent in receipts stored before Kiln named it'),
  seed: z.object({
    campaign: z.int(),
    iteration: z.int().describe('derived from the campaign seed and the iteration'),
    plan: z.int().describe('seed of the model-fitting stream, drawn from the iteration seed'),
    propose: z.int().describe('seed of the acquisition stream, drawn from the iteration seed'),
    derivation: z.string(),
  }),
  strategy: z.string().describe('initial-design, random, lhs, global, trust-region or nsga2'),
  acquisition: z.string().describe('ehvi, mc-ehvi, nehvi (noisy EHVI), parego or thompson-hvi, each possibly constrained; none for model-free strategies'),
  evaluations_seen: z.int().describe('told evaluations (warm start, successes and failures) the step saw'),
  data_hash: sha256.describe('of the told evaluations in order: ids, iterations, parameters, objectives, outcomes, errors'),
  state_hash: sha256.describe('of the engine state the step started from'),
  mdl_hash: sha256.describe('of the campaign definition as run, defaults filled in'),
  proposals_hash: sha256.describe('of the proposals in order: ids, iterations, parameters'),
  asked: z
    .object({ count: z.int(), pending: z.int() })
    .optional()
    .describe('a batch asked for with candidates?count=N: the count, and the candidates still pending beside it (an asynchronous batch when any)'),
});
export const resultsSchema = z.object({
  pareto_front: z.array(resultRow),
  evaluations: z.array(resultRow).optional().describe('absent when pareto_only=true'),
  hypervolume: z.number().optional().describe("the headline: of the measured front, or in a noisy campaign of the predicted values of the model's front"),
  measured_hypervolume: z.number().optional().describe('of the raw feasible measurements; equal to hypervolume in a noiseless campaign'),
  noisy: z.boolean().optional().describe("whether the front and the headline hypervolume are the model's: the measurements are noisy"),
  noise_reason: z.string().nullable().optional().describe('why the campaign counts as noisy; null when it does not'),
  convergence_history: z.array(z.number()).optional(),
  reference_point: z.record(z.string(), z.number()).nullable().optional(),
  reference_distance: referenceDistanceSchema.optional(),
  strategy: z
    .object({ name: z.string(), reason: z.string() })
    .nullable()
    .optional()
    .describe('the strategy that proposes after the initial design (global, trust-region, nsga2, random, lhs) and why; null before the first step'),
  failed_evaluations: z
    .array(
      z.object({
        id: z.string(),
        iteration: z.int(),
        parameters: parameterValues,
        status: resultStatusSchema.extract(['failed', 'abandoned']),
        error: z.string().describe('why: the failure, or the reason the candidate was abandoned'),
        abandoned: z.literal(true).optional().describe('never measured; the same as status abandoned'),
        external_id: z.string().optional(),
      }),
    )
    .optional()
    .describe(
      'candidates without a value: failed (the evaluator or the lab could not score them) or abandoned (never measured); they count against the budget',
    ),
  iterations: z
    .array(
      z.object({
        iteration: z.int(),
        receipt: receiptSchema.nullable().describe('null for iterations stored before Kiln kept receipts'),
        evaluation_ids: z.array(z.string()).describe("the iteration's evaluations (failures included) in the order the engine was told them"),
      }),
    )
    .optional()
    .describe('each completed iteration with its reproducibility receipt; `kiln replay` proposes the batches again from them and the evaluations'),
});
const checkedPrediction = z.object({ id: z.string(), measured: z.number(), predicted: z.number(), sd: z.number() });
export const modelReportSchema = z.object({
  iteration: z.int().describe('completed iterations when the report was made'),
  evaluations: z.int().describe('successful evaluations of the campaign'),
  points: z.int().describe("evaluations the report's models saw: the most recent, at most 256"),
  outputs: z
    .array(
      z.object({
        name: z.string().describe("an objective's name, or an outcome constraint's expression"),
        kind: z.enum(['objective', 'constraint']),
        points: z.int(),
        r2: z.number().describe('of the leave-one-out predictions: 1 is perfect, 0 or below explains nothing'),
        mean_standardized_error: z.number().describe('mean of (measured − predicted) / sd: the bias; about 0 when unbiased'),
        rms_standardized_error: z.number().describe('about 1 when the intervals are calibrated'),
        coverage_68: z.number().describe('share of measurements within ±1 sd (calibrated: about 0.68)'),
        coverage_95: z.number().describe('share of measurements within ±1.96 sd (calibrated: about 0.95)'),
        predictions: z
          .array(checkedPrediction)
          .describe('leave-one-out prediction of each measurement (objectives in MDL units and direction; constraints as slack, ≥ 0 where it holds)'),
      }),
    )
    .describe('model check per objective and outcome constraint: each measurement predicted by the model fitted to the others'),
  importance: z
    .array(
      z.object({
        objective: z.string(),
        parameters: z.array(z.object({ name: z.string(), lengthscale_share: z.number(), total_sobol: z.number() })),
      }),
    )
    .describe("per objective: each parameter's share of the inverse lengthscales and its total Sobol index on the surrogate mean"),
  next: z
    .array(
      z.object({
        id: z.string(),
        iteration: z.int(),
        parameters: parameterValues,
        predicted: z.record(z.string(), z.object({ mean: z.number(), sd: z.number() })),
        probability_feasible: z.number(),
        expected_improvement: z.number().describe('expected hypervolume improvement over the feasible front, times probability_feasible'),
      }),
    )
    .describe('the candidates awaiting evaluation, as the model sees them'),
  message: z.string().optional().describe('why the report is empty, when it is'),
  computed_at: timestamp.nullable(),
});
export const candidateSchema = z.object({
  id: z.string(),
  iteration: z.int(),
  parameters: parameterValues,
  repeat_of: z
    .string()
    .optional()
    .describe(
      'present when the candidate repeats the parameters of a measured design: the id of its first measurement (the noise check, or optimizer.replicates)',
    ),
  note: z.string().optional().describe('why it is a repeat, and how to measure it (as a new sample)'),
});

export const postedResultsSchema = z.object({
  accepted: z.int().describe('results stored'),
  duplicates: z.int().describe('results already there, the same in every value: ignored'),
  awaiting: z.int().describe('pending candidates still without a result'),
  partial: z
    .array(z.object({ id: z.string(), missing: z.array(z.string()).describe('the objectives and outcomes it has no value for') }))
    .describe('each result stored as a partial measurement (a blank cell, a null): kept with the values it has, off the front until corrected'),
});
export const candidatesQuery = z.object({
  count: wholeNumber(1, 1000)
    .optional()
    .describe(
      'at most this many candidates, oldest first; when fewer wait for results and the budget allows, the job proposes the difference beside the pending ones (an asynchronous batch, conditioned on them) and a later call lists them',
    ),
});
export const candidatesMeta = z.object({
  state: z
    .enum(['awaiting_results', 'proposing', 'queued', 'not_started', 'ended'])
    .describe(
      'awaiting_results: the listed candidates wait for results; proposing: a worker is telling the last batch or proposing the next; queued: the job waits for a worker slot; not_started: the campaign is created or stopped; ended: it completed, converged or failed',
    ),
  pending_results: z.int().describe('candidates still without a result (of every pending batch, with asynchronous batches)'),
  queued_ahead: z.int().optional().describe('while queued: jobs that a free worker slot takes before this one (see the claim order)'),
  running_jobs: z.int().optional().describe('while queued: jobs holding worker slots now'),
  requested: z
    .int()
    .optional()
    .describe('candidates asked for with count that the job is still to propose beside the pending ones (an asynchronous batch); absent when none'),
  message: z.string().describe('the state in words, with what to do'),
});
export const pageMeta = z.object({ page: z.int(), per_page: z.int(), total: z.int(), total_pages: z.int() });
export const errorEnvelope = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});
const datasetIssue = z.object({ row: z.int().nullable(), column: z.string().nullable(), message: z.string() });
export const datasetSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  rows: z.int(),
  columns: z.array(z.string()),
  created_at: z.iso.datetime(),
  size_bytes: z.int(),
  format: z.enum(['csv', 'json', 'parquet']),
  validated: z.boolean().describe('whether the upload was checked against a linked MDL'),
  warnings: z.array(datasetIssue).describe('values outside the bounds of the linked MDL'),
  flagged_rows: z.array(z.object({ row: z.int(), reason: z.string() })).describe('rows with missing objective values, excluded from training'),
});
export const datasetDetailSchema = datasetSchema.extend({ preview: z.array(z.record(z.string(), z.unknown())) });
const fractions = z.record(z.string(), z.number());

export const materialSchema = z.object({
  id: z.string().describe('mat_…, stable for the same material'),
  source: z.enum(['catalog', 'computed']).describe('catalog: a curated entry with cited properties; computed: derived from the formula alone'),
  name: z.string().nullable(),
  applications: z.array(z.string()),
  formula: z.string(),
  reduced_formula: z.string().describe('Hill order, divided by the common divisor of whole-number counts'),
  elements: z.array(z.string()).describe('Hill order'),
  composition: fractions.describe('element → count per formula unit'),
  molar_mass: z.number().describe('g/mol, from the IUPAC 2021 standard atomic weights'),
  element_fractions: fractions.describe('atomic fractions'),
  weight_fractions: fractions.describe('mass fractions'),
  descriptors: z.object({
    atoms_per_formula_unit: z.number(),
    mean_atomic_mass: z.number(),
    mean_atomic_number: z.number(),
    mean_electronegativity: z.number().nullable().describe('Pauling; null where an element has no value'),
    electronegativity_difference: z.number().nullable().describe('max − min'),
    mean_atomic_radius: z.number().nullable().describe('pm'),
    mean_covalent_radius: z.number().nullable().describe('pm'),
  }),
  properties: z
    .record(z.string(), z.object({ value: z.union([z.number(), z.string()]), source: z.string() }))
    .describe('catalog properties (units in the name, e.g. band_gap_ev), each with its citation; empty for computed records'),
});
export const templateListItemSchema = z.object({
  id: z.string(),
  slug: z.string().describe('<domain>/<template-name>'),
  name: z.string(),
  domain: z.string(),
  description: z.string(),
  parameters_count: z.int(),
  objectives_count: z.int(),
  default_budget: z.int(),
  tags: z.array(z.string()),
  visibility: z.enum(['public', 'private', 'team']).describe('public: built-in; private: its creator; team: the organization'),
  builtin: z.boolean(),
  can_delete: z.boolean().describe('whether the caller may delete it: a custom template, by its creator or an admin'),
});
export const templateDetailSchema = templateListItemSchema.extend({ created_at: z.iso.datetime().nullable(), mdl: mdlSchema });
export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.enum(['ok', 'unavailable']),
  tensor_backend: z.string().describe("the backend this host's engine threads choose (tensorflow, webgpu, wasm or cpu)"),
  tensor_device: tensorDeviceSchema,
  workers: z.array(
    z.object({
      id: z.string(),
      hostname: z.string(),
      slots: z.int(),
      tensor_backend: z.string().nullable().describe('the backend its engine steps ran on; null until its first step'),
      tensor_device: tensorDeviceSchema,
      last_seen_at: timestamp,
    }),
  ),
});

/** What the import route takes before the document is read (its version first, then its shape). */
export const importBodyObject = z.record(z.string(), z.unknown());

/** POST /v1/campaigns/import: an export document, with optional replacements for its name and domain. */
export const importCampaignBody = exportDocumentSchema.extend({
  name: z.string().min(1).max(200).optional().describe("the new campaign's name (default: the document's)"),
  domain: z.string().min(1).max(64).optional().describe("the new campaign's domain (default: the document's, else the MDL's)"),
});
export { exportDocumentSchema };
export const importedCampaignSchema = campaignDetailSchema.extend({
  warnings: z.array(mdlWarningSchema).describe('pre-flight warnings about the MDL; empty when none'),
  imported: z.object({
    source_campaign_id: z.string().nullable().describe('the campaign exported, when it came from a Kiln service'),
    evaluations: z.int().describe('evaluations stored (completed and failed, warm-start rows included)'),
    iterations: z.int(),
    pending: z.int().describe('candidates of the unfinished iteration: evaluated first when the campaign starts, or listed for ask/tell'),
    evaluation_ids: z.record(z.string(), z.string()).describe("each evaluation's id in the document → its new id here"),
  }),
});
