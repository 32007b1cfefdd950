import type { Context } from 'koa';
import { z } from 'zod';
import {
  campaignDetailFor,
  createCampaign,
  listCampaignsFor,
  removeCampaign,
  resultsAsCsv,
  resultsOf,
  startCampaign,
  stopCampaign,
  type CreateCampaignInput,
} from '../../service/campaigns.js';
import {
  correctionsOf,
  correctResult,
  listCandidates,
  MAX_CORRECTIONS,
  postEvaluations,
  postEvaluationsCsv,
  worklistOf,
  type ResultEntry,
} from '../../service/external.js';
import { modelReportOf } from '../../service/model-reports.js';
import { checkExportVersion, exportCampaign, importCampaign } from '../../service/portable.js';
import { validationFailed } from '../../service/validation.js';
import type { TemplateCatalog } from '../../service/templates.js';
import type { Db } from '../../store/db.js';
import type { MultipartForm } from '../multipart-form.js';
import { pageMeta, paging, parseOrFail, type RouteTable } from '../route.js';
import * as s from '../schemas.js';

const tag = 'Campaigns';

/** An export document holds every evaluation and receipt: far more than the API's usual 2 MB. */
const IMPORT_LIMIT_BYTES = 32 * 1024 * 1024;

export function campaignRoutes(table: RouteTable, db: Db, templates: TemplateCatalog): void {
  table.add({
    method: 'post',
    path: '/campaigns',
    operationId: 'createCampaign',
    tag,
    summary: 'Create a campaign',
    description:
      'Three forms (exactly one): JSON {name, domain, mdl, dataset_id?}; JSON {template_id, name, overrides?, dataset_id?}; or multipart/form-data with a file part mdl_file (YAML or JSON) and optional name, domain, dataset_id fields. Every validation problem is listed with its path; a created campaign carries the pre-flight warnings about its MDL (a small feasible region, a fixed parameter, a budget spent on the initial design, an unreachable reference).',
    scope: 'campaigns:write',
    rateLimit: { perMinute: 10 },
    body: s.createCampaignBody,
    bodyDoc: s.createCampaignBodyDoc,
    multipart: s.multipartCampaignBody,
    responses: { 201: { description: 'created', data: s.campaignCreatedSchema } },
    handle: async ({ ctx, body, principal }) => ({ status: 201, data: await createCampaign(db, templates, principal, creationInput(ctx, body)) }),
  });

  table.add({
    method: 'post',
    path: '/campaigns/import',
    operationId: 'importCampaign',
    tag,
    summary: 'Import a campaign from an export document',
    description:
      'Creates a new campaign in your organization, with new ids, from the document GET /v1/campaigns/{id}/export (or kiln export <run-folder>) wrote: created when it never ran, stopped when it ran (start it to continue; its pending batch is evaluated first, or listed for ask/tell with the results already posted for it), completed or converged when it had ended so. The MDL is validated again, and every evaluation must fit its parameters, objectives and outcomes; each problem is listed with its path in the document. Bodies up to 32 MB.',
    scope: 'campaigns:write',
    rateLimit: { perMinute: 10 },
    body: s.importBodyObject,
    bodyDoc: s.importCampaignBody,
    jsonLimitBytes: IMPORT_LIMIT_BYTES,
    responses: { 201: { description: 'created', data: s.importedCampaignSchema } },
    handle: async ({ body, principal }) => {
      checkExportVersion(body);
      const { name, domain, ...document } = parseOrFail(s.importCampaignBody, body, '');
      return { status: 201, data: await importCampaign(db, principal, { document, name, domain }) };
    },
  });

  table.add({
    method: 'get',
    path: '/campaigns/{campaign_id}/export',
    operationId: 'exportCampaign',
    tag,
    summary: 'Export a campaign as one JSON document',
    description:
      'The MDL, seed and status, every evaluation (completed, failed and pending, with outcomes and feasibility), each iteration with its receipt, and the engine state: what POST /v1/campaigns/import (on this or another Kiln) and kiln run --resume-from need to continue it. A running campaign is exported as of its last stored iteration. The document is the response body itself (no envelope), served as an attachment.',
    scope: 'campaigns:read',
    rateLimit: { perMinute: 10 },
    responses: { 200: { description: 'the export document (not wrapped in data)', data: s.exportDocumentSchema, bare: true } },
    handle: async ({ ctx, params, principal }) => {
      const document = await exportCampaign(db, principal, params.campaign_id);
      ctx.status = 200;
      ctx.type = 'application/json; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${params.campaign_id}-export.json"`);
      ctx.body = document;
    },
  });

  table.add({
    method: 'get',
    path: '/campaigns',
    operationId: 'listCampaigns',
    tag,
    summary: 'List campaigns',
    scope: 'campaigns:read',
    query: s.campaignListQuery,
    responses: { 200: { description: 'a page of campaigns', data: s.campaignListItemSchema, list: true } },
    handle: async ({ query, principal }) => {
      const { page, perPage } = paging(query);
      const { data, total } = await listCampaignsFor(db, principal, {
        status: query.status,
        domain: query.domain,
        sort: s.parseSort(query.sort, '-created_at'),
        page,
        perPage,
      });
      return { data, meta: pageMeta(page, perPage, total) };
    },
  });

  table.add({
    method: 'get',
    path: '/campaigns/{campaign_id}',
    operationId: 'getCampaign',
    tag,
    summary: 'Campaign detail',
    scope: 'campaigns:read',
    responses: { 200: { description: 'the campaign', data: s.campaignDetailSchema } },
    handle: async ({ params, principal }) => ({ data: await campaignDetailFor(db, principal, params.campaign_id) }),
  });

  table.add({
    method: 'post',
    path: '/campaigns/{campaign_id}/start',
    operationId: 'startCampaign',
    tag,
    summary: 'Start (or resume) a campaign',
    description:
      'Queues a job. Allowed from created, stopped and failed (a stopped or failed campaign resumes with its history, under the timeout given here); otherwise 409.',
    scope: 'campaigns:write',
    rateLimit: { perMinute: 5 },
    body: s.startCampaignBody,
    responses: { 202: { description: 'queued', data: z.object({ campaign: s.campaignDetailSchema, job: s.jobDetailSchema }) } },
    handle: async ({ params, body, principal }) => ({
      status: 202,
      data: await startCampaign(db, principal, params.campaign_id, { timeoutHours: body.timeout_hours }),
    }),
  });

  table.add({
    method: 'post',
    path: '/campaigns/{campaign_id}/stop',
    operationId: 'stopCampaign',
    tag,
    summary: 'Stop a running campaign after its current iteration',
    scope: 'campaigns:write',
    responses: { 202: { description: 'stop requested', data: z.object({ campaign: s.campaignDetailSchema, job: s.jobDetailSchema }) } },
    handle: async ({ params, principal }) => ({ status: 202, data: await stopCampaign(db, principal, params.campaign_id) }),
  });

  table.add({
    method: 'delete',
    path: '/campaigns/{campaign_id}',
    operationId: 'deleteCampaign',
    tag,
    summary: 'Delete a campaign with its evaluations, jobs and logs',
    scope: 'campaigns:delete',
    responses: { 200: { description: 'deleted', data: z.object({ id: z.string(), deleted: z.literal(true) }) } },
    handle: async ({ params, principal }) => ({ data: await removeCampaign(db, principal, params.campaign_id) }),
  });

  table.add({
    method: 'get',
    path: '/campaigns/{campaign_id}/results',
    operationId: 'getResults',
    tag,
    summary: 'Results: Pareto front, evaluations, hypervolume and its history',
    description:
      'format=csv returns text/csv (header id,iteration,is_pareto,<parameters>,<objectives>; a noisy campaign adds ' +
      'measurements,<objective>_predicted,<objective>_sd) as an attachment, without the envelope.',
    scope: 'campaigns:read',
    rateLimit: { perMinute: 60 },
    query: s.resultsQuery,
    responses: { 200: { description: 'results', data: s.resultsSchema, content: 'text/csv' } },
    handle: async ({ ctx, params, query, principal }) => {
      const { mdl, results } = await resultsOf(db, principal, params.campaign_id);
      const paretoOnly = query.pareto_only === 'true';
      if (query.format === 'csv') {
        ctx.status = 200;
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${params.campaign_id}-results.csv"`);
        ctx.body = resultsAsCsv(mdl, results, paretoOnly);
        return;
      }
      return { data: paretoOnly ? { pareto_front: results.pareto_front } : results };
    },
  });

  table.add({
    method: 'get',
    path: '/campaigns/{campaign_id}/model',
    operationId: 'getModelReport',
    tag,
    summary: 'Model report: leave-one-out check, parameter importance, and the next candidates as the model sees them',
    description:
      'Computed by a worker after each iteration (never delaying the next batch), on GPs fitted to the most recent 256 successful evaluations. Before the first report, the lists are empty and message says why.',
    scope: 'campaigns:read',
    responses: { 200: { description: 'the latest model report', data: s.modelReportSchema } },
    handle: async ({ params, principal }) => ({ data: await modelReportOf(db, principal, params.campaign_id) }),
  });

  table.add({
    method: 'get',
    path: '/campaigns/{campaign_id}/candidates',
    operationId: 'listCandidates',
    tag,
    summary: 'Candidates awaiting results (external ask/tell campaigns)',
    scope: 'campaigns:read',
    description:
      'The list is empty while no candidate waits for a result; `meta.state` says why (proposing, queued and behind how many jobs, not started, ended). ' +
      'With `count` (1 to 1000), at most that many; when fewer wait for results and the budget allows, the job is asked for the difference and proposes it beside the pending candidates ' +
      '(an asynchronous batch: the model conditions on the pending ones, so the new picks do not repeat them); `meta.requested` counts those still to come, and a later call lists them. ' +
      "A worker-run campaign's batch_size is not affected.",
    query: s.candidatesQuery,
    responses: { 200: { description: 'proposed candidates without results yet', data: s.candidateSchema, list: true, listMeta: s.candidatesMeta } },
    handle: async ({ params, query, principal }) => listCandidates(db, principal, params.campaign_id, query.count),
  });

  table.add({
    method: 'get',
    path: '/campaigns/{campaign_id}/worklist',
    operationId: 'getWorklist',
    tag,
    summary: 'The pending batch as a CSV worklist to fill in (external ask/tell campaigns)',
    description:
      'text/csv (UTF-8 with a byte-order mark, which spreadsheets read), as an attachment: id, iteration, the parameters, the objectives and outcomes (empty until posted), status, reason and note, in MDL order, each column headed as the dashboard heads it, with its unit in parentheses (conductivity (mS/cm)). Parameter values are written as a lab sets them: to the step or the listed values with their decimals (0.50), else to 5 significant digits of the range, a value at a bound as the bound. note says why a candidate repeats a measured design (the noise check, optimizer.replicates). Fill in the values (or status failed or abandoned with a reason) and post the file back to POST evaluations as it is; rows left empty wait. Results already posted are filled in. An empty batch gives the header alone.',
    scope: 'campaigns:read',
    responses: { 200: { description: 'the worklist', content: 'text/csv' } },
    handle: async ({ ctx, params, principal }) => {
      const csv = await worklistOf(db, principal, params.campaign_id);
      ctx.status = 200;
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${params.campaign_id}-worklist.csv"`);
      ctx.body = csv;
    },
  });

  table.add({
    method: 'post',
    path: '/campaigns/{campaign_id}/evaluations',
    operationId: 'postEvaluations',
    tag,
    summary: 'Post measured results for candidates (external ask/tell campaigns)',
    description:
      "JSON, text/csv, or multipart/form-data with the CSV in a file part. Each entry names a candidate id and its objective values (status measured), or status failed with a reason, or status abandoned (never measured; no failure for the failure model). Partial batches are fine: the iteration completes when every candidate has a result. A value that is null or not finite (NaN, Infinity, 1e400; bare NaN and Infinity tokens as Python writes them are read) was not measured: the other values of the candidate are kept (a partial measurement), and only a candidate with no finite value left fails, with a message naming what was missing. CSV (or tab-separated): a header row with id, every objective (and outcome) column and optionally status and reason (or error), iteration, the parameters and note (for people, not read); a column is named as the worklist heads it, with or without its unit, in any case. A column that is not the campaign's (a typo, another unit), given twice, or an objective or outcome column missing refuses the whole file (422 naming each and listing the expected columns). Empty cells are not measured (the answer lists each partial measurement and what it lacks), and rows with nothing filled in are left for later. Re-posting the same result is accepted (idempotent); a result that differs in anything (values, outcomes, failed or abandoned, the reason) from one already received refuses the post (409 naming every such candidate in details.conflicts): correct it under Corrections in the dashboard, or with PUT.",
    scope: 'campaigns:write',
    body: s.postEvaluationsBody,
    multipart: s.postEvaluationsMultipart,
    csv: { description: 'the filled worklist: id, objective (and outcome) columns, optional status and reason' },
    nonFiniteNumbers: true,
    responses: { 200: { description: 'stored', data: s.postedResultsSchema } },
    handle: async ({ ctx, params, body, principal }) => {
      const form = ctx.state.multipart as MultipartForm | undefined;
      const csvText = form ? csvPart(form) : (ctx.state.csvText as string | undefined);
      if (csvText !== undefined) return { data: await postEvaluationsCsv(db, principal, params.campaign_id, csvText) };
      return { data: await postEvaluations(db, principal, params.campaign_id, body.evaluations) };
    },
  });

  table.add({
    method: 'put',
    path: '/campaigns/{campaign_id}/evaluations/{evaluation_id}',
    operationId: 'correctResult',
    tag,
    summary: 'Correct the result of a candidate (external ask/tell campaigns)',
    description: `Replaces the values (or the failure) of a stored evaluation or of a posted result, with the same members as one entry of POST evaluations and an optional comment. The values replaced stay visible in GET corrections with who corrected them and when; results, the front, the models and the receipts of later iterations use the corrected values (the convergence history keeps the hypervolumes of their time). The same values again change nothing. A candidate with no result yet is 409: post it first. A result keeps at most ${MAX_CORRECTIONS} corrections; another is 409 (details.limit).`,
    scope: 'campaigns:write',
    body: s.correctResultBody,
    nonFiniteNumbers: true,
    responses: { 200: { description: 'corrected (or already so)', data: s.correctedResultSchema } },
    handle: async ({ params, body, principal }) => ({
      data: await correctResult(db, principal, params.campaign_id, params.evaluation_id, body as Omit<ResultEntry, 'id'>),
    }),
  });

  table.add({
    method: 'get',
    path: '/campaigns/{campaign_id}/corrections',
    operationId: 'listCorrections',
    tag,
    summary: "The corrections of a campaign's results, oldest first, a page at a time",
    description: `Each correction keeps the values it replaced and those it set, with the key that made it and when. evaluation_id narrows the list to one evaluation. Paged like the other lists (page, per_page: default 20, at most 100; meta with the total). One result keeps at most ${MAX_CORRECTIONS} corrections: PUT refuses another with 409.`,
    scope: 'campaigns:read',
    query: s.correctionsQuery,
    responses: { 200: { description: 'a page of corrections', data: s.correctionSchema, list: true } },
    handle: async ({ params, query, principal }) => {
      const { page, perPage } = paging(query);
      const { data, total } = await correctionsOf(db, principal, params.campaign_id, { evaluationId: query.evaluation_id, page, perPage });
      return { data, meta: pageMeta(page, perPage, total) };
    },
  });
}

