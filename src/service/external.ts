import { KilnError } from '../errors.js';
import { findCampaign, findEvaluations, lockCampaign } from '../store/campaigns.js';
import type { Db, Executor } from '../store/db.js';
import { countPostedResults, findPostedResult, insertPostedResult, receivedCandidateIds } from '../store/external-results.js';
import { announceResults } from '../store/notify.js';
import type { Principal } from './principal.js';
import { invalidState, notFound, validationFailed, type FieldError } from './validation.js';
import type { StoredEngineState } from '../store/campaigns.js';

/** One posted result: objective values, or why the candidate could not be measured. */
export type PostedResult =
  { id: string; objectives: Record<string, unknown>; outcomes?: Record<string, unknown>; error?: null | false | '' } | { id: string; error: string };

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

/** Candidates proposed and still waiting for results (ask). */
export async function listCandidates(db: Db, principal: Principal, id: string) {
  const campaign = await externalCampaign(db, principal, id);
  const pending = pendingOf(campaign.engine_state);
  const received = new Set(await receivedCandidateIds(db, campaign.id));
  return pending.filter((p) => !received.has(p.id)).map((p) => ({ id: p.id, iteration: p.iteration, parameters: p.parameters }));
}

/**
 * Results for proposed candidates (tell). Every entry is checked before any is stored; posting the
 * same values again is harmless, posting different values for an already received candidate is 409.
 */
export async function postEvaluations(db: Db, principal: Principal, id: string, results: readonly PostedResult[]) {
  return db.transaction(async (trx) => {
    const campaign = await externalCampaign(trx, principal, id);
    await lockCampaign(trx, campaign.id);
    const pending = new Map(pendingOf(campaign.engine_state).map((p) => [p.id, p]));
    const errors: FieldError[] = [];
    const clean: StoredResult[] = [];
    const stored = new Map(
      (
        await findEvaluations(
          trx,
          campaign.id,
          results.map((r) => r.id),
        )
      ).map((r) => [r.id, r]),
    );
    results.forEach((result, i) => {
      const path = `evaluations[${i}]`;
      if (!pending.has(result.id) && !stored.has(result.id)) {
        errors.push({
          path: `${path}.id`,
          message: `${result.id} is not a candidate of this campaign awaiting results (see GET /v1/campaigns/${campaign.id}/candidates)`,
        });
        return;
      }
      if (!('objectives' in result)) {
        clean.push({ id: result.id, objectives: null, outcomes: null, error: result.error });
        return;
      }
      const failures: string[] = [];
      const objectives = measuredValues(result.objectives, campaign.mdl.objectives, `${path}.objectives`, 'objective', errors, failures);
      const outcomes = measuredValues(result.outcomes ?? {}, campaign.mdl.outcomes, `${path}.outcomes`, 'outcome', errors, failures);
      if (failures.length > 0) clean.push({ id: result.id, objectives: null, outcomes: null, error: failures.join('; ') });
      else clean.push({ id: result.id, objectives, outcomes: campaign.mdl.outcomes.length > 0 ? outcomes : null, error: null });
    });
    if (errors.length > 0) throw validationFailed(errors);

    let accepted = 0;
    let duplicates = 0;
    for (const entry of clean) {
      const previous = stored.get(entry.id) ?? (await findPostedResult(trx, campaign.id, entry.id));
      if (previous) {
        if (!sameResult(previous, entry)) {
          throw new KilnError('INVALID_STATE', `Candidate ${entry.id} already has a different result; results cannot be changed once posted.`, {
            status: campaign.status,
          });
        }
        duplicates += 1;
        continue;
      }
      await insertPostedResult(trx, {
        campaign_id: campaign.id,
        candidate_id: entry.id,
        organization_id: campaign.organization_id,
        objectives: entry.objectives,
        outcomes: entry.outcomes,
        error: entry.error,
      });
      accepted += 1;
    }
    if (accepted > 0) await announceResults(trx, campaign.id);
    const received = await countPostedResults(trx, campaign.id, [...pending.keys()]);
    return { accepted, duplicates, awaiting: Math.max(0, pending.size - received) };
  });
}

interface StoredResult {
  id: string;
  objectives: Record<string, number> | null;
  outcomes: Record<string, number> | null;
  error: string | null;
}

/** The finite values `posted` gives for every name in `wanted`; a field error for each missing, non-finite or unknown one. */
/**
 * The posted values of `wanted`, in order. A value that is not a number is the client's mistake
 * (a field error); a non-finite number (NaN, Infinity, 1e400) is a measurement that failed, as
 * for evaluator programs: it goes to `failures`, and the candidate is stored as failed.
 */
function measuredValues(
  posted: Record<string, unknown>,
  wanted: readonly { name: string }[],
  path: string,
  noun: 'objective' | 'outcome',
  errors: FieldError[],
  failures: string[],
): Record<string, number> {
  const names = wanted.map((w) => w.name);
  const values: Record<string, number> = {};
  for (const name of names) {
    const v = posted[name];
    if (typeof v !== 'number') errors.push({ path: `${path}.${name}`, message: 'must be a finite number' });
    else if (!Number.isFinite(v)) failures.push(`${noun} '${name}' is ${v}, not a finite number`);
    else values[name] = v;
  }
  for (const extra of Object.keys(posted).filter((k) => !names.includes(k))) {
    const known = names.length > 0 ? names.join(', ') : 'none';
    errors.push({ path: `${path}.${extra}`, message: `is not an ${noun} of this campaign (${known})` });
  }
  return values;
}

function sameResult(
  a: { objectives: Record<string, number> | null; error: string | null },
  b: { objectives: Record<string, number> | null; error: string | null },
): boolean {
  if (a.objectives === null || b.objectives === null) return a.objectives === b.objectives && (a.error ?? '') === (b.error ?? '');
  const keys = Object.keys(b.objectives);
  return keys.length === Object.keys(a.objectives).length && keys.every((k) => a.objectives![k] === b.objectives![k]);
}
