import { hypervolume } from '../hypervolume.js';
import { dtlz1, sphereFront } from './dtlz.js';
import { dtlz4 } from './dtlz-more.js';
import type { TestProblem } from './types.js';

/**
 * C1-DTLZ1 and C3-DTLZ4 (Jain & Deb, "An evolutionary many-objective optimization algorithm using
 * reference-point based nondominated sorting approach, part II: handling constraints and extending
 * to an adaptive approach", IEEE TEVC 18(4):602-622, 2014), any m >= 2. The constraints are on
 * the objectives, so each problem reports them as a measured outcome `slack`, feasible where >= 0
 * (MDL: `outcomes: [{name: slack}]`, `outcome_constraints: [{expression: "slack >= 0"}]`).
 * - C1-DTLZ1: DTLZ1 with slack = 1 - f_m/0.6 - sum_{i<m} f_i/0.5; the front is DTLZ1's (feasible
 *   throughout), the constraint blocks the way to it.
 * - C3-DTLZ4: DTLZ4 with the m constraints f_j^2/4 + sum_{i!=j} f_i^2 - 1 >= 0, reported as their
 *   least value. The feasible region is outside m ellipsoids; the front is their union's outer
 *   surface: the point of direction w (|w| = 1) at radius 1/sqrt(1 - 3/4 max_j w_j^2).
 */

function c1Slack(f: ArrayLike<number>): number {
  const m = f.length;
  let s = 1 - f[m - 1] / 0.6;
  for (let i = 0; i < m - 1; i++) s -= f[i] / 0.5;
  return s;
}

function c3Slack(f: ArrayLike<number>): number {
  let squares = 0;
  for (let i = 0; i < f.length; i++) squares += f[i] * f[i];
  let least = Infinity;
  for (let j = 0; j < f.length; j++) least = Math.min(least, squares - 0.75 * f[j] * f[j] - 1);
  return least;
}

export const c1Dtlz1: TestProblem = {
  name: 'c1-dtlz1',
  description: 'C1-DTLZ1 (Jain & Deb 2014): DTLZ1, any m >= 2, feasible below a plane through the front (outcome: slack >= 0).',
  objectives: 'any',
  minDimension: (m) => m,
  evaluate: (x, m) => dtlz1.evaluate(x, m),
  outcomes: { names: ['slack'], evaluate: (_x, f) => Float64Array.of(c1Slack(f)) },
  paretoFront: (m, count) => dtlz1.paretoFront(m, count),
  maxHypervolume: (m, ref) => dtlz1.maxHypervolume?.(m, ref),
};

/** Radius of the C3-DTLZ4 front in direction w (|w| = 1). */
function c3Radius(w: ArrayLike<number>): number {
  let largest = 0;
  for (let j = 0; j < w.length; j++) largest = Math.max(largest, w[j] * w[j]);
  return 1 / Math.sqrt(1 - 0.75 * largest);
}

function c3Front(m: number, count: number): Float64Array {
  const out = sphereFront(m, count);
  for (let i = 0; i < count; i++) {
    const r = c3Radius(out.subarray(i * m, i * m + m));
    for (let j = 0; j < m; j++) out[i * m + j] *= r;
  }
  return out;
}

/**
 * The volume of the orthant inside the union of the ellipsoids, int r(w)^m / m over the unit
 * sphere's orthant: m = 2 by the midpoint rule over the angle, m = 3 over both spherical angles
 * (2,000 and 1,500 x 1,500 nodes; relative error below 1e-6).
 */
function c3HiddenVolume(m: number): number | undefined {
  if (m === 2) {
    const n = 2000;
    let area = 0;
    for (let i = 0; i < n; i++) {
      const a = ((i + 0.5) / n) * (Math.PI / 2);
      area += c3Radius([Math.cos(a), Math.sin(a)]) ** 2 / 2;
    }
    return (area * Math.PI) / 2 / n;
  }
  if (m === 3) {
    const n = 1500;
    const h = Math.PI / 2 / n;
    let volume = 0;
    for (let i = 0; i < n; i++) {
      const polar = (i + 0.5) * h;
      for (let j = 0; j < n; j++) {
        const azimuth = (j + 0.5) * h;
        const w = [Math.sin(polar) * Math.cos(azimuth), Math.sin(polar) * Math.sin(azimuth), Math.cos(polar)];
        volume += (c3Radius(w) ** 3 / 3) * Math.sin(polar);
      }
    }
    return volume * h * h;
  }
  return undefined;
}

const hiddenCache = new Map<number, number | undefined>();

export const c3Dtlz4: TestProblem = {
  name: 'c3-dtlz4',
  description:
    'C3-DTLZ4 (Jain & Deb 2014): DTLZ4, any m >= 2, feasible outside m ellipsoids; the front is their outer surface (outcome: slack >= 0, the least of the m constraints).',
  objectives: 'any',
  minDimension: (m) => m,
  evaluate: (x, m) => dtlz4.evaluate(x, m),
  outcomes: { names: ['slack'], evaluate: (_x, f) => Float64Array.of(c3Slack(f)) },
  paretoFront: c3Front,
  maxHypervolumeSource: () => 'integral',
  maxHypervolume: (m, ref) => {
    // the union reaches 2 along every axis; a reference beyond that holds it whole
    if (ref.length !== m || Array.from(ref).some((r) => r < 2)) return undefined;
    if (!hiddenCache.has(m)) hiddenCache.set(m, c3HiddenVolume(m));
    const hidden = hiddenCache.get(m);
    if (hidden === undefined) {
      const front = c3Front(m, 20_000);
      return hypervolume(front, 20_000, m, ref);
    }
    let box = 1;
    for (let i = 0; i < m; i++) box *= ref[i];
    return box - hidden;
  },
};
