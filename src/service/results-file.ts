import Papa from 'papaparse';
import { unescapeFormula } from '../engine/campaign/formula-escape.js';
import { POSTED_STATUSES, type PostedStatus } from '../engine/campaign/result-status.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { FIXED_COLUMNS, readHeader, reasonColumn } from './result-columns.js';
import type { ResultEntry } from './result-entries.js';
import { validationFailed, type FieldError } from './validation.js';

/** Tabs (a worklist saved for Excel, or by a spreadsheet as tab-separated), commas, or semicolons (a spreadsheet in a region with decimal commas). */
function delimiterOf(header: string): string {
  if (header.includes('\t')) return '\t';
  if (!header.includes(',') && header.includes(';')) return ';';
  return ',';
}

/** Cells read as "not measured". */
const UNMEASURED = new Set(['', 'nan', 'na', 'n/a', 'null', 'none', '-']);

/**
 * Results from a CSV (or tab-separated) file, a filled worklist: its header read against the
 * campaign first (result-columns.ts: every column the campaign's, none twice, units the MDL's),
 * then each row: `id`, the objective (and outcome) values, and optionally `status` (measured,
 * failed, abandoned) and `reason`; the parameter, iteration and note columns are for people, but
 * for a row without an id, which is an off-plan experiment given by its parameter columns. A row
 * whose values, status and reason are all empty is not measured yet and is left out, so a
 * half-filled worklist posts only what was measured. A reason is read as written, but for the
 * formula escape the worklist added (so a downloaded worklist posts back unchanged, whatever its
 * reasons start with). Problems are listed as `rows[<line>].<column>` (the header is line 1),
 * each message naming the row's candidate id.
 */
export function entriesFromCsv(mdl: Mdl, text: string): ResultEntry[] {
  const content = text.replace(/^\uFEFF/, '');
  // the header line decides how cells are separated, so a tab inside a reason is never taken for one
  const parsed = Papa.parse<string[]>(content, { skipEmptyLines: false, delimiter: delimiterOf(content.split(/\r?\n|\r/, 1)[0]) });
  // ragged rows are judged below, and a file of one column has no delimiter to detect
  const broken = parsed.errors.filter((e) => e.type !== 'FieldMismatch' && e.type !== 'Delimiter');
  if (broken.length > 0) throw validationFailed(broken.map((e) => ({ path: `rows[${(e.row ?? 0) + 1}]`, message: e.message })));
  const [header = [], ...body] = parsed.data;
  const columns = readHeader(mdl, header, body);
  const reasonAt = reasonColumn(columns);
  const measures = [...mdl.objectives, ...mdl.outcomes].map((m) => m.name);
  const errors: FieldError[] = [];
  const entries: ResultEntry[] = [];
  body.forEach((cells, k) => {
    if (cells.every((c) => c.trim() === '')) return;
    const line = k + 2;
    const path = `rows[${line}]`;
    const cell = (name: string) => {
      const at = columns.get(name);
      return at === undefined ? '' : (cells[at] ?? '').trim();
    };
    const id = unescapeFormula(cell(FIXED_COLUMNS.id));
    const row = id === '' ? `line ${line}` : `${id} (line ${line})`;
    if (cells.slice(header.length).some((c) => c.trim() !== '')) {
      errors.push({ path, message: `${row} has values beyond the header's ${header.length} columns: head every column` });
      return;
    }
    const status = cell(FIXED_COLUMNS.status).toLowerCase();
    const reasonText = reasonAt === undefined ? '' : unescapeFormula(cells[reasonAt] ?? '');
    const reason = reasonText.trim() === '' ? '' : reasonText;
    const hasValues = measures.some((n) => !UNMEASURED.has(cell(n).toLowerCase()));
    if (!hasValues && status === '' && reason === '') return;
    const offPlan = id === '';
    if (offPlan && !mdl.parameters.every((p) => cell(p.name) !== '')) {
      errors.push({
        path: `${path}.id`,
        message: `${row}: the id is empty: give the id of the candidate, or every parameter for an experiment Kiln did not propose`,
      });
      return;
    }
    if (status !== '' && !(POSTED_STATUSES as readonly string[]).includes(status)) {
      errors.push({ path: `${path}.status`, message: `${row}: the status is ${status}; use ${POSTED_STATUSES.join(', ')} (or leave it empty)` });
      return;
    }
    const entry: ResultEntry = { line };
    if (offPlan) {
      entry.parameters = Object.fromEntries(
        mdl.parameters.map((p) => {
          const text = unescapeFormula(cell(p.name));
          return [p.name, p.type === 'categorical' || Number.isNaN(Number(text)) ? text : Number(text)];
        }),
      );
    } else entry.id = id;
    if (status !== '') entry.status = status as PostedStatus;
    if (status === 'failed' || status === 'abandoned' || (status === '' && !hasValues)) {
      entry.status ??= 'failed';
      if (reason !== '') entry.reason = reason;
      entries.push(entry);
      return;
    }
    if (!hasValues) {
      errors.push({ path, message: `${row} is marked measured but has no value: fill in what was measured, or mark it failed or abandoned` });
      return;
    }
    const numbers = (names: readonly string[]) =>
      Object.fromEntries(
        names.map((n) => {
          const text = cell(n);
          if (UNMEASURED.has(text.toLowerCase())) return [n, null];
          const value = Number(text);
          if (Number.isNaN(value)) {
            const comma = /^[+-]?\d*,\d+$/.test(text) ? ` (a decimal comma? write ${text.replace(',', '.')})` : '';
            errors.push({ path: `${path}.${n}`, message: `${row}: ${n} is "${text}", not a number${comma}; leave it empty when it was not measured` });
          }
          return [n, value];
        }),
      );
    entry.objectives = numbers(mdl.objectives.map((o) => o.name));
    if (mdl.outcomes.length > 0) entry.outcomes = numbers(mdl.outcomes.map((o) => o.name));
    entries.push(entry);
  });
  if (errors.length > 0)
    throw validationFailed(errors, errors.length === 1 ? undefined : `${errors.length} problems: ${errors.map((e) => e.message).join('; ')}`);
  if (entries.length === 0)
    throw validationFailed([{ path: 'rows', message: 'no row carries a result: fill in measured values, or a status of failed or abandoned' }]);
  return entries;
}
