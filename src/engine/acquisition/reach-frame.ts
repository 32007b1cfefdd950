import { achievement, GLOBAL_MIXED_PER_OBJECTIVE, objectiveSpreads, reachPicks } from './reach.js';

/**
 * Where a strategy searches for its picks: `global` over the whole space (one GP on all data,
 * acquisition/batch.ts), `local` near its own data (trust regions).
 */
export type ReachSearch = 'global' | 'local';

/**
 * The reach criterion's frame for one step (acquisition/reach.ts): the rows it judges, the scale
 * of its achievement scalarization, which rows are feasible and how many of those lie inside the
 * reference box. A step builds it once from the observations its strategy sees
 * (campaign/compiled.ts); the global batch, the trust regions (reach picks, centres, step
 * scalarizations, batch verdicts) and the noise probe all read it, so the rule lives here only:
 *
 * - **scale**: per objective, the span from the best value of any successful row to the worse
 *   of the reference and the worst value (`objectiveSpreads`). Infeasible rows count (they
 *   measured the objective as well as feasible ones); values a strategy derives from the rows
 *   (trust regions' infeasible rows folded beyond the reference, the draws of pending
 *   candidates) do not, or the unit would change with the penalty.
 * - **inside**: feasible rows strictly better than the reference in every objective.
 * - **picks**: how many of a batch take the reach criterion (`reachPicks`): all while nothing is
 *   inside; the later ⌊q/2⌋ while 1 to `m` (local search) or 1 to 3m (global search) are, and, for
 *   the global search, whenever the latest iteration put no feasible point inside; none beyond.
 *   docs/mdl.md says why the two searches hand over at different counts.
 *
 * Y: `n x m` minimization-space objectives; feasible: per row 1 when it meets the outcome
 * constraints (every row when null); ref: the reference point (length m); iterations: per row
 * the iteration that proposed it (0 = warm start), for `latestMissed` (false when null).
 */
export class ReachFrame {
  /** per objective: the unit of the achievement scalarization (see above), length m */
  readonly scale: Float64Array;
  /** the feasible rows, in order */
  readonly feasibleRows: readonly number[];
  /** feasible rows strictly inside the reference box */
  readonly inside: number;
  /** whether the rows of the latest iteration (after the warm start) put no feasible point inside */
  readonly latestMissed: boolean;

  constructor(
    readonly Y: Float64Array,
    readonly n: number,
    readonly m: number,
    readonly ref: readonly number[],
    readonly feasible: Uint8Array | null = null,
    readonly iterations: Int32Array | null = null,
  ) {
    this.scale = objectiveSpreads(Y, n, m, ref);
    const rows: number[] = [];
    let inside = 0;
    for (let i = 0; i < n; i++) {
      if (feasible && !feasible[i]) continue;
      rows.push(i);
      if (this.isInside(i)) inside++;
    }
    this.feasibleRows = rows;
    this.inside = inside;
    this.latestMissed = iterations !== null && latestIterationMissed(this, iterations);
  }

  /** Whether row i is feasible and strictly better than the reference in every objective. */
  isInside(i: number): boolean {
    if (this.feasible && !this.feasible[i]) return false;
    for (let j = 0; j < this.m; j++) if (!(this.Y[i * this.m + j] < this.ref[j])) return false;
    return true;
  }

  /** How many of a batch of q picks take the reach criterion, for a strategy searching `search`. */
  picks(q: number, search: ReachSearch): number {
    if (search === 'local') return reachPicks(q, this.inside, this.m, this.m);
    return reachPicks(q, this.inside, this.m, GLOBAL_MIXED_PER_OBJECTIVE * this.m, this.latestMissed);
  }

  /** s(y) of row i (the achievement scalarization to the reference point), in `scale` (default the frame's). */
  achievementOf(i: number, scale: ArrayLike<number> = this.scale): number {
    return achievement(this.Y, i * this.m, this.ref, scale);
  }

  /**
   * The feasible row closest to the box (deepest inside, once some are): the lowest achievement
   * in `scale` (the frame's by default; a reach pick's aimed scale), the first on ties; −1 when
   * no row is feasible.
   */
  closest(scale: ArrayLike<number> = this.scale): number {
    let best = -1;
    let bestValue = Infinity;
    for (const i of this.feasibleRows) {
      const value = this.achievementOf(i, scale);
      if (value < bestValue) [best, bestValue] = [i, value];
    }
    return best;
  }

  /**
   * The same rows judged by other values (`n x m`: a noisy campaign's posterior means at the
   * evaluated points), by the same rule.
   */
  judgedBy(Y: Float64Array): ReachFrame {
    return Y === this.Y ? this : new ReachFrame(Y, this.n, this.m, this.ref, this.feasible, this.iterations);
  }

  /** The frame of the rows `keep` (a model's subset of the rows, in its order), by the same rule. */
  restrictedTo(keep: readonly number[]): ReachFrame {
    if (keep.length === this.n && keep.every((r, i) => r === i)) return this;
    const { m } = this;
    const Y = new Float64Array(keep.length * m);
    keep.forEach((r, i) => Y.set(this.Y.subarray(r * m, (r + 1) * m), i * m));
    const feasible = this.feasible ? Uint8Array.from(keep, (r) => this.feasible![r]) : null;
    const iterations = this.iterations ? Int32Array.from(keep, (r) => this.iterations![r]) : null;
    return new ReachFrame(Y, keep.length, m, this.ref, feasible, iterations);
  }
}

/** Whether the latest iteration after the warm start (iteration 0) has rows and none of them is inside. */
function latestIterationMissed(frame: ReachFrame, iterations: Int32Array): boolean {
  let latest = 0;
  for (let i = 0; i < frame.n; i++) latest = Math.max(latest, iterations[i]);
  if (latest === 0) return false;
  for (let i = 0; i < frame.n; i++) if (iterations[i] === latest && frame.isInside(i)) return false;
  return true;
}
