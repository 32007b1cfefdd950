// CMA-ES kernel: one optimizer per WASM instance, all state in linear memory.
//
// (mu/mu_w, lambda)-CMA-ES with weighted recombination, cumulative step-size adaptation, rank-one and
// rank-mu covariance updates and the active (negative-weight) update, following Hansen (2016) "The
// CMA Evolution Strategy: A Tutorial" (arXiv:1604.00772) and Hansen & Ostermeier (2001); negative
// weights after Jastrebski & Arnold (2006) and Hansen & Ros (2010) with the tutorial's defaults.
// Parameters: lib/cmaes-params.ts; covariance update and lazy eigendecomposition:
// lib/cmaes-covariance.ts; termination: lib/cmaes-stop.ts; box constraints: lib/cmaes-bounds.ts.
//
// Protocol: setup() sizes the memory, the host writes the initial mean (and bounds) through
// meanPtr()/lowerPtr()/upperPtr(), start() initialises; then ask() fills the population at
// populationPtr() and tell() reads the fitness values at fitnessPtr().

import {
  n, ld, lam, mu, pMean, pOld, pPc, pPs, pZmean, pDz, pD, pLower, pUpper, pAl, pAu, pMeanP, pBest,
  pC, pB, pZ, pY, pXg, pXp, pFit, pWeights, pCoef, pV, pOrder, pOrderTmp,
  heapStart as layoutStart, reserve as layoutReserve, beginLayout, commitLayout, row, vecBytes,
} from './lib/cmaes-layout';
import { mueff, cc, cs, ds, c1, cmu, chiN, sumWeights, eigenGap, flatIndex, initParameters } from './lib/cmaes-params';
import { rankUpdate, updateEigen, resetCovariance } from './lib/cmaes-covariance';
import { allocateStopHistories, recordHistory, stopCode } from './lib/cmaes-stop';
import { seedRandom, fillNormal } from './lib/cmaes-random';
import { symmetricEigen } from './lib/cmaes-eigen';
import { lowerMargin, upperMargin, toPhenotype, toGenotype } from './lib/cmaes-bounds';
import { argsort } from './lib/cmaes-order';
import { axpy, axpy4, axpy4x2, scale, dot, at, put } from './lib/cmaes-vector';

let isActive = false;
let isBounded = false;
let sigma0: f64 = 0;
let sigma: f64 = 0;
let gen: i32 = 0;
let evals: f64 = 0;
let lastEigen: i32 = 0;
let pending = false;
let stop: i32 = 0;
let bestF: f64 = Infinity;

/** First free byte of a fresh instance; lets the host run eigen() on its own data. */
export function heapStart(): usize {
  return layoutStart();
}

/** Grows memory to hold `bytes` from heapStart(); 0 when the host refuses. */
export function reserve(bytes: usize): i32 {
  return layoutReserve(bytes) ? 1 : 0;
}

/**
 * The kernel's eigen solver on host memory from heapStart() (see lib/cmaes-eigen.ts; scratch: 3 dim
 * f64); 1 on success. For an instance of its own: setup() assumes it laid out all memory it uses.
 */
export function eigen(a: usize, dim: i32, stride: i32, values: usize, scratch: usize): i32 {
  return symmetricEigen(a, dim, stride, values, scratch) ? 1 : 0;
}

/**
 * Lays out memory for dimension `dim` and population `lambda`, zeroed; 0 when memory cannot grow.
 * Everything is reset, so an instance can be set up again (e.g. with a larger population).
 */
export function setup(dim: i32, lambda: i32, active: i32, bounded: i32): i32 {
  isActive = active != 0;
  isBounded = bounded != 0;
  beginLayout(dim, lambda);
  allocateStopHistories();
  return commitLayout() ? 1 : 0;
}

export function meanPtr(): usize {
  return pMeanP;
}
export function lowerPtr(): usize {
  return pLower;
}
export function upperPtr(): usize {
  return pUpper;
}
export function populationPtr(): usize {
  return pXp;
}
export function fitnessPtr(): usize {
  return pFit;
}
export function bestPtr(): usize {
  return pBest;
}

