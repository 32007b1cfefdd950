import { randomInt } from 'node:crypto';
import { referenceDistance, type ReferenceDistance } from '../engine/campaign/reference-distance.js';
import { campaignResults, type CampaignResults } from '../engine/campaign/results.js';
import { iterationReceipts, type IterationReceipt } from '../engine/campaign/receipt.js';
import { resultsCsv } from '../engine/campaign/results-csv.js';
import { failedRows, type FailedRow } from '../engine/campaign/result-status.js';
import type { MdlIssue } from '../engine/mdl/issues.js';
import type { MdlResult } from '../engine/mdl/parse.js';
import { checkMdl } from './mdl-check.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { KilnError } from '../errors.js';
import { newId } from '../ids.js';
import { evaluationIdPrefix, loadCampaignState } from '../lifecycle/campaign-state.js';
import { requireWarmStartAccess, warmStartFrom } from './datasets.js';
import { applyOverrides } from './template-overrides.js';
import type { TemplateCatalog } from './templates.js';
import { announceCampaignStatus, announceStatus, endJob, logJob } from '../lifecycle/transitions.js';
import {
  countCampaignsWithStatus,
  deleteCampaign,
  findCampaign,
  insertCampaign,
  insertEvaluations,
  listCampaigns,
  loadIterations,
  markCampaignRunning,
  type CampaignRow,
  type CampaignStatus,
} from '../store/campaigns.js';
import type { Db } from '../store/db.js';
import { activeJob, findJobById, insertJob, latestJob, updateJob, type JobRow } from '../store/jobs.js';
import { announceJobs } from '../store/notify.js';
import { planLimits } from './plans.js';
import { hasScope, type Principal } from './principal.js';
import { campaignDetail, campaignListItem, campaignSummary, jobDetail } from './presenters.js';
import { insufficientScope, invalidState, notFound, validationFailed, type FieldError } from './validation.js';

/** The three creation forms (a JSON MDL, a template with overrides, an uploaded file), as the API hands them over. */
export type CreateCampaignInput =
  | { form: 'mdl'; name?: string; domain?: string; mdl: unknown; dataset_id?: string; id_column?: string }
  | { form: 'template'; template_id: string; name?: string; overrides?: unknown; dataset_id?: string; id_column?: string }
  | { form: 'file'; text: string; filename?: string; name?: string; domain?: string; dataset_id?: string; id_column?: string };

const DOMAIN_PATTERN = /^[a-z][a-z0-9_-]*$/;
const DEFAULT_TIMEOUT_HOURS = 24;

export async function createCampaign(db: Db, templates: TemplateCatalog, principal: Principal, input: CreateCampaignInput) {
  // the campaign holds the dataset's rows, and its results and export show them
  if (input.dataset_id !== undefined && !hasScope(principal, 'datasets:read')) {
    throw insufficientScope('datasets:read', 'Warm-starting from a dataset copies its rows into the campaign, where its results and export show them');
  }
  if (input.form === 'template') return createFromTemplate(db, templates, principal, input);
  const errors: FieldError[] = [];
  const warmStart = input.dataset_id !== undefined;
  const result: MdlResult =
    input.form === 'mdl'
      ? await checkMdl({ document: input.mdl, warmStart }, 'mdl')
      : await checkMdl({ text: input.text, format: formatOf(input.filename), warmStart }, 'the MDL file');
  const mdlPath = input.form === 'mdl' ? 'mdl' : 'mdl_file';
  if (!result.ok) {
    for (const issue of result.errors) {
      const position = issue.line !== undefined ? ` (line ${issue.line}, column ${issue.column})` : '';
      errors.push({ path: issue.path ? `${mdlPath}.${issue.path}` : mdlPath, message: issue.message + position });
    }
  }
  const mdl = result.ok ? result.mdl : null;
  const name = input.name ?? mdl?.name;
  const domain = input.domain ?? mdl?.domain;
  // A missing name or domain may be in the document; only say so once the document could be read.
  if (!name) {
    if (mdl) errors.push({ path: 'name', message: 'is required (or set name in the MDL)' });
  } else if (name.length > 200) errors.push({ path: 'name', message: 'must be at most 200 characters' });
  if (!domain) {
    if (mdl) errors.push({ path: 'domain', message: 'is required (or set domain in the MDL), e.g. water or battery' });
  } else if (!DOMAIN_PATTERN.test(domain) || domain.length > 64) errors.push({ path: 'domain', message: 'must be a lower-case slug such as water or battery' });
  if (errors.length > 0 || !mdl) throw validationFailed(errors);
  const campaign = await storeCampaign(db, principal, { name: name!, domain: domain!, mdl, dataset_id: input.dataset_id, id_column: input.id_column });
  return { ...campaign, warnings: result.ok ? result.warnings.map(presentWarning) : [] };
}

