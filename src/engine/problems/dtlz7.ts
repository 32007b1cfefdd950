import { checkShape } from './dtlz.js';
import type { TestProblem } from './types.js';

/**
 * DTLZ7 (Deb, Thiele, Laumanns & Zitzler 2005), m >= 2 objectives on n >= m variables in [0, 1]
 * (usually n = m + 19; here any), k = n - m + 1:
 *   f_i = x_i (i < m),  g = 1 + 9/k sum_{x_M} x_i,  f_m = (1 + g) (m - sum_{i<m} f_i/(1+g) (1 + sin(3 pi f_i))).
 * With phi(t) = t/2 (1 + sin(3 pi t)), f_m = (1 + g) m - 2 sum phi(f_i), least at g = 1: the front
 * is f_m = 2m - 2 sum phi(f_i) where every f_i lies in one of the two intervals on which phi sets
 * a new running maximum, 2^(m-1) disconnected regions.
 *
 * Its hypervolume is separable: a point y (y_m aside) is dominated at height y_m exactly when
 * y_m >= 2m - 2 sum Phi(y_i), Phi(u) the running maximum of phi up to min(u, 1), so for a
 * reference with r_m >= 2m
 *   HV = (r_m - 2m) prod_{i<m} r_i + 2 sum_{i<m} (int_0^{r_i} Phi) prod_{j<m, j != i} r_j,
 * the integrals taken by the trapezoid rule on 2^20 intervals (error below 1e-11).
 */

const phi = (t: number): number => (t / 2) * (1 + Math.sin(3 * Math.PI * t));
const dphi = (t: number): number => 0.5 * (1 + Math.sin(3 * Math.PI * t)) + 1.5 * Math.PI * t * Math.cos(3 * Math.PI * t);

function bisect(f: (t: number) => number, lo: number, hi: number): number {
  const below = f(lo) < 0;
  for (let i = 0; i < 200 && hi - lo > 1e-16; i++) {
    const mid = 0.5 * (lo + hi);
    if (f(mid) < 0 === below) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/**
 * The f_i intervals of the front: phi rises to a local maximum (a record), falls, and rises again
 * to beat it; each interval runs from where phi regains the old record to its next record maximum.
 */
function regions(): [number, number][] {
  const steps = 100_000;
  const out: [number, number][] = [];
  let record = -Infinity;
  for (let i = 0; i < steps; i++) {
    const a = i / steps;
    const b = (i + 1) / steps;
    if (!(dphi(a) > 0 && dphi(b) <= 0)) continue;
    const top = bisect(dphi, a, b);
    if (phi(top) <= record) continue;
    let start = 0;
    if (out.length > 0) {
      const level = record;
      let lo = top;
      while (phi(lo) > level) lo -= 1 / steps;
      start = bisect((t) => phi(t) - level, lo, top);
    }
    out.push([start, top]);
    record = phi(top);
  }
  return out;
}

/** The two f_i intervals of the DTLZ7 front, [0, 0.2514...] and [0.6316..., 0.8594...]. */
export const DTLZ7_REGIONS: readonly (readonly [number, number])[] = regions();
const LAST = DTLZ7_REGIONS[DTLZ7_REGIONS.length - 1][1];
const PHI_MAX = phi(LAST);

const GRID = 1 << 20;
let runningMaxIntegral: Float64Array | undefined;

/** int_0^u Phi for u in [0, 1] on the grid (trapezoid rule), computed once. */
function integralTable(): Float64Array {
  if (runningMaxIntegral) return runningMaxIntegral;
  const table = new Float64Array(GRID + 1);
  let best = 0;
  let previous = 0;
  for (let i = 1; i <= GRID; i++) {
    best = Math.max(best, phi(i / GRID));
    table[i] = table[i - 1] + (previous + best) / (2 * GRID);
    previous = best;
  }
  runningMaxIntegral = table;
  return table;
}

/** int_0^r Phi(u) du for r >= 0. */
function runningMaxArea(r: number): number {
  const table = integralTable();
  if (r >= 1) return table[GRID] + (r - 1) * PHI_MAX;
  const position = r * GRID;
  const i = Math.floor(position);
  return table[i] + (position - i) * (table[Math.min(GRID, i + 1)] - table[i]);
}

function dtlz7Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('dtlz7', x, m);
  const k = x.length - m + 1;
  let sum = 0;
  for (let i = m - 1; i < x.length; i++) sum += x[i];
  const g = 1 + (9 / k) * sum;
  const f = new Float64Array(m);
  let h = m;
  for (let i = 0; i < m - 1; i++) {
    f[i] = x[i];
    h -= (x[i] / (1 + g)) * (1 + Math.sin(3 * Math.PI * x[i]));
  }
  f[m - 1] = (1 + g) * h;
  return f;
}

/** Maps t in [0, 1] evenly onto the union of the front's f_i intervals. */
function ontoRegions(t: number): number {
  const total = DTLZ7_REGIONS.reduce((s, [a, b]) => s + b - a, 0);
  let rest = t * total;
  for (const [a, b] of DTLZ7_REGIONS) {
    if (rest <= b - a) return a + rest;
    rest -= b - a;
  }
  return LAST;
}

/** `count x m` front points: the f_i on a Kronecker lattice over the regions (m = 2: evenly), f_m from them. */
function front(m: number, count: number): Float64Array {
  const out = new Float64Array(count * m);
  const steps = [Math.SQRT2 - 1, Math.sqrt(3) - 1, Math.sqrt(5) - 2, Math.sqrt(7) - 2, Math.sqrt(11) - 3];
  for (let row = 0; row < count; row++) {
    let fm = 2 * m;
    for (let i = 0; i < m - 1; i++) {
      const t = m === 2 ? row / Math.max(1, count - 1) : (row * steps[i % steps.length] + i / m) % 1;
      const fi = ontoRegions(t);
      out[row * m + i] = fi;
      fm -= 2 * phi(fi);
    }
    out[row * m + m - 1] = fm;
  }
  return out;
}

export const dtlz7: TestProblem = {
  name: 'dtlz7',
  description: 'DTLZ7 (Deb et al. 2002/2005): any m >= 2, n >= m (usually m + 19); 2^(m-1) disconnected front regions.',
  objectives: 'any',
  minDimension: (m) => m,
  evaluate: dtlz7Evaluate,
  paretoFront: front,
  maxHypervolumeSource: () => 'integral',
  maxHypervolume: (m, ref) => {
    if (ref.length !== m || !(ref[m - 1] >= 2 * m)) return undefined;
    let box = ref[m - 1] - 2 * m;
    for (let i = 0; i < m - 1; i++) box *= ref[i];
    let extra = 0;
    for (let i = 0; i < m - 1; i++) {
      let term = 2 * runningMaxArea(ref[i]);
      for (let j = 0; j < m - 1; j++) if (j !== i) term *= ref[j];
      extra += term;
    }
    return box + extra;
  },
};
