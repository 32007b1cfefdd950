import type { Receipt } from '../engine/campaign/receipt.js';
import type { CampaignState, EvaluationRecord } from '../engine/campaign/types.js';
import type { Mdl, ParameterValue } from '../engine/mdl/schema.js';
import type { Executor } from './db.js';
import { pageOf, type PageRequest } from './paging.js';

export type CampaignStatus = 'created' | 'running' | 'completed' | 'converged' | 'failed' | 'stopped';

export interface CampaignRow {
  id: string;
  organization_id: string;
  name: string;
  domain: string;
  status: CampaignStatus;
  mdl: Mdl;
  seed: number;
  budget: number;
  parameters_count: number;
  objectives_count: number;
  evaluations_completed: number;
  current_iteration: number;
  hypervolume: number;
  pareto_size: number;
  best_objectives: Record<string, number>;
  engine_state: StoredEngineState | null;
  dataset_id: string | null;
  warm_start: WarmStartSummary | null;
  created_at: Date;
  started_at: Date | null;
  updated_at: Date;
}

/** Where a campaign's iteration-0 evaluations came from, for its detail and its job's log. */
export interface WarmStartSummary {
  dataset_id: string;
  rows: number;
  flagged: number;
  /** rows marked failed in the data (counted as failures by the failure model) */
  failed?: number;
  /** the dataset column whose values became the evaluations' external ids */
  id_column?: string;
  warnings: { row: number | null; column: string | null; message: string }[];
  warning_count: number;
}

/**
 * The engine's CampaignState without the parts kept as rows (evaluations, convergence history):
 * pending candidates, fitted hyperparameters, the reference point and counters.
 */
export type StoredEngineState = Omit<CampaignState, 'evaluations' | 'convergenceHistory'>;

/** One evaluation of a campaign, at its place (`position`) in the engine's order. */
export interface EvaluationRow {
  id: string;
  organization_id: string;
  campaign_id: string;
  position: number;
  iteration: number;
  parameters: Record<string, ParameterValue>;
  objectives: Record<string, number> | null;
  outcomes: Record<string, number> | null;
  error: string | null;
  /** never measured: given up by whoever measures */
  abandoned: boolean;
  /** the id it had where it came from (a warm-start row's sample id) */
  external_id: string | null;
  /** an experiment Kiln did not propose */
  off_plan: boolean;
  created_at: Date;
}

export interface IterationRow {
  campaign_id: string;
  iteration: number;
  organization_id: string;
  job_id: string | null;
  hypervolume: number;
  pareto_size: number;
  evaluated: number;
  failed: number;
  strategy: string;
  propose_seconds: number;
  evaluate_seconds: number;
  store_seconds: number;
  /** what proposed the iteration's batch (engine/campaign/receipt.ts); null for iterations stored before receipts */
  receipt: Receipt | null;
  created_at?: Date;
}

export interface CampaignFilter extends PageRequest {
  status?: CampaignStatus;
  domain?: string;
}

export async function insertCampaign(
  db: Executor,
  row: Omit<
    CampaignRow,
    | 'created_at'
    | 'updated_at'
    | 'started_at'
    | 'evaluations_completed'
    | 'current_iteration'
    | 'hypervolume'
    | 'pareto_size'
    | 'best_objectives'
    | 'engine_state'
  >,
): Promise<CampaignRow> {
  const [created] = await db('campaigns')
    .insert({ ...row, mdl: JSON.stringify(row.mdl), warm_start: row.warm_start === null ? null : JSON.stringify(row.warm_start) })
    .returning('*');
  return created;
}

