import { objectiveMatrix } from './objective-space.js';
import type { CampaignState } from './types.js';
import type { Mdl } from '../mdl/schema.js';
import type { SearchSpace } from '../space.js';
import type { Observations } from '../strategies/types.js';

/**
 * The campaign's evaluations as every strategy sees them: successful rows encoded into the unit
 * cube (snapped, so a stored value and a proposal of it coincide) with minimization-space
 * objectives, and the inputs of failed evaluations apart.
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
  const succeeded = new Set(rows);
  const failed: Float64Array[] = [];
  state.evaluations.forEach((e, i) => {
    if (!succeeded.has(i)) failed.push(space.snap(space.encode(e.parameters)));
  });
  return { d, m, n, X, Y, ids, iterations, failed, ref: state.referencePoint ? [...state.referencePoint] : null };
}
