import { z } from 'zod';
import { mdlLimits } from './limits.js';

/**
 * The materials definition language (MDL): one zod schema gives the TypeScript types, the runtime
 * validation and the published JSON Schema (docs/mdl.schema.json). Structural rules live here;
 * rules that need the whole document (unique names, constraint expressions, budget arithmetic)
 * live in semantics.ts and report through the same error list; warnings about a valid document
 * that would spend its budget poorly live in preflight.ts.
 */

/** Names appear in constraint expressions and as CSV columns, so they are identifiers. */
const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: 'must start with a letter or underscore and contain only letters, digits and underscores',
  })
  .max(64);

const bounds = z.tuple([z.number(), z.number()]).describe('[lower, upper], inclusive; lower must not exceed upper (equal bounds fix the parameter)');

const scale = z.enum(['linear', 'log']).default('linear').describe('log searches the range evenly in log space; needs a positive lower bound');

const unit = z.string().max(64).optional().describe('unit of measure, for display only, e.g. "K" or "mol/L"');
const note = z.string().max(2000).optional().describe('free text for people; ignored by the optimizer');

const numericValues = z
  .array(z.number())
  .min(1)
  .max(1000)
  .optional()
  .describe('the only values the parameter takes (e.g. the sieve sizes a lab has), each within the bounds and distinct; not with step');

export const continuousParameterSchema = z
  .strictObject({
    name: identifier.describe('identifier used in constraint expressions and result columns'),
    type: z.literal('continuous'),
    bounds,
    scale,
    step: z
      .number()
      .positive()
      .optional()
      .describe(
        'the resolution a lab can set (e.g. 0.01 for a balance, 5 for a furnace in °C): proposals take the values lower + k·step; ' +
          'the step must divide upper − lower a whole number of times',
      ),
    values: numericValues,
    unit,
    description: note,
  })
  .describe('a real-valued parameter searched within its bounds');

export const integerParameterSchema = z
  .strictObject({
    name: identifier.describe('identifier used in constraint expressions and result columns'),
    type: z.literal('integer'),
    bounds: bounds.describe('[lower, upper], whole numbers, inclusive; lower must not exceed upper (equal bounds fix the parameter)'),
    scale,
    step: z.int().positive().optional().describe('proposals take the values lower + k·step; it must divide upper − lower'),
    values: numericValues,
    unit,
    description: note,
  })
  .describe('a whole-number parameter searched within its bounds');

export const categoricalParameterSchema = z
  .strictObject({
    name: identifier.describe('identifier used in result columns; categoricals cannot appear in constraints'),
    type: z.literal('categorical'),
    values: z
      .array(z.union([z.string().min(1).max(200), z.number()]))
      .min(1)
      .max(1000)
      .describe('the allowed values, each distinct'),
    description: note,
  })
  .describe('a choice among unordered values, e.g. a solvent or a dopant');

export const parameterSchema = z.discriminatedUnion('type', [continuousParameterSchema, integerParameterSchema, categoricalParameterSchema]);

export const objectiveSchema = z.strictObject({
  name: identifier.describe('identifier the evaluator reports the value under; distinct from parameter names'),
  direction: z.enum(['maximize', 'minimize']).describe('whether larger or smaller values are better'),
  unit,
  reference: z.number().optional().describe('worst acceptable value; the hypervolume reference point along this objective'),
  noise: z
    .union([
      z.boolean(),
      z.strictObject({
        sd: z.number().positive().describe("standard deviation of one measurement, in the objective's unit"),
      }),
    ])
    .optional()
    .describe(
      'measurement noise: true (noisy, size unknown: the model estimates it), {sd} (noisy, of this size), false (exact: ' +
        'never treated as noisy, no measurement repeated to check); absent: noisy when two measurements of one design ' +
        'disagree (one design is measured twice to check, unless the evaluator is builtin) or the fitted noise is material. ' +
        'A noisy campaign reports the front of ' +
        "the model's predictions, not of the raw measurements",
    ),
  description: note,
});

export const constraintSchema = z.strictObject({
  expression: z.string().min(1).max(mdlLimits.expressionCharacters).describe('an inequality or equality over parameter names, e.g. "x1 + 2*x2 <= 10"'),
  tolerance: z.number().positive().optional().describe('for == constraints: |left - right| <= tolerance counts as equal (default 1e-6)'),
  description: note,
});

export const outcomeSchema = z
  .strictObject({
    name: identifier.describe('identifier the evaluator reports the value under (in "outcomes"); distinct from other names'),
    unit,
    description: note,
  })
  .describe('a measured quantity that is not an objective, such as a cycle life to keep above a floor');

export const outcomeConstraintSchema = z
  .strictObject({
    expression: z.string().min(1).max(mdlLimits.expressionCharacters).describe('an inequality over outcome and objective names, e.g. "cycle_life >= 500"'),
    description: note,
  })
  .describe('a condition measured results must meet to count: only feasible evaluations enter the Pareto front');

export const stagnationSchema = z.strictObject({
  window: z.int().min(1).max(1000).default(10).describe('iterations to look back over'),
  tolerance: z.number().min(0).default(1e-5).describe('stop when the relative hypervolume improvement over the window is below this'),
  min_budget_share: z.number().min(0).max(1).default(0.5).describe('never stop for stagnation before this share of the budget is spent'),
});

