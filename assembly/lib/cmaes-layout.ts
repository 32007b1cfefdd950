// Linear-memory layout of the CMA-ES kernel. Everything the optimizer keeps lives in one region
// from __heap_base, carved once per setup (no allocator, no managed objects). Vectors and matrix
// rows are padded to an even stride `ld` so that f64x2 loops need no tails; padding stays zero.

/** Dimension, padded row stride (doubles), population size and number of parents. */
export let n: i32 = 0;
export let ld: i32 = 0;
export let lam: i32 = 0;
export let mu: i32 = 0;

/** Vectors of ld doubles. */
export let pMean: usize = 0; // genotype mean m
export let pOld: usize = 0; // previous mean
export let pPc: usize = 0; // rank-one evolution path
export let pPs: usize = 0; // conjugate evolution path
export let pZmean: usize = 0; // weighted mean of the selected z
export let pDz: usize = 0; // 2 ld: coefficient scratch (D z of two samples in ask)
export let pD: usize = 0; // sqrt of the eigenvalues of C
export let pEig: usize = 0; // eigenvalues of C
export let pEigScratch: usize = 0; // 3 ld: scratch of the eigen solver
export let pLower: usize = 0;
export let pUpper: usize = 0;
export let pAl: usize = 0; // widths of the lower quadratic margins
export let pAu: usize = 0; // widths of the upper quadratic margins
export let pMeanP: usize = 0; // phenotype mean (input of start, output of writeMean)
export let pBest: usize = 0; // best phenotype seen
/** `ld x ld` matrices: C (upper triangle maintained), B^T (row j = eigenvector j), decomposition work. */
export let pC: usize = 0;
export let pB: usize = 0;
export let pWork: usize = 0;
/** `lambda x ld`: standard normal z, y = B D z, genotype x; `lambda x n`: phenotypes (host view). */
export let pZ: usize = 0;
export let pY: usize = 0;
export let pXg: usize = 0;
export let pXp: usize = 0;
/** lambda doubles: fitness (host writes), recombination weights; (lambda + 1) update coefficients. */
export let pFit: usize = 0;
export let pWeights: usize = 0;
export let pCoef: usize = 0;
/** `(lambda + 1) x ld`: vectors of the covariance update; (lambda + 1) x 2 splatted coefficients. */
export let pV: usize = 0;
export let pSplat: usize = 0;
/** lambda i32: ranking and sort scratch. */
export let pOrder: usize = 0;
export let pOrderTmp: usize = 0;

let start: usize = 0;
let cursor: usize = 0;
// End of the furthest layout so far: memory beyond it has never been written.
let laidOut: usize = 0;

/** First free byte of a fresh instance. */
export function heapStart(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

/** Grows memory to hold at least `bytes` from heapStart(); false when the host refuses. */
export function reserve(bytes: usize): bool {
  const pages = <i32>((heapStart() + bytes + 0xffff) >>> 16);
  const have = memory.size();
  return pages <= have || memory.grow(pages - have) >= 0;
}

/** Bytes of one padded vector. */
@inline export function vecBytes(): usize {
  return <usize>ld << 3;
}

/** Address of row i of a padded `rows x ld` array. */
@inline export function row(base: usize, i: i32): usize {
  return base + <usize>i * vecBytes();
}

/** Reserves `bytes` (16-byte aligned) of the region being laid out. */
export function take(bytes: usize): usize {
  const p = cursor;
  cursor += (bytes + 15) & ~(<usize>15);
  return p;
}

/** Starts a fresh layout for dimension `dim` and population `lambda` and places the core arrays. */
export function beginLayout(dim: i32, lambda: i32): void {
  n = dim;
  ld = (dim + 1) & ~1;
  lam = lambda;
  mu = lambda >> 1;
  start = heapStart();
  cursor = start;
  const vec = vecBytes();
  pMean = take(vec);
  pOld = take(vec);
  pPc = take(vec);
  pPs = take(vec);
  pZmean = take(vec);
  pDz = take(2 * vec);
  pD = take(vec);
  pEig = take(vec);
  pEigScratch = take(3 * vec);
  pLower = take(vec);
  pUpper = take(vec);
  pAl = take(vec);
  pAu = take(vec);
  pMeanP = take(vec);
  pBest = take(vec);
  pC = take(<usize>ld * vec);
  pB = take(<usize>ld * vec);
  pWork = take(<usize>ld * vec);
  pZ = take(<usize>lam * vec);
  pY = take(<usize>lam * vec);
  pXg = take(<usize>lam * vec);
  pXp = take((<usize>lam * <usize>n) << 3);
  pFit = take(<usize>lam << 3);
  pWeights = take(<usize>lam << 3);
  pCoef = take(<usize>(lam + 1) << 3);
  pV = take(<usize>(lam + 1) * vec);
  pSplat = take(<usize>(lam + 1) << 5);
  pOrder = take(<usize>lam << 2);
  pOrderTmp = take(<usize>lam << 2);
}

/**
 * Grows memory to the laid-out size and zeroes the region; false when memory cannot grow. A fresh
 * instance's memory is already zero, and leaving it untouched spares faulting in pages (mostly
 * termination histories) that a short run never reaches.
 */
export function commitLayout(): bool {
  if (!reserve(cursor - start)) return false;
  const dirtyEnd = min(cursor, laidOut);
  if (dirtyEnd > start) memory.fill(start, 0, dirtyEnd - start);
  laidOut = max(laidOut, cursor);
  return true;
}

/** Makes the freshly decomposed work matrix the basis B (the old basis becomes work space). */
export function swapBasis(): void {
  const t = pB;
  pB = pWork;
  pWork = t;
}
