/**
 * Standard normal functions in float64 with relative accuracy deep into the lower tail, so
 * acquisition values far from the Pareto front stay positive and rankable instead of rounding to
 * zero (the flat-landscape problem that Ament et al. 2023, "Unexpected Improvements to Expected
 * Improvement", address with log-space acquisition functions).
 */

const INV_SQRT_2PI = 0.3989422804014327;

export function normalPdf(z: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
}

/**
 * Φ(z). For z < -1 it is φ(z)·R(-z) with the Mills ratio R from its continued fraction
 * (Abramowitz & Stegun 26.2.14), which keeps relative accuracy where 1 - Φ(-z) would cancel.
 */
export function normalCdf(z: number): number {
  if (z < -1) return normalPdf(z) * millsRatio(-z);
  if (z > 1) return 1 - normalPdf(z) * millsRatio(z);
  return 0.5 * (1 + erf(z / Math.SQRT2));
}

/**
 * h(z) = E[(Z + z)^+] = φ(z) + z Φ(z) for Z ~ N(0, 1): the expected improvement kernel. For very
 * negative z both terms nearly cancel; there h(z) = φ(z) · r / (x + r) with x = -z and r the tail
 * of the Mills-ratio continued fraction, which has no cancellation.
 */
export function expectedPositivePart(z: number): number {
  if (z > -4) return normalPdf(z) + z * normalCdf(z);
  const x = -z;
  const r = millsTail(x);
  return (normalPdf(z) * r) / (x + r);
}

/** R(x) = (1 - Φ(x)) / φ(x) for x > 0, as 1 / (x + t(x)). */
function millsRatio(x: number): number {
  return 1 / (x + millsTail(x));
}

/** t(x) = 1/(x + 2/(x + 3/(x + ...))), evaluated bottom-up; 60 terms converge for x >= 1. */
function millsTail(x: number): number {
  let t = 0;
  for (let k = 60; k >= 1; k--) t = k / (x + t);
  return t;
}

/**
 * erf(x) for |x| <= ~1/√2·1 (where it is used) by its Maclaurin series, exact to float64 rounding
 * in that range; larger |x| use the complement from the Mills ratio.
 */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax > 1.5) {
    const tail = 2 * normalPdf(ax * Math.SQRT2) * millsRatio(ax * Math.SQRT2);
    return Math.sign(x) * (1 - tail);
  }
  let term = x;
  let sum = x;
  const x2 = x * x;
  for (let k = 1; k < 60; k++) {
    term *= -x2 / k;
    const add = term / (2 * k + 1);
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}
