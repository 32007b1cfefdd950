import { hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { NondominatedBoxes } from '../src/engine/hypervolume-boxes.js';
import { ExpectedBoxImprovement } from '../src/engine/hypervolume-boxes-expected.js';
import { ScalarizedImprovement } from '../src/engine/hypervolume-scalarized.js';
import { Random } from '../src/engine/random.js';
import { TensorBoxImprovements } from '../src/engine/hypervolume-boxes-tensor.js';
import { BoxTree } from '../src/engine/hypervolume-boxes-tree.js';
import { describeBackend, tensorBackendInfo } from '../src/engine/tensor/backend.js';
import { samplesNearFront } from '../test/support/box-samples.js';
import { makeFront } from '../test/support/fronts.js';
import { timeCalls, timeCallsAsync, type BenchReport, type BenchSuite } from './common.js';

/**
 * The box decomposition (engine/hypervolume-boxes*.ts) against the WASM kernel's exclusive
 * contributions, on the work Monte Carlo EHVI gives them: 128 samples for each of 60 candidates.
 * DTLZ2-like fronts (n points uniform on the positive unit sphere), reference 1.1.
 */
const OBJECTIVES = [3, 4, 5, 6];
const FRONTS = [20, 50, 100, 200];
const CANDIDATES = 60;
const SAMPLES = 128;
/** the samples' sd around each candidate's mean, in the objectives' units (the front spans about 1) */
const SAMPLE_SD = 0.05;

export const boxes: BenchSuite = {
  name: 'hypervolume-boxes',
  description: 'hypervolume improvements from an incremental box decomposition (CPU float64, tensor float32) vs the WASM kernel: 128 samples x 60 candidates',
  async run(): Promise<BenchReport> {
    const rows: BenchReport['rows'] = [];
    const count = CANDIDATES * SAMPLES;
    for (const m of OBJECTIVES) {
      for (const n of FRONTS) {
        const front = makeFront('spherical', n, m, 100 * m + n);
        const ref = new Array<number>(m).fill(1.1);
        const Y = samplesNearFront(front, n, m, CANDIDATES, SAMPLES, SAMPLE_SD, 7 * m + n);
        const decomposition = new NondominatedBoxes(front, n, m, ref);
        const { count: boxCount, lower, upper } = decomposition.boxes();
        const unit = 1.1 ** m;

        const build = timeCalls(() => new NondominatedBoxes(front, n, m, ref), { minSeconds: 0.2, warmupSeconds: 0.1 });
        const grow = timeCalls(
          () => {
            const grown = new NondominatedBoxes(new Float64Array(0), 0, m, ref);
            for (let i = 0; i < n; i++) grown.add(front.subarray(i * m, i * m + m));
            return grown;
          },
          { minSeconds: 0.2, warmupSeconds: 0.1 },
        );
        const index = timeCalls(() => new BoxTree(m, boxCount, lower, upper), { minSeconds: 0.2, warmupSeconds: 0.1 });

        const kernelValues = hypervolumeImprovements(front, n, m, ref, Y, count);
        const cpuValues = decomposition.improvements(Y, count);
        const tensor = new TensorBoxImprovements(decomposition);
        let started = process.hrtime.bigint();
        const tensorValues = await tensor.improvements(Y, count);
        const { mean, std } = candidateMoments(Y, m);
        const expectation = new ExpectedBoxImprovement(decomposition);
        const estimate = new ScalarizedImprovement(front, n, m, ref, 256, new Random(m + n));
        const tensorFirstMs = Number(process.hrtime.bigint() - started) / 1e6;
        let cpuError = 0;
        let tensorError = 0;
        for (let i = 0; i < count; i++) {
          cpuError = Math.max(cpuError, Math.abs(cpuValues[i] - kernelValues[i]) / unit);
          tensorError = Math.max(tensorError, Math.abs(tensorValues[i] - cpuValues[i]) / unit);
        }
        if (cpuError > 1e-12 || tensorError > 1e-6) {
          throw new Error(
            `hypervolume-boxes benchmark: m=${m} n=${n} disagrees (boxes vs kernel ${cpuError}, tensor vs boxes ${tensorError} of the unit volume).`,
          );
        }

        const slow = { minSeconds: 0.5, minRepeats: 2, warmupSeconds: 0 };
        started = process.hrtime.bigint();
        const kernel = timeCalls(() => hypervolumeImprovements(front, n, m, ref, Y, count), slow);
        const cpu = timeCalls(() => decomposition.improvements(Y, count), slow);
        const onDevice = await timeCallsAsync(() => tensor.improvements(Y, count), slow);
        const expected = timeCalls(() => expectation.evaluate(mean, std, CANDIDATES), slow);
        // what Monte Carlo EHVI's estimate costs for the same candidates: 16 of 256 directions per sample
        const estimated = timeCalls(() => {
          let total = 0;
          for (let row = 0; row < count; row++) total += estimate.improvement(Y, row * m, (row % SAMPLES) * 16, 16);
          return total;
        }, slow);
        tensor.dispose();
        const improving = cpuValues.filter((v) => v > 0).length;
        rows.push({
          m,
          n,
          boxes: boxCount,
          build_ms: build.medianSeconds * 1e3,
          grow_ms: grow.medianSeconds * 1e3,
          add_us: (grow.medianSeconds * 1e6) / n,
          index_ms: index.medianSeconds * 1e3,
          improving: improving / count,
          kernel_ms: kernel.medianSeconds * 1e3,
          boxes_cpu_ms: cpu.medianSeconds * 1e3,
          tensor_ms: onDevice.medianSeconds * 1e3,
          expected_us: (expected.medianSeconds * 1e6) / CANDIDATES,
          estimate_us: (estimated.medianSeconds * 1e6) / CANDIDATES,
          tensor_first_ms: tensorFirstMs,
          kernel_over_cpu: kernel.medianSeconds / cpu.medianSeconds,
          kernel_over_tensor: kernel.medianSeconds / onDevice.medianSeconds,
          tensor_error: tensorError,
        });
      }
    }
    return {
      rows,
      notes: [
        `Tensor backend: ${describeBackend(tensorBackendInfo())} (float32); CPU figures are float64 JavaScript on one thread, the kernel is the AssemblyScript WFG build (hypervolumeImprovements).`,
        `Fronts: n points uniform on the positive unit sphere (seeded), reference 1.1. Samples: ${CANDIDATES} candidates (a random front point scaled by a factor uniform in [0.9, 1.1]) with ${SAMPLES} samples each of sd ${SAMPLE_SD} (${count} rows); improving = share of samples with a positive improvement.`,
        'build_ms: the decomposition built at once; grow_ms: the same grown by n calls of add from an empty front (add_us = grow_ms / n, mean per point); index_ms: the k-d tree the CPU improvements walk, built once per change; boxes = local upper bounds.',
        `expected_us: the closed-form expected improvement over the boxes (hypervolume-boxes-expected.ts) per candidate, its mean the mean of its ${SAMPLES} samples and sd ${SAMPLE_SD}; estimate_us: the random-scalarization estimate of its ${SAMPLES} samples (16 of 256 directions each), what Monte Carlo EHVI takes beyond the affordable boxes.`,
        'kernel_ms, boxes_cpu_ms, tensor_ms: median time for all samples (boxes already uploaded; tensor_first_ms includes the upload and the first run). Before timing, the boxes were checked against the kernel to 1e-12 and the tensor against the boxes to 1e-6 of the unit volume 1.1^m; tensor_error is the largest tensor error in those units.',
      ],
    };
  },
};

/** Each candidate's mean (over its samples) and the samples' sd, `CANDIDATES x m`. */
function candidateMoments(Y: Float64Array, m: number): { mean: Float64Array; std: Float64Array } {
  const mean = new Float64Array(CANDIDATES * m);
  for (let row = 0; row < CANDIDATES * SAMPLES; row++) {
    const c = Math.floor(row / SAMPLES);
    for (let j = 0; j < m; j++) mean[c * m + j] += Y[row * m + j] / SAMPLES;
  }
  return { mean, std: new Float64Array(CANDIDATES * m).fill(SAMPLE_SD) };
}
