/**
 * Helpers for sampling Pareto fronts: evenly spaced values, quasi-random points on the unit
 * simplex, even spacing along a sampled curve, and the hypervolume of a two-objective front known
 * only through samples.
 */

/** `count` evenly spaced values from `a` to `b` inclusive (just `a` when count is 1). */
export function linspace(a: number, b: number, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = count === 1 ? a : a + ((b - a) * i) / (count - 1);
  return out;
}

const PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97];

/** Van der Corput radical inverse of `index` in `base`, in (0, 1) for index >= 1. */
function radicalInverse(index: number, base: number): number {
  let result = 0;
  let f = 1 / base;
  for (let i = index; i > 0; i = Math.floor(i / base)) {
    result += f * (i % base);
    f /= base;
  }
  return result;
}

/**
 * `count x m` row-major Float64Array of points w >= 0 with sum(w) = 1: the m corners first (so the
 * extremes of a front are always present), then Halton points mapped to the simplex by normalised
 * exponential spacings, which makes them uniformly distributed on it (Devroye 1986, ch. V.2).
 * For m = 2 the points are evenly spaced instead.
 */
export function simplexPoints(m: number, count: number): Float64Array {
  if (m < 2) throw new Error(`simplexPoints needs at least 2 objectives, got ${m}.`);
  if (m > PRIMES.length) throw new Error(`simplexPoints supports at most ${PRIMES.length} objectives, got ${m}.`);
  const out = new Float64Array(count * m);
  if (m === 2) {
    const t = linspace(0, 1, count);
    for (let i = 0; i < count; i++) {
      out[2 * i] = 1 - t[i];
      out[2 * i + 1] = t[i];
    }
    return out;
  }
  const corners = Math.min(m, count);
  for (let i = 0; i < corners; i++) out[i * m + i] = 1;
  for (let i = corners; i < count; i++) {
    let sum = 0;
    for (let j = 0; j < m; j++) {
      const e = -Math.log(radicalInverse(i - corners + 1, PRIMES[j]));
      out[i * m + j] = e;
      sum += e;
    }
    for (let j = 0; j < m; j++) out[i * m + j] /= sum;
  }
  return out;
}

/**
 * `count x 2` row-major points picked from a densely sampled two-objective curve so that they are
 * evenly spaced by arc length, measured with both objectives scaled to their range (so neither
 * objective's units dominate the spacing); each pick is the nearest sample, so picks repeat when
 * count exceeds the number of samples.
 * curve: `n x 2` row-major Float64Array, consecutive samples adjacent along the curve.
 */
export function arcLengthSpread(curve: Float64Array, count: number): Float64Array {
  const n = curve.length / 2;
  let min1 = Infinity,
    max1 = -Infinity,
    min2 = Infinity,
    max2 = -Infinity;
  for (let i = 0; i < n; i++) {
    min1 = Math.min(min1, curve[2 * i]);
    max1 = Math.max(max1, curve[2 * i]);
    min2 = Math.min(min2, curve[2 * i + 1]);
    max2 = Math.max(max2, curve[2 * i + 1]);
  }
  const s1 = max1 > min1 ? max1 - min1 : 1;
  const s2 = max2 > min2 ? max2 - min2 : 1;
  const cumulative = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    const d1 = (curve[2 * i] - curve[2 * i - 2]) / s1;
    const d2 = (curve[2 * i + 1] - curve[2 * i - 1]) / s2;
    cumulative[i] = cumulative[i - 1] + Math.hypot(d1, d2);
  }
  const targets = linspace(0, cumulative[n - 1], count);
  const out = new Float64Array(2 * count);
  let j = 0;
  for (let k = 0; k < count; k++) {
    while (j + 1 < n && cumulative[j + 1] <= targets[k]) j++;
    const pick = j + 1 < n && cumulative[j + 1] - targets[k] < targets[k] - cumulative[j] ? j + 1 : j;
    out[2 * k] = curve[2 * pick];
    out[2 * k + 1] = curve[2 * pick + 1];
  }
  return out;
}

/**
 * Hypervolume (minimization) dominated by a continuous two-objective front given as a polyline,
 * bounded by `ref`: the integral over f1 up to ref[0] of max(0, ref[1] - s(f1)), where s is the
 * linear interpolation of the samples and stays at the last f2 beyond the last sample. With exact
 * front samples this is the trapezoid rule, so the error falls with the square of the spacing.
 * curve: `n x 2` row-major Float64Array sorted by increasing f1 with non-increasing f2;
 * ref: length 2.
 */
export function polylineHypervolume2d(curve: Float64Array, ref: ArrayLike<number>): number {
  const n = curve.length / 2;
  const [r1, r2] = [ref[0], ref[1]];
  let area = 0;
  for (let i = 0; i + 1 < n; i++) {
    const a = curve[2 * i];
    const c = curve[2 * i + 2];
    if (a >= r1) return area;
    const b = curve[2 * i + 1];
    const d = curve[2 * i + 3];
    const q = Math.min(c, r1);
    const dq = c > a ? b + ((d - b) * (q - a)) / (c - a) : d;
    area += positiveLinearIntegral(q - a, r2 - b, r2 - dq);
  }
  const last = curve[2 * n - 2];
  if (last < r1) area += (r1 - last) * Math.max(0, r2 - curve[2 * n - 1]);
  return area;
}

/** Integral of max(0, g) over an interval of `width` on which g runs linearly from gp to gq. */
function positiveLinearIntegral(width: number, gp: number, gq: number): number {
  if (gp >= 0 && gq >= 0) return (width * (gp + gq)) / 2;
  if (gp <= 0 && gq <= 0) return 0;
  const z = gp / (gp - gq);
  return gp > 0 ? (z * width * gp) / 2 : ((1 - z) * width * gq) / 2;
}
