import { createHash } from 'node:crypto';
import type { Mdl } from '../mdl/schema.js';
import type { CampaignState, EvaluationRecord, Proposal, Receipt } from './types.js';

// The receipt's shape lives with the rest of the campaign state (types.ts), which stores it.
export type { Receipt, ReceiptEnvironment } from './types.js';

export const SEED_DERIVATION =
  'iteration = mix(campaign, iteration): x = imul(campaign ^ 0x9e3779b9, 0x85ebca6b) ^ imul(iteration, 0xc2b2ae35), ' +
  'x = imul(x ^ x>>>16, 0x7feb352d), (x ^ x>>>15)>>>1; plan and propose are the first two seeds of ' +
  'xoshiro128** seeded with the iteration seed';

/**
 * JSON with object keys sorted at every depth and no spaces; arrays keep their order. Numbers are
 * written as JavaScript writes them (the shortest text that reads back to the same double), so the
 * text is the same wherever the values are; `undefined` members are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (ArrayBuffer.isView(value)) return canonicalJson(Array.from(value as unknown as ArrayLike<number>));
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Each told evaluation's canonical text, kept while the record lives: a step hashes every
 * evaluation told so far, and a campaign that runs in one thread (kiln run without a pool, the
 * benchmarks) hands the same records to every step, so each is written once instead of once per
 * iteration (on NSGA-II with 10,000 evaluations that was most of the run). Records are never
 * changed after `tell` makes them.
 */
const recordTexts = new WeakMap<EvaluationRecord, string>();

/**
 * The data a surrogate sees, as the engine keeps them; the hash does not depend on key order. It is
 * the sha-256 of the canonical JSON of the list of `{id, iteration, parameters, objectives,
 * outcomes, error}`, fed to the hash one record at a time.
 */
export function dataHash(evaluations: readonly EvaluationRecord[]): string {
  const hash = createHash('sha256').update('[');
  evaluations.forEach((e, i) => {
    let text = recordTexts.get(e);
    if (text === undefined) {
      // an abandoned candidate's reason is hashed as it was stored before the flag alone marked it
      // ("abandoned: <reason>"), so the receipts recorded then still match their data
      const error = e.abandoned ? `abandoned: ${e.error}` : e.error;
      text = canonicalJson({ id: e.id, iteration: e.iteration, parameters: e.parameters, objectives: e.objectives, outcomes: e.outcomes, error });
      recordTexts.set(e, text);
    }
    hash.update(i === 0 ? text : `,${text}`, 'utf8');
  });
  return hash.update(']').digest('hex');
}

/**
 * The engine state a step starts from, without the previous receipt (which names the machine). The
 * evaluations enter through their data hash, which covers every member they have, so they are
 * written once per step, not twice.
 */
export function stateHash(state: CampaignState): string {
  // the receipts kept with pending batches name the engine version and backend, not the state
  const { receipt: _receipt, earlierReceipts: _earlier, evaluations, ...rest } = state;
  return sha256Hex(canonicalJson({ ...rest, evaluations: dataHash(evaluations) }));
}

export function proposalsHash(proposals: readonly Proposal[]): string {
  return sha256Hex(canonicalJson(proposals.map((p) => ({ id: p.id, iteration: p.iteration, parameters: p.parameters }))));
}

export function mdlHash(mdl: Mdl): string {
  return sha256Hex(canonicalJson(mdl));
}

/** One completed iteration in a results payload: its receipt, and its evaluations in the order they were told. */
export interface IterationReceipt {
  iteration: number;
  /** null for iterations stored before Kiln kept receipts */
  receipt: Receipt | null;
  /** ids of the iteration's evaluations (successes and failures) in the order the engine was told them */
  evaluation_ids: string[];
}

/** The completed iterations of `state` (1 to state.iteration), each with the receipt `receiptOf` finds. */
export function iterationReceipts(state: CampaignState, receiptOf: (iteration: number) => Receipt | null | undefined): IterationReceipt[] {
  const ids = new Map<number, string[]>();
  for (const e of state.evaluations) {
    if (e.iteration > 0) ids.set(e.iteration, [...(ids.get(e.iteration) ?? []), e.id]);
  }
  return Array.from({ length: state.iteration }, (_, k) => ({
    iteration: k + 1,
    receipt: receiptOf(k + 1) ?? null,
    evaluation_ids: ids.get(k + 1) ?? [],
  }));
}
