import { latinHypercube } from '../design.js';
import { Random } from '../random.js';
import type { SearchSpace } from '../space.js';
import { NO_FITS, type Strategy, type StrategyContext } from './types.js';

/**
 * The model-free strategies: the initial design (a Latin hypercube of the first batch), uniform
 * random points and one Latin hypercube over the whole budget handed out batch by batch.
 */

export const initialDesign: Strategy = {
  name: 'initial-design',
  plan: () => NO_FITS,
  propose: async ({ space, q, random }) => ({ points: rows(latinHypercube(space, q, random), space.dimension, 0, q), label: 'initial-design' }),
};

export const randomSearch: Strategy = {
  name: 'random',
  plan: () => NO_FITS,
  propose: async ({ space, q, random }) => ({ points: randomPoints(space, q, random), label: 'random' }),
};

/** The same design every step (seeded by the campaign seed alone), so batches are its consecutive rows. */
export const latinHypercubeSearch: Strategy = {
  name: 'lhs',
  plan: () => NO_FITS,
  propose: async ({ campaign, space, seed, used, q }: StrategyContext) => {
    const design = latinHypercube(space, campaign.budget, new Random(seed));
    return { points: rows(design, space.dimension, used, used + q), label: 'lhs' };
  },
};

/** Rows [from, to) of an `n x d` row-major matrix, as copies. */
export function rows(matrix: Float64Array, d: number, from: number, to: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let i = from; i < to; i++) out.push(matrix.slice(i * d, (i + 1) * d));
  return out;
}

/** Uniform random feasible points (repaired where constraints are linear, rejected otherwise). */
export function randomPoints(space: SearchSpace, count: number, random: Random): Float64Array[] {
  const out: Float64Array[] = [];
  for (let attempt = 0; out.length < count; attempt++) {
    if (attempt > 1000 * count) {
      throw new Error('Kiln could not sample feasible points: check that the constraints can all hold within the bounds.');
    }
    const x = space.repair(Float64Array.from({ length: space.dimension }, () => random.uniform()));
    if (space.isFeasible(space.decode(x))) out.push(x);
  }
  return out;
}
