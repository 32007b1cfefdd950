import { posteriorDraws } from '../engine/gp/pathwise.js';
import { Random } from '../engine/random.js';
import { tf, type TensorBackendInfo } from '../engine/tensor/backend.js';

/**
 * The compute scale a thread's steps search with (StrategyContext.computeScale): how many times
 * the CPU's share of posterior work its backend does in the same time, as a power of two from 1
 * to MOST_SCALE. The CPU backends are the unit (1, nothing measured). On webgpu it is measured
 * once per thread, against the wasm backend the thread runs beside it, on the work the scale
 * multiplies: Thompson draws of a 200-point local model in 32 dimensions at 4,096 candidates. A
 * power of two keeps the scale the same from run to run on one machine (the receipt records it,
 * and a replay uses the recorded one); MOST_SCALE bounds the CPU work that grows with it too
 * (candidate generation, selection).
 *
 * KILN_COMPUTE_SCALE (a power of two up to MOST_SCALE) sets it instead: to measure on a CPU what
 * wider searches bring, or to keep a GPU host's searches as narrow as a CPU's.
 */
export const MOST_SCALE = 16;

let measured: Promise<number> | null = null;

export function computeScale(backend: Pick<TensorBackendInfo, 'name'>): Promise<number> {
  const forced = forcedScale();
  if (forced !== null) return Promise.resolve(forced);
  if (backend.name !== 'webgpu') return Promise.resolve(1);
  return (measured ??= measure());
}

function forcedScale(): number | null {
  const text = process.env.KILN_COMPUTE_SCALE;
  if (text === undefined || text === '') return null;
  const value = Number(text);
  if (!(Number.isInteger(value) && value >= 1 && value <= MOST_SCALE && (value & (value - 1)) === 0)) {
    throw new Error(`KILN_COMPUTE_SCALE must be a power of two from 1 to ${MOST_SCALE}, not "${text}"`);
  }
  return value;
}

async function measure(): Promise<number> {
  const active = tf.getBackend();
  const device = await drawSeconds();
  await tf.setBackend('wasm');
  let cpu: number;
  try {
    cpu = await drawSeconds();
  } finally {
    await tf.setBackend(active);
  }
  const ratio = cpu / device;
  return Math.max(1, Math.min(MOST_SCALE, 2 ** Math.floor(Math.log2(Math.max(ratio, 1)))));
}

/** Median seconds of the reference draws on the active backend, after one call that compiles its kernels. */
async function drawSeconds(): Promise<number> {
  const random = new Random(1);
  const [n, d, count] = [200, 32, 4096];
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const y = Float64Array.from({ length: n }, () => random.normal());
  const draws = posteriorDraws(X, y, n, d, 1, { lengthscales: new Float64Array(d).fill(0.5), outputScale: 1, noise: 1e-3 }, random);
  const candidates = Float64Array.from({ length: count * d }, () => random.uniform());
  try {
    await draws.at(candidates, count);
    const times: number[] = [];
    for (let k = 0; k < 3; k++) {
      const started = performance.now();
      await draws.at(candidates, count);
      times.push((performance.now() - started) / 1000);
    }
    return times.sort((a, b) => a - b)[1];
  } finally {
    draws.dispose();
  }
}
