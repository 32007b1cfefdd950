import { randomBytes } from 'node:crypto';
import { canonicalJson } from '../engine/campaign/receipt.js';
import { missingValues, resultStatus } from '../engine/campaign/result-status.js';
import type { Mdl, ParameterValue } from '../engine/mdl/schema.js';
import { KilnError } from '../errors.js';
import { budgetLeft, pendingResults } from '../lifecycle/batches.js';
import { evaluationIdPrefix } from '../lifecycle/campaign-state.js';
import { findCampaign, findEvaluations, lockCampaign, updateEvaluationResult, type CampaignRow } from '../store/campaigns.js';
import { countCorrections, insertCorrection, listCorrections, type CorrectionRow, type ResultValues } from '../store/corrections.js';
import type { Db, Executor, Transaction } from '../store/db.js';
import { activeJob, queuePosition, requestCandidates } from '../store/jobs.js';
import { findPostedResult, insertPostedResult, offPlanResults, receivedCandidateIds, updatePostedResult } from '../store/external-results.js';
import { resultsArrived, wakeJob } from '../lifecycle/waiting.js';
import type { Principal } from './principal.js';
import { offPlanParameters, resultValues, type ResultEntry } from './result-entries.js';
import { entriesFromCsv } from './results-file.js';
import { invalidState, notFound, validationFailed, type FieldError } from './validation.js';
import { repeatsOf, worklistCsv } from './worklist.js';
import type { StoredEngineState } from '../store/campaigns.js';

/**
 * Corrections one result keeps at most: a history a person can read through (a mistyped value
 * corrected back and forth a few times), and a bound on what one evaluation can add to storage.
 */
export const MAX_CORRECTIONS = 20;

export type { ResultEntry } from './result-entries.js';

async function externalCampaign(db: Executor, principal: Principal, id: string) {
  const campaign = await findCampaign(db, principal.organizationId, id);
  if (!campaign) throw notFound('campaign', id);
  const type = campaign.mdl.evaluator?.type ?? 'external';
  if (type !== 'external') {
    throw invalidState(`The campaign's evaluator is ${type}; candidates and posted evaluations are for external (ask/tell) campaigns only.`, campaign.status);
  }
  return campaign;
}

function pendingOf(state: StoredEngineState | null) {
  return state?.pending ?? [];
}

/** The pending batch with what was posted for it so far, as a CSV worklist (see worklistCsv). */
export async function worklistOf(db: Db, principal: Principal, id: string): Promise<string> {
  const campaign = await externalCampaign(db, principal, id);
  const pending = pendingOf(campaign.engine_state);
  const repeats = await repeatsOf(db, campaign.id, campaign.mdl, pending);
  const rows = await Promise.all(
    pending.map(async (p) => {
      const posted = await findPostedResult(db, campaign.id, p.id);
      return { id: p.id, iteration: p.iteration, parameters: p.parameters, result: posted ?? null, repeat: repeats.get(p.id) };
    }),
  );
  return worklistCsv(campaign.mdl, rows);
}

/**
 * Candidates proposed and still waiting for results (ask), oldest first, at most `count`, with
 * the campaign's state in `meta`: why the list is empty when it is (proposing, queued behind other
 * jobs, not started, ended). With `count`, when fewer than that wait for results and the budget
 * allows more, the campaign's job is asked for the difference: it proposes them beside the pending
 * ones (an asynchronous batch, conditioned on what is pending, so they do not repeat it) and a
 * later call lists them (`meta.requested` counts them meanwhile). Asking again for the same count
 * asks nothing more. A candidate that repeats a measured design says so (`repeat_of`, `note`).
 */
