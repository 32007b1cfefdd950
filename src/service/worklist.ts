import Papa from 'papaparse';
import { escapeFormula, unescapeFormula } from '../engine/campaign/formula-escape.js';
import { resultStatus } from '../engine/campaign/result-status.js';
import type { Proposal } from '../engine/campaign/types.js';
import type { Mdl, ParameterValue } from '../engine/mdl/schema.js';
import type { ResultValues } from '../store/corrections.js';
import type { Executor } from '../store/db.js';
import { evaluationsAt } from '../store/campaigns.js';
import { worklistHeading } from './result-columns.js';

type Parameter = Mdl['parameters'][number];

/**
 * A parameter's value as a lab sets it, the way the worklist file and the dashboard both write it
 * (web/src/format.ts `formatParameter` is this rule again, for the bundle; a test holds them
 * together): a categorical value as it is; an integer whole; a listed value (`values`) as the MDL
 * lists it; a stepped one (lower + k·step) with the grid's decimals, trailing zeros kept (a step of
 * 0.05 writes 0.50); any other number to 5 significant digits of its range (of the value itself on a log
 * scale), without trailing zeros or an exponent; and a value within that rounding of a bound as
 * the bound (no 0.3999999999999716 for 0.4, no 5.5784238574612535e-8 for 0).
 */
export function parameterText(value: ParameterValue, p: Parameter): string {
  if (typeof value !== 'number' || p.type === 'categorical') return String(value);
  if (!Number.isFinite(value)) return String(value);
  if (p.type === 'integer') return String(Math.round(value));
  const [lower, upper] = p.bounds;
  if (p.values !== undefined && p.values.length > 0) return String(p.values.reduce((a, b) => (Math.abs(b - value) < Math.abs(a - value) ? b : a)));
  if (p.step !== undefined && p.step > 0) {
    const decimals = Math.min(15, Math.max(decimalsOf(p.step), decimalsOf(lower)));
    const k = Math.round((value - lower) / p.step);
    return Math.min(upper, Math.max(lower, lower + k * p.step)).toFixed(decimals);
  }
  if (upper === lower) return String(lower);
  if (p.scale === 'log') {
    const rounded = Number(value.toPrecision(5));
    for (const bound of [lower, upper]) if (rounded === Number(bound.toPrecision(5))) return String(bound);
    return plain(rounded, Math.max(0, 4 - Math.floor(Math.log10(Math.abs(rounded)))));
  }
  const decimals = Math.max(0, 4 - Math.floor(Math.log10(upper - lower)));
  const half = 0.5 * 10 ** -decimals;
  for (const bound of [lower, upper]) if (Math.abs(value - bound) <= half) return String(bound);
  return plain(value, decimals);
}

/** The decimals a number is written with: 0.05 → 2, 5 → 0, 1e-7 → 7. */
function decimalsOf(x: number): number {
  const [mantissa, exponent] = x.toExponential().split('e');
  return Math.max(0, (mantissa.split('.')[1] ?? '').length - Number(exponent));
}

/** `x` to `decimals` decimals, trailing zeros dropped, never an exponent. */
function plain(x: number, decimals: number): string {
  const text = x.toFixed(Math.min(decimals, 20));
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** A candidate that repeats the parameters of a measured design, and why: said before it is measured. */
export interface Repeat {
  /** the first measurement of the design it repeats */
  repeat_of: string;
  note: string;
}

/**
 * The pending candidates that repeat a design already measured (same parameter values): the
 * noise check, which measures one front design again to learn whether measurements are noisy, or
 * `optimizer.replicates`, which measures each front design that many times. Labs are told before
 * they measure, so the repeat is prepared as a new sample rather than copied from the first.
 */
export async function repeatsOf(db: Executor, campaignId: string, mdl: Mdl, pending: readonly Proposal[]): Promise<Map<string, Repeat>> {
  const repeats = new Map<string, Repeat>();
  if (pending.length === 0) return repeats;
  const measured = await evaluationsAt(
    db,
    campaignId,
    pending.map((p) => p.parameters),
  );
  const key = (parameters: Record<string, ParameterValue>) => JSON.stringify(mdl.parameters.map((p) => parameters[p.name]));
  for (const p of pending) {
    const earlier = measured.filter((e) => key(e.parameters) === key(p.parameters));
    if (earlier.length === 0) continue;
    const first = earlier[0].id;
    const replicates = mdl.optimizer.replicates ?? 1;
    const note =
      replicates > 1
        ? `repeat of ${first}: measurement ${earlier.length + 1} of ${replicates} of this design (optimizer.replicates), so its mean is more certain; prepare and measure it as a new sample`
        : `repeat of ${first}, on purpose: the noise check measures one design again to learn how much repeated measurements differ; prepare and measure it as a new sample, not a copy of the first result`;
    repeats.set(p.id, { repeat_of: first, note });
  }
  return repeats;
}

/** A candidate of the worklist, with the result posted for it so far (if any) and why it repeats a design (if it does). */
export interface WorklistRow {
  id: string;
  iteration: number;
  parameters: Record<string, ParameterValue>;
  result: ResultValues | null;
  repeat?: Repeat;
}

/**
 * The pending batch as a worklist to fill in, headed as the dashboard heads its columns:
 * `id,iteration,<parameters>,<objectives>,<outcomes>,status,reason,note` in MDL order, each with
 * its unit in parentheses (`conductivity (mS/cm)`), and a UTF-8 byte-order mark so a spreadsheet
 * reads it as UTF-8. Parameter values are written as a lab sets them (parameterText); values
 * already posted in full, so the filled file posts back as it is (results-file.ts reads the same
 * headings; rows left empty wait). `note` says why a candidate repeats a measured design. Text
 * cells are escaped against formula injection; the reader removes the escape.
 */
export function worklistCsv(mdl: Mdl, rows: readonly WorklistRow[]): string {
  const data = rows.map((r) => {
    const v = r.result;
    const status = v === null ? '' : resultStatus(mdl, v) === 'partial' ? 'measured' : resultStatus(mdl, v);
    return [
      escapeFormula(r.id),
      String(r.iteration),
      ...mdl.parameters.map((p) => escapeFormula(parameterText(r.parameters[p.name], p))),
      ...mdl.objectives.map((o) => String(v?.objectives?.[o.name] ?? '')),
      ...mdl.outcomes.map((o) => String(v?.outcomes?.[o.name] ?? '')),
      status,
      // the reason as it was given, so the file posts back unchanged
      escapeFormula(v && v.objectives === null ? (v.error ?? '') : ''),
      escapeFormula(r.repeat?.note ?? ''),
    ];
  });
  const fields = worklistHeading(mdl).map(escapeFormula);
  // an escaped cell is quoted too, as spreadsheets expect of text that must stay text
  const escaped = (value: unknown) => typeof value === 'string' && value !== unescapeFormula(value);
  return '\uFEFF' + Papa.unparse({ fields, data }, { quotes: escaped, newline: '\r\n' }) + '\r\n';
}
