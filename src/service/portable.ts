import { bestObjectives } from '../engine/campaign/results.js';
import { abandonedReason } from '../engine/campaign/result-status.js';
import type { Receipt } from '../engine/campaign/receipt.js';
import { completedEvaluations } from '../engine/campaign/state.js';
import type { EvaluationRecord } from '../engine/campaign/types.js';
import { checkMdl } from './mdl-check.js';
import { KilnError } from '../errors.js';
import { newId } from '../ids.js';
import { evaluationIdPrefix, storedEngineState } from '../lifecycle/campaign-state.js';
import { packageVersion } from '../package-root.js';
import {
  findCampaign,
  findCampaignById,
  insertCampaign,
  insertEvaluationsInChunks,
  insertIterations,
  loadEvaluations,
  loadIterations,
  updateCampaign,
  type CampaignStatus,
  type WarmStartSummary,
} from '../store/campaigns.js';
import type { Db } from '../store/db.js';
import { allPostedResults, insertPostedResult } from '../store/external-results.js';
import { requireWarmStartAccess } from './datasets.js';
import { documentProblems } from './export-checks.js';
import { planLimits } from './plans.js';
import { exportedEvaluations, stateFromDocument } from './export-document.js';
import { EXPORT_VERSION, type ExportDocument } from './export-schema.js';
import { hasScope, type Principal } from './principal.js';
import { campaignDetail } from './presenters.js';
import { insufficientScope, notFound, validationFailed, type FieldError } from './validation.js';

const DOMAIN_PATTERN = /^[a-z][a-z0-9_-]*$/;

/**
 * A campaign as an export document. Read in one repeatable-read transaction: a running job
 * stores each iteration's evaluations and engine state together, so the snapshot is never half an
 * iteration, and a pending batch comes with the results already posted for it.
 */
