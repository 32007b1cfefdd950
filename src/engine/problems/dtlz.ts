import { simplexPoints } from './fronts.js';
import type { TestProblem } from './types.js';

/**
 * DTLZ1 and DTLZ2 (Deb, Thiele, Laumanns & Zitzler, "Scalable test problems for evolutionary
 * multiobjective optimization", in Evolutionary Multiobjective Optimization, Springer 2005,
 * pp. 105-145; first as TIK report 112, ETH Zurich 2001). With m objectives and n >= m variables,
 * the first m-1 variables position a point on the front and the last k = n - m + 1 (the "distance"
 * variables x_M) set g; the paper uses k = 5 for DTLZ1 and k = 10 for DTLZ2. The front is g = 0,
 * i.e. x_M = 0.5: the simplex sum f_i = 0.5 (DTLZ1) or the unit sphere sum f_i^2 = 1 (DTLZ2),
 * with every f_i >= 0.
 */

export function checkShape(name: string, x: Float64Array, m: number): void {
  if (!Number.isInteger(m) || m < 2) throw new Error(`${name} needs at least 2 objectives, got ${m}.`);
  if (x.length < m) throw new Error(`${name} with ${m} objectives needs at least ${m} variables, got ${x.length}.`);
}

/** DTLZ1's (and DTLZ3's) g over the distance variables x_m..x_n: 100 (k + sum ((x - 0.5)^2 - cos(20 pi (x - 0.5)))). */
export function multimodalG(x: Float64Array, m: number): number {
  let s = 0;
  for (let i = m - 1; i < x.length; i++) {
    const t = x[i] - 0.5;
    s += t * t - Math.cos(20 * Math.PI * t);
  }
  return 100 * (x.length - m + 1 + s);
}

/** DTLZ1: g = 100 (k + sum_{x_M} ((x_i - 0.5)^2 - cos(20 pi (x_i - 0.5)))), linear front. */
export function dtlz1Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('dtlz1', x, m);
  const g = multimodalG(x, m);
  const f = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    // f_{i+1} = 0.5 (1 + g) x_1 ... x_{m-1-i} (1 - x_{m-i}) for i >= 1
    let v = 0.5 * (1 + g);
    for (let j = 0; j < m - 1 - i; j++) v *= x[j];
    if (i > 0) v *= 1 - x[m - 1 - i];
    f[i] = v;
  }
  return f;
}

/** DTLZ2: g = sum_{x_M} (x_i - 0.5)^2, spherical front. */
export function dtlz2Evaluate(x: Float64Array, m: number): Float64Array {
  checkShape('dtlz2', x, m);
  const n = x.length;
  let g = 0;
  for (let i = m - 1; i < n; i++) g += (x[i] - 0.5) ** 2;
  const f = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    // f_{i+1} = (1 + g) cos(x_1 pi/2) ... cos(x_{m-1-i} pi/2) sin(x_{m-i} pi/2) for i >= 1
    let v = 1 + g;
    for (let j = 0; j < m - 1 - i; j++) v *= Math.cos((x[j] * Math.PI) / 2);
    if (i > 0) v *= Math.sin((x[m - 1 - i] * Math.PI) / 2);
    f[i] = v;
  }
  return f;
}

function factorial(k: number): number {
  let f = 1;
  for (let i = 2; i <= k; i++) f *= i;
  return f;
}

/** Volume of the unit m-ball. */
export function unitBallVolume(m: number): number {
  // V_0 = 1, V_1 = 2, V_k = 2 pi / k * V_{k-2}
  let v = m % 2 === 0 ? 1 : 2;
  for (let k = m % 2 === 0 ? 2 : 3; k <= m; k += 2) v *= (2 * Math.PI) / k;
  return v;
}

/**
 * The hypervolume of a front that, with the origin, bounds the non-dominated region
 * {f >= 0 below the front}: prod(ref) minus that region's volume; `ref` must weakly dominate the
 * front's nadir point (nadir in every coordinate).
 */
export function frontHv(m: number, ref: ArrayLike<number>, nadir: number, hiddenVolume: number): number | undefined {
  if (ref.length !== m) return undefined;
  let box = 1;
  for (let i = 0; i < m; i++) {
    if (!(ref[i] >= nadir)) return undefined;
    box *= ref[i];
  }
  return box - hiddenVolume;
}

export const dtlz1: TestProblem = {
  name: 'dtlz1',
  description: 'DTLZ1 (Deb et al. 2002/2005): any m >= 2 objectives, n >= m variables (usually n = m + 4), linear front sum f = 0.5, multimodal g.',
  objectives: 'any',
  minDimension: (m) => m,
  evaluate: dtlz1Evaluate,
  paretoFront: (m, count) => {
    const w = simplexPoints(m, count);
    for (let i = 0; i < w.length; i++) w[i] *= 0.5;
    return w;
  },
  // the points of the orthant below the plane sum f = 0.5 form a simplex of volume 0.5^m / m!
  maxHypervolume: (m, ref) => frontHv(m, ref, 0.5, 0.5 ** m / factorial(m)),
};

export const dtlz2: TestProblem = {
  name: 'dtlz2',
  description: 'DTLZ2 (Deb et al. 2002/2005): any m >= 2 objectives, n >= m variables (usually n = m + 9), spherical front sum f^2 = 1.',
  objectives: 'any',
  minDimension: (m) => m,
  evaluate: dtlz2Evaluate,
  paretoFront: (m, count) => sphereFront(m, count),
  maxHypervolume: (m, ref) => sphereHypervolume(m, ref),
};

/** `count x m` points of the unit sphere's positive orthant (the DTLZ2-4 front): simplex points normalised. */
export function sphereFront(m: number, count: number): Float64Array {
  const w = simplexPoints(m, count);
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let j = 0; j < m; j++) norm += w[i * m + j] ** 2;
    norm = Math.sqrt(norm);
    for (let j = 0; j < m; j++) w[i * m + j] /= norm;
  }
  return w;
}

/** Hypervolume of the unit sphere's positive orthant against `ref` (ref >= 1): the box minus 1/2^m of the unit ball. */
export function sphereHypervolume(m: number, ref: ArrayLike<number>): number | undefined {
  return frontHv(m, ref, 1, unitBallVolume(m) / 2 ** m);
}
