/**
 * Exact hypervolume in minimisation space, computed by the AssemblyScript kernel
 * `assembly/hypervolume.ts` (WFG over 2-D and 3-D sweeps and HV4D+ as base cases). One kernel
 * instance per thread, created on first use; its memory grows to the largest problem seen and is
 * reused, and inputs are written straight into it.
 */
import { wasmInstance } from './wasm/load.js';

interface HypervolumeKernel {
  memory: { readonly buffer: ArrayBuffer };
  heapBase(): number;
  reserve(end: number): void;
  hypervolume(points: number, n: number, m: number, ref: number, scratch: number): number;
  improvements(front: number, n: number, m: number, ref: number, candidates: number, q: number, out: number, scratch: number): void;
  paretoBegin(n: number, m: number, scratch: number): void;
  paretoChunk(rows: number, from: number, to: number, m: number, keep: number): void;
}

let kernel: HypervolumeKernel | undefined;

function getKernel(): HypervolumeKernel {
  kernel ??= wasmInstance('hypervolume').exports as unknown as HypervolumeKernel;
  return kernel;
}

const align = (bytes: number): number => (bytes + 15) & ~15;

/**
 * Upper bound on the kernel's scratch bytes for `n` rows of `m` objectives (two row copies, one
 * limit set and its filtered copy per WFG level, the 4-D front and staircase), so memory is grown
 * once up front; the kernel still grows it itself should this ever fall short.
 */
function scratchBytes(n: number, m: number): number {
  return 8 * n * (4 * m + m * m + 16) + 64 * (m + 16);
}

/**
 * Throws if the inputs cannot describe `n` points of `m` objectives with a reference point:
 * `points`: `n x m` row-major; `ref`: length m, finite. NaN and -Infinity coordinates are
 * rejected (the volume would be undefined or unbounded); +Infinity only drops its row.
 */
export function checkHypervolumeInput(what: string, points: ArrayLike<number>, n: number, m: number, ref: ArrayLike<number>): void {
  if (!Number.isInteger(m) || m < 1) throw new Error(`hypervolume: the number of objectives must be a positive integer, got ${m}.`);
  if (!Number.isInteger(n) || n < 0) throw new Error(`hypervolume: the number of ${what} must be a non-negative integer, got ${n}.`);
  if (ref.length !== m) throw new Error(`hypervolume: the reference point has ${ref.length} values but there are ${m} objectives.`);
  for (let j = 0; j < m; j++) {
    if (!Number.isFinite(ref[j])) throw new Error(`hypervolume: reference point value ${j} is ${ref[j]}; it must be finite.`);
  }
  if (points.length < n * m) throw new Error(`hypervolume: ${what} hold ${points.length} values, fewer than ${n} x ${m}.`);
  for (let i = 0; i < n * m; i++) {
    const v = points[i];
    if (Number.isNaN(v) || v === -Infinity) {
      throw new Error(`hypervolume: ${what} row ${Math.floor(i / m)} objective ${i % m} is ${v}; coordinates must be numbers below +Infinity.`);
    }
  }
}

/** Exact hypervolume dominated by `points` (`n x m` row-major) and bounded by `ref` (length m). Points that do not strictly dominate ref contribute nothing. */
export function hypervolume(points: Float64Array, n: number, m: number, ref: ArrayLike<number>): number {
  checkHypervolumeInput('points', points, n, m, ref);
  if (n === 0) return 0;
  const k = getKernel();
  const base = align(k.heapBase());
  const refAt = base + align(8 * n * m);
  const scratch = refAt + align(8 * m);
  k.reserve(scratch + scratchBytes(n, m));
  const heap = new Float64Array(k.memory.buffer);
  heap.set(points.subarray(0, n * m), base / 8);
  for (let j = 0; j < m; j++) heap[refAt / 8 + j] = ref[j];
  return k.hypervolume(base, n, m, refAt, scratch);
}

/**
 * For each of the q candidates separately: HV(front ∪ {c}) − HV(front). `front`: `n x m`,
 * `candidates`: `q x m` (both row-major); returns q values (≥ 0). The front is filtered to its
 * non-dominated points once; each value is the exclusive contribution of c as in WFG.
 */
export function hypervolumeImprovements(front: Float64Array, n: number, m: number, ref: ArrayLike<number>, candidates: Float64Array, q: number): Float64Array {
  checkHypervolumeInput('front points', front, n, m, ref);
  checkHypervolumeInput('candidates', candidates, q, m, ref);
  const result = new Float64Array(q);
  if (q === 0) return result;
  const k = getKernel();
  const base = align(k.heapBase());
  const refAt = base + align(8 * n * m);
  const candAt = refAt + align(8 * m);
  const outAt = candAt + align(8 * q * m);
  const scratch = outAt + align(8 * q);
  k.reserve(scratch + scratchBytes(n, m) + 8 * n * m);
  const heap = new Float64Array(k.memory.buffer);
  heap.set(front.subarray(0, n * m), base / 8);
  for (let j = 0; j < m; j++) heap[refAt / 8 + j] = ref[j];
  heap.set(candidates.subarray(0, q * m), candAt / 8);
  k.improvements(base, n, m, refAt, candAt, q, outAt, scratch);
  result.set(new Float64Array(k.memory.buffer, outAt, q));
  return result;
}

/** Rows per kernel call in `nondominatedVerdicts`: V8 only switches to optimised code between calls. */
const PARETO_CHUNK = 1024;

/**
 * The kernel's non-dominated scan, for pareto.ts: `sorted` holds `n x m` row-major rows ordered so
 * that every row comes after all rows dominating it, with identical rows adjacent. Returns, in
 * that order, 1 for each non-dominated row and 0 for the others.
 */
export function nondominatedVerdicts(sorted: Float64Array, n: number, m: number): Uint8Array {
  const k = getKernel();
  const base = align(k.heapBase());
  const keepAt = base + align(8 * n * m);
  const scratch = keepAt + align(n);
  k.reserve(scratch + 8 * (n + 4) * (m + 1) + 64);
  new Float64Array(k.memory.buffer).set(sorted.subarray(0, n * m), base / 8);
  k.paretoBegin(n, m, scratch);
  for (let from = 0; from < n; from += PARETO_CHUNK) k.paretoChunk(base, from, Math.min(n, from + PARETO_CHUNK), m, keepAt);
  return new Uint8Array(k.memory.buffer, keepAt, n).slice();
}
