/**
 * Hypervolume improvements of many points at once (Monte Carlo samples of many candidates) from a
 * box decomposition, on the thread's tensor backend: HVI(y) = Σ_b Π_j max(0, u_bj − max(l_bj, y_j))
 * (hypervolume-boxes.ts), every sample against every box, in float32.
 *
 * The boxes live on the device, uploaded on first use and again after the decomposition changes
 * (its revision), until `dispose`. Samples × boxes run in chunks of at most `chunkElements`
 * entries; each chunk's side lengths are multiplied objective by objective, so at most seven
 * `rows x boxes` float32 tensors are alive at once, and every chunk is queued before the first is
 * read back (`await data()`: a GPU reads back only so).
 *
 * Precision. Coordinates are taken relative to the reference point and in units of each
 * objective's span from the front's best value to ref (1 with no front), in float64, before they
 * are rounded to float32. The side of box b along objective j is
 * relu(u_bj − y_j) − relu(l_bj − y_j), which is max(0, u_bj − max(l_bj, y_j)) as l ≤ u (tfjs's
 * broadcasting maximum and minimum are about 20 times slower on wasm than its subtraction and
 * relu). Every term is non-negative, so nothing cancels across boxes: against the float64 sum,
 * on spherical fronts of 20 to 200 points at m = 2 to 6, the largest error was 3e-8 of the unit
 * volume (Π_j of the spans) on wasm, and 2.4e-8 on webgpu (lavapipe, up to 50 points); the tests
 * assert 1e-6 on both. An unbounded lower corner stands at 1e15 units below ref, and samples
 * farther down are moved up to it.
 */
import { checkHypervolumeInput } from './hypervolume.js';
import type { NondominatedBoxes } from './hypervolume-boxes.js';
import { tf } from './tensor/backend.js';

/**
 * Samples × boxes per chunk by default. On the CPU backends 1M float32 entries (4 MB per
 * intermediate): on wasm, chunks of 2^16 to 2^20 entries ran alike, and 2^22 and 2^24 up to 2.6
 * times slower, as they leave the caches. On webgpu 16M entries (64 MB per intermediate, as the
 * pathwise draws take), so a GPU gets few, large dispatches.
 */
export function defaultBoxChunkElements(): number {
  return tf.getBackend() === 'webgpu' ? 1 << 24 : 1 << 20;
}

/** The width standing for an unbounded side, in units of the objective's span (finite: WGSL need not keep infinities). */
const UNBOUNDED = 1e15;

/** Each chunk's box range holds at least this many sample rows, so small chunks still split samples, not only boxes. */
const MIN_ROWS = 64;

interface Uploaded {
  revision: number;
  /** per objective j: ref_j − (the front's best value), or 1 */
  unit: Float64Array;
  /** per box range: per objective, `1 x boxes` tensors of (u − ref) / unit and (l − ref) / unit */
  ranges: { upper: tf.Tensor2D[]; lower: tf.Tensor2D[] }[];
  boxesPerRange: number;
}

export class TensorBoxImprovements {
  private uploaded: Uploaded | null = null;
  private readonly chunkElements: number;

  /** chunkElements: samples × boxes per chunk (at least MIN_ROWS; default defaultBoxChunkElements()). */
  constructor(
    readonly decomposition: NondominatedBoxes,
    { chunkElements = defaultBoxChunkElements() }: { chunkElements?: number } = {},
  ) {
    if (!Number.isInteger(chunkElements) || chunkElements < MIN_ROWS) {
      throw new Error(`hypervolume boxes: chunkElements must be an integer of at least ${MIN_ROWS}, got ${chunkElements}.`);
    }
    this.chunkElements = chunkElements;
  }

