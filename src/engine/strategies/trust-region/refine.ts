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
/** Backtracking steps an iteration tries before it gives up. */
const LINE_SEARCH_ATTEMPTS = 8;
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

/** Every objective's draw at some points: values `count x m` and gradients `count x m x d` (standardized units). */
export interface DrawValues {
  values: Float64Array;
  gradients: Float64Array;
}

/** One region's draw of every objective, and how to turn standardized draws into objective units. */
export interface RegionDraw {
  /** objectives */
  m: number;
  /** the draws and their gradients at `count x d` points; many points go in one call */
  evaluate(points: Float64Array, count: number): Promise<DrawValues>;
  mean: number[];
  std: number[];
  /** the region's box in the unit cube */
  lower: Float64Array;
  upper: Float64Array;
}

/** A RegionDraw over paths evaluated one point at a time on the CPU (quadratic models, tests). */
export function drawOfPaths(paths: readonly PosteriorPath[], box: Pick<RegionDraw, 'mean' | 'std' | 'lower' | 'upper'>): RegionDraw {
  const m = paths.length;
  return {
    m,
    ...box,
    evaluate: async (points, count) => {
      const d = box.lower.length;
      const values = new Float64Array(count * m);
      const gradients = new Float64Array(count * m * d);
      for (let a = 0; a < count; a++) {
        const x = points.subarray(a * d, (a + 1) * d);
        for (let j = 0; j < m; j++) values[a * m + j] = paths[j].withGradient(x, gradients.subarray((a * m + j) * d, (a * m + j + 1) * d));
      }
      return { values, gradients };
    },
  };
}

/** One refinement to run: a start on a region's draw, what to descend, and how far it may move. */
export interface RefineJob {
  draw: RegionDraw;
  start: Float64Array;
  scalarization: Scalarization;
  /** the move's bound per coordinate, as a share of the box's width (REFINE_REACH by default) */
  reach?: number;
}

/**
 * Line-search trials a refinement has evaluated per round (refineCandidates) on a backend of this
 * compute scale (jobs/compute-scale.ts: how many times a CPU's work the backend does in the same
 * time, 1 on a CPU). On a CPU the backtracking line search tries one step at a time; a backend that
 * evaluates s points in the time of one tries min(s, 8) steps per round, so the lockstep needs
 * up to 8 times fewer rounds, each one read-back and a few dozen kernel launches per region,
 * which is what a GPU spends its time on here. The refined points are the same either way.
 */
export function lineSearchTrials(computeScale: number): number {
  return Math.max(1, Math.min(LINE_SEARCH_ATTEMPTS, Math.floor(computeScale)));
}

/**
 * Refines each job's start on its draw (see refinement), all in lockstep: every round, the
 * points the jobs ask for are evaluated in one call per draw, so a batch of refinements costs a
 * few dozen batched evaluations on the tensor backend rather than thousands of single ones.
 * `spread` (length m): the objectives' units; `trials`: line-search steps tried per round
 * (lineSearchTrials). Returns each job's refined point, or null.
 */
export async function refineCandidates(space: SearchSpace, jobs: readonly RefineJob[], spread: Float64Array, trials = 1): Promise<(Float64Array | null)[]> {
  const results: (Float64Array | null)[] = jobs.map(() => null);
  const running = jobs.map((job) => refinement(space, job, spread, trials));
  let asks = running.map((r) => r.next());
  while (asks.some((a) => !a.done)) {
    // one evaluation per draw, of every point asked of it this round
    const byDraw = new Map<RegionDraw, number[]>();
    asks.forEach((a, k) => {
      if (!a.done) byDraw.set(jobs[k].draw, [...(byDraw.get(jobs[k].draw) ?? []), k]);
    });
    const answers = new Map<number, DrawValues[]>();
    await Promise.all(
      [...byDraw].map(async ([draw, members]) => {
        const d = draw.lower.length;
        const m = draw.m;
        const asked = members.map((k) => asks[k].value as Float64Array[]);
        const total = asked.reduce((sum, points) => sum + points.length, 0);
        const points = new Float64Array(total * d);
        let row = 0;
        for (const list of asked) for (const point of list) points.set(point, d * row++);
        const { values, gradients } = await draw.evaluate(points, total);
        row = 0;
        members.forEach((k, i) => {
          answers.set(
            k,
            asked[i].map(() => {
              const r = row++;
              return { values: values.subarray(r * m, (r + 1) * m), gradients: gradients.subarray(r * m * d, (r + 1) * m * d) };
            }),
          );
        });
      }),
    );
    asks = asks.map((a, k) => {
      if (a.done) return a;
      const next = running[k].next(answers.get(k)!);
      if (next.done) results[k] = next.value;
      return next;
    });
  }
  return results;
}