export async function exportCampaign(db: Db, principal: Principal, id: string): Promise<ExportDocument> {
  return db.transaction(
    async (trx) => {
      const campaign = await findCampaign(trx, principal.organizationId, id);
      if (!campaign) throw notFound('campaign', id);
      const [told, iterations, posted] = [await loadEvaluations(trx, campaign), await loadIterations(trx, id), await allPostedResults(trx, id)];
      requireWarmStartAccess(principal, told, "its export holds the dataset's rows");
      const pending = campaign.engine_state?.pending ?? [];
      return {
        kiln_export_version: EXPORT_VERSION,
        engine_version: packageVersion(),
        exported_at: new Date().toISOString(),
        source: { kind: 'service', campaign_id: campaign.id },
        campaign: {
          name: campaign.name,
          domain: campaign.domain,
          status: campaign.status,
          seed: campaign.seed,
          mdl: campaign.mdl,
          warm_start: campaign.warm_start as unknown as Record<string, unknown> | null,
        },
        evaluations: exportedEvaluations(campaign.mdl, told, pending, new Map(posted.map((r) => [r.candidate_id, r]))),
        iterations: iterations.map((i) => ({
          iteration: i.iteration,
          hypervolume: i.hypervolume,
          pareto_size: i.pareto_size,
          evaluated: i.evaluated,
          failed: i.failed,
          strategy: i.strategy,
          propose_seconds: i.propose_seconds,
          evaluate_seconds: i.evaluate_seconds,
          store_seconds: i.store_seconds,
          receipt: i.receipt as unknown as ExportDocument['iterations'][number]['receipt'],
        })),
        engine_state: campaign.engine_state as unknown as ExportDocument['engine_state'],
      };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/**
 * Says, before the document is read further, whether it is an export document this Kiln reads:
 * a wrong version would otherwise surface as a list of unrelated shape problems.
 */
export function checkExportVersion(body: unknown): void {
  const version = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).kiln_export_version : undefined;
  if (version === undefined) {
    throw validationFailed([
      {
        path: 'kiln_export_version',
        message: 'is required: this is not a Kiln export document (GET /v1/campaigns/{id}/export or kiln export <run-folder> makes one)',
      },
    ]);
  }
  if (version !== EXPORT_VERSION) {
    throw validationFailed([
      {
        path: 'kiln_export_version',
        message: `is ${JSON.stringify(version)}; this Kiln (${packageVersion()}) reads version ${EXPORT_VERSION}: export the campaign again from a Kiln that writes it, or upgrade this one`,
      },
    ]);
  }
}

export interface ImportInput {
  document: ExportDocument;
  /** replaces the document's campaign name */
  name?: string;
  /** replaces the document's domain; needed when a kiln run's MDL names none */
  domain?: string;
}

/**
 * A new campaign in the caller's organization from an export document, with new ids, that
 * continues where the exported one stood: created when it never ran, stopped (start it to
 * continue, its pending batch first) when it ran, completed or converged when it had ended so.
 */
export async function importCampaign(db: Db, principal: Principal, input: ImportInput) {
  const { document: doc } = input;
  if (doc.evaluations.some((e) => e.iteration === 0) && !hasScope(principal, 'datasets:read')) {
    throw insufficientScope('datasets:read', 'The document holds warm-start rows (iteration 0), which make the campaign a warm-started one');
  }
  const result = await checkMdl({ document: doc.campaign.mdl, warmStart: doc.evaluations.some((e) => e.iteration === 0) }, 'campaign.mdl');
  if (!result.ok) {
    throw validationFailed(
      result.errors.map((e) => ({ path: e.path ? `campaign.mdl.${e.path}` : 'campaign.mdl', message: e.message })),
      `the campaign's MDL does not validate on this Kiln (${result.errors.length} ${result.errors.length === 1 ? 'problem' : 'problems'}; see details.errors)`,
    );
  }
  const mdl = result.mdl;
  const name = input.name ?? doc.campaign.name;
  const domain = input.domain ?? doc.campaign.domain ?? mdl.domain;
  const problems: FieldError[] = [];
  if (!domain) problems.push({ path: 'domain', message: 'is required: the document names no domain; give one, e.g. water or battery' });
  else if (!DOMAIN_PATTERN.test(domain) || domain.length > 64)
    problems.push({ path: input.domain ? 'domain' : 'campaign.domain', message: 'must be a lower-case slug such as water or battery' });
  problems.push(...documentProblems(doc, mdl));
  if (problems.length > 0) throw validationFailed(problems);
  checkWarmStartRows(principal, doc);

  const id = newId('camp_');
  const renamed = idRenamer(doc, evaluationIdPrefix(id));
  // every told and pending id is one of the document's evaluations (documentProblems checked)
  const rename = (old: string) => renamed(old)!;
  const state = stateFromDocument(doc, mdl);
  const told = state.evaluations.map((e): EvaluationRecord => ({ ...e, id: rename(e.id) }));
  const pending = state.pending.map((p) => ({ ...p, id: rename(p.id) }));
  const engineState =
    doc.engine_state === null
      ? null
      : { ...storedEngineState(state), pending, strategies: renamedDeep(state.strategies, renamed), idPrefix: evaluationIdPrefix(id) };
  const last = doc.iterations.at(-1);
  const row = await db.transaction(async (trx) => {
    const campaign = await insertCampaign(trx, {
      id,
      organization_id: principal.organizationId,
      name,
      domain: domain!,
      status: importedStatus(doc),
      mdl,
      seed: doc.campaign.seed,
      budget: mdl.optimizer.budget,
      parameters_count: mdl.parameters.length,
      objectives_count: mdl.objectives.length,
      dataset_id: null,
      warm_start: doc.campaign.warm_start as unknown as WarmStartSummary | null,
    });
    await insertEvaluationsInChunks(trx, campaign, told, 0);
    await insertIterations(
      trx,
      doc.iterations.map((i) => ({
        campaign_id: id,
        iteration: i.iteration,
        organization_id: principal.organizationId,
        job_id: null,
        hypervolume: i.hypervolume,
        pareto_size: i.pareto_size,
        evaluated: i.evaluated,
        failed: i.failed,
        strategy: i.strategy,
        // untimed iterations (a kiln run's) are stored as 0 s: the columns hold numbers
        propose_seconds: i.propose_seconds ?? 0,
        evaluate_seconds: i.evaluate_seconds ?? 0,
        store_seconds: i.store_seconds ?? 0,
        receipt: i.receipt as unknown as Receipt | null,
      })),
    );
    // results an ask/tell client had posted for the pending batch still count after the move
    for (const e of doc.evaluations.filter((e) => e.status === 'pending' && (e.objectives !== null || e.error !== null))) {
      await insertPostedResult(trx, {
        campaign_id: id,
        candidate_id: rename(e.id),
        organization_id: principal.organizationId,
        objectives: e.objectives,
        outcomes: e.objectives !== null ? e.outcomes : null,
        error: e.objectives !== null ? null : e.abandoned && e.error !== null ? abandonedReason(e.error) : e.error,
        abandoned: e.objectives === null && e.abandoned,
      });
    }
    const withIds = { ...state, evaluations: told, pending };
    await updateCampaign(trx, id, {
      engine_state: engineState,
      current_iteration: state.iteration,
      evaluations_completed: completedEvaluations(withIds).length,
      hypervolume: last?.hypervolume ?? 0,
      pareto_size: last?.pareto_size ?? 0,
      best_objectives: bestObjectives(mdl, withIds),
    });
    return (await findCampaignById(trx, id))!;
  });
  return {
    ...campaignDetail(row, null),
    warnings: result.warnings.map(({ path, message }) => ({ path, message })),
    imported: {
      source_campaign_id: doc.source.campaign_id,
      evaluations: told.length,
      iterations: doc.iterations.length,
      pending: pending.length,
      evaluation_ids: Object.fromEntries(doc.evaluations.map((e) => [e.id, rename(e.id)])),
    },
  };
}

/**
 * A strategy's state with the evaluation ids it names (a trust region's center, the last batch)
 * replaced by their new ids; any other string stays.
 */
function renamedDeep<T>(value: T, rename: (id: string) => string | undefined): T {
  if (typeof value === 'string') return (rename(value) ?? value) as T;
  if (Array.isArray(value)) return (value as unknown[]).map((v) => renamedDeep(v, rename)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]): [string, unknown] => [k, renamedDeep<unknown>(v, rename)])) as T;
  }
  return value;
}