  /** HV(front ∪ {y}) − HV(front) for each of the `count` rows of `Y` (`count x m` row-major), float32 on the device, returned as float64. */
  async improvements(Y: Float64Array, count: number): Promise<Float64Array> {
    const { m, ref } = this.decomposition;
    checkHypervolumeInput('candidates', Y, count, m, ref);
    const out = new Float64Array(count);
    if (count === 0) return out;
    const t = this.current();
    const rows = Math.max(1, Math.floor(this.chunkElements / t.boxesPerRange));
    const chunks: tf.Tensor1D[] = [];
    try {
      for (let start = 0; start < count; start += rows) {
        const size = Math.min(rows, count - start);
        chunks.push(this.chunk(t, Y, start, size));
      }
      const values = await Promise.all(chunks.map((c) => c.data()));
      let volume = 1;
      for (let j = 0; j < m; j++) volume *= t.unit[j];
      let offset = 0;
      for (const v of values) {
        for (let i = 0; i < v.length; i++) out[offset + i] = v[i] * volume;
        offset += v.length;
      }
      return out;
    } finally {
      for (const c of chunks) c.dispose();
    }
  }

  /** Frees the boxes on the device; a later call uploads them again. */
  dispose(): void {
    if (this.uploaded === null) return;
    for (const range of this.uploaded.ranges) for (const x of [...range.upper, ...range.lower]) x.dispose();
    this.uploaded = null;
  }

  /** The improvements of rows [start, start + size) of Y, summed over every box range: a `size` tensor. */
  private chunk(t: Uploaded, Y: Float64Array, start: number, size: number): tf.Tensor1D {
    const { m, ref } = this.decomposition;
    const columns = Array.from({ length: m }, (_, j) => {
      const column = new Float32Array(size);
      for (let i = 0; i < size; i++) column[i] = Math.max((Y[(start + i) * m + j] - ref[j]) / t.unit[j], -UNBOUNDED);
      return tf.tensor2d(column, [size, 1]);
    });
    let total: tf.Tensor1D | null = null;
    try {
      for (const range of t.ranges) {
        let volume: tf.Tensor2D | null = null;
        for (let j = 0; j < m; j++) {
          const side = tf.tidy(() => tf.sub<tf.Tensor2D>(tf.relu(tf.sub(range.upper[j], columns[j])), tf.relu(tf.sub(range.lower[j], columns[j]))));
          if (volume === null) volume = side;
          else {
            const next: tf.Tensor2D = tf.mul(volume, side);
            volume.dispose();
            side.dispose();
            volume = next;
          }
        }
        const sum = tf.sum<tf.Tensor1D>(volume!, 1);
        volume!.dispose();
        if (total === null) total = sum;
        else {
          const next: tf.Tensor1D = tf.add(total, sum);
          total.dispose();
          sum.dispose();
          total = next;
        }
      }
      return total!;
    } finally {
      for (const c of columns) c.dispose();
    }
  }

  /** The boxes on the device, uploaded again when the decomposition has changed since. */
  private current(): Uploaded {
    const revision = this.decomposition.revision;
    if (this.uploaded?.revision === revision) return this.uploaded;
    this.dispose();
    const { m, ref } = this.decomposition;
    const { count, lower, upper } = this.decomposition.boxes();
    const unit = new Float64Array(m).fill(Infinity);
    for (let b = 0; b < count; b++) for (let j = 0; j < m; j++) unit[j] = Math.min(unit[j], upper[b * m + j]);
    for (let j = 0; j < m; j++) unit[j] = ref[j] - unit[j] > 0 ? ref[j] - unit[j] : 1;
    const boxesPerRange = Math.min(count, Math.max(1, Math.floor(this.chunkElements / MIN_ROWS)));
    const ranges: Uploaded['ranges'] = [];
    for (let from = 0; from < count; from += boxesPerRange) {
      const size = Math.min(boxesPerRange, count - from);
      const range: Uploaded['ranges'][number] = { upper: [], lower: [] };
      for (let j = 0; j < m; j++) {
        const u = new Float32Array(size);
        const l = new Float32Array(size);
        for (let b = 0; b < size; b++) {
          const k = (from + b) * m + j;
          u[b] = (upper[k] - ref[j]) / unit[j];
          l[b] = Math.max((lower[k] - ref[j]) / unit[j], -UNBOUNDED);
        }
        range.upper.push(tf.tensor2d(u, [1, size]));
        range.lower.push(tf.tensor2d(l, [1, size]));
      }
      ranges.push(range);
    }
    this.uploaded = { revision, unit, ranges, boxesPerRange };
    return this.uploaded;
  }
}
