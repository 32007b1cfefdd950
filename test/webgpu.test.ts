import test from 'node:test';
import assert from 'node:assert/strict';
import { MonteCarloEhvi } from '../src/engine/acquisition/mc-ehvi.js';
import { TensorMonteCarloEhvi } from '../src/engine/acquisition/mc-ehvi-tensor.js';
import { posteriorDraws } from '../src/engine/gp/pathwise.js';
import { fitProbitClassifier } from '../src/engine/gp/probit-classifier.js';
import { Surrogate } from '../src/engine/gp/surrogate.js';
import { Random } from '../src/engine/random.js';
import { initTensorBackendInfo, probeTensorBackend, tf } from '../src/engine/tensor/backend.js';
import { hostMatMul } from '../src/engine/tensor/host-matmul.js';
import { computeScale } from '../src/jobs/compute-scale.js';
import { maxAbsDifference, sinusoids, uniformPoints } from './support/gp-fixtures.js';

/**
 * The webgpu backend against the wasm backend, op by op as the engine uses them. Without a GPU
 * this runs on Mesa's software Vulkan (lavapipe: libvulkan1 and mesa-vulkan-drivers from
 * bookworm-backports, which .ci/run installs), the same code path as on a GPU. It fails, never
 * skips, when webgpu cannot start: the error names what is missing.
 *
 * Both backends compute in float32 with different reduction orders, so results agree to float32
 * rounding of the quantities summed: the tolerances below are stated per operation.
 */
const webgpu = await initTensorBackendInfo('webgpu');

/** fn's result on wasm (the thread's CPU backend beside webgpu), then back on webgpu. */
async function onWasm<T>(fn: () => Promise<T>): Promise<T> {
  await tf.setBackend('wasm');
  try {
    return await fn();
  } finally {
    await tf.setBackend('webgpu');
  }
}

test('webgpu starts by name and says which adapter it runs on', () => {
  assert.equal(webgpu.name, 'webgpu');
  assert.equal(tf.getBackend(), 'webgpu');
  assert.ok(webgpu.device, 'a webgpu backend names its device');
  assert.ok(webgpu.device.vendor !== '' || webgpu.device.description !== '', 'the adapter describes itself');
});

test('auto passes over a software adapter for wasm, and takes a hardware one (probed, no device opened)', async () => {
  const auto = await probeTensorBackend('auto');
  if (webgpu.device!.software) {
    assert.equal(auto.name, 'wasm');
    assert.ok(
      auto.passedOver.some((line) => /^webgpu: only a software adapter .*ask for webgpu by name/.test(line)),
      auto.passedOver.join(' | '),
    );
  } else {
    assert.equal(auto.name, 'webgpu');
    assert.equal(auto.device?.software, false);
  }
});

test('the compute scale is measured against wasm on the same machine: a power of two, 1 on a software adapter', async () => {
  const scale = await computeScale(webgpu);
  assert.ok([1, 2, 4, 8, 16].includes(scale), String(scale));
  if (webgpu.device!.software) assert.equal(scale, 1);
  assert.equal(tf.getBackend(), 'webgpu', 'the measure leaves the thread on its backend');
});

test('the linear algebra beside webgpu runs on the CPU kernel: exactly the wasm product', async () => {
  const random = new Random(3);
  const [r, k, c] = [37, 129, 21];
  const A = Float32Array.from({ length: r * k }, () => random.normal());
  const B = Float32Array.from({ length: k * c }, () => random.normal());
  const beside = hostMatMul(A, r, k, B, c);
  const alone = await onWasm(async () => hostMatMul(A, r, k, B, c));
  assert.deepEqual(Array.from(beside), Array.from(alone));
  // and it is the product: one entry by hand in float64
  let s = 0;
  for (let t = 0; t < k; t++) s += A[5 * k + t] * B[t * c + 7];
  assert.ok(Math.abs(beside[5 * c + 7] - s) < 1e-4 * (1 + Math.abs(s)));
});

for (const n of [60, 300]) {
  test(`posterior mean and variance of a two-output surrogate (n = ${n}${n > 256 ? ', blocked Cholesky on the CPU' : ''}) agree with wasm to 1e-4 of the output scale`, async () => {
    const d = 4;
    const X = uniformPoints(n, d, 7);
    const Y = new Float64Array(n * 2);
    for (let i = 0; i < n; i++) {
      Y[i * 2] = sinusoids(X.subarray(i * d, (i + 1) * d), d);
      Y[i * 2 + 1] = 3 + 10 * X[i * d] * X[i * d + 1];
    }
    const h = [
      { lengthscales: Float64Array.of(0.3, 0.4, 0.5, 0.6), outputScale: 1.2, noise: 1e-3 },
      { lengthscales: Float64Array.of(0.5, 0.5, 2, 2), outputScale: 0.8, noise: 1e-2 },
    ];
    const q = 500;
    const Xq = uniformPoints(q, d, 8);
    const predict = async () => {
      const surrogate = Surrogate.build(X, Y, n, d, 2, h);
      try {
        const before = await surrogate.predict(Xq, q);
        // a batch's Kriging believer: condition on two points, predict again
        const conditioned = await surrogate.condition(Xq.subarray(0, 2 * d), before.mean.subarray(0, 4), 2);
        const after = await conditioned.predict(Xq, q);
        conditioned.dispose();
        return { before, after };
      } finally {
        surrogate.dispose();
      }
    };
    const gpu = await predict();
    const cpu = await onWasm(predict);
    const scale = [0, 1].map((o) => Math.max(...Array.from({ length: n }, (_, i) => Math.abs(Y[i * 2 + o]))));
    for (const phase of ['before', 'after'] as const) {
      for (let o = 0; o < 2; o++) {
        const pick = (v: Float64Array) => Float64Array.from({ length: q }, (_, i) => v[i * 2 + o]);
        const meanError = maxAbsDifference(pick(gpu[phase].mean), pick(cpu[phase].mean));
        const sdError = maxAbsDifference(pick(gpu[phase].variance).map(Math.sqrt), pick(cpu[phase].variance).map(Math.sqrt));
        assert.ok(meanError < 1e-4 * scale[o], `${phase} output ${o} mean: ${meanError} (scale ${scale[o]})`);
        assert.ok(sdError < 1e-3 * scale[o], `${phase} output ${o} sd: ${sdError} (scale ${scale[o]})`);
      }
    }
    // the believed points shrink the variance there on both backends
    assert.ok(gpu.after.variance[0] < gpu.before.variance[0]);
  });
}

