import { quoteNonFiniteTokens } from '../json-text.js';
import type { Redactor } from './http-redactor.js';
import { isObject, readMeasured, reportsFailure, type MeasuredNames } from './measured.js';
import { EvaluatorError, type EvaluationOutcome, type EvaluationRequest } from './types.js';

/**
 * The protocol of http evaluators (docs/evaluators.md). Kiln POSTs
 *   {"candidates": [{"id": "0", "parameters": {...}}, ...], "objectives": ["f1", "f2"]}
 * (plus "outcomes": [...] when the campaign declares outcomes) and the service answers
 *   {"results": [{"objectives": {...}, "outcomes": {...}} | {"error": "why"}, ...]}
 * with one result per candidate, in order or each carrying its candidate's id.
 */

/** The request body, and the candidates' ids in batch order: a request's own `id`, else its index. */
export function httpRequestBody(batch: readonly EvaluationRequest[], names: MeasuredNames): { body: string; ids: string[] } {
  const ids = batch.map((request, i) => {
    const id = (request as { id?: unknown }).id;
    return typeof id === 'string' ? id : String(i);
  });
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) {
    throw new EvaluatorError('invalid', `two candidates in the batch have the id ${JSON.stringify(duplicate)}; ids must be distinct.`);
  }
  const body = JSON.stringify({
    candidates: batch.map((request, i) => ({ id: ids[i], parameters: request.parameters })),
    objectives: names.objectives,
    ...(names.outcomes.length > 0 ? { outcomes: names.outcomes } : {}),
  });
  return { body, ids };
}

/** How to read one service's answers: what it must report, and how to quote it. */
export interface HttpResponseReading {
  names: MeasuredNames;
  /** The URL as shown in messages. */
  shown: string;
  redactor: Redactor;
}

/**
 * Outcomes from a 2xx body: matched by id when the results carry ids, else by position. Throws
 * EvaluatorError (code 'protocol') when the body as a whole is unusable.
 */
export function parseHttpResponse(body: string, ids: readonly string[], reading: HttpResponseReading): EvaluationOutcome[] {
  const { shown, redactor } = reading;
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  const shape = `it must answer {"results": [...]} with one result per candidate`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(quoteNonFiniteTokens(text));
  } catch (error) {
    throw new EvaluatorError(
      'protocol',
      `the response from ${shown} is not valid JSON (${(error as Error).message}); ${shape}. The response begins ${redactor.preview(text)}.`,
      { cause: error },
    );
  }
  const results: unknown = parsed !== null && typeof parsed === 'object' ? (parsed as { results?: unknown }).results : undefined;
  if (!Array.isArray(results)) {
    throw new EvaluatorError('protocol', `the response from ${shown} has no "results" array; ${shape}. The response begins ${redactor.preview(text)}.`);
  }
  if (results.length !== ids.length) {
    throw new EvaluatorError(
      'protocol',
      `the response from ${shown} has ${results.length} result${results.length === 1 ? '' : 's'} for ${ids.length} candidate${ids.length === 1 ? '' : 's'}; ${shape}, in order or with the candidates' ids.`,
    );
  }
  const idOf = (entry: unknown): unknown => (entry !== null && typeof entry === 'object' ? (entry as { id?: unknown }).id : undefined);
  if (!results.some((entry) => idOf(entry) !== undefined)) return results.map((entry, i) => outcome(entry, ids[i], reading));

  const byId = new Map<string, unknown>();
  for (const [i, entry] of results.entries()) {
    const id = idOf(entry);
    if (typeof id !== 'string' || !ids.includes(id) || byId.has(id)) {
      const problem =
        typeof id !== 'string'
          ? `has no string id while others do`
          : byId.has(id)
            ? `repeats id ${JSON.stringify(id)}`
            : `has id ${JSON.stringify(id)}, which was not sent`;
      throw new EvaluatorError('protocol', `result ${i} from ${shown} ${problem}; results carrying ids must carry each candidate's id once.`);
    }
    byId.set(id, entry);
  }
  return ids.map((id) => outcome(byId.get(id), id, reading));
}

function outcome(entry: unknown, id: string, { names, redactor }: HttpResponseReading): EvaluationOutcome {
  const which = `the result for candidate ${JSON.stringify(id)}`;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return { ok: false, error: `${which} is ${redactor.clip(JSON.stringify(entry) ?? String(entry))}, not {"objectives": {...}} or {"error": "..."}.` };
  }
  const record = entry as Record<string, unknown>;
  if (reportsFailure(record, names, false)) {
    const reason = typeof record.error === 'string' ? record.error : JSON.stringify(record.error);
    return { ok: false, error: `the service reported: ${redactor.redact(reason ?? '')}` };
  }
  const values = record.objectives;
  if (!isObject(values)) {
    return { ok: false, error: `${which} has no "objectives" object (expected ${names.objectives.join(', ')}).` };
  }
  return readMeasured(values, record, names, which, (v) => redactor.clip(JSON.stringify(v) ?? String(v)));
}