/** Warm-start rows arrive as a dataset's would: the plan's row limit holds for them too. */
function checkWarmStartRows(principal: Principal, doc: ExportDocument): void {
  const limit = planLimits(principal.plan).datasetRows;
  const rows = doc.evaluations.filter((e) => e.iteration === 0).length;
  if (rows > limit) {
    throw new KilnError(
      'PAYLOAD_TOO_LARGE',
      `The document holds ${rows} warm-start rows (iteration 0); your plan (${principal.plan}) takes at most ${limit} rows of prior data per campaign.`,
      { limit },
    );
  }
}

function importedStatus(doc: ExportDocument): CampaignStatus {
  const state = doc.engine_state;
  if (state === null) return 'created';
  return state.status === 'completed' || state.status === 'converged' ? state.status : 'stopped';
}

/**
 * New evaluation ids, unique on this server: the source's per-campaign prefix is swapped for the
 * new campaign's, so the engine's id counter (nextId) goes on without a clash. Ids without the
 * source's prefix are numbered apart (`m<k>`), where the counter never reaches.
 */
function idRenamer(doc: ExportDocument, prefix: string): IdRenamer {
  const source = doc.engine_state?.idPrefix ?? 'eval_';
  const ids = doc.evaluations.map((e) => e.id);
  const kept = ids.every((id) => id.startsWith(source));
  const renamed = new Map(ids.map((id, k) => [id, kept ? prefix + id.slice(source.length) : `${prefix}m${k + 1}`]));
  return (id: string) => renamed.get(id);
}

/** The new id of an evaluation of the document; undefined for a string that is none. */
type IdRenamer = (id: string) => string | undefined;
