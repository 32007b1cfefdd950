import { hypervolume, hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { hypervolumeImprovementsReference, hypervolumeReference } from '../reference/hypervolume.js';
import { makeCloud, makeFront, type FrontShape } from '../test/support/fronts.js';
import { timeCalls, type BenchReport, type BenchSuite } from './common.js';
import { boxes } from './hypervolume-boxes.js';
import { scalarized } from './hypervolume-scalarized.js';

/** Reference C implementations timed on the project's 2-core machine (spherical fronts, µs per call). */
const REFERENCE_US: Record<string, number> = {
  '3x500': 34,
  '4x200': 37,
  '5x100': 97,
  '6x200': 26_000,
  '8x100': 159_000,
  '10x50': 174_000,
};

const ALL: FrontShape[] = ['linear', 'spherical', 'random'];
const SPHERE: FrontShape[] = ['spherical'];

/** [d, n, shapes]: every shape up to moderate sizes, the large target cases on the sphere only. */
const GRID: [number, number, FrontShape[]][] = [
  [2, 10, ALL],
  [2, 100, ALL],
  [2, 500, ALL],
  [3, 10, ALL],
  [3, 100, ALL],
  [3, 500, ALL],
  [4, 10, ALL],
  [4, 100, ALL],
  [4, 200, ALL],
  [5, 10, ALL],
  [5, 50, ALL],
  [5, 100, ALL],
  [6, 10, ALL],
  [6, 50, ALL],
  [6, 200, SPHERE],
  [7, 10, ALL],
  [7, 50, ALL],
  [8, 10, ALL],
  [8, 50, SPHERE],
  [8, 100, SPHERE],
  [10, 10, ALL],
  [10, 50, SPHERE],
];

/** Hypervolume improvements of 1000 candidates over a front, as Monte Carlo EHVI calls them. */
const IMPROVEMENT_GRID: [number, number][] = [
  [2, 50],
  [3, 50],
  [4, 50],
  [5, 30],
];
const CANDIDATES = 1000;

/** The TS baseline is slow in high dimension: time it for at most this long (at least 2 calls). */
const TS_SECONDS = 0.3;

export const suite: BenchSuite = {
  name: 'hypervolume',
  description: 'exact hypervolume: AssemblyScript/WASM kernel vs the same algorithms in plain TypeScript',
  async run(): Promise<BenchReport> {
    const rows: BenchReport['rows'] = [];
    for (const [d, n, shapes] of GRID) {
      for (const shape of shapes) {
        const points = makeFront(shape, n, d, 1000 * d + n);
        const ref = new Array<number>(d).fill(1.1);
        agree(hypervolume(points, n, d, ref), hypervolumeReference(points, n, d, ref), `${shape} d=${d} n=${n}`);
        const wasm = timeCalls(() => hypervolume(points, n, d, ref), { minSeconds: 0.2 });
        const ts = timeCalls(() => hypervolumeReference(points, n, d, ref), { minSeconds: TS_SECONDS, minRepeats: 2 });
        const reference = shape === 'spherical' ? REFERENCE_US[`${d}x${n}`] : undefined;
        rows.push(row('hypervolume', d, n, shape, wasm.medianSeconds, ts.medianSeconds, reference));
      }
    }
    for (const [d, n] of IMPROVEMENT_GRID) {
      const front = makeFront('spherical', n, d, 7 * d);
      const ref = new Array<number>(d).fill(1.1);
      const candidates = makeCloud(CANDIDATES, d, 11 * d, 0.3, 1.1);
      const a = hypervolumeImprovements(front, n, d, ref, candidates, CANDIDATES);
      const b = hypervolumeImprovementsReference(front, n, d, ref, candidates, CANDIDATES);
      a.forEach((v, i) => agree(v, b[i], `improvements d=${d} n=${n} candidate ${i}`));
      const wasm = timeCalls(() => hypervolumeImprovements(front, n, d, ref, candidates, CANDIDATES), { minSeconds: 0.2 });
      const ts = timeCalls(() => hypervolumeImprovementsReference(front, n, d, ref, candidates, CANDIDATES), {
        minSeconds: TS_SECONDS,
        minRepeats: 2,
      });
      rows.push(row(`improvements x${CANDIDATES}`, d, n, 'spherical', wasm.medianSeconds, ts.medianSeconds));
    }
    const targets = rows.filter((r) => typeof r.ratio_to_reference === 'number');
    const worst = Math.max(...targets.map((r) => r.ratio_to_reference as number));
    return {
      rows,
      notes: [
        'Fronts: n mutually non-dominated points in [0, 1]^d (linear: uniform on the simplex; spherical: uniform on the positive unit sphere; random: a simplex front bent by a random increasing map per objective), seeded; minimisation with ref = 1.1 in every objective.',
        'WASM and TypeScript results were checked to agree to 1e-12 relative before timing; times are medians per call (µs).',
        `reference_us: reference C implementations on the project's 2-core machine for the six target cases (spherical fronts); ratio_to_reference = wasm_us / reference_us, worst ${worst.toFixed(2)}.`,
        `TypeScript baseline timed for about ${TS_SECONDS} s per case (at least 2 calls), so its slowest rows rest on few samples.`,
      ],
    };
  },
};

function agree(wasm: number, ts: number, what: string): void {
  if (Math.abs(wasm - ts) > 1e-12 * Math.max(Math.abs(ts), 1e-300)) {
    throw new Error(`hypervolume benchmark: WASM (${wasm}) and TypeScript (${ts}) disagree on ${what}.`);
  }
}

function row(kind: string, d: number, n: number, front: FrontShape, wasmSeconds: number, tsSeconds: number, referenceUs?: number): BenchReport['rows'][number] {
  const wasmUs = wasmSeconds * 1e6;
  return {
    kind,
    d,
    n,
    front,
    wasm_us: wasmUs,
    ts_us: tsSeconds * 1e6,
    speedup: tsSeconds / wasmSeconds,
    reference_us: referenceUs ?? null,
    ratio_to_reference: referenceUs === undefined ? null : wasmUs / referenceUs,
  };
}

/** Part of `npm run bench -- hypervolume`, after its table. */
export const more: BenchSuite[] = [scalarized, boxes];
