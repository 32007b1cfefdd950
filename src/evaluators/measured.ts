import type { EvaluationOutcome } from './types.js';

/**
 * Reading measured values from an evaluator's result, the same way for every protocol: the
 * objectives from `objectives`, the outcomes (when the campaign declares any) from `outcomes`,
 * or from beside the objectives when a program reports them all in one object.
 */

/** The names a result must carry: the MDL's objectives and outcomes, in order. */
export interface MeasuredNames {
  objectives: readonly string[];
  outcomes: readonly string[];
}

/**
 * `source`: the object holding the objective values; `record`: the whole result (which may hold
 * an `outcomes` object). `which` names the result in messages ("result 3"); `show` prints a bad
 * value (clipped, redacted).
 */
export function readMeasured(
  source: Record<string, unknown>,
  record: Record<string, unknown>,
  names: MeasuredNames,
  which: string,
  show: (value: unknown) => string = (v) => JSON.stringify(v) ?? String(v),
): EvaluationOutcome {
  const outcomeSource = isObject(record.outcomes) ? record.outcomes : source;
  const objectives: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  for (const [kind, list, from, into] of [
    ['objective', names.objectives, source, objectives],
    ['outcome', names.outcomes, outcomeSource, outcomes],
  ] as const) {
    for (const name of list) {
      const value = from[name];
      if (value === undefined) {
        return { ok: false, error: `${which} lacks ${kind} '${name}' (expected ${list.join(', ')}).` };
      }
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return { ok: false, error: `${kind} '${name}' of ${which} is ${show(value)}, not a finite number.` };
      }
      into[name] = value;
    }
  }
  return names.outcomes.length > 0 ? { ok: true, objectives, outcomes } : { ok: true, objectives };
}

/**
 * Whether a result's `error` member reports a failure. Programs often print `"error": null`
 * beside their values (Python's None), so null, false and "" mean success; and when the campaign
 * measures a quantity named `error` and the result carries its values bare (not under
 * "objectives"), `error` is that value, never the protocol word.
 */
export function reportsFailure(record: Record<string, unknown>, names: MeasuredNames, bare: boolean): boolean {
  if (!('error' in record)) return false;
  if (bare && (names.objectives.includes('error') || names.outcomes.includes('error'))) return false;
  const error = record.error;
  return !(error === null || error === false || error === '' || error === undefined);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