test('pathwise draws at 3,000 candidates agree with wasm and with the float64 path to 2e-5 of their scale', async () => {
  const random = new Random(12);
  const n = 150;
  const d = 30;
  const outputs = 3;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const Y = Float64Array.from({ length: n * outputs }, () => random.normal());
  const h = { lengthscales: Float64Array.from({ length: d }, (_, j) => 0.5 + 0.05 * j), outputScale: 1.5, noise: 1e-4 };
  const count = 3000;
  const P = Float64Array.from({ length: count * d }, (_, i) => Math.min(1, Math.max(0, X[i % (n * d)] + 0.05 * random.normal())));
  const evaluate = async () => {
    const draws = posteriorDraws(X, Y, n, d, outputs, h, new Random(4));
    try {
      return await draws.at(P, count);
    } finally {
      draws.dispose();
    }
  };
  const gpu = await evaluate();
  const cpu = await onWasm(evaluate);
  const scale = Math.max(1, ...Array.from(cpu, Math.abs));
  assert.ok(maxAbsDifference(gpu, cpu) < 2e-5 * scale, `webgpu vs wasm: ${maxAbsDifference(gpu, cpu)}`);
  const exact = posteriorDraws(X, Y, n, d, outputs, h, new Random(4));
  for (const a of [0, 17, 1234, count - 1]) {
    for (let k = 0; k < outputs; k++) {
      const value = exact.path(k).at(P.subarray(a * d, (a + 1) * d), 1)[0];
      assert.ok(Math.abs(gpu[a * outputs + k] - value) < 2e-5 * scale, `point ${a} output ${k}: ${gpu[a * outputs + k]} vs float64 ${value}`);
    }
  }
});

test("the failure classifier's latent posterior on webgpu agrees with its float64 loops", async () => {
  const n = 80;
  const d = 3;
  const X = uniformPoints(n, d, 21);
  const labels = Float64Array.from({ length: n }, (_, i) => (X[i * d] + X[i * d + 1] > 1.1 ? -1 : 1));
  const classifier = fitProbitClassifier(X, labels, n, d, [0.3, 0.3, 1]);
  const q = 400;
  const Xq = uniformPoints(q, d, 22);
  const gpu = await classifier.latentTensor(Xq, q);
  const exact = classifier.latent64(Xq, q);
  classifier.dispose();
  assert.ok(
    maxAbsDifference(gpu.mean, exact.mean) < 1e-4 * (1 + Math.max(...Array.from(exact.mean, Math.abs))),
    `mean ${maxAbsDifference(gpu.mean, exact.mean)}`,
  );
  assert.ok(
    maxAbsDifference(gpu.variance, exact.variance) < 1e-4 * classifier.hyperparameters.outputScale,
    `variance ${maxAbsDifference(gpu.variance, exact.variance)}`,
  );
});

test('Monte Carlo EHVI from boxes on webgpu equals the exact CPU estimate with the same samples', async () => {
  const random = new Random(31);
  const [m, n, q] = [3, 30, 20];
  const front = Float64Array.from({ length: n * m }, () => 0.2 + 0.8 * random.uniform());
  const ref = [1.1, 1.1, 1.1];
  const mean = Float64Array.from({ length: q * m }, () => 0.3 + 0.6 * random.uniform());
  const std = Float64Array.from({ length: q * m }, () => 0.05 + 0.1 * random.uniform());
  const cpu = new MonteCarloEhvi(front, n, m, ref, 64, new Random(2)).evaluate(mean, std, q);
  const gpu = new TensorMonteCarloEhvi(front, n, m, ref, 64, new Random(2));
  const values = await gpu.evaluate(mean, std, q);
  gpu.dispose();
  const scale = Math.max(...Array.from(cpu), 1e-3);
  assert.ok(maxAbsDifference(values, cpu) < 1e-5 * scale, `${maxAbsDifference(values, cpu)} of ${scale}`);
});

test('every tensor a step makes is released: no device memory held between steps', async () => {
  const before = tf.memory().numTensors;
  const X = uniformPoints(40, 3, 1);
  const Y = Float64Array.from({ length: 40 }, (_, i) => sinusoids(X.subarray(i * 3, i * 3 + 3), 3));
  const surrogate = Surrogate.build(X, Y, 40, 3, 1, [{ lengthscales: Float64Array.of(0.4, 0.4, 0.4), outputScale: 1, noise: 1e-3 }]);
  await surrogate.predict(uniformPoints(100, 3, 2), 100);
  const conditioned = await surrogate.condition(X.subarray(0, 3), Y.subarray(0, 1), 1);
  conditioned.dispose();
  surrogate.dispose();
  const draws = posteriorDraws(X, Y, 40, 3, 1, { lengthscales: Float64Array.of(0.4, 0.4, 0.4), outputScale: 1, noise: 1e-3 }, new Random(2));
  await draws.at(uniformPoints(100, 3, 3), 100);
  draws.dispose();
  assert.equal(tf.memory().numTensors, before);
});