/** Starts the search at the mean written to meanPtr() with step size `s0` and stream `seed`. */
export function start(s0: f64, seed: u32): void {
  seedRandom(seed);
  initParameters(isActive);
  resetCovariance();
  sigma0 = s0;
  sigma = s0;
  capSigma();
  gen = 0;
  evals = 0;
  lastEigen = 0;
  pending = false;
  stop = 0;
  bestF = Infinity;
  for (let j = 0; j < n; j++) {
    let m = at(pMeanP, j);
    if (isBounded) {
      const lb = at(pLower, j);
      const ub = at(pUpper, j);
      const al = lowerMargin(lb, ub);
      const au = upperMargin(lb, ub);
      put(pAl, j, al);
      put(pAu, j, au);
      m = toGenotype(m, lb, ub, al, au);
    }
    put(pMean, j, m);
    put(pBest, j, at(pMeanP, j));
  }
}

// With bounds, no coordinate's standard deviation may exceed a third of its range (pycma's
// maxstd_boundrange): a wider search only samples the periodic bound transform at random.
function capSigma(): void {
  if (!isBounded) return;
  for (let j = 0; j < n; j++) {
    const maxStd = (at(pUpper, j) - at(pLower, j)) / 3;
    const std = sigma * Math.sqrt(at(row(pC, j), j));
    if (std > maxStd) sigma = maxStd / Math.sqrt(at(row(pC, j), j));
  }
}

// The phenotype x (n values) of the genotype g.
function phenotype(x: usize, g: usize): void {
  if (isBounded) {
    for (let j = 0; j < n; j++) {
      put(x, j, toPhenotype(at(g, j), at(pLower, j), at(pUpper, j), at(pAl, j), at(pAu, j)));
    }
  } else {
    memory.copy(x, g, <usize>n << 3);
  }
}

/** Samples lambda candidates x_k = m + sigma B D z_k into populationPtr() (`lambda x n`). */
export function ask(): void {
  const vec = vecBytes();
  for (let i = 0; i < lam; i++) fillNormal(row(pZ, i), n);
  // Samples go in pairs so each pass over B serves two of them (B is re-read from cache per pass).
  for (let i = 0; i < lam; i += 2) {
    const pair = i + 1 < lam;
    const dz1 = pDz + vec;
    const y0 = row(pY, i);
    const y1 = y0 + vec;
    scaleRow(pDz, row(pZ, i));
    memory.fill(y0, 0, vec);
    let j = 0;
    if (pair) {
      scaleRow(dz1, row(pZ, i + 1));
      memory.fill(y1, 0, vec);
      for (; j + 4 <= n; j += 4) {
        const off = <usize>j << 3;
        axpy4x2(y0, y1, pDz + off, dz1 + off, row(pB, j), vec, ld);
      }
      for (; j < n; j++) {
        axpy(y0, at(pDz, j), row(pB, j), ld);
        axpy(y1, at(dz1, j), row(pB, j), ld);
      }
    } else {
      for (; j + 4 <= n; j += 4) axpy4(y0, pDz + (<usize>j << 3), row(pB, j), vec, ld);
      for (; j < n; j++) axpy(y0, at(pDz, j), row(pB, j), ld);
    }
    finishSample(i, y0);
    if (pair) finishSample(i + 1, y1);
  }
  pending = true;
}

// dst = D z (n values).
function scaleRow(dst: usize, z: usize): void {
  for (let j = 0; j < n; j++) put(dst, j, at(pD, j) * at(z, j));
}

// x_i = m + sigma y (genotype, then phenotype into the host's population).
function finishSample(i: i32, y: usize): void {
  const xg = row(pXg, i);
  memory.copy(xg, pMean, vecBytes());
  axpy(xg, sigma, y, ld);
  phenotype(pXp + ((<usize>i * <usize>n) << 3), xg);
}

@inline function rankOf(r: i32): i32 {
  return load<i32>(pOrder + (<usize>r << 2));
}

/**
 * Updates the distribution from the fitness values at fitnessPtr() (lambda values, minimised;
 * non-finite values rank last). Returns the stop code (0: none), or -1 without a preceding ask().
 */