/** Form 2: the template's MDL with the overrides merged in, validated again. */
async function createFromTemplate(db: Db, templates: TemplateCatalog, principal: Principal, input: Extract<CreateCampaignInput, { form: 'template' }>) {
  const template = await templates.find(principal, input.template_id);
  if (!template) throw validationFailed([{ path: 'template_id', message: `unknown template ${input.template_id}` }]);
  const { document, errors } = applyOverrides(template.mdl, (input.overrides ?? {}) as Record<string, unknown>);
  if (errors.length > 0) throw validationFailed(errors);
  const result = await checkMdl({ document, warmStart: input.dataset_id !== undefined }, 'overrides');
  if (!result.ok) throw validationFailed(result.errors.map((e) => ({ path: e.path ? `overrides.${e.path}` : 'overrides', message: e.message })));
  const campaign = await storeCampaign(db, principal, {
    name: input.name ?? template.name,
    domain: template.domain,
    mdl: result.mdl,
    dataset_id: input.dataset_id,
    id_column: input.id_column,
  });
  return { ...campaign, warnings: result.warnings.map(presentWarning) };
}

/**
 * A pre-flight warning as the API shows it: `path` within the campaign's MDL (whichever form
 * brought it), with `line` and `column` when the MDL came as a file.
 */
function presentWarning(issue: MdlIssue): { path: string; message: string; line?: number; column?: number } {
  const { path, message, line, column } = issue;
  return { path, message, ...(line !== undefined ? { line, column } : {}) };
}

async function storeCampaign(db: Db, principal: Principal, input: { name: string; domain: string; mdl: Mdl; dataset_id?: string; id_column?: string }) {
  const { name, domain, mdl } = input;
  const warm = input.dataset_id !== undefined ? await warmStartFrom(db, principal, input.dataset_id, mdl, input.id_column) : null;

  const id = newId('camp_');
  const row = await db.transaction(async (trx) => {
    const row = await insertCampaign(trx, {
      id,
      organization_id: principal.organizationId,
      name,
      domain,
      status: 'created',
      mdl,
      seed: mdl.optimizer.seed ?? randomInt(0, 2 ** 31 - 1),
      budget: mdl.optimizer.budget,
      parameters_count: mdl.parameters.length,
      objectives_count: mdl.objectives.length,
      dataset_id: warm?.dataset_id ?? null,
      warm_start: warm
        ? {
            dataset_id: warm.dataset_id,
            rows: warm.rows.length,
            flagged: warm.flagged,
            failed: warm.failed,
            ...(input.id_column !== undefined ? { id_column: input.id_column } : {}),
            warnings: warm.warnings,
            warning_count: warm.warningCount,
          }
        : null,
    });
    // the rows are copied: deleting the dataset later leaves the campaign intact
    if (warm) {
      const prefix = `${evaluationIdPrefix(id)}w`;
      await insertEvaluations(
        trx,
        row,
        warm.rows.map((r, i) => ({
          id: `${prefix}${i + 1}`,
          iteration: 0,
          parameters: r.parameters,
          objectives: r.objectives,
          ...(r.outcomes ? { outcomes: r.outcomes } : {}),
          ...(r.objectives === null ? { error: r.error ?? 'failed (warm-start data)' } : {}),
          ...(r.externalId !== undefined ? { externalId: r.externalId } : {}),
        })),
        0,
      );
    }
    return row;
  });
  return campaignSummary(row);
}

