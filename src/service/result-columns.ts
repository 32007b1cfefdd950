import { unescapeFormula } from '../engine/campaign/formula-escape.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { KilnError } from '../errors.js';
import type { FieldError } from './validation.js';

/**
 * The columns of a results file (a filled worklist) and how its header is read. A column is named
 * as the worklist and the dashboard head it: the name, then the unit in parentheses when the MDL
 * gives one (`conductivity (mS/cm)`); the name alone is fine too. Names are matched in any case,
 * with surrounding and repeated spaces ignored; a unit must be the MDL's (case counts: mPa is not
 * MPa). Every column must be one of the campaign's, none twice, and each objective and outcome
 * needs its column (its cells may be empty where nothing was measured): a file that is not the
 * campaign's is refused whole, naming each column that is wrong, before a row is read.
 */

/** The worklist's columns besides the MDL's names, in its order: `note` is for people (a repeat is explained there) and never read. */
export const FIXED_COLUMNS = { id: 'id', iteration: 'iteration', status: 'status', reason: 'reason', note: 'note' } as const;
/** Read as `reason` when a file has no reason column (the older name). */
const REASON_ALIAS = 'error';

type Measure = { name: string; unit?: string };

/** A column heading as the worklist writes it: "conductivity (mS/cm)", or the name alone without a unit. */
export function columnHeading(m: Measure): string {
  return m.unit ? `${m.name} (${m.unit})` : m.name;
}

/** The worklist's header for a campaign: id, iteration, the parameters, objectives and outcomes with their units, status, reason, note. */
export function worklistHeading(mdl: Mdl): string[] {
  return [
    FIXED_COLUMNS.id,
    FIXED_COLUMNS.iteration,
    ...[...mdl.parameters, ...mdl.objectives, ...mdl.outcomes].map((m) => columnHeading({ name: m.name, unit: 'unit' in m ? m.unit : undefined })),
    FIXED_COLUMNS.status,
    FIXED_COLUMNS.reason,
    FIXED_COLUMNS.note,
  ];
}

const spaced = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Where each of the campaign's columns is in a file: the MDL name or fixed column → its index. */
export type ColumnIndex = ReadonlyMap<string, number>;

/**
 * Reads a results file's header against the campaign. Refuses (422, nothing read further) a
 * column that is not the campaign's (with the nearest name when one is close: a typo), a unit
 * other than the MDL's, a column given twice, and a missing id, objective or outcome column; the
 * message names each and lists the columns the campaign's worklist has.
 */
export function readHeader(mdl: Mdl, header: readonly string[], rows: readonly (readonly string[])[]): ColumnIndex {
  const measures = [...mdl.parameters, ...mdl.objectives, ...mdl.outcomes];
  const known = new Map<string, { name: string; unit?: string }>();
  for (const m of measures) known.set(m.name.toLowerCase(), { name: m.name, unit: 'unit' in m ? m.unit : undefined });
  for (const name of [...Object.values(FIXED_COLUMNS), REASON_ALIAS]) if (!known.has(name)) known.set(name, { name });
  const index = new Map<string, number>();
  const errors: FieldError[] = [];
  // a column named wrong is reported once, as itself, not again as the column it was meant to be
  const meant = new Set<string>();
  header.forEach((raw, k) => {
    const text = spaced(unescapeFormula(raw));
    const path = `header[${k + 1}]`;
    if (text === '') {
      // a spreadsheet's trailing empty column is nothing; a heading left out above values is a mistake
      if (rows.some((r) => (r[k] ?? '').trim() !== '')) {
        errors.push({ path, message: `column ${k + 1} has no heading but holds values: name it` });
      }
      return;
    }
    const withUnit = /^(.*?)\s*\((.*)\)$/.exec(text);
    const [name, unit] = withUnit ? [withUnit[1], spaced(withUnit[2])] : [text, null];
    const column = known.get(name.toLowerCase());
    if (!column) {
      const near = nearest(
        name,
        [...known.values()].map((c) => c.name),
      );
      if (near) meant.add(near);
      errors.push({ path, message: `"${raw}" is not a column of this campaign${near ? ` (did you mean ${near}?)` : ''}` });
      return;
    }
    if (unit !== null && unit !== (column.unit === undefined ? null : spaced(column.unit))) {
      const expected = column.unit ? `its unit is ${column.unit}` : 'it has no unit in this campaign';
      errors.push({
        path,
        message: `"${raw}" gives ${column.name} in ${unit}, but ${expected}: convert the values, then head the column ${columnHeading(column)}`,
      });
      meant.add(column.name);
      return;
    }
    if (index.has(column.name)) {
      errors.push({ path, message: `"${raw}" repeats column ${index.get(column.name)! + 1} (${column.name}): give each column once` });
      return;
    }
    index.set(column.name, k);
  });
  const required = [FIXED_COLUMNS.id, ...mdl.objectives.map((o) => o.name), ...mdl.outcomes.map((o) => o.name)];
  for (const name of required.filter((n) => !index.has(n) && !meant.has(n))) {
    const what =
      name === FIXED_COLUMNS.id ? 'the id of each candidate, as the worklist gives it' : 'leave its cells empty where it was not measured, but keep the column';
    errors.push({ path: 'header', message: `the file has no ${name} column (${what})` });
  }
  if (errors.length > 0) {
    const expected = worklistHeading(mdl);
    throw new KilnError(
      'VALIDATION_FAILED',
      `The file's columns are not this campaign's, so nothing was stored: ${errors.map((e) => e.message).join('; ')}. Expected the worklist's columns: ${expected.join(', ')} (only id and the objective and outcome columns are needed).`,
      { errors, expected_columns: expected },
    );
  }
  return index;
}

/** The known name closest to a misspelt one (one edit per four letters, at most two; case aside), or null. */
function nearest(name: string, names: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(1, Math.min(2, Math.floor(name.length / 4))) + 1;
  for (const candidate of names) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** The reason column of a file: `reason`, else the older `error`. */
export function reasonColumn(index: ColumnIndex): number | undefined {
  return index.get(FIXED_COLUMNS.reason) ?? index.get(REASON_ALIAS);
}
