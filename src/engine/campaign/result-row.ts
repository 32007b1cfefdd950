import type { ParameterValue } from '../mdl/schema.js';

/** One evaluation as GET /v1/campaigns/{id}/results lists it. */
export interface ResultRow {
  id: string;
  parameters: Record<string, ParameterValue>;
  objectives: Record<string, number>;
  /** measured outcomes, present when the campaign declares any */
  outcomes?: Record<string, number>;
  iteration: number;
  /** meets every outcome constraint (always true without them) */
  feasible: boolean;
  /** on the Pareto front of the feasible evaluations */
  is_pareto: boolean;
  /** the id it had where it came from (a warm-start row's sample id), when it had one */
  external_id?: string;
  /** an experiment Kiln did not propose, told with its own parameters */
  off_plan?: true;
}
