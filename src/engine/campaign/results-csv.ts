import Papa from 'papaparse';
import type { Mdl } from '../mdl/schema.js';
import { FORMULA_START } from './formula-escape.js';
import type { FailedRow } from './result-status.js';
import type { ResultRow } from './results.js';

/**
 * Results as CSV: header `id,iteration,is_pareto,<parameters...>,<objectives...>` in MDL order;
 * a campaign with outcomes or outcome constraints adds `<outcomes...>,feasible` at the end, so
 * the columns of an unconstrained campaign never move. A noisy campaign's rows (which carry the
 * model's predictions) add `measurements,<objective>_predicted,<objective>_sd...` after those:
 * on a front row the objectives are the mean of the design's measurements. Rows that kept a warm
 * start's own ids add `external_id`. When some row is not fully measured (a partial measurement,
 * or the `failed` rows given: failed and abandoned candidates, which have no values), every row
 * says its state in a last `status,reason` pair (measured, partial, failed, abandoned; the reason
 * of a failed or abandoned one). Text cells are escaped against formula injection
 * (formula-escape.ts); numbers are written as numbers.
 */
export function resultsCsv(mdl: Mdl, rows: readonly ResultRow[], failed: readonly FailedRow[] = []): string {
  const constrained = mdl.outcomes.length > 0 || mdl.outcome_constraints.length > 0;
  const noisy = rows.some((r) => r.predicted !== undefined);
  const withExternal = rows.some((r) => r.external_id !== undefined) || failed.some((r) => r.external_id !== undefined);
  const withStatus = failed.length > 0 || rows.some((r) => r.status === 'partial');
  const fields = [
    'id',
    'iteration',
    'is_pareto',
    ...mdl.parameters.map((p) => p.name),
    ...mdl.objectives.map((o) => o.name),
    ...(constrained ? [...mdl.outcomes.map((o) => o.name), 'feasible'] : []),
    ...(noisy ? ['measurements', ...mdl.objectives.flatMap((o) => [`${o.name}_predicted`, `${o.name}_sd`])] : []),
    ...(withExternal ? ['external_id'] : []),
    ...(withStatus ? ['status', 'reason'] : []),
  ];
  const data = rows.map((r) => [
    r.id,
    r.iteration,
    r.is_pareto,
    ...mdl.parameters.map((p) => r.parameters[p.name]),
    ...mdl.objectives.map((o) => r.objectives[o.name]),
    ...(constrained ? [...mdl.outcomes.map((o) => r.outcomes?.[o.name]), r.feasible] : []),
    ...(noisy ? [r.measurements, ...mdl.objectives.flatMap((o) => [r.predicted?.[o.name].mean, r.predicted?.[o.name].sd])] : []),
    ...(withExternal ? [r.external_id ?? ''] : []),
    ...(withStatus ? [r.status, ''] : []),
  ]);
  const none = (names: readonly unknown[]) => names.map(() => '');
  const failedData = failed.map((r) => [
    r.id,
    r.iteration,
    false,
    ...mdl.parameters.map((p) => r.parameters[p.name]),
    ...none(mdl.objectives),
    ...(constrained ? [...none(mdl.outcomes), false] : []),
    ...(noisy ? ['', ...none(mdl.objectives.flatMap((o) => [o, o]))] : []),
    ...(withExternal ? [r.external_id ?? ''] : []),
    r.status,
    r.error,
  ]);
  // by iteration, each one's scored rows first (a stable sort keeps the engine order within each)
  const ordered = [
    ...data.map((cells, k) => ({ iteration: rows[k].iteration, cells })),
    ...failedData.map((cells, k) => ({ iteration: failed[k].iteration, cells })),
  ]
    .sort((a, b) => a.iteration - b.iteration)
    .map((r) => r.cells);
  return Papa.unparse({ fields, data: ordered }, { escapeFormulae: FORMULA_START, newline: '\n' }) + '\n';
}
