import { sphereFront, sphereHypervolume } from './dtlz.js';
import { wfgConvexFront, wfgConvexHypervolume, wfg3Front, wfg3Hypervolume } from './wfg-fronts.js';
import {
  biasFlat,
  biasParameter,
  biasPolynomial,
  disconnectedShape,
  mixedShape,
  reduceNonSeparable,
  reduceSum,
  shape,
  shiftDeceptive,
  shiftLinear,
  shiftMultimodal,
} from './wfg-functions.js';
import type { TestProblem } from './types.js';

/**
 * WFG1-WFG9 (Huband, Hingston, Barone & While, IEEE TEVC 10(5):477-506, 2006, table XIV), M >= 2
 * objectives on n = k + l variables z_i in [0, 2i]: k position parameters (k = 4 for M = 2 and
 * 2 (M - 1) beyond, as in the paper's experiments and pymoo) and l distance parameters (the
 * paper uses l = 20; WFG2 and WFG3 need l even). Each problem maps y = z_i / 2i through its
 * transformations to t_1..t_M, then x_i = max(t_M, A_i)(t_i - 0.5) + 0.5 (i < M), x_M = t_M and
 * f_m = x_M + 2m h_m(x_1..x_{M-1}). A = 1 everywhere except WFG3 (A_2.. = 0, a degenerate front).
 * On the unit cube y is the cube coordinate itself.
 */

const positionCount = (m: number): number => (m === 2 ? 4 : 2 * (m - 1));
const PARAM_A = 0.98 / 49.98;

type Transform = (y: Float64Array, k: number, m: number) => Float64Array;

/** t_i: r_sum over the i-th of the M - 1 equal groups of position parameters; t_M over y[k..end). */
function sumGroups(y: Float64Array, k: number, m: number, end = y.length, weight?: (i: number) => number): Float64Array {
  const size = k / (m - 1);
  const t = new Float64Array(m);
  for (let i = 0; i < m - 1; i++) t[i] = reduceSum(y, i * size, (i + 1) * size, weight);
  t[m - 1] = reduceSum(y, k, end, weight);
  return t;
}

/** t_i: r_nonsep over the position groups (degree k/(M-1)) and over the distance parameters (degree l). */
function nonSeparableGroups(y: Float64Array, k: number, m: number): Float64Array {
  const size = k / (m - 1);
  const t = new Float64Array(m);
  for (let i = 0; i < m - 1; i++) t[i] = reduceNonSeparable(y, i * size, (i + 1) * size, size);
  t[m - 1] = reduceNonSeparable(y, k, y.length, y.length - k);
  return t;
}

function shiftDistance(y: Float64Array, k: number): Float64Array {
  return y.map((v, i) => (i < k ? v : shiftLinear(v, 0.35)));
}

/** WFG2/3: distance parameters reduced pairwise by r_nonsep(., 2), then r_sum. */
function pairedDistance(y: Float64Array, k: number, m: number): Float64Array {
  const shifted = shiftDistance(y, k);
  const l = y.length - k;
  const reduced = new Float64Array(k + l / 2);
  reduced.set(shifted.subarray(0, k));
  for (let i = 0; i < l / 2; i++) reduced[k + i] = reduceNonSeparable(shifted, k + 2 * i, k + 2 * i + 2, 2);
  return sumGroups(reduced, k, m);
}

const TRANSFORMS: Record<string, Transform> = {
  wfg1: (y, k, m) => {
    const biased = shiftDistance(y, k).map((v, i) => biasPolynomial(i < k ? v : biasFlat(v, 0.8, 0.75, 0.85), 0.02));
    return sumGroups(biased, k, m, biased.length, (i) => 2 * (i + 1));
  },
  wfg2: pairedDistance,
  wfg3: pairedDistance,
  wfg4: (y, k, m) =>
    sumGroups(
      y.map((v) => shiftMultimodal(v, 30, 10, 0.35)),
      k,
      m,
    ),
  wfg5: (y, k, m) =>
    sumGroups(
      y.map((v) => shiftDeceptive(v, 0.35, 0.001, 0.05)),
      k,
      m,
    ),
  wfg6: (y, k, m) => nonSeparableGroups(shiftDistance(y, k), k, m),
  wfg7: (y, k, m) => {
    const biased = y.map((v, i) => (i < k ? biasParameter(v, reduceSum(y, i + 1, y.length), PARAM_A, 0.02, 50) : v));
    return sumGroups(shiftDistance(biased, k), k, m);
  },
  wfg8: (y, k, m) => {
    const biased = y.map((v, i) => (i < k ? v : biasParameter(v, reduceSum(y, 0, i), PARAM_A, 0.02, 50)));
    return sumGroups(shiftDistance(biased, k), k, m);
  },
  wfg9: (y, k, m) => {
    const n = y.length;
    const biased = y.map((v, i) => (i < n - 1 ? biasParameter(v, reduceSum(y, i + 1, n), PARAM_A, 0.02, 50) : v));
    const shifted = biased.map((v, i) => (i < k ? shiftDeceptive(v, 0.35, 0.001, 0.05) : shiftMultimodal(v, 30, 95, 0.35)));
    return nonSeparableGroups(shifted, k, m);
  },
};

