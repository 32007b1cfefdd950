/**
 * The WFG toolkit's building blocks (Huband, Hingston, Barone & While, "A review of multiobjective
 * test problems and a scalable test problem toolkit", IEEE TEVC 10(5):477-506, 2006, section
 * VIII): transformations of a parameter in [0, 1] (shifts, biases), reductions of several
 * parameters to one, and the shape functions of the front. Every result is clamped to [0, 1],
 * absorbing the rounding of the formulas near the bounds.
 */

export const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/** s_linear: the optimum moves to y = a. */
export function shiftLinear(y: number, a: number): number {
  return clamp01(Math.abs(y - a) / Math.abs(Math.floor(a - y) + a));
}

/** s_decept: a deceptive shift with the global optimum at a, width b, deceptive minima of value c. */
export function shiftDeceptive(y: number, a: number, b: number, c: number): number {
  const left = (Math.floor(y - a + b) * (1 - c + (a - b) / b)) / (a - b);
  const right = (Math.floor(a + b - y) * (1 - c + (1 - a - b) / b)) / (1 - a - b);
  return clamp01(1 + (Math.abs(y - a) - b) * (left + right + 1 / b));
}

/** s_multi: a multimodal shift, a minima, hill size b, global optimum at c. */
export function shiftMultimodal(y: number, a: number, b: number, c: number): number {
  const t = Math.abs(y - c) / (2 * (Math.floor(c - y) + c));
  return clamp01((1 + Math.cos((4 * a + 2) * Math.PI * (0.5 - t)) + 4 * b * t * t) / (b + 2));
}

/** b_poly: polynomial bias y^alpha. */
export function biasPolynomial(y: number, alpha: number): number {
  return clamp01(y ** alpha);
}

/** b_flat: y in [b, c] maps to the flat value a. */
export function biasFlat(y: number, a: number, b: number, c: number): number {
  return clamp01(a + (Math.min(0, Math.floor(y - b)) * a * (b - y)) / b - (Math.min(0, Math.floor(c - y)) * (1 - a) * (y - c)) / (1 - c));
}

/** b_param: y^(b + (c - b) v(u)) with v(u) = a - (1 - 2u) |floor(0.5 - u) + a|, u a reduction of other parameters. */
export function biasParameter(y: number, u: number, a: number, b: number, c: number): number {
  const v = a - (1 - 2 * u) * Math.abs(Math.floor(0.5 - u) + a);
  return clamp01(y ** (b + (c - b) * v));
}

/** r_sum: weighted mean of y[from..to) with weights w(i). */
export function reduceSum(y: ArrayLike<number>, from: number, to: number, weight: (i: number) => number = () => 1): number {
  let num = 0;
  let den = 0;
  for (let i = from; i < to; i++) {
    num += weight(i) * y[i];
    den += weight(i);
  }
  return clamp01(num / den);
}

/** r_nonsep of y[from..to) with degree of non-separability a (1 <= a <= to - from, dividing it). */
export function reduceNonSeparable(y: ArrayLike<number>, from: number, to: number, a: number): number {
  const n = to - from;
  let num = 0;
  for (let j = 0; j < n; j++) {
    num += y[from + j];
    for (let k = 0; k <= a - 2; k++) num += Math.abs(y[from + j] - y[from + ((j + k + 1) % n)]);
  }
  const half = Math.ceil(a / 2);
  return clamp01(num / ((n / a) * half * (1 + 2 * a - 2 * half)));
}

export type ShapeName = 'linear' | 'convex' | 'concave';

/**
 * h_1..h_M of a linear, convex or concave front at position x (length M - 1):
 * h_1 = prod_{i<M} p(x_i), h_m = prod_{i<=M-m} p(x_i) q(x_{M-m+1}), h_M = q(x_1), with
 * (p, q) = (x, 1 - x), (1 - cos(x pi/2), 1 - sin(x pi/2)) or (sin(x pi/2), cos(x pi/2)).
 */
export function shape(kind: ShapeName, x: ArrayLike<number>, M: number): Float64Array {
  const p =
    kind === 'linear' ? (v: number) => v : kind === 'convex' ? (v: number) => 1 - Math.cos((v * Math.PI) / 2) : (v: number) => Math.sin((v * Math.PI) / 2);
  const q =
    kind === 'linear' ? (v: number) => 1 - v : kind === 'convex' ? (v: number) => 1 - Math.sin((v * Math.PI) / 2) : (v: number) => Math.cos((v * Math.PI) / 2);
  const h = new Float64Array(M);
  for (let m = 1; m <= M; m++) {
    let v = 1;
    for (let i = 0; i < M - m; i++) v *= p(x[i]);
    if (m > 1) v *= q(x[M - m]);
    h[m - 1] = clamp01(v);
  }
  return h;
}

/** mixed_M: convex/concave pieces, alpha = 1, A = 5 in WFG1. */
export function mixedShape(x1: number, alpha: number, a: number): number {
  const w = 2 * a * Math.PI;
  return clamp01((1 - x1 - Math.cos(w * x1 + Math.PI / 2) / w) ** alpha);
}

/** disc_M: disconnected pieces, alpha = beta = 1, A = 5 in WFG2. */
export function disconnectedShape(x1: number, alpha: number, beta: number, a: number): number {
  return clamp01(1 - x1 ** alpha * Math.cos(a * x1 ** beta * Math.PI) ** 2);
}
