// Termination criteria of the CMA-ES kernel, as in Hansen (2016) Appendix B.3 and pycma's defaults:
// tolfun, tolx, tolupsigma, conditioncov, noeffectaxis, noeffectcoord, stagnation and maxiter.

import { n, lam, pFit, pOrder, pC, pB, pD, pMean, pPc, row, take } from './cmaes-layout';
import { minEig, maxEig, MAX_CONDITION } from './cmaes-covariance';
import { stagnated } from './cmaes-stagnation';
import { at, put } from './cmaes-vector';

const TOLFUN: f64 = 1e-11;
const TOLX_FACTOR: f64 = 1e-12;
const TOLUPSIGMA: f64 = 1e20;
const STAGNATION_MAX: i32 = 20000;

export const STOP_TOLFUN = 1;
export const STOP_TOLX = 2;
export const STOP_TOLUPSIGMA = 3;
export const STOP_CONDITIONCOV = 4;
export const STOP_NOEFFECTAXIS = 5;
export const STOP_NOEFFECTCOORD = 6;
export const STOP_STAGNATION = 7;
export const STOP_MAXITER = 8;

let maxIter: i32 = 0;
let funHistLen: i32 = 0;
let stagMin: f64 = 0;
let stagLen: i32 = 0;
let pHistF: usize = 0;
let pHistBest: usize = 0;
let pHistMedian: usize = 0;
let pScratch: usize = 0;

/** Sizes the histories for the current layout and reserves their memory. */
export function allocateStopHistories(): void {
  maxIter = <i32>Math.min(2e9, 100 + (150 * <f64>(n + 3) * <f64>(n + 3)) / Math.sqrt(<f64>lam));
  funHistLen = 10 + <i32>Math.ceil((30 * <f64>n) / <f64>lam);
  stagMin = 120 + (30 * <f64>n) / <f64>lam;
  // The stagnation window is 20% of the run, so a run ending at maxIter never needs more.
  stagLen = min(STAGNATION_MAX, max(<i32>Math.ceil(stagMin), <i32>Math.ceil(0.2 * <f64>maxIter)) + 1);
  pHistF = take(<usize>funHistLen << 3);
  pHistBest = take(<usize>stagLen << 3);
  pHistMedian = take(<usize>stagLen << 3);
  pScratch = take(<usize>stagLen << 3);
}

@inline function fitAt(rank: i32): f64 {
  return at(pFit, load<i32>(pOrder + (<usize>rank << 2)));
}

/** Stores the best and median fitness of generation `gen` (1-based; pOrder ranks pFit). */
export function recordHistory(gen: i32): void {
  put(pHistF, (gen - 1) % funHistLen, fitAt(0));
  const slot = (gen - 1) % stagLen;
  put(pHistBest, slot, fitAt(0));
  put(pHistMedian, slot, fitAt(lam >> 1));
}

/** The first criterion met after generation `gen`, or 0. */
export function stopCode(gen: i32, sigma: f64, sigma0: f64): i32 {
  if (gen >= funHistLen && fitAt(lam - 1) - fitAt(0) < TOLFUN) {
    let lo: f64 = Infinity;
    let hi: f64 = -Infinity;
    for (let i = 0; i < funHistLen; i++) {
      lo = Math.min(lo, at(pHistF, i));
      hi = Math.max(hi, at(pHistF, i));
    }
    if (hi - lo < TOLFUN) return STOP_TOLFUN;
  }
  const tolx = TOLX_FACTOR * sigma0;
  let small = true;
  for (let j = 0; j < n && small; j++) {
    small = sigma * Math.sqrt(at(row(pC, j), j)) < tolx && sigma * Math.abs(at(pPc, j)) < tolx;
  }
  if (small) return STOP_TOLX;
  if (sigma / sigma0 > TOLUPSIGMA * Math.sqrt(maxEig)) return STOP_TOLUPSIGMA;
  if (maxEig > MAX_CONDITION * minEig) return STOP_CONDITIONCOV;
  const axis = gen % n;
  const axisStep = 0.1 * sigma * at(pD, axis);
  const axisRow = row(pB, axis);
  let noEffect = true;
  for (let j = 0; j < n && noEffect; j++) {
    const m = at(pMean, j);
    noEffect = m + axisStep * at(axisRow, j) == m;
  }
  if (noEffect) return STOP_NOEFFECTAXIS;
  for (let j = 0; j < n; j++) {
    const m = at(pMean, j);
    if (m + 0.2 * sigma * Math.sqrt(at(row(pC, j), j)) == m) return STOP_NOEFFECTCOORD;
  }
  if (stagnated(pHistBest, pHistMedian, pScratch, stagLen, gen, stagMin)) return STOP_STAGNATION;
  if (gen >= maxIter) return STOP_MAXITER;
  return 0;
}