function evaluateWfg(name: string, y: Float64Array, m: number): Float64Array {
  if (!Number.isInteger(m) || m < 2) throw new Error(`${name} needs at least 2 objectives, got ${m}.`);
  const k = positionCount(m);
  const paired = name === 'wfg2' || name === 'wfg3';
  if (y.length <= k || (paired && (y.length - k) % 2 !== 0)) {
    throw new Error(
      `${name} with ${m} objectives needs ${k} position variables plus ${paired ? 'an even number of' : 'at least one'} distance variable(s), got ${y.length} variables.`,
    );
  }
  const t = TRANSFORMS[name](y, k, m);
  const xM = t[m - 1];
  const x = new Float64Array(m - 1);
  for (let i = 0; i < m - 1; i++) x[i] = Math.max(xM, name === 'wfg3' && i > 0 ? 0 : 1) * (t[i] - 0.5) + 0.5;
  let h: Float64Array;
  if (name === 'wfg1' || name === 'wfg2') {
    h = shape('convex', x, m);
    h[m - 1] = name === 'wfg1' ? mixedShape(x[0], 1, 5) : disconnectedShape(x[0], 1, 1, 5);
  } else h = shape(name === 'wfg3' ? 'linear' : 'concave', x, m);
  return h.map((v, i) => xM + 2 * (i + 1) * v);
}

/** The concave front of WFG4-9: the unit sphere's orthant scaled by 2m along objective m. */
function scaledSphere(m: number, count: number): Float64Array {
  const out = sphereFront(m, count);
  for (let i = 0; i < out.length; i++) out[i] *= 2 * ((i % m) + 1);
  return out;
}

function scaledSphereHypervolume(m: number, ref: ArrayLike<number>): number | undefined {
  if (ref.length !== m) return undefined;
  // scaling axis m by 2m scales every volume by prod 2m: HV(ref) = prod(2m) HV_unit(ref / 2m)
  let scale = 1;
  const unitRef = Array.from({ length: m }, (_, i) => {
    scale *= 2 * (i + 1);
    return ref[i] / (2 * (i + 1));
  });
  const unit = sphereHypervolume(m, unitRef);
  return unit === undefined ? undefined : unit * scale;
}

function wfgProblem(index: number, description: string): TestProblem {
  const name = `wfg${index}`;
  const base: TestProblem = {
    name,
    description: `WFG${index} (Huband et al. 2006): any M >= 2, n = k + l variables z_i in [0, 2i] (k = 4 at M = 2, 2(M-1) beyond); ${description}`,
    objectives: 'any',
    minDimension: (m) => positionCount(m) + (index === 2 || index === 3 ? 2 : 1),
    bounds: (d) => Array.from({ length: d }, (_, i) => [0, 2 * (i + 1)] as const),
    evaluate: (x, m) => evaluateWfg(name, x, m),
    paretoFront: scaledSphere,
    maxHypervolume: scaledSphereHypervolume,
  };
  if (index === 1 || index === 2) {
    const kind = index === 1 ? 'mixed' : 'disconnected';
    return {
      ...base,
      paretoFront: (m, count) => wfgConvexFront(kind, m, count),
      maxHypervolume: (m, ref) => wfgConvexHypervolume(kind, m, ref),
      maxHypervolumeSource: () => 'integral',
    };
  }
  if (index === 3) {
    return { ...base, paretoFront: wfg3Front, maxHypervolume: wfg3Hypervolume, maxHypervolumeSource: (m) => (m === 2 ? 'closed form' : 'dense front sample') };
  }
  return base;
}

export const wfg1 = wfgProblem(1, 'convex front with a mixed last objective, flat and polynomial biases.');
export const wfg2 = wfgProblem(2, 'convex, disconnected front; non-separable distance parameters.');
export const wfg3 = wfgProblem(3, 'linear, degenerate front (partly non-degenerate at M >= 3); non-separable.');
export const wfg4 = wfgProblem(4, 'concave front; highly multimodal.');
export const wfg5 = wfgProblem(5, 'concave front; deceptive.');
export const wfg6 = wfgProblem(6, 'concave front; non-separable.');
export const wfg7 = wfgProblem(7, 'concave front; position parameters biased by the distance parameters.');
export const wfg8 = wfgProblem(8, 'concave front; distance parameters biased by the position parameters.');
export const wfg9 = wfgProblem(9, 'concave front; parameter-dependent bias, deceptive and multimodal, non-separable.');
