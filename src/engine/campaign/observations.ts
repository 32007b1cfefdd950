import { evaluationSlacks, isFeasible } from './feasibility.js';
import { isNoisy } from './noisy-front.js';
import { directionSigns, objectiveMatrix } from './objective-space.js';
import type { CampaignState } from './types.js';
import type { Mdl } from '../mdl/schema.js';
import type { SearchSpace } from '../space.js';
import type { Observations } from '../strategies/types.js';

/**
 * The campaign's evaluations as every strategy sees them: successful rows encoded into the unit
 * cube (snapped, so a stored value and a proposal of it coincide) with minimization-space
 * objectives and outcome-constraint slacks, and the inputs of failed evaluations apart. Rows
 * need every objective: a partial measurement is kept out of both.
 */
export function observe(mdl: Mdl, state: Readonly<CampaignState>, space: SearchSpace): Observations {
  const { Y, n, m, rows } = objectiveMatrix(mdl, state.evaluations);
  const d = space.dimension;
  const X = new Float64Array(n * d);
  const ids: string[] = [];
  const iterations = new Int32Array(n);
  rows.forEach((r, i) => {
    const e = state.evaluations[r];
    X.set(space.snap(space.encode(e.parameters)), i * d);
    ids.push(e.id);
    iterations[i] = e.iteration;
  });
  const c = mdl.outcome_constraints.length;
  const C = new Float64Array(n * c);
  const feasible = new Uint8Array(n);
  rows.forEach((r, i) => {
    C.set(evaluationSlacks(mdl, state.evaluations[r]), i * c);
    feasible[i] = isFeasible(mdl, state.evaluations[r]) ? 1 : 0;
  });
  boundSlacks(C, n, c);
  // a partial measurement is no failure, and an abandoned candidate was never measured: the
  // failure model sees only evaluations that gave nothing
  const failed: Float64Array[] = [];
  for (const e of state.evaluations) if (e.objectives === null && !e.abandoned) failed.push(space.snap(space.encode(e.parameters)));
  const partial = partialRows(mdl, state, space);
  const pending = state.pending.map((p) => space.snap(space.encode(p.parameters)));
  return {
    d,
    m,
    n,
    X,
    Y,
    ids,
    iterations,
    c,
    C,
    feasible,
    failed,
    pending,
    pendingIds: state.pending.map((p) => p.id),
    ...(partial ? { partial } : {}),
    ref: state.referencePoint ? [...state.referencePoint] : null,
    noisy: isNoisy(mdl, state),
  };
}

/** Evaluations with some objectives measured and some not, as encoded inputs and NaN-holed objectives; undefined when none. */
function partialRows(mdl: Mdl, state: Readonly<CampaignState>, space: SearchSpace): Observations['partial'] {
  const signs = directionSigns(mdl);
  const rows = state.evaluations.filter((e) => e.objectives !== null && !mdl.objectives.every((o) => Number.isFinite(e.objectives![o.name])));
  if (rows.length === 0) return undefined;
  const d = space.dimension;
  const m = mdl.objectives.length;
  const X = new Float64Array(rows.length * d);
  const Y = new Float64Array(rows.length * m);
  rows.forEach((e, i) => {
    X.set(space.snap(space.encode(e.parameters)), i * d);
    mdl.objectives.forEach((o, j) => {
      const v = e.objectives![o.name];
      Y[i * m + j] = Number.isFinite(v) ? signs[j] * v : Number.NaN;
    });
  });
  return { X, Y, n: rows.length };
}

/**
 * A constraint whose expression is undefined at a row (a square root of a negative measured
 * value) has slack −∞ there; models need numbers, so it becomes the worst finite slack of its
 * column less that column's range (or 1).
 */
function boundSlacks(C: Float64Array, n: number, c: number): void {
  for (let k = 0; k < c; k++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = C[i * c + k];
      if (Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    const floor = Number.isFinite(lo) ? lo - Math.max(hi - lo, 1) : -1;
    for (let i = 0; i < n; i++) if (!Number.isFinite(C[i * c + k])) C[i * c + k] = floor;
  }
}
