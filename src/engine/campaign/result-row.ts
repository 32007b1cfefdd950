import type { ParameterValue } from '../mdl/schema.js';
import type { ResultStatus } from './result-status.js';

/** One evaluation as GET /v1/campaigns/{id}/results lists it. */
export interface ResultRow {
  id: string;
  parameters: Record<string, ParameterValue>;
  objectives: Record<string, number>;
  /** measured outcomes, present when the campaign declares any */
  outcomes?: Record<string, number>;
  iteration: number;
  /** measured (every objective and outcome), or partial (the values not measured are absent) */
  status: Extract<ResultStatus, 'measured' | 'partial'>;
  /** meets every outcome constraint (always true without them) */
  feasible: boolean;
  /** on the Pareto front of the feasible evaluations (in a noisy campaign: its design is on the model's front) */
  is_pareto: boolean;
  /**
   * noisy campaigns: the model's in-sample prediction of each objective for this design, the
   * posterior mean and its standard deviation in the objective's unit
   */
  predicted?: Record<string, { mean: number; sd: number }>;
  /**
   * noisy campaigns: the design this measurement belongs to, named by the id of its first
   * measurement; noiseless ones: on a front row whose design was measured more than once
   */
  design_id?: string;
  /**
   * how many measurements the design has: in noisy campaigns on every row (on a front row pooled
   * into `objectives`, their mean); in noiseless ones on a front row measured more than once
   */
  measurements?: number;
  /** the id it had where it came from (a warm-start row's sample id), when it had one */
  external_id?: string;
  /** an experiment Kiln did not propose, told with its own parameters */
  off_plan?: true;
}