export const optimizerSchema = z.strictObject({
  method: z
    .enum(['cma-es', 'nsga2', 'random', 'lhs'])
    .default('cma-es')
    .describe(
      'cma-es: GP surrogates with acquisition optimized by CMA-ES (see strategy); nsga2: the NSGA-II genetic ' +
        'algorithm, one generation per batch, for cheap evaluators and large budgets; random and lhs are baselines',
    ),
  strategy: z
    .enum(['auto', 'global', 'trust-region'])
    .default('auto')
    .describe(
      'for method cma-es: global fits one GP per objective to all data; trust-region runs several local ' +
        'regions with local GPs and Thompson-sampled batches (high dimensions, large budgets); auto picks ' +
        'trust-region from 20 encoded dimensions or above 600 evaluations, global otherwise',
    ),
  budget: z.int().min(1).max(1_000_000).describe('total number of evaluations allowed'),
  batch_size: z.int().min(1).max(1000).default(1).describe('candidates proposed and evaluated per iteration'),
  batch_deadline_hours: z
    .number()
    .positive()
    .max(8760)
    .optional()
    .describe(
      'external (ask/tell) campaigns: hours a batch may wait for its results; candidates still without a result then are ' +
        'abandoned (never measured, no failure) and the campaign goes on with a new batch. A late result corrects its candidate with PUT',
    ),
  seed: z
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional()
    .describe('makes the campaign reproducible; drawn at random when absent'),
  initial_samples: z
    .int()
    .min(1)
    .optional()
    .describe(
      'size of the initial Latin hypercube design (default 2 * (parameters + 1), at most half the budget; ' +
        'for nsga2 the batch size, its population); a design as large as the budget leaves nothing model-guided',
    ),
  max_failed_iterations: z
    .int()
    .min(0)
    .max(1000)
    .default(3)
    .describe('stop the campaign as failed after this many consecutive iterations in which every evaluation failed; ' + '0 never stops for failures'),
  replicates: z
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe(
      'measurements wanted of each design on the front of a noisy campaign: each model-guided batch gives up to a ' +
        'quarter of its candidates to re-measuring front designs that have fewer, the least certain first; default 1 (no repeats)',
    ),
  acquisition: z
    .enum(['auto', 'ehvi', 'parego'])
    .default('auto')
    .describe('auto: expected hypervolume improvement (exact up to 2 objectives, Monte Carlo beyond); parego: random Chebyshev scalarizations'),
  stagnation: stagnationSchema.optional().describe('early stop on a flat hypervolume; default window 10, tolerance 1e-5, after half the budget'),
});

export const builtinEvaluatorSchema = z.strictObject({
  type: z.literal('builtin'),
  name: z.string().min(1).max(100).describe('a domain simulator or a standard test problem, e.g. zdt1, dtlz2'),
  noise: z.number().min(0).max(1).optional().describe('relative standard deviation of seeded Gaussian noise'),
  seed: z
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
});

export const httpEvaluatorSchema = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }).describe('endpoint that receives a batch of candidates and returns their objectives'),
  headers: z.record(z.string(), z.string()).optional().describe('extra HTTP headers, e.g. an authorization token'),
  timeout_seconds: z.number().positive().max(3600).default(30).describe('per request'),
});

export const externalEvaluatorSchema = z.strictObject({
  type: z.literal('external'),
});

export const commandEvaluatorSchema = z.strictObject({
  type: z.literal('command'),
  command: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe('program and arguments; a string is split on whitespace, no shell is involved'),
  timeout_seconds: z.number().positive().max(86_400).default(300).describe('per evaluation'),
});

export const evaluatorSchema = z.discriminatedUnion('type', [builtinEvaluatorSchema, httpEvaluatorSchema, externalEvaluatorSchema, commandEvaluatorSchema]);

export const mdlSchema = z.strictObject({
  name: z.string().min(1).max(200).optional().describe('campaign title'),
  domain: z
    .string()
    .regex(/^[a-z][a-z0-9_-]*$/, { message: 'must be a lower-case slug such as water or battery' })
    .max(64)
    .optional()
    .describe('application area, e.g. water or battery'),
  description: z.string().max(10_000).optional(),
  tags: z.array(z.string().max(64)).max(50).optional(),
  version: z.union([z.string(), z.number()]).optional().describe('version of this campaign file, for its authors'),
  parameters: z.array(parameterSchema).min(1).max(1000).describe('the search space: names must be distinct'),
  objectives: z.array(objectiveSchema).min(1).max(50).describe('what the evaluator measures; names must be distinct'),
  constraints: z.array(constraintSchema).max(200).default([]).describe('feasibility rules over continuous and integer parameters'),
  outcomes: z.array(outcomeSchema).max(50).default([]).describe('measured quantities besides the objectives, for outcome constraints; names must be distinct'),
  outcome_constraints: z
    .array(outcomeConstraintSchema)
    .max(50)
    .default([])
    .describe('inequalities the measured outcomes and objectives must meet; the optimizer models each one'),
  optimizer: optimizerSchema,
  evaluator: evaluatorSchema.optional().describe('who measures candidates; absent means external (results are told back through the API)'),
});

export type Mdl = z.output<typeof mdlSchema>;
export type MdlInput = z.input<typeof mdlSchema>;
export type Parameter = z.output<typeof parameterSchema>;
export type ContinuousParameter = z.output<typeof continuousParameterSchema>;
export type IntegerParameter = z.output<typeof integerParameterSchema>;
export type CategoricalParameter = z.output<typeof categoricalParameterSchema>;
export type Objective = z.output<typeof objectiveSchema>;
export type Constraint = z.output<typeof constraintSchema>;
export type Outcome = z.output<typeof outcomeSchema>;
export type OutcomeConstraint = z.output<typeof outcomeConstraintSchema>;
export type Optimizer = z.output<typeof optimizerSchema>;
export type Evaluator = z.output<typeof evaluatorSchema>;
export type ParameterValue = number | string;