export async function listCandidates(db: Db, principal: Principal, id: string, count?: number) {
  return db.transaction(async (trx) => {
    let campaign = await externalCampaign(trx, principal, id);
    if (count !== undefined) {
      // a request for candidates takes the campaign row, like a post of results and a parking job
      await lockCampaign(trx, campaign.id);
      campaign = (await findCampaign(trx, principal.organizationId, id)) ?? campaign;
    }
    const pending = pendingOf(campaign.engine_state);
    const received = new Set(await receivedCandidateIds(trx, campaign.id));
    const awaiting = pending.filter((p) => !received.has(p.id));
    const requested = count !== undefined ? await askForCandidates(trx, campaign, count, awaiting.length) : 0;
    const listed = awaiting.slice(0, count ?? awaiting.length);
    const repeats = await repeatsOf(trx, campaign.id, campaign.mdl, listed);
    const data = listed.map((p) => ({ id: p.id, iteration: p.iteration, parameters: p.parameters, ...repeats.get(p.id) }));
    return { data, meta: await candidatesState(trx, campaign, awaiting.length, requested) };
  });
}

/**
 * Asks a running campaign's job for candidates until `count` wait for results (as many as the
 * budget leaves), waking it if it waits; returns how many it still has to propose. The caller
 * holds the campaign row.
 */
async function askForCandidates(trx: Transaction, campaign: CampaignRow, count: number, awaiting: number): Promise<number> {
  if (campaign.status !== 'running') return 0;
  let job = await activeJob(trx, campaign.id, { forUpdate: true });
  if (!job) return 0;
  const pending = pendingOf(campaign.engine_state).length;
  const wanted = Math.min(count, awaiting + budgetLeft(campaign.mdl, campaign.evaluations_completed, pending));
  if (wanted > awaiting && wanted > job.candidates_requested) {
    job = (await requestCandidates(trx, job.id, wanted)) ?? job;
    if (job.status === 'waiting' && pending > 0) {
      await wakeJob(
        trx,
        job,
        `${wanted - awaiting} more candidates were asked for (GET candidates?count=${count}) beside the ${pending} pending; the job is queued to propose them.`,
      );
    }
  }
  return Math.max(0, job.candidates_requested - awaiting);
}

async function candidatesState(db: Executor, campaign: CampaignRow, awaiting: number, requested: number) {
  const base = { pending_results: awaiting, ...(requested > 0 ? { requested } : {}) };
  if (ENDED.includes(campaign.status)) {
    return { state: 'ended' as const, ...base, message: `The campaign is ${campaign.status}; it proposes no more candidates.` };
  }
  const job = await activeJob(db, campaign.id);
  if (!job) {
    return {
      state: 'not_started' as const,
      ...base,
      message: `The campaign is ${campaign.status}; start it (POST /v1/campaigns/${campaign.id}/start) and it proposes its next batch.`,
    };
  }
  const asked = requested > 0 ? ` ${requested} more candidates asked for with count are being proposed beside them; ask again in a moment.` : '';
  if (awaiting > 0 && (requested === 0 || job.status === 'waiting')) {
    return {
      state: 'awaiting_results' as const,
      ...base,
      message: `${awaiting} candidates wait for results: POST them to /v1/campaigns/${campaign.id}/evaluations; the next batch is proposed when the last one arrives, or beside them when more are asked for with count.${asked}`,
    };
  }
  if (job.status === 'queued') {
    const { ahead, running } = await queuePosition(db, job.id);
    return {
      state: 'queued' as const,
      ...base,
      queued_ahead: ahead,
      running_jobs: running,
      message: `Job ${job.id} waits for a worker slot: ${ahead} queued jobs go before it, and ${running} jobs hold the slots now.${asked}`,
    };
  }
  return { state: 'proposing' as const, ...base, message: `Job ${job.id} is proposing the next batch; ask again in a moment.${asked}` };
}

/** A result a post would store over a different one already there: refused, named with what is stored. */
interface Conflict {
  id: string;
  path: string;
  stored: ReturnType<typeof presentValues>;
}

/** A measurement stored without some of its values, named in the answer so a blank cell is never silent. */
interface PartialResult {
  id: string;
  missing: string[];
}

/**
 * Results for proposed candidates (tell), from JSON entries or CSV rows. Every entry is checked
 * before any is stored; posting the same result again is harmless, and a different one for a
 * candidate already received (an abandoned one included) refuses the whole post with 409, naming
 * every such candidate (a correction is its own request: correctResult). The answer names each
 * measurement stored as partial and the values it lacks.
 */
