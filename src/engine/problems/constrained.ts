import { braninCurrin } from './branin-currin.js';
import { dtlz2 } from './dtlz.js';
import { hypervolume } from '../hypervolume.js';
import type { TestProblem } from './types.js';

/**
 * Test problems with an outcome constraint: each reports one measured slack besides its
 * objectives, feasible where the slack is ≥ 0 (MDL: `outcomes: [{name: ...}]`,
 * `outcome_constraints: [{expression: "<name> >= 0"}]`).
 */

/** C2-DTLZ2's radius for two objectives (Deb et al.; BoTorch's C2DTLZ2 uses the same). */
const C2_RADIUS = 0.2;

/**
 * C2-DTLZ2 (Deb & Jain 2014, "An evolutionary many-objective optimization algorithm using
 * reference-point-based nondominated sorting approach, part II"; BoTorch's constrained MOBO
 * tutorial): DTLZ2's objectives, feasible only inside a ball of radius r around each axis end of
 * the front or around its midpoint:
 *   slack = −min( min_i [(f_i − 1)² + Σ_{j≠i} (f_j² − r²)],  Σ_i [(f_i − 1/√m)² − r²] ),
 * with r² subtracted once per summed term as BoTorch does (so the middle ball has radius √m·r).
 * Two objectives, d ≥ 2 variables; the feasible front is three arcs of the quarter circle.
 */
function c2Slack(f: ArrayLike<number>): number {
  const m = f.length;
  let best = Infinity;
  for (let i = 0; i < m; i++) {
    let s = (f[i] - 1) ** 2;
    for (let j = 0; j < m; j++) if (j !== i) s += f[j] ** 2 - C2_RADIUS ** 2;
    best = Math.min(best, s);
  }
  let centre = 0;
  for (let i = 0; i < m; i++) centre += (f[i] - 1 / Math.sqrt(m)) ** 2 - C2_RADIUS ** 2;
  return -Math.min(best, centre);
}

/** `count x 2` points of the feasible arcs of the unit quarter circle, evenly spread over them. */
function c2Front(count: number): Float64Array {
  const fine = Math.max(8 * count, 20_000);
  const feasible: number[][] = [];
  for (let k = 0; k < fine; k++) {
    const angle = ((k / (fine - 1)) * Math.PI) / 2;
    const f = [Math.cos(angle), Math.sin(angle)];
    if (c2Slack(f) >= 0) feasible.push(f);
  }
  return evenly(feasible, count);
}

/** `count x 2` rows picked evenly along `points` (first and last included). */
function evenly(points: readonly number[][], count: number): Float64Array {
  const out = new Float64Array(count * 2);
  for (let i = 0; i < count; i++) out.set(points[Math.round((i * (points.length - 1)) / Math.max(1, count - 1))], i * 2);
  return out;
}

export const c2Dtlz2: TestProblem = {
  name: 'c2-dtlz2',
  description: 'DTLZ2 with two objectives, feasible only near the ends and the middle of its front (outcome: slack >= 0)',
  objectives: 2,
  minDimension: () => 2,
  evaluate(x, m) {
    if (m !== 2) throw new Error(`c2-dtlz2 has 2 objectives, not ${m}.`);
    return dtlz2.evaluate(x, 2);
  },
  outcomes: {
    names: ['slack'],
    evaluate: (_x, f) => Float64Array.of(c2Slack(f)),
  },
  paretoFront: (_m, count) => c2Front(count),
  maxHypervolumeSource: () => 'dense front sample',
  maxHypervolume(m, ref) {
    if (m !== 2) return undefined;
    // the staircase of 20,000 front points: within 1e-4 of the exact area of the three arcs
    return hypervolume(c2Front(20_000), 20_000, 2, ref);
  },
};

/**
 * Constrained Branin-Currin (BoTorch's ConstrainedBraninCurrin, after Daulton et al. 2020):
 * Branin-Currin, feasible inside the disc (u1 − 2.5)² + (u2 − 7.5)² ≤ 50 of Branin's native
 * coordinates u1 = 15 x1 − 5, u2 = 15 x2; the slack reported is 50 minus that sum.
 */
export const constrainedBraninCurrin: TestProblem = {
  name: 'constrained-branin-currin',
  description: 'Branin-Currin feasible only inside a disc of the input space, measured as an outcome (slack >= 0)',
  objectives: 2,
  minDimension: () => 2,
  maxDimension: () => 2,
  evaluate(x, m) {
    return braninCurrin.evaluate(x, m);
  },
  outcomes: {
    names: ['slack'],
    evaluate: (x) => Float64Array.of(50 - (15 * x[0] - 5 - 2.5) ** 2 - (15 * x[1] - 7.5) ** 2),
  },
  paretoFront(_m, count) {
    // the feasible front by brute force on a fine grid (no closed form inside the disc)
    const side = 400;
    const points: number[][] = [];
    for (let i = 0; i <= side; i++) {
      for (let j = 0; j <= side; j++) {
        const x = Float64Array.of(i / side, j / side);
        if (this.outcomes!.evaluate(x, this.evaluate(x, 2))[0] < 0) continue;
        points.push(Array.from(this.evaluate(x, 2)));
      }
    }
    points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const front: number[][] = [];
    for (const p of points) if (front.length === 0 || p[1] < front[front.length - 1][1]) front.push(p);
    return evenly(front, count);
  },
};
