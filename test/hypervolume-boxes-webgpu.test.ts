import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NondominatedBoxes } from '../src/engine/hypervolume-boxes.js';
import { TensorBoxImprovements } from '../src/engine/hypervolume-boxes-tensor.js';
import { initTensorBackendInfo, tf } from '../src/engine/tensor/backend.js';
import { samplesNearFront } from './support/box-samples.js';
import { checkTensorAgainstCpu } from './support/box-tensor-checks.js';
import { makeFront } from './support/fronts.js';

/**
 * The box decomposition's tensor evaluation on webgpu: without a GPU on Mesa's software Vulkan
 * (lavapipe, which .ci/run installs), the same shaders a GPU runs. It fails, never skips, when
 * webgpu cannot start. Kept small: lavapipe is slower than wasm.
 */
const webgpu = await initTensorBackendInfo('webgpu');

test('on webgpu the improvements equal the float64 sum to 1e-6 of the unit volume, in chunks, and dispose frees every tensor', async () => {
  assert.equal(webgpu.name, 'webgpu');
  const before = tf.memory().numTensors;
  for (const m of [3, 5]) {
    const n = m === 3 ? 40 : 20;
    const front = makeFront('spherical', n, m, 11 * m);
    const boxes = new NondominatedBoxes(front.subarray(0, (n - 5) * m), n - 5, m, new Array<number>(m).fill(1.1));
    const Y = samplesNearFront(front, n, m, 6, 64, 0.04, m);
    const tensor = new TensorBoxImprovements(boxes, { chunkElements: 64 * 16 });
    try {
      await checkTensorAgainstCpu(boxes, tensor, Y, 6 * 64, `m=${m}`);
      for (let i = n - 5; i < n; i++) boxes.add(front.subarray(i * m, i * m + m));
      await checkTensorAgainstCpu(boxes, tensor, Y, 6 * 64, `m=${m} after add`);
    } finally {
      tensor.dispose();
    }
  }
  assert.equal(tf.memory().numTensors, before);
});