export async function findCampaign(db: Executor, organizationId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<CampaignRow | undefined> {
  const query = db('campaigns').where({ organization_id: organizationId, id }).first();
  if (options.forUpdate) query.forUpdate();
  return withPendingInOrder(await query);
}

export async function findCampaignById(db: Executor, id: string): Promise<CampaignRow | undefined> {
  return withPendingInOrder(await db('campaigns').where({ id }).first());
}

/**
 * Parameter values keyed in the MDL's order. jsonb keeps an object's keys in an order of its own
 * (shorter first, then alphabetical), not the order they were written in, so every read of
 * stored parameter values puts them back in definition order.
 */
function inParameterOrder<T>(mdl: Mdl, values: Record<string, T>): Record<string, T> {
  const ordered: Record<string, T> = {};
  for (const p of mdl.parameters) if (Object.prototype.hasOwnProperty.call(values, p.name)) ordered[p.name] = values[p.name];
  for (const [name, value] of Object.entries(values)) if (!Object.prototype.hasOwnProperty.call(ordered, name)) ordered[name] = value;
  return ordered;
}

function withPendingInOrder(row: CampaignRow | undefined): CampaignRow | undefined {
  if (!row?.engine_state) return row;
  const pending = row.engine_state.pending.map((p) => ({ ...p, parameters: inParameterOrder(row.mdl, p.parameters) }));
  return { ...row, engine_state: { ...row.engine_state, pending } };
}

export async function listCampaigns(db: Executor, organizationId: string, filter: CampaignFilter): Promise<{ rows: CampaignRow[]; total: number }> {
  const base = db('campaigns').where({ organization_id: organizationId });
  if (filter.status) base.andWhere({ status: filter.status });
  if (filter.domain) base.andWhere({ domain: filter.domain });
  return pageOf<CampaignRow>(base, filter);
}

export async function updateCampaign(db: Executor, id: string, patch: Partial<Omit<CampaignRow, 'id' | 'organization_id' | 'warm_start'>>): Promise<void> {
  const { mdl, best_objectives, engine_state, ...values } = patch;
  await db('campaigns')
    .where({ id })
    .update({
      ...values,
      updated_at: db.fn.now(),
      ...('mdl' in patch ? { mdl: jsonOrNull(mdl) } : {}),
      ...('best_objectives' in patch ? { best_objectives: jsonOrNull(best_objectives) } : {}),
      ...('engine_state' in patch ? { engine_state: jsonOrNull(engine_state) } : {}),
    });
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

/** Marks a campaign running; its first start is when it started. */
export async function markCampaignRunning(db: Executor, campaign: Pick<CampaignRow, 'id' | 'started_at'>): Promise<void> {
  await db('campaigns')
    .where({ id: campaign.id })
    .update({ status: 'running', started_at: campaign.started_at ?? db.fn.now(), updated_at: db.fn.now() });
}

/**
 * Holds the campaign row for the caller's transaction, so that writes about it queue behind one
 * another. Lock order: a transaction that writes a campaign and its jobs takes the campaign row
 * first and job rows after it; two transactions taking them in opposite orders deadlock, and
 * Postgres ends that by aborting one of them.
 */
export async function lockCampaign(db: Executor, id: string): Promise<void> {
  await db('campaigns').where({ id }).forUpdate().first('id');
}

/** Deletes a campaign; its jobs, logs, evaluations and reports go with it (foreign keys cascade). */
export async function deleteCampaign(db: Executor, organizationId: string, id: string): Promise<boolean> {
  return (await db('campaigns').where({ organization_id: organizationId, id }).delete()) > 0;
}

export async function countCampaignsWithStatus(db: Executor, organizationId: string, status: CampaignStatus): Promise<number> {
  const [{ count }] = await db('campaigns').where({ organization_id: organizationId, status }).count({ count: '*' });
  return Number(count);
}

/** Every stored evaluation of a campaign, in the order the engine recorded them, parameters in MDL order. */
export async function loadEvaluations(db: Executor, campaign: Pick<CampaignRow, 'id' | 'mdl'>): Promise<EvaluationRecord[]> {
  const rows = await db('evaluations')
    .where({ campaign_id: campaign.id })
    .orderBy('position')
    .select('id', 'iteration', 'parameters', 'objectives', 'outcomes', 'error', 'abandoned', 'external_id', 'off_plan');
  return rows.map((r) => ({
    id: r.id,
    iteration: r.iteration,
    parameters: inParameterOrder(campaign.mdl, r.parameters),
    objectives: r.objectives,
    ...(r.outcomes !== null ? { outcomes: r.outcomes } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
    ...(r.abandoned ? { abandoned: true as const } : {}),
    ...(r.external_id !== null ? { externalId: r.external_id } : {}),
    ...(r.off_plan ? { offPlan: true as const } : {}),
  }));
}

/** The evaluations of a campaign at any of these parameter values (the same values, in any key order), in engine order. */
export async function evaluationsAt(
  db: Executor,
  campaignId: string,
  parameterSets: readonly Record<string, unknown>[],
): Promise<Pick<EvaluationRow, 'id' | 'parameters'>[]> {
  return db('evaluations')
    .where({ campaign_id: campaignId })
    .whereRaw('parameters = any(?::jsonb[])', [parameterSets.map((p) => JSON.stringify(p))])
    .orderBy('position')
    .select('id', 'parameters');
}

export async function countEvaluations(db: Executor, campaignId: string): Promise<number> {
  const [{ n }] = await db('evaluations').where({ campaign_id: campaignId }).count({ n: '*' });
  return Number(n);
}

/** Those of these evaluations that a campaign has stored, with their results. */
export async function findEvaluations(
  db: Executor,
  campaignId: string,
  ids: readonly string[],
): Promise<Pick<EvaluationRow, 'id' | 'iteration' | 'parameters' | 'objectives' | 'outcomes' | 'error' | 'abandoned'>[]> {
  return db('evaluations')
    .where({ campaign_id: campaignId })
    .whereIn('id', ids)
    .select('id', 'iteration', 'parameters', 'objectives', 'outcomes', 'error', 'abandoned');
}

/** Replaces a stored evaluation's measured values (a correction; the caller keeps the history). */
export async function updateEvaluationResult(
  db: Executor,
  campaignId: string,
  id: string,
  result: Pick<EvaluationRow, 'objectives' | 'outcomes' | 'error' | 'abandoned'>,
): Promise<void> {
  await db('evaluations')
    .where({ campaign_id: campaignId, id })
    .update({
      objectives: result.objectives === null ? null : JSON.stringify(result.objectives),
      outcomes: result.outcomes === null ? null : JSON.stringify(result.outcomes),
      error: result.error,
      abandoned: result.abandoned,
    });
}

export async function insertEvaluations(
  db: Executor,
  campaign: { id: string; organization_id: string },
  records: readonly EvaluationRecord[],
  firstPosition: number,
): Promise<void> {
  if (records.length === 0) return;
  await db('evaluations').insert(
    records.map((e, k) => ({
      id: e.id,
      organization_id: campaign.organization_id,
      campaign_id: campaign.id,
      position: firstPosition + k,
      iteration: e.iteration,
      parameters: JSON.stringify(e.parameters),
      objectives: e.objectives === null ? null : JSON.stringify(e.objectives),
      outcomes: e.outcomes ? JSON.stringify(e.outcomes) : null,
      error: e.error ?? null,
      abandoned: e.abandoned === true,
      external_id: e.externalId ?? null,
      off_plan: e.offPlan === true,
    })),
  );
}

export async function loadIterations(db: Executor, campaignId: string): Promise<IterationRow[]> {
  return db('campaign_iterations').where({ campaign_id: campaignId }).orderBy('iteration');
}

/** Rows per INSERT when many are written at once: Postgres takes at most 65535 bound values a statement. */
const ROWS_PER_INSERT = 1000;

/** Writes evaluations in order from `firstPosition`, many at a time (an imported campaign's history). */
export async function insertEvaluationsInChunks(
  db: Executor,
  campaign: { id: string; organization_id: string },
  records: readonly EvaluationRecord[],
  firstPosition: number,
): Promise<void> {
  for (let k = 0; k < records.length; k += ROWS_PER_INSERT) {
    await insertEvaluations(db, campaign, records.slice(k, k + ROWS_PER_INSERT), firstPosition + k);
  }
}

/** Writes iteration rows, many at a time (an imported campaign's history). */
export async function insertIterations(db: Executor, rows: readonly IterationRow[]): Promise<void> {
  for (let k = 0; k < rows.length; k += ROWS_PER_INSERT) {
    // as in insertIteration, pg writes each receipt object as JSON text
    await db('campaign_iterations').insert(rows.slice(k, k + ROWS_PER_INSERT));
  }
}

export async function insertIteration(db: Executor, row: IterationRow): Promise<void> {
  // pg writes a plain object (the receipt) as JSON text, which jsonb takes
  await db('campaign_iterations').insert(row);
}