function formatOf(filename: string | undefined): 'json' | 'yaml' | undefined {
  if (!filename) return undefined;
  if (/\.json$/i.test(filename)) return 'json';
  if (/\.ya?ml$/i.test(filename)) return 'yaml';
  return undefined;
}

export interface ListQuery {
  status?: CampaignStatus;
  domain?: string;
  sort: { column: string; descending: boolean };
  page: number;
  perPage: number;
}

export async function listCampaignsFor(db: Db, principal: Principal, query: ListQuery) {
  const { rows, total } = await listCampaigns(db, principal.organizationId, query);
  return { data: rows.map(campaignListItem), total };
}

export async function getCampaign(db: Db, principal: Principal, id: string): Promise<CampaignRow> {
  const campaign = await findCampaign(db, principal.organizationId, id);
  if (!campaign) throw notFound('campaign', id);
  return campaign;
}

export async function campaignDetailFor(db: Db, principal: Principal, id: string) {
  const [campaign, latest] = await Promise.all([findCampaign(db, principal.organizationId, id), latestJob(db, id)]);
  if (!campaign) throw notFound('campaign', id);
  return campaignDetail(campaign, latest?.id ?? null);
}

/**
 * Start (or resume a stopped or failed campaign, with a new timeout if given): queues a job; 409
 * from any other status, while a job is active, or over the plan's limit.
 */
export async function startCampaign(db: Db, principal: Principal, id: string, options: { timeoutHours?: number }) {
  const { campaign, job } = await db.transaction(async (trx) => {
    const campaign = await findCampaign(trx, principal.organizationId, id, { forUpdate: true });
    if (!campaign) throw notFound('campaign', id);
    if (campaign.status !== 'created' && campaign.status !== 'stopped' && campaign.status !== 'failed') {
      throw invalidState(`The campaign is ${campaign.status}; only a created, stopped or failed campaign can be started.`, campaign.status);
    }
    const active = await activeJob(trx, campaign.id);
    if (active) throw invalidState(`The campaign already has a ${active.status} job (${active.id}).`, campaign.status);
    await checkConcurrentLimit(trx, principal);
    const job = await queueJob(trx, campaign, options.timeoutHours ?? DEFAULT_TIMEOUT_HOURS, null);
    await markCampaignRunning(trx, campaign);
    await announceCampaignStatus(trx, campaign, 'running', job.id);
    await logJob(
      trx,
      job,
      'info',
      campaign.status === 'created' ? 'Queued; waiting for a worker.' : `Queued to resume the ${campaign.status} campaign with its saved history.`,
    );
    return { campaign: (await findCampaign(trx, principal.organizationId, id))!, job };
  });
  return { campaign: campaignDetail(campaign, job.id), job: jobDetail(job) };
}

export async function checkConcurrentLimit(db: Db, principal: Principal): Promise<void> {
  const limit = planLimits(principal.plan).concurrentCampaigns;
  if (limit === null) return;
  const running = await countCampaignsWithStatus(db, principal.organizationId, 'running');
  if (running >= limit) {
    throw new KilnError(
      'CONCURRENT_CAMPAIGN_LIMIT',
      `Your plan (${principal.plan}) runs at most ${limit} campaigns at once and ${running} are running; stop one or wait for it to finish.`,
      { limit },
    );
  }
}

export async function queueJob(db: Db, campaign: CampaignRow, timeoutHours: number, retryOf: string | null): Promise<JobRow> {
  const job = await insertJob(db, {
    id: newId('job_'),
    organization_id: campaign.organization_id,
    campaign_id: campaign.id,
    timeout_seconds: timeoutHours * 3600,
    retry_of: retryOf,
    progress: {
      iteration: campaign.current_iteration,
      total_iterations: 0,
      evaluations_completed: campaign.evaluations_completed,
      budget: campaign.budget,
      hypervolume: campaign.hypervolume,
      best_objectives: campaign.best_objectives,
    },
  });
  await announceStatus(db, job, 'queued', 'queued');
  await announceJobs(db);
  return job;
}

