import Papa from 'papaparse';
import type { Mdl, ParameterValue } from '../engine/mdl/schema.js';
import type { ResultValues } from '../store/corrections.js';
import { validationFailed, type FieldError } from './validation.js';

/**
 * One result as a client tells it (JSON entry or CSV row), before it is checked against the
 * campaign: measured values (some may be null: not measured), a failure with its reason, or an
 * abandoned candidate (never measured).
 */
export interface ResultEntry {
  /** the candidate; absent for an off-plan experiment, which gives its `parameters` instead */
  id?: string;
  parameters?: Record<string, unknown>;
  status?: 'measured' | 'failed' | 'abandoned';
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
    if (status === 'abandoned') {
      return { objectives: null, outcomes: null, error: `abandoned: ${entry.reason ?? failure ?? 'never measured'}`, abandoned: true };
    }
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

/** Cells read as "not measured". */
const UNMEASURED = new Set(['', 'nan', 'na', 'n/a', 'null', 'none', '-']);
const STATUSES = new Set(['measured', 'failed', 'abandoned']);

/**
 * Results from a CSV worklist: a header row naming `id`, the objectives (and outcomes), and
 * optionally `status` (measured, failed, abandoned) and `error` or `reason`; other columns (the
 * parameters, units, iteration) are ignored, but for a row without an id, which is an off-plan
 * experiment given by its parameter columns. A row whose values and status are all empty is not
 * measured yet and is left out, so a half-filled worklist posts only what was measured. Paths of
 * problems are `rows[<line>].<column>`, counting the header as line 1.
 */
export function entriesFromCsv(mdl: Mdl, text: string): ResultEntry[] {
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: 'greedy', transformHeader: (h) => h.trim() });
  const fields = parsed.meta.fields ?? [];
  const errors: FieldError[] = parsed.errors.filter((e) => e.type !== 'FieldMismatch').map((e) => ({ path: `rows[${(e.row ?? 0) + 2}]`, message: e.message }));
  const valueColumns = [...mdl.objectives.map((o) => o.name), ...mdl.outcomes.map((o) => o.name)];
  if (!fields.includes('id'))
    errors.push({ path: 'id', message: 'the CSV needs an id column naming each candidate (as the worklist and GET candidates give it)' });
  const absent = mdl.objectives.map((o) => o.name).filter((n) => !fields.includes(n));
  if (absent.length === mdl.objectives.length && mdl.objectives.length > 0) {
    errors.push({ path: absent[0], message: `the CSV has no column for any objective (${absent.join(', ')})` });
  }
  if (errors.length > 0) throw validationFailed(errors);
  const entries: ResultEntry[] = [];
  parsed.data.forEach((row, k) => {
    const path = `rows[${k + 2}]`;
    const cell = (name: string) => (row[name] ?? '').trim();
    const status = cell('status').toLowerCase();
    // a worklist escapes text that a spreadsheet would run as a formula; the escape is not the reason
    const reason = (cell('reason') || cell('error')).replace(/^'(?=[=+\-@])/, '');
    const hasValues = valueColumns.some((n) => fields.includes(n) && !UNMEASURED.has(cell(n).toLowerCase()));
    if (!hasValues && status === '' && reason === '') return;
    const offPlan = cell('id') === '';
    if (offPlan && !mdl.parameters.every((p) => fields.includes(p.name) && cell(p.name) !== '')) {
      errors.push({ path: `${path}.id`, message: 'is empty: give the id of the candidate, or every parameter for an experiment Kiln did not propose' });
      return;
    }
    if (status !== '' && !STATUSES.has(status)) {
      errors.push({ path: `${path}.status`, message: `is ${status}; use measured, failed or abandoned (or leave it empty)` });
      return;
    }
    const entry: ResultEntry = { line: k + 2 };
    if (offPlan) {
      entry.parameters = Object.fromEntries(
        mdl.parameters.map((p) => [p.name, p.type === 'categorical' || Number.isNaN(Number(cell(p.name))) ? cell(p.name) : Number(cell(p.name))]),
      );
    } else entry.id = cell('id');
    if (status !== '') entry.status = status as ResultEntry['status'];
    if (status === 'failed' || status === 'abandoned' || (status === '' && !hasValues)) {
      entry.status ??= 'failed';
      if (reason !== '') entry.reason = reason;
      entries.push(entry);
      return;
    }
    const numbers = (names: string[]) =>
      Object.fromEntries(
        names
          .filter((n) => fields.includes(n))
          .map((n) => {
            const text = cell(n);
            if (UNMEASURED.has(text.toLowerCase())) return [n, null];
            const value = Number(text);
            if (Number.isNaN(value)) errors.push({ path: `${path}.${n}`, message: `is "${text}", not a number (leave it empty when it was not measured)` });
            return [n, value];
          }),
      );
    entry.objectives = { ...Object.fromEntries(mdl.objectives.map((o) => [o.name, null])), ...numbers(mdl.objectives.map((o) => o.name)) };
    if (mdl.outcomes.length > 0)
      entry.outcomes = { ...Object.fromEntries(mdl.outcomes.map((o) => [o.name, null])), ...numbers(mdl.outcomes.map((o) => o.name)) };
    entries.push(entry);
  });
  if (errors.length > 0) throw validationFailed(errors);
  if (entries.length === 0)
    throw validationFailed([{ path: 'rows', message: 'no row carries a result: fill in measured values, or a status of failed or abandoned' }]);
  return entries;
}

/** A candidate of the worklist, with the result posted for it so far (if any). */
export interface WorklistRow {
  id: string;
  iteration: number;
  parameters: Record<string, ParameterValue>;
  result: ResultValues | null;
}

/**
 * The pending batch as a worklist to fill in: `id,iteration,<parameters>,<objectives>,<outcomes>,
 * status,reason` in MDL order, with a UTF-8 byte-order mark so a spreadsheet reads it as UTF-8. The
 * filled file posts back as it is (entriesFromCsv ignores the parameter and iteration columns;
 * rows left empty wait). Text cells starting with = + - @ are escaped against formula injection.
 */
export function worklistCsv(mdl: Mdl, rows: readonly WorklistRow[]): string {
  const fields = [
    'id',
    'iteration',
    ...mdl.parameters.map((p) => p.name),
    ...mdl.objectives.map((o) => o.name),
    ...mdl.outcomes.map((o) => o.name),
    'status',
    'reason',
  ];
  const data = rows.map((r) => {
    const v = r.result;
    const status = v === null ? '' : v.abandoned ? 'abandoned' : v.objectives === null ? 'failed' : 'measured';
    return [
      r.id,
      r.iteration,
      ...mdl.parameters.map((p) => r.parameters[p.name]),
      ...mdl.objectives.map((o) => v?.objectives?.[o.name] ?? ''),
      ...mdl.outcomes.map((o) => v?.outcomes?.[o.name] ?? ''),
      status,
      // the reason as it was given, so the file posts back unchanged
      v && v.objectives === null ? (v.error ?? '').replace(v.abandoned ? /^abandoned: / : /^$/, '') : '',
    ];
  });
  return '\uFEFF' + Papa.unparse({ fields, data }, { escapeFormulae: true, newline: '\r\n' }) + '\r\n';
}
