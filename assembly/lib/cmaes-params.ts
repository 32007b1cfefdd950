// Strategy parameters of the CMA-ES kernel: Hansen (2016) Table 1 and the default negative weights
// (eq. 53), with pycma's variants where it departs from the tutorial: c_sigma has +3 instead of +5
// in its denominator and c_mu carries the 1/4 offset (pycma options_parameters.py and
// sigma_adaptation.py).

import { n, lam, mu, pWeights } from './cmaes-layout';
import { at, put } from './cmaes-vector';

export let mueff: f64 = 0;
export let cc: f64 = 0;
export let cs: f64 = 0;
export let ds: f64 = 0;
export let c1: f64 = 0;
export let cmu: f64 = 0;
/** E||N(0, I)||. */
export let chiN: f64 = 0;
/** Sum of all recombination weights, negative ones included. */
export let sumWeights: f64 = 0;
/** Generations between refreshes of B and D. */
export let eigenGap: f64 = 0;
/** Rank compared with the best to detect a flat fitness landscape. */
export let flatIndex: i32 = 0;

/** Sets the parameters for the current layout (n, lambda) and writes the weights to pWeights. */
export function initParameters(active: bool): void {
  const half = Math.log((<f64>lam + 1) / 2);
  let sumPos: f64 = 0;
  let sumPos2: f64 = 0;
  let sumNeg: f64 = 0;
  let sumNeg2: f64 = 0;
  for (let i = 0; i < lam; i++) {
    const w = half - Math.log(<f64>(i + 1));
    put(pWeights, i, w);
    if (i < mu) {
      sumPos += w;
      sumPos2 += w * w;
    } else {
      sumNeg += w;
      sumNeg2 += w * w;
    }
  }
  const nf = <f64>n;
  mueff = (sumPos * sumPos) / sumPos2;
  const mueffNeg = sumNeg2 > 0 ? (sumNeg * sumNeg) / sumNeg2 : 0;
  cc = (4 + mueff / nf) / (nf + 4 + (2 * mueff) / nf);
  cs = (mueff + 2) / (nf + mueff + 3);
  c1 = 2 / ((nf + 1.3) * (nf + 1.3) + mueff);
  cmu = Math.min(1 - c1, (2 * (0.25 + mueff + 1 / mueff - 2)) / ((nf + 2) * (nf + 2) + mueff));
  ds = 1 + 2 * Math.max(0, Math.sqrt((mueff - 1) / (nf + 1)) - 1) + cs;
  chiN = Math.sqrt(nf) * (1 - 1 / (4 * nf) + 1 / (21 * nf * nf));
  let negScale: f64 = 0;
  if (active && sumNeg < 0) {
    const alphaMu = 1 + c1 / cmu;
    const alphaMueff = 1 + (2 * mueffNeg) / (mueff + 2);
    const alphaPosdef = (1 - c1 - cmu) / (nf * cmu);
    negScale = Math.min(alphaMu, Math.min(alphaMueff, alphaPosdef)) / -sumNeg;
  }
  sumWeights = 0;
  for (let i = 0; i < lam; i++) {
    const w = at(pWeights, i);
    const v = i < mu ? w / sumPos : w * negScale;
    put(pWeights, i, v);
    sumWeights += v;
  }
  // pycma's lazy gap, but at least n / lambda generations: the O(n^3) decomposition then costs about
  // as much as the O(n^2 lambda) sampling and update of the generations it serves. Measured on the
  // ellipsoid, evaluations stay within seed-to-seed noise: n = 40 refreshes every 3rd generation
  // instead of every one, n = 100 every 6th instead of every 2nd.
  eigenGap = Math.max(1 / ((c1 + cmu) * nf * 10), nf / <f64>lam);
  flatIndex = min(lam - 1, <i32>Math.ceil(0.1 + <f64>lam / 4));
}