export function tell(): i32 {
  if (!pending) return -1;
  pending = false;
  const vec = vecBytes();
  for (let i = 0; i < lam; i++) {
    let f = at(pFit, i);
    if (!isFinite<f64>(f)) {
      f = Infinity;
      put(pFit, i, f);
    }
    if (f < bestF) {
      bestF = f;
      memory.copy(pBest, pXp + ((<usize>i * <usize>n) << 3), <usize>n << 3);
    }
  }
  argsort(pFit, pOrder, pOrderTmp, lam);

  memory.copy(pOld, pMean, vec);
  memory.fill(pMean, 0, vec);
  memory.fill(pZmean, 0, vec);
  for (let r = 0; r < mu; r++) {
    const w = at(pWeights, r);
    axpy(pMean, w, row(pXg, rankOf(r)), ld);
    axpy(pZmean, w, row(pZ, rankOf(r)), ld);
  }

  // p_sigma accumulates C^{-1/2} (m' - m) / sigma = B <z>_w, exact while B and D are those of ask().
  scale(pPs, 1 - cs, ld);
  const psFactor = Math.sqrt(cs * (2 - cs) * mueff);
  // Coefficients first, so B is combined four rows per pass (same sums, same order as one by one).
  for (let j = 0; j < n; j++) put(pDz, j, psFactor * at(pZmean, j));
  let j = 0;
  for (; j + 4 <= n; j += 4) axpy4(pPs, pDz + (<usize>j << 3), row(pB, j), vec, ld);
  for (; j < n; j++) axpy(pPs, at(pDz, j), row(pB, j), ld);
  const psNorm2 = dot(pPs, pPs, ld);
  const hsig = psNorm2 / <f64>n / (1 - Math.pow(1 - cs, 2 * <f64>(gen + 1))) < 2 + 4 / (<f64>n + 1);

  scale(pPc, 1 - cc, ld);
  if (hsig) {
    const pcFactor = Math.sqrt(cc * (2 - cc) * mueff) / sigma;
    axpy(pPc, pcFactor, pMean, ld);
    axpy(pPc, -pcFactor, pOld, ld);
  }

  // Rank-one vector first, then every sample with a nonzero weight, best first.
  let count = 1;
  memory.copy(pV, pPc, vec);
  put(pCoef, 0, c1);
  for (let r = 0; r < lam; r++) {
    let w = at(pWeights, r);
    if (w == 0) continue;
    const k = rankOf(r);
    if (w < 0) {
      // Negative weights act on directions rescaled to length sqrt(n) in the C^{-1/2} metric.
      const z = row(pZ, k);
      const z2 = dot(z, z, ld);
      w = z2 > 0 ? (w * <f64>n) / z2 : 0;
    }
    memory.copy(row(pV, count), row(pY, k), vec);
    put(pCoef, count, cmu * w);
    count++;
  }
  rankUpdate(1 - c1 - cmu * sumWeights + (hsig ? 0 : c1 * cc * (2 - cc)), count);

  sigma *= Math.exp(Math.min(1, (cs / ds) * (Math.sqrt(psNorm2) / chiN - 1)));
  // Flat fitness: no ranking information, so widen the search (tutorial, Appendix B.3).
  if (at(pFit, rankOf(0)) == at(pFit, rankOf(flatIndex))) sigma *= Math.exp(0.2 + cs / ds);
  capSigma();

  gen++;
  evals += <f64>lam;
  if (<f64>(gen - lastEigen) >= eigenGap) {
    lastEigen = gen;
    updateEigen();
  }
  recordHistory(gen);
  if (stop == 0) stop = stopCode(gen, sigma, sigma0);
  return stop;
}

/** Writes the phenotype of the current mean to meanPtr(). */
export function writeMean(): void {
  phenotype(pMeanP, pMean);
}

export function generation(): i32 {
  return gen;
}
export function evaluations(): f64 {
  return evals;
}
export function stepSize(): f64 {
  return sigma;
}
export function bestValue(): f64 {
  return bestF;
}
export function stopReason(): i32 {
  return stop;
}