export async function postEvaluations(db: Db, principal: Principal, id: string, entries: readonly ResultEntry[], pathOf = (i: number) => `evaluations[${i}]`) {
  return db.transaction(async (trx) => {
    const campaign = await externalCampaign(trx, principal, id);
    await lockCampaign(trx, campaign.id);
    const pending = new Map(pendingOf(campaign.engine_state).map((p) => [p.id, p]));
    const errors: FieldError[] = [];
    const clean: (ResultValues & { id: string; path: string; parameters?: Record<string, ParameterValue> })[] = [];
    const ids = entries.flatMap((r) => (r.id !== undefined ? [r.id] : []));
    const stored = new Map((await findEvaluations(trx, campaign.id, ids)).map((r) => [r.id, r]));
    const offPlanSeen = new Set((await offPlanResults(trx, campaign.id)).map(offPlanKey));
    let offPlanDuplicates = 0;
    entries.forEach((entry, i) => {
      const path = pathOf(i);
      if (entry.id === undefined) {
        const offPlan = offPlanEntry(campaign, entry, path, errors);
        if (!offPlan) return;
        if (offPlanSeen.has(offPlanKey(offPlan))) offPlanDuplicates += 1;
        else {
          offPlanSeen.add(offPlanKey(offPlan));
          clean.push({ id: `${evaluationIdPrefix(campaign.id)}x${randomBytes(6).toString('hex')}`, path, ...offPlan });
        }
        return;
      }
      if (entry.parameters !== undefined) {
        errors.push({ path: `${path}.parameters`, message: 'are for an off-plan experiment, which has no id: leave one of the two out' });
        return;
      }
      if (!pending.has(entry.id) && !stored.has(entry.id)) {
        errors.push({
          path: `${path}.id`,
          message: `${entry.id} is not a candidate of this campaign awaiting results (see GET /v1/campaigns/${campaign.id}/candidates)`,
        });
        return;
      }
      const values = resultValues(campaign.mdl, entry, path, errors);
      if (values) clean.push({ id: entry.id, path, ...values });
    });
    if (errors.length > 0) throw validationFailed(errors);

    const conflicts: Conflict[] = [];
    const fresh: typeof clean = [];
    // a candidate given twice in one post: the same result again is a duplicate, another one a mistake in the post
    const inPost = new Map<string, (typeof clean)[number]>();
    let duplicates = offPlanDuplicates;
    for (const entry of clean) {
      const earlier = inPost.get(entry.id);
      if (earlier) {
        if (sameResult(earlier, entry)) duplicates += 1;
        else errors.push({ path: `${entry.path}.id`, message: `${entry.id} is given twice in this post (also at ${earlier.path}) with different results` });
        continue;
      }
      inPost.set(entry.id, entry);
      const previous = entry.parameters ? undefined : (stored.get(entry.id) ?? (await findPostedResult(trx, campaign.id, entry.id)));
      if (!previous) fresh.push(entry);
      else if (sameResult(previous, entry)) duplicates += 1;
      else conflicts.push({ id: entry.id, path: entry.path, stored: presentValues(campaign.mdl, previous) });
    }
    if (errors.length > 0) throw validationFailed(errors);
    if (conflicts.length > 0) throw conflictError(campaign, conflicts);
    const partial: PartialResult[] = [];
    for (const entry of fresh) {
      await insertPostedResult(trx, {
        campaign_id: campaign.id,
        candidate_id: entry.id,
        organization_id: campaign.organization_id,
        objectives: entry.objectives,
        outcomes: entry.outcomes,
        error: entry.error,
        abandoned: entry.abandoned,
        parameters: entry.parameters ?? null,
      });
      const missing = missingValues(campaign.mdl, entry);
      if (missing.length > 0) partial.push({ id: entry.id, missing });
    }
    const { awaiting, earliestComplete } = await pendingResults(trx, campaign.id, [...pending.values()]);
    if (fresh.length > 0) await resultsArrived(trx, campaign.id, awaiting, earliestComplete);
    return { accepted: fresh.length, duplicates, awaiting, partial };
  });
}

/**
 * 409 for a post that would replace stored results: every such candidate named with what it holds,
 * and where to change a result instead. Nothing of the post is stored.
 */
