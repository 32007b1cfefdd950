import type { PostedStatus } from '../engine/campaign/result-status.js';
import type { Mdl, ParameterValue } from '../engine/mdl/schema.js';
import type { ResultValues } from '../store/corrections.js';
import type { FieldError } from './validation.js';

/**
 * One result as a client tells it (JSON entry or CSV row), before it is checked against the
 * campaign: measured values (some may be null: not measured), a failure with its reason, or an
 * abandoned candidate (never measured).
 */
export interface ResultEntry {
  /** the candidate; absent for an off-plan experiment, which gives its `parameters` instead */
  id?: string;
  parameters?: Record<string, unknown>;
  status?: PostedStatus;
  objectives?: Record<string, unknown>;
  outcomes?: Record<string, unknown>;
  error?: string | null | false;
  reason?: string;
  /** the CSV line it came from (the header is line 1) */
  line?: number;
}

/**
 * What an entry means for this campaign's MDL, or field errors under `path`. A value that is not
 * a number is the client's mistake; null or a non-finite number (NaN, Infinity, 1e400) is a value
 * not measured. A measured entry with no finite objective or outcome left is a failure naming
 * what was missing; with some, a partial measurement keeping what was measured.
 */
export function resultValues(mdl: Mdl, entry: Omit<ResultEntry, 'id' | 'parameters'>, path: string, errors: FieldError[]): ResultValues | null {
  const failure = typeof entry.error === 'string' && entry.error !== '' ? entry.error : undefined;
  const status = entry.status ?? (failure !== undefined && entry.objectives === undefined ? 'failed' : 'measured');
  const start = errors.length;
  if (status !== 'measured') {
    for (const member of ['objectives', 'outcomes'] as const) {
      if (entry[member] !== undefined) errors.push({ path: `${path}.${member}`, message: `a result with status ${status} carries no values` });
    }
    if (errors.length > start) return null;
    // the flag marks it abandoned; the error is the reason as given
    if (status === 'abandoned') return { objectives: null, outcomes: null, error: entry.reason ?? failure ?? 'never measured', abandoned: true };
    return { objectives: null, outcomes: null, error: entry.reason ?? failure ?? 'marked failed', abandoned: false };
  }
  if (failure !== undefined) errors.push({ path: `${path}.error`, message: 'a measured result carries no error; give status "failed" with a reason instead' });
  if (entry.objectives === undefined) {
    errors.push({ path: `${path}.objectives`, message: 'is required: give the measured values, or status "failed" or "abandoned"' });
    return null;
  }
  const missing: string[] = [];
  const objectives = measuredValues(entry.objectives, mdl.objectives, `${path}.objectives`, 'objective', errors, missing);
  const outcomes = measuredValues(entry.outcomes ?? {}, mdl.outcomes, `${path}.outcomes`, 'outcome', errors, missing);
  if (errors.length > start) return null;
  if (Object.keys(objectives).length + Object.keys(outcomes).length === 0) {
    return { objectives: null, outcomes: null, error: missing.join('; '), abandoned: false };
  }
  return { objectives, outcomes: mdl.outcomes.length > 0 ? outcomes : null, error: null, abandoned: false };
}

function measuredValues(
  posted: Record<string, unknown>,
  wanted: readonly { name: string }[],
  path: string,
  noun: 'objective' | 'outcome',
  errors: FieldError[],
  missing: string[],
): Record<string, number> {
  const names = wanted.map((w) => w.name);
  const values: Record<string, number> = {};
  for (const name of names) {
    const v = posted[name];
    if (v === null) missing.push(`${noun} '${name}' not measured`);
    else if (typeof v !== 'number') errors.push({ path: `${path}.${name}`, message: 'must be a number, or null when it was not measured' });
    else if (!Number.isFinite(v)) missing.push(`${noun} '${name}' is ${v}, not a finite number`);
    else values[name] = v;
  }
  for (const extra of Object.keys(posted).filter((k) => !names.includes(k))) {
    const known = names.length > 0 ? names.join(', ') : 'none';
    errors.push({ path: `${path}.${extra}`, message: `is not an ${noun} of this campaign (${known})` });
  }
  return values;
}

/**
 * The inputs of an off-plan experiment, checked against the MDL's parameters (every one given, a
 * number within its bounds, a whole number for an integer, one of the values of a categorical).
 */
export function offPlanParameters(mdl: Mdl, posted: Record<string, unknown>, path: string, errors: FieldError[]): Record<string, ParameterValue> {
  const out: Record<string, ParameterValue> = {};
  for (const p of mdl.parameters) {
    const v = posted[p.name];
    const at = `${path}.${p.name}`;
    if (p.type === 'categorical') {
      if (!p.values.map(String).includes(String(v))) errors.push({ path: at, message: `must be one of ${p.values.join(', ')}` });
      else out[p.name] = p.values.find((value) => String(value) === String(v))!;
      continue;
    }
    if (typeof v !== 'number' || !Number.isFinite(v))
      errors.push({ path: at, message: 'must be a number (every parameter of an off-plan experiment is needed)' });
    else if (p.type === 'integer' && !Number.isInteger(v)) errors.push({ path: at, message: `${v} is not a whole number` });
    else if (v < p.bounds[0] || v > p.bounds[1]) errors.push({ path: at, message: `${v} is outside the bounds [${p.bounds[0]}, ${p.bounds[1]}]` });
    else out[p.name] = v;
  }
  const names = mdl.parameters.map((p) => p.name);
  for (const extra of Object.keys(posted).filter((k) => !names.includes(k))) {
    errors.push({ path: `${path}.${extra}`, message: `is not a parameter of this campaign (${names.join(', ')})` });
  }
  return out;
}
