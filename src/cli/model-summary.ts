import type { ModelReport } from '../engine/diagnostics/report.js';
import type { Mdl } from '../engine/mdl/schema.js';

/** Parameters listed per objective in the importance line. */
const SHOWN_PARAMETERS = 5;

/**
 * The end-of-run reading of the model report: per objective (and outcome constraint), how well
 * the surrogate predicted each measurement from the others, and which parameters matter most.
 */
export function modelSummary(mdl: Mdl, report: ModelReport): string {
  if (report.outputs.length === 0) return `Model check: ${report.message ?? 'nothing to check'}`;
  const units = new Map(mdl.objectives.map((o) => [o.name, o.unit]));
  const percent = (share: number) => `${Math.round(share * 100)} %`;
  const lines = [`Model check (leave-one-out over the ${report.points} most recent evaluations; a calibrated model holds about 68 % and 95 %):`];
  for (const o of report.outputs) {
    const unit = units.get(o.name);
    lines.push(
      `  ${o.name}${unit ? ` (${unit})` : ''}: R² ${o.r2.toFixed(3)}, ±1σ holds ${percent(o.coverage_68)}, ±1.96σ holds ${percent(o.coverage_95)}, ` +
        `mean standardized error ${o.mean_standardized_error.toFixed(2)}`,
    );
  }
  lines.push('Parameter importance (total Sobol index of the surrogate mean):');
  for (const { objective, parameters } of report.importance) {
    const top = [...parameters].sort((a, b) => b.total_sobol - a.total_sobol).slice(0, SHOWN_PARAMETERS);
    lines.push(`  ${objective}: ${top.map((p) => `${p.name} ${p.total_sobol.toFixed(2)}`).join(', ')}`);
  }
  return lines.join('\n');
}
