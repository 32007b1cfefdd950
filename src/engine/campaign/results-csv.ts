import Papa from 'papaparse';
import type { Mdl } from '../mdl/schema.js';
import type { ResultRow } from './results.js';

/**
 * Results as CSV (decisions.md): header `id,iteration,is_pareto,<parameters...>,<objectives...>`
 * in MDL order. String cells beginning with = + - @ are prefixed with a quote so a spreadsheet
 * never runs them as formulas; numbers are written as numbers.
 */
export function resultsCsv(mdl: Mdl, rows: readonly ResultRow[]): string {
  const fields = [
    'id',
    'iteration',
    'is_pareto',
    ...mdl.parameters.map((p) => p.name),
    ...mdl.objectives.map((o) => o.name),
  ];
  const data = rows.map((r) => [
    r.id,
    r.iteration,
    r.is_pareto,
    ...mdl.parameters.map((p) => r.parameters[p.name]),
    ...mdl.objectives.map((o) => r.objectives[o.name]),
  ]);
  return Papa.unparse({ fields, data }, { escapeFormulae: true, newline: '\n' }) + '\n';
}
