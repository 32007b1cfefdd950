import type { PosteriorPath } from '../../gp/pathwise.js';
import type { SearchSpace } from '../../space.js';

/**
 * Gradient refinement of Thompson-sampled candidates. Random candidates find the region of a
 * draw's optimum but, in tens of dimensions, rarely its bottom: the best of a few thousand random
 * points sits far up a slope that every coordinate contributes to. Each chosen candidate is
 * therefore moved downhill on its own draw (pathwise draws are cheap to differentiate) inside its
 * region's box, the way BoTorch optimizes Thompson samples instead of only ranking them.
 *
 * With several objectives the candidate moves along its ray from a utopia point: the objective is
 * a smooth Chebyshev scalarization whose weights make every term equal at the start, so the
 * refined point improves all objectives in proportion and keeps the start's place on the front
 * (the greedy hypervolume selection then decides whether it is worth more than the others).
 * A region whose centre lies outside the reference box descends the achievement scalarization to
 * the reference point instead (acquisition/reach.ts): there the only goal is to get closer to the
 * box, in whichever objective is furthest from it. On a centre at the front's edge (one objective
 * near its best, another far beyond its reference) the ray from the utopia forbids the first to
 * grow by a hair while the second could halve.
 */

/** What a refinement descends, in units of each objective's spread (see above). */
export interface Scalarization {
  /** the utopia point, or the reference point */
  origin: ArrayLike<number>;
  /** whether weights make the start's terms equal (Chebyshev from a utopia) or all weights are 1 (achievement) */
  equalize: boolean;
}

export function towardUtopia(utopia: ArrayLike<number>): Scalarization {
  return { origin: utopia, equalize: true };
}

export function towardBox(ref: ArrayLike<number>): Scalarization {
  return { origin: ref, equalize: false };
}

/** Projected-gradient iterations per candidate. */
const ITERATIONS = 20;
/**
 * A refined point moves at most this share of its region's box from its start in any coordinate.
 * A draw is trustworthy only near the data the region's model saw: given a longer reach, the
 * descent finds the draw's extremes far from any evaluation (prior noise, not signal), and on
 * DTLZ2 in 30 dimensions reaches of 0.1 and more lost most of the gain that 0.01–0.03 bring.
 */
export const REFINE_REACH = 0.02;
/** Temperature of the smooth maximum over objectives, in units of the scalarization (the start's value when weights equalize). */
const SMOOTHING = 0.05;
/** The utopia point lies this share of each objective's spread beyond the best value known. */
const UTOPIA_MARGIN = 0.1;

/** One region's draw of every objective, and how to turn standardized draws into objective units. */
export interface RegionDraw {
  paths: PosteriorPath[];
  mean: number[];
  std: number[];
  /** the region's box in the unit cube */
  lower: Float64Array;
  upper: Float64Array;
}

/**
 * Refines the start `x` (length d, encoded) on `draw`, descending `scalarization` in units of
 * `spread` (length m); `reach` bounds the move per coordinate as a share of the box's width.
 * Returns the refined point, repaired into the space's constraints, or null when it leaves a
 * nonlinear constraint.
 */
export function refineCandidate(
  space: SearchSpace,
  draw: RegionDraw,
  x: Float64Array,
  scalarization: Scalarization,
  spread: Float64Array,
  reach = REFINE_REACH,
): Float64Array | null {
  const d = x.length;
  const m = draw.paths.length;
  const mobile = space.layout.filter((l) => l.parameter.type !== 'categorical').map((l) => l.offset);
  if (mobile.length === 0) return null;
  const lower = Float64Array.from(draw.lower, (l, k) => Math.max(l, x[k] - reach * (draw.upper[k] - l)));
  const upper = Float64Array.from(draw.upper, (u, k) => Math.min(u, x[k] + reach * (u - draw.lower[k])));
  const width = Float64Array.from(upper, (u, k) => u - lower[k]);

  const values = new Float64Array(m);
  const gradients = Array.from({ length: m }, () => new Float64Array(d));
  const evaluate = (point: Float64Array): void => {
    for (let j = 0; j < m; j++) values[j] = draw.mean[j] + draw.std[j] * draw.paths[j].withGradient(point, gradients[j]);
  };
  evaluate(x);
  const { origin, equalize } = scalarization;
  const weights = Float64Array.from(values, (v, j) => (equalize ? 1 / Math.max(1e-9, (v - origin[j]) / spread[j]) : 1));
  const gradient = new Float64Array(d);
  // smooth max_j w_j (S_j − z_j) / σ_j (value 1 at the start when weights equalize); its gradient into `gradient`
  const scalarized = (): number => {
    let top = -Infinity;
    const terms = Float64Array.from(values, (v, j) => (weights[j] * (v - origin[j])) / spread[j] / SMOOTHING);
    for (const t of terms) top = Math.max(top, t);
    let total = 0;
    for (let j = 0; j < m; j++) total += terms[j] = Math.exp(terms[j] - top);
    gradient.fill(0);
    for (let j = 0; j < m; j++) {
      const share = ((terms[j] / total) * weights[j] * draw.std[j]) / spread[j];
      for (const k of mobile) gradient[k] += share * gradients[j][k];
    }
    return SMOOTHING * (top + Math.log(total));
  };

  const current = Float64Array.from(x);
  let value = scalarized();
  let move = 0.25;
  const trial = new Float64Array(d);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    let steepest = 0;
    for (const k of mobile) steepest = Math.max(steepest, Math.abs(gradient[k] * width[k]));
    if (!(steepest > 1e-12)) break;
    let accepted = false;
    let reached = value;
    for (let attempt = 0; attempt < 8; attempt++) {
      trial.set(current);
      let predicted = 0;
      for (const k of mobile) {
        const next = current[k] - (move / steepest) * gradient[k] * width[k] * width[k];
        trial[k] = Math.min(upper[k], Math.max(lower[k], next));
        predicted += gradient[k] * (current[k] - trial[k]);
      }
      if (predicted > 0) {
        const saved = Float64Array.from(gradient);
        evaluate(trial);
        reached = scalarized();
        if (reached <= value - 1e-4 * predicted) {
          accepted = true;
          break;
        }
        gradient.set(saved);
      }
      move /= 4;
    }
    if (!accepted) break;
    current.set(trial);
    value = reached;
    move = Math.min(0.5, 2 * move);
  }
  const repaired = space.repair(current);
  if (space.constraints.length > 0 && !space.isFeasible(space.decode(repaired))) return null;
  return repaired;
}

/** The utopia point of the scalarization: beyond the best observed or sampled value of each objective. */
export function utopiaPoint(values: readonly Float64Array[], m: number, spread: ArrayLike<number>): Float64Array {
  const utopia = new Float64Array(m).fill(Infinity);
  for (const S of values) for (let i = 0; i < S.length; i++) utopia[i % m] = Math.min(utopia[i % m], S[i]);
  return utopia.map((v, j) => v - UTOPIA_MARGIN * spread[j]);
}
