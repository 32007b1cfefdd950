import Papa from 'papaparse';
import type { Mdl } from '../mdl/schema.js';
import type { ResultRow } from './results.js';

/**
 * Results as CSV: header `id,iteration,is_pareto,<parameters...>,<objectives...>` in MDL order;
 * a campaign with outcomes or outcome constraints adds `<outcomes...>,feasible` at the end, so
 * the columns of an unconstrained campaign never move. A noisy campaign's rows (which carry the
 * model's predictions) add `measurements,<objective>_predicted,<objective>_sd...` after those:
 * on a front row the objectives are the mean of the design's measurements. Rows that kept a warm
 * start's own ids add `external_id` last. String cells beginning with = + - @ are
 * prefixed with a quote so a spreadsheet never runs them as formulas; numbers are written as
 * numbers.
 */
export function resultsCsv(mdl: Mdl, rows: readonly ResultRow[]): string {
  const constrained = mdl.outcomes.length > 0 || mdl.outcome_constraints.length > 0;
  const noisy = rows.some((r) => r.predicted !== undefined);
  const withExternal = rows.some((r) => r.external_id !== undefined);
  const fields = [
    'id',
    'iteration',
    'is_pareto',
    ...mdl.parameters.map((p) => p.name),
    ...mdl.objectives.map((o) => o.name),
    ...(constrained ? [...mdl.outcomes.map((o) => o.name), 'feasible'] : []),
    ...(noisy ? ['measurements', ...mdl.objectives.flatMap((o) => [`${o.name}_predicted`, `${o.name}_sd`])] : []),
    ...(withExternal ? ['external_id'] : []),
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
  ]);
  return Papa.unparse({ fields, data }, { escapeFormulae: true, newline: '\n' }) + '\n';
}
