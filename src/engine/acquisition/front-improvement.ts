import { hypervolumeImprovements } from '../hypervolume.js';
import { NondominatedBoxes } from '../hypervolume-boxes.js';
import { ExpectedBoxImprovement } from '../hypervolume-boxes-expected.js';
import { EXACT_IMPROVEMENT_MAX_OBJECTIVES, ScalarizedImprovement } from '../hypervolume-scalarized.js';
import { paretoIndices } from '../pareto.js';
import type { Random } from '../random.js';

/**
 * How each Monte Carlo sample's hypervolume improvement over a front is computed: `kernel`, the
 * WASM kernel's exact exclusive contribution (its 2-D and 3-D sweeps beat the boxes at m ≤ 3);
 * `boxes`, exact from the disjoint boxes of the region the front leaves open
 * (hypervolume-boxes.ts); `estimate`, random scalarizations (hypervolume-scalarized.ts), whose cost
 * does not grow with the front.
 */
export type ImprovementMethod = 'kernel' | 'boxes' | 'estimate';

/**
 * The most box-objective pairs (boxes · m) whose exact expected improvement a batch affords. A
 * candidate's expectation from the boxes costs about 6 to 8 ns per pair
 * (hypervolume-boxes-expected.ts), the estimate's 128 samples × 16 directions about 30 µs whatever
 * the front: at 16,000 pairs (4,000 boxes at m = 4, 3,200 at 5, 2,666 at 6) about 100 to 125 µs
 * against 30, for CMA-ES's 2,000 candidates of each of 10 picks about 2 s more per batch at most,
 * which the batches measured at m = 4 absorb (docs/architecture.md, *Numerics*: the slowest batch
 * of DTLZ7 and RE42 at 300 evaluations within 0.2 s of the estimate's).
 */
export const AFFORDABLE_BOX_WORK = 16_000;

/** The most boxes exact improvements afford at m objectives; 0 where the kernel computes them (m ≤ 3). */
export function affordableBoxes(m: number): number {
  return m <= EXACT_IMPROVEMENT_MAX_OBJECTIVES ? 0 : Math.floor(AFFORDABLE_BOX_WORK / m);
}

/**
 * The one rule for how improvements over a front are computed: the kernel at m ≤ 3; from 4 on, the
 * boxes while they number at most `affordableBoxes(m)`, the estimate beyond. `boxes`: the front's
 * box count (counted before any improvement is evaluated).
 */
export function improvementMethod(m: number, boxes: number): ImprovementMethod {
  if (m <= EXACT_IMPROVEMENT_MAX_OBJECTIVES) return 'kernel';
  return boxes <= affordableBoxes(m) ? 'boxes' : 'estimate';
}

/**
 * The random-scalarization estimate's directions, and how many of them each Monte Carlo sample
 * takes (sample s the 16 from 16 s on, cyclically, so 128 samples use each direction 8 times). On
 * DTLZ2-like fronts of 30 and 100 points at m = 4 to 6, the estimate with 128 samples ranks
 * candidates like the exact improvements do to a rank correlation of 0.90 to 0.96, as with all
 * 256 directions per sample (0.93 to 0.98) at a sixteenth of the cost.
 */
const SCALARIZATION_DIRECTIONS = 256;
const DIRECTIONS_PER_SAMPLE = 16;

/**
 * A front and what measures improvements over it, kept for a whole batch: built once per step,
 * then grown point by point as the batch's picks are believed (acquisition/batch.ts), never rebuilt
 * per pick or candidate. The box decomposition takes each point by its incremental update; when
 * the boxes outgrow what a batch affords, the estimate takes over from the front as it then is.
 */
export class FrontImprovement {
  /** the non-dominated points strictly below ref, `n x m` (grown by doubling) */
  private front: Float64Array;
  private n = 0;
  private boxes: NondominatedBoxes | null = null;
  /** the closed-form expectation over the boxes, made on first use after a change */
  private expectation: ExpectedBoxImprovement | null = null;
  private estimate: ScalarizedImprovement | null = null;

  /**
   * front: `n x m` minimization-space objectives (dominated rows and rows not strictly below ref
   * add nothing); ref: length m, finite; random: draws the estimate's directions, if it comes to that.
   */
  constructor(
    front: Float64Array,
    n: number,
    readonly m: number,
    readonly ref: ArrayLike<number>,
    private readonly random: Random,
  ) {
    const keep = Array.from(paretoIndices(front, n, m)).filter((i) => below(front, i * m, m, ref));
    this.front = new Float64Array(Math.max(keep.length, 8) * m);
    for (const i of keep) this.append(front, i * m);
    if (m > EXACT_IMPROVEMENT_MAX_OBJECTIVES) {
      const boxes = new NondominatedBoxes(this.front, this.n, m, ref, affordableBoxes(m));
      if (boxes.complete && improvementMethod(m, boxes.count) === 'boxes') this.boxes = boxes;
      else this.estimate = this.newEstimate();
    }
  }

