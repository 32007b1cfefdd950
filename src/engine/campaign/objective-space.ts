import type { Mdl } from '../mdl/schema.js';
import { isFeasible } from './feasibility.js';
import type { EvaluationRecord } from './types.js';

/**
 * The engine works in minimization space: every maximized objective is negated, so Pareto
 * dominance, hypervolume and the surrogates share one convention.
 */
export function directionSigns(mdl: Mdl): Float64Array {
  return Float64Array.from(mdl.objectives, (o) => (o.direction === 'maximize' ? -1 : 1));
}

/**
 * Successful (or only the feasible: outcome constraints met) evaluations as a `n x m` row-major
 * minimization-space matrix, with their indices.
 */
export function objectiveMatrix(
  mdl: Mdl,
  evaluations: readonly EvaluationRecord[],
  which: 'successful' | 'feasible' = 'successful',
): { Y: Float64Array; n: number; m: number; rows: number[] } {
  const m = mdl.objectives.length;
  const signs = directionSigns(mdl);
  const rows: number[] = [];
  evaluations.forEach((e, i) => {
    if (!e.objectives || !mdl.objectives.every((o) => Number.isFinite(e.objectives![o.name]))) return;
    if (which === 'successful' || isFeasible(mdl, e)) rows.push(i);
  });
  const Y = new Float64Array(rows.length * m);
  rows.forEach((r, k) => {
    const obj = evaluations[r].objectives!;
    for (let j = 0; j < m; j++) Y[k * m + j] = signs[j] * obj[mdl.objectives[j].name];
  });
  return { Y, n: rows.length, m, rows };
}

/**
 * The hypervolume reference point in minimization space. An objective's `reference` (worst
 * acceptable value, MDL units) is used as given; otherwise it is inferred from the data as the
 * worst observed value plus 10% of the observed range (as BoTorch's infer_reference_point does
 * for the Pareto front), so every non-degenerate observed point contributes.
 *
 * Y: `n x m` minimization-space objectives (n >= 1).
 */
export function referencePoint(mdl: Mdl, Y: Float64Array, n: number): number[] {
  const m = mdl.objectives.length;
  const signs = directionSigns(mdl);
  return mdl.objectives.map((o, j) => {
    if (o.reference !== undefined) return signs[j] * o.reference;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = Y[i * m + j];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const range = hi - lo;
    const margin = range > 0 ? 0.1 * range : Math.max(0.1 * Math.abs(hi), 1e-6);
    return hi + margin;
  });
}

/** A minimization-space vector back in MDL units and names. */
export function toObjectiveRecord(mdl: Mdl, values: ArrayLike<number>): Record<string, number> {
  const out: Record<string, number> = {};
  mdl.objectives.forEach((o, j) => {
    out[o.name] = o.direction === 'maximize' ? -values[j] : values[j];
  });
  return out;
}