/** The CSV of a multipart results post: its one file part, whatever its name. */
function csvPart(form: MultipartForm): string {
  const [file] = Object.values(form.files);
  if (!file) throw validationFailed([{ path: 'file', message: 'a multipart results post must carry the CSV in a file part (named file)' }]);
  return file.content.toString('utf8');
}

/** Tells the three creation forms apart (JSON with mdl, JSON with template_id, multipart with mdl_file); mixing them is a 422. */
function creationInput(ctx: Context, body: unknown): CreateCampaignInput {
  const form = ctx.state.multipart as MultipartForm | undefined;
  if (form) {
    const file = form.files.mdl_file;
    if (!file) throw validationFailed([{ path: 'mdl_file', message: 'a multipart request must carry the MDL document in a file part named mdl_file' }]);
    const str = (k: string) => form.fields[k] || undefined;
    return {
      form: 'file',
      text: file.content.toString('utf8'),
      filename: file.filename,
      name: str('name'),
      domain: str('domain'),
      dataset_id: str('dataset_id'),
      id_column: str('id_column'),
    };
  }
  const b = body as z.output<typeof s.createCampaignBody>;
  if (b.mdl !== undefined && b.template_id !== undefined) {
    throw validationFailed([
      { path: 'mdl', message: 'give either mdl or template_id, not both' },
      { path: 'template_id', message: 'give either mdl or template_id, not both' },
    ]);
  }
  if (b.id_column !== undefined && b.dataset_id === undefined)
    throw validationFailed([{ path: 'id_column', message: 'names a column of the dataset: give dataset_id too' }]);
  if (b.template_id !== undefined) {
    return { form: 'template', template_id: b.template_id, name: b.name, overrides: b.overrides, dataset_id: b.dataset_id, id_column: b.id_column };
  }
  if (b.overrides !== undefined) throw validationFailed([{ path: 'overrides', message: 'overrides apply to a template_id only' }]);
  if (b.mdl === undefined) {
    throw validationFailed([{ path: 'mdl', message: 'is required: give mdl (the MDL document), template_id, or upload an mdl_file as multipart' }]);
  }
  return { form: 'mdl', name: b.name, domain: b.domain, mdl: b.mdl, dataset_id: b.dataset_id, id_column: b.id_column };
}