function conflictError(campaign: CampaignRow, conflicts: readonly Conflict[]): KilnError {
  const named = conflicts.map((c) => {
    const at = c.path.startsWith('rows[') ? ` (line ${c.path.slice(5, -1)})` : '';
    const held = c.stored.status === 'failed' || c.stored.status === 'abandoned' ? `${c.stored.status}: ${c.stored.error}` : c.stored.status;
    return `${c.id}${at} is stored as ${held}`;
  });
  const one = conflicts.length === 1;
  return new KilnError(
    'INVALID_STATE',
    `${one ? 'A candidate already has' : `${conflicts.length} candidates already have`} a different result, so nothing of this post was stored: ${named.join('; ')}. ` +
      `To change a stored result, correct it in the dashboard (the campaign page's Corrections, under the evaluations table: pick the evaluation, enter the values, say why) ` +
      `or with PUT /v1/campaigns/${campaign.id}/evaluations/{evaluation_id}; then post the other rows again (results already stored count as duplicates).`,
    { status: campaign.status, conflicts },
  );
}

/**
 * An experiment Kiln did not propose: its parameters (checked against the MDL) and its measured
 * values. It is told with the batch it arrives beside and becomes an evaluation of that
 * iteration; nothing takes it once the campaign has ended, so then it is refused.
 */
function offPlanEntry(campaign: CampaignRow, entry: ResultEntry, path: string, errors: FieldError[]) {
  if (entry.parameters === undefined) {
    errors.push({ path: `${path}.id`, message: 'is required: give the candidate id, or parameters for an experiment Kiln did not propose' });
    return null;
  }
  if (ENDED.includes(campaign.status)) {
    errors.push({ path, message: `the campaign is ${campaign.status}: an off-plan experiment is taken with a batch, and no batch will come` });
    return null;
  }
  const start = errors.length;
  const parameters = offPlanParameters(campaign.mdl, entry.parameters, `${path}.parameters`, errors);
  const values = resultValues(campaign.mdl, entry, path, errors);
  if (errors.length > start || !values) return null;
  if (values.objectives === null) {
    errors.push({ path: `${path}.objectives`, message: 'an off-plan experiment needs at least one measured value (a failed one teaches nothing here)' });
    return null;
  }
  return { ...values, parameters };
}

function offPlanKey(r: { parameters?: Record<string, unknown> | null; objectives: unknown; outcomes: unknown }): string {
  return canonicalJson({ parameters: r.parameters ?? null, objectives: r.objectives, outcomes: r.outcomes ?? null });
}

const ENDED: readonly string[] = ['completed', 'converged', 'failed'];

/** Results from a filled CSV worklist (text/csv, or the file of a multipart post); problems name each row's line. */
export async function postEvaluationsCsv(db: Db, principal: Principal, id: string, text: string) {
  const campaign = await externalCampaign(db, principal, id);
  const entries = entriesFromCsv(campaign.mdl, text);
  const rowOf = entries.map((e) => e.line);
  return postEvaluations(db, principal, id, entries, (i) => `rows[${rowOf[i]}]`);
}

/**
 * Corrects the result of one candidate: a stored evaluation, or a result posted and not yet taken
 * by its iteration. The values it replaces are kept in the correction with who made it and when;
 * the model and the next receipts see the corrected values (the campaign state is rebuilt from the
 * stored rows). The same values again change nothing and record nothing.
 */