/** Stop: the running job finishes its current iteration, then job → cancelled, campaign → stopped. */
export async function stopCampaign(db: Db, principal: Principal, id: string) {
  const { campaign, job } = await db.transaction(async (trx) => {
    const campaign = await findCampaign(trx, principal.organizationId, id, { forUpdate: true });
    if (!campaign) throw notFound('campaign', id);
    const job = campaign.status === 'running' ? await activeJob(trx, campaign.id, { forUpdate: true }) : undefined;
    if (!job) throw invalidState(`The campaign is ${campaign.status}; only a running campaign can be stopped.`, campaign.status);
    const updated = await requestCancel(trx, job, 'Stop requested');
    return { campaign: (await findCampaign(trx, principal.organizationId, id))!, job: updated };
  });
  return { campaign: campaignDetail(campaign, job.id), job: jobDetail(job) };
}

/**
 * Cancels a queued job, or one waiting for external results, at once (no worker holds it); asks a
 * running one to stop after its current iteration.
 */
export async function requestCancel(db: Db, job: JobRow, reason: string): Promise<JobRow> {
  if (job.status === 'queued' || job.status === 'waiting') {
    const where = job.status === 'queued' ? 'while queued' : 'while it waited for results (those posted so far are kept)';
    await db.transaction((trx) =>
      endJob(trx, job, null, { job: 'cancelled', campaign: 'stopped', level: 'info', message: `${reason} ${where}; the job is cancelled.` }),
    );
  } else {
    await updateJob(db, job.id, { cancel_requested: true });
    await logJob(db, job, 'info', `${reason}; the job stops after its current iteration and keeps every result so far.`);
  }
  return (await findJobById(db, job.id))!;
}

export async function removeCampaign(db: Db, principal: Principal, id: string) {
  await db.transaction(async (trx) => {
    const campaign = await findCampaign(trx, principal.organizationId, id, { forUpdate: true });
    if (!campaign) throw notFound('campaign', id);
    // Its jobs go in the same statement (cascade), so no job row is touched apart from it: a worker
    // writing a log line and then its job would otherwise deadlock with this. The worker running it
    // finds its lease gone at its next write and stops without writing.
    await deleteCampaign(trx, principal.organizationId, id);
  });
  return { id, deleted: true };
}

export type ServiceResults = CampaignResults & {
  failed_evaluations: FailedRow[];
  iterations: IterationReceipt[];
  reference_distance?: ReferenceDistance;
};

export async function resultsOf(db: Db, principal: Principal, id: string): Promise<{ mdl: Mdl; results: ServiceResults }> {
  const campaign = await getCampaign(db, principal, id);
  const state = await loadCampaignState(db, campaign);
  requireWarmStartAccess(principal, state.evaluations, "its results list the dataset's rows");
  const receipts = new Map((await loadIterations(db, campaign.id)).map((row) => [row.iteration, row.receipt]));
  const failed = failedRows(state.evaluations);
  const iterations = iterationReceipts(state, (iteration) => receipts.get(iteration));
  const distance = referenceDistance(campaign.mdl, state);
  return {
    mdl: campaign.mdl,
    results: { ...campaignResults(campaign.mdl, state), failed_evaluations: failed, iterations, ...(distance ? { reference_distance: distance } : {}) },
  };
}

/** The results as CSV: the Pareto front, or every evaluation with the failed and abandoned ones (each row's state in a status column when some row is not fully measured). */
export function resultsAsCsv(mdl: Mdl, results: ServiceResults, paretoOnly: boolean): string {
  return paretoOnly ? resultsCsv(mdl, results.pareto_front) : resultsCsv(mdl, results.evaluations, results.failed_evaluations);
}
