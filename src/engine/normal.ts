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

/**
 * log Φ(z), accurate far into the lower tail (log φ(z) − log(x + t(x)) with x = −z below −1),
 * where Φ itself would underflow: the log-likelihood of a probit classifier.
 */
export function logNormalCdf(z: number): number {
  if (z < -1) return -0.5 * z * z + Math.log(INV_SQRT_2PI) - Math.log(-z + millsTail(-z));
  return Math.log(normalCdf(z));
}

/**
 * φ(z)/Φ(z), the inverse Mills ratio: the slope of log Φ at z. Below −1 it is x + t(x) with
 * x = −z, which stays exact where φ and Φ both underflow (it tends to −z).
 */
export function inverseMillsRatio(z: number): number {
  if (z < -1) return -z + millsTail(-z);
  return normalPdf(z) / normalCdf(z);
}

/**
 * Φ⁻¹(p) for p in (0, 1): Acklam's rational approximation (relative error 1e-9) refined by one
 * Halley step on Φ, which brings it to float64 accuracy; ±Infinity at 0 and 1.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0)) return -Infinity;
  if (!(p < 1)) return Infinity;
  let x: number;
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = tailPolynomial(q);
  } else if (p > 1 - 0.02425) {
    const q = Math.sqrt(-2 * Math.log1p(-p));
    x = -tailPolynomial(q);
  } else {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((-3.969683028665376e1 * r + 2.209460984245205e2) * r - 2.759285104469687e2) * r + 1.38357751867269e2) * r - 3.066479806614716e1) * r +
        2.506628277459239) *
        q) /
      (((((-5.447609879822406e1 * r + 1.615858368580409e2) * r - 1.556989798598866e2) * r + 6.680131188771972e1) * r - 1.328068155288572e1) * r + 1);
  }
  // Halley's step on Φ(x) − p; the error is taken on the smaller tail so it keeps its digits
  const e = x < 0 ? normalCdf(x) - p : 1 - p - normalCdf(-x);
  const u = e / normalPdf(x);
  return x - u / (1 + (x * u) / 2);
}

/** Acklam's lower-tail approximation of Φ⁻¹ at q = √(−2 log p). */
function tailPolynomial(q: number): number {
  return (
    (((((-7.784894002430293e-3 * q - 3.223964580411365e-1) * q - 2.400758277161838) * q - 2.549732539343734) * q + 4.374664141464968) * q + 2.938163982698783) /
    ((((7.784695709041462e-3 * q + 3.224671290700398e-1) * q + 2.445134137142996) * q + 3.754408661907416) * q + 1)
  );
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