export async function correctResult(db: Db, principal: Principal, id: string, evaluationId: string, entry: Omit<ResultEntry, 'id'> & { comment?: string }) {
  return db.transaction(async (trx) => {
    const campaign = await externalCampaign(trx, principal, id);
    await lockCampaign(trx, campaign.id);
    const errors: FieldError[] = [];
    const values = resultValues(campaign.mdl, entry, '', errors);
    if (!values) throw validationFailed(errors.map((e) => ({ ...e, path: e.path.replace(/^\./, '') })));
    const [evaluation] = await findEvaluations(trx, campaign.id, [evaluationId]);
    const posted = evaluation ? undefined : await findPostedResult(trx, campaign.id, evaluationId);
    const before = evaluation ?? posted;
    if (!before) {
      const isPending = pendingOf(campaign.engine_state).some((p) => p.id === evaluationId);
      if (!isPending) throw notFound('evaluation', evaluationId);
      throw invalidState(
        `Candidate ${evaluationId} has no result yet to correct; post it with POST /v1/campaigns/${campaign.id}/evaluations.`,
        campaign.status,
      );
    }
    if (posted?.parameters && values.objectives === null) {
      throw validationFailed([{ path: 'objectives', message: 'an off-plan experiment keeps at least one measured value; it cannot be made a failure' }]);
    }
    const previous: ResultValues = { objectives: before.objectives, outcomes: before.outcomes, error: before.error, abandoned: before.abandoned };
    if (sameResult(previous, values)) {
      return { evaluation_id: evaluationId, changed: false, result: presentValues(campaign.mdl, values), correction: null };
    }
    const corrections = await countCorrections(trx, campaign.id, evaluationId);
    if (corrections >= MAX_CORRECTIONS) {
      throw new KilnError(
        'INVALID_STATE',
        `${evaluationId} has been corrected ${corrections} times, the most one result keeps (its history: GET /v1/campaigns/${campaign.id}/corrections?evaluation_id=${evaluationId}); it keeps its last corrected values.`,
        { status: campaign.status, limit: MAX_CORRECTIONS },
      );
    }
    if (evaluation) await updateEvaluationResult(trx, campaign.id, evaluationId, values);
    else await updatePostedResult(trx, campaign.id, evaluationId, values);
    const correction = await insertCorrection(trx, {
      organization_id: campaign.organization_id,
      campaign_id: campaign.id,
      evaluation_id: evaluationId,
      previous,
      corrected: values,
      reason: entry.comment ?? null,
      corrected_by: principal.keyId,
    });
    return { evaluation_id: evaluationId, changed: true, result: presentValues(campaign.mdl, values), correction: presentCorrection(campaign.mdl, correction) };
  });
}

/** A page of the corrections of a campaign's results, oldest first (of one evaluation when it is named), and their total. */
export async function correctionsOf(db: Db, principal: Principal, id: string, request: { evaluationId?: string; page: number; perPage: number }) {
  const campaign = await findCampaign(db, principal.organizationId, id);
  if (!campaign) throw notFound('campaign', id);
  const { rows, total } = await listCorrections(db, principal.organizationId, campaign.id, request);
  return { data: rows.map((c) => presentCorrection(campaign.mdl, c)), total };
}

/** A result as the API shows it: its state (result-status.ts), values and reason. */
function presentValues(mdl: Mdl, v: ResultValues) {
  return { status: resultStatus(mdl, v), objectives: v.objectives, outcomes: v.outcomes, error: v.error };
}

function presentCorrection(mdl: Mdl, c: CorrectionRow) {
  return {
    id: Number(c.id),
    evaluation_id: c.evaluation_id,
    previous: presentValues(mdl, c.previous),
    corrected: presentValues(mdl, c.corrected),
    comment: c.reason,
    corrected_by: c.corrected_by,
    corrected_at: c.corrected_at.toISOString(),
  };
}

function sameValues(a: Record<string, number> | null, b: Record<string, number> | null): boolean {
  if (a === null || b === null) return a === b;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((k) => a[k] === b[k]);
}

/**
 * Whether two results are the same in everything they hold: the state (abandoned or not), the
 * objectives, the outcomes and the reason. A re-post that differs in any of them is no duplicate.
 * A campaign without outcomes keeps none (null) and an empty set of outcomes is the same.
 */
function sameResult(a: Omit<ResultValues, 'abandoned'> & { abandoned?: boolean }, b: ResultValues): boolean {
  const none = (o: Record<string, number> | null) => (o !== null && Object.keys(o).length === 0 ? null : o);
  return (
    (a.abandoned ?? false) === b.abandoned &&
    sameValues(a.objectives, b.objectives) &&
    sameValues(none(a.outcomes), none(b.outcomes)) &&
    (a.error ?? '') === (b.error ?? '')
  );
}