/** refineCandidates for one start. */
export async function refineCandidate(
  space: SearchSpace,
  draw: RegionDraw,
  x: Float64Array,
  scalarization: Scalarization,
  spread: Float64Array,
  reach = REFINE_REACH,
): Promise<Float64Array | null> {
  return (await refineCandidates(space, [{ draw, start: x, scalarization, reach }], spread))[0];
}

/**
 * Refines the start (length d, encoded) on its draw, descending the scalarization in units of
 * `spread` (length m); the reach bounds the move per coordinate as a share of the box's width.
 * A generator: it yields the points whose draw values and gradients it needs (the start, then
 * up to `trials` line-search steps at a time, largest first) and is resumed with them, so that
 * refineCandidates can evaluate many refinements' points together. Each iteration takes the
 * largest step that descends enough (Armijo), as a backtracking search trying one step at a time
 * would. Returns the refined point, repaired into the space's constraints, or null when it leaves
 * a nonlinear constraint.
 */
function* refinement(space: SearchSpace, job: RefineJob, spread: Float64Array, trials: number): Generator<Float64Array[], Float64Array | null, DrawValues[]> {
  const { draw, start: x, scalarization } = job;
  const reach = job.reach ?? REFINE_REACH;
  const d = x.length;
  const m = draw.m;
  const mobile = space.layout.filter((l) => l.parameter.type !== 'categorical').map((l) => l.offset);
  if (mobile.length === 0) return null;
  const lower = Float64Array.from(draw.lower, (l, k) => Math.max(l, x[k] - reach * (draw.upper[k] - l)));
  const upper = Float64Array.from(draw.upper, (u, k) => Math.min(u, x[k] + reach * (u - draw.lower[k])));
  const width = Float64Array.from(upper, (u, k) => u - lower[k]);

  const values = new Float64Array(m);
  const gradients = new Float64Array(m * d);
  const take = (answer: DrawValues): void => {
    for (let j = 0; j < m; j++) values[j] = draw.mean[j] + draw.std[j] * answer.values[j];
    gradients.set(answer.gradients.subarray(0, m * d));
  };
  take((yield [Float64Array.from(x)])[0]);
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
      for (const k of mobile) gradient[k] += share * gradients[j * d + k];
    }
    return SMOOTHING * (top + Math.log(total));
  };

  const current = Float64Array.from(x);
  let value = scalarized();
  let move = 0.25;
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    let steepest = 0;
    for (const k of mobile) steepest = Math.max(steepest, Math.abs(gradient[k] * width[k]));
    if (!(steepest > 1e-12)) break;
    // the backtracking steps, each a quarter of the last; those predicting no descent are skipped
    const steps: { point: Float64Array; predicted: number; move: number }[] = [];
    for (let attempt = 0, size = move; attempt < LINE_SEARCH_ATTEMPTS; attempt++, size /= 4) {
      const point = Float64Array.from(current);
      let predicted = 0;
      for (const k of mobile) {
        const next = current[k] - (size / steepest) * gradient[k] * width[k] * width[k];
        point[k] = Math.min(upper[k], Math.max(lower[k], next));
        predicted += gradient[k] * (current[k] - point[k]);
      }
      if (predicted > 0) steps.push({ point, predicted, move: size });
    }
    let accepted: (typeof steps)[number] | null = null;
    for (let first = 0; first < steps.length && !accepted; first += trials) {
      const group = steps.slice(first, first + trials);
      const answers = yield group.map((s) => s.point);
      for (const [k, s] of group.entries()) {
        take(answers[k]);
        const reached = scalarized();
        if (reached <= value - 1e-4 * s.predicted) {
          accepted = s;
          value = reached;
          break;
        }
      }
    }
    if (!accepted) break;
    current.set(accepted.point);
    move = Math.min(0.5, 2 * accepted.move);
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