  /** How improvements are computed now. */
  get method(): ImprovementMethod {
    return this.boxes ? 'boxes' : this.estimate ? 'estimate' : 'kernel';
  }

  /** Front points (non-dominated, below ref) held now. */
  get size(): number {
    return this.n;
  }

  /** Adds `point` (length m) to the front: a believed pick. Nothing changes for a point dominated by the front or not below ref. */
  add(point: ArrayLike<number>): void {
    const { m } = this;
    if (!below(point, 0, m, this.ref) || this.dominated(point)) return;
    this.removeDominatedBy(point);
    this.append(point, 0);
    if (this.boxes) {
      this.boxes.add(point);
      this.expectation = null;
      if (improvementMethod(m, this.boxes.count) === 'estimate') {
        this.boxes = null;
        this.estimate = this.newEstimate();
      }
    } else {
      this.estimate?.add(point);
    }
  }

  /**
   * E[HV(front ∪ {Y}) − HV(front)] for each of q candidates Y with independent normal objectives
   * (`q x m` means and standard deviations), in closed form from the boxes; only while `method` is
   * `boxes`.
   */
  expected(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    if (!this.boxes) throw new Error('FrontImprovement.expected: the front is not held as boxes; take improvements of samples instead.');
    this.expectation ??= new ExpectedBoxImprovement(this.boxes);
    return this.expectation.evaluate(mean, std, q);
  }

  /**
   * HV(front ∪ {y}) − HV(front) for each of the `q x samples` rows of `draws` (`q · samples x m`,
   * a candidate's samples consecutive): exact from the kernel, or the estimate, sample s over its
   * own share of the directions; only while `method` is not `boxes` (take `expected` then).
   */
  improvements(draws: Float64Array, q: number, samples: number): Float64Array {
    const { m } = this;
    const rows = q * samples;
    if (this.boxes) throw new Error('FrontImprovement.improvements: the front is held as boxes; take the expected improvements instead.');
    if (!this.estimate) return hypervolumeImprovements(this.front, this.n, m, this.ref, draws, rows);
    const out = new Float64Array(rows);
    for (let row = 0; row < rows; row++) {
      const s = row % samples;
      out[row] = this.estimate.improvement(draws, row * m, s * DIRECTIONS_PER_SAMPLE, DIRECTIONS_PER_SAMPLE);
    }
    return out;
  }

  private newEstimate(): ScalarizedImprovement {
    return new ScalarizedImprovement(this.front, this.n, this.m, this.ref, SCALARIZATION_DIRECTIONS, this.random);
  }

  private append(p: ArrayLike<number>, at: number): void {
    const { m } = this;
    if ((this.n + 1) * m > this.front.length) {
      const grown = new Float64Array(2 * this.front.length);
      grown.set(this.front);
      this.front = grown;
    }
    for (let j = 0; j < m; j++) this.front[this.n * m + j] = p[at + j];
    this.n++;
  }

  /** Whether a front point weakly dominates p. */
  private dominated(p: ArrayLike<number>): boolean {
    const { m, front } = this;
    for (let o = 0; o < this.n * m; o += m) {
      let all = true;
      for (let j = 0; j < m && all; j++) all = front[o + j] <= p[j];
      if (all) return true;
    }
    return false;
  }

  /** Drops the front points that p weakly dominates (it adds no volume they do not already add), keeping the order of the rest. */
  private removeDominatedBy(p: ArrayLike<number>): void {
    const { m, front } = this;
    let kept = 0;
    for (let i = 0; i < this.n; i++) {
      let all = true;
      for (let j = 0; j < m && all; j++) all = p[j] <= front[i * m + j];
      if (all) continue;
      if (kept !== i) front.copyWithin(kept * m, i * m, i * m + m);
      kept++;
    }
    this.n = kept;
  }
}

/** Whether `p[at .. at+m)` lies strictly below ref in every objective. */
function below(p: ArrayLike<number>, at: number, m: number, ref: ArrayLike<number>): boolean {
  for (let j = 0; j < m; j++) if (!(p[at + j] < ref[j])) return false;
  return true;
}
