import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NondominatedBoxes } from '../src/engine/hypervolume-boxes.js';
import { TensorBoxImprovements } from '../src/engine/hypervolume-boxes-tensor.js';
import { initTensorBackend, tf } from '../src/engine/tensor/backend.js';
import { samplesNearFront } from './support/box-samples.js';
import { makeFront } from './support/fronts.js';
import { checkTensorAgainstCpu } from './support/box-tensor-checks.js';

await initTensorBackend('wasm');

test('float32 on the tensor backend equals the float64 sum to 1e-6 of the unit volume, in many chunks of samples and boxes, m = 2..6', async () => {
  for (let m = 2; m <= 6; m++) {
    const n = m <= 4 ? 60 : 30;
    const front = makeFront('spherical', n, m, 70 + m);
    const boxes = new NondominatedBoxes(front, n, m, new Array<number>(m).fill(1.1));
    const count = 700;
    const Y = samplesNearFront(front, n, m, 7, 100, 0.03, m);
    // 448 entries: 7 boxes and 64 samples per chunk, so well over one chunk each way
    const tensor = new TensorBoxImprovements(boxes, { chunkElements: 448 });
    try {
      assert.ok(boxes.count > 7 && count > 64, 'more boxes and samples than one chunk holds');
      await checkTensorAgainstCpu(boxes, tensor, Y, count, `m=${m}`);
    } finally {
      tensor.dispose();
    }
  }
});

test('the default chunks give the same answers as small ones', async () => {
  const m = 4;
  const front = makeFront('random', 80, m, 9);
  const boxes = new NondominatedBoxes(front, 80, m, [1.1, 1.2, 1.1, 1.3]);
  const Y = samplesNearFront(front, 80, m, 60, 128, 0.05, 10);
  const whole = new TensorBoxImprovements(boxes);
  const small = new TensorBoxImprovements(boxes, { chunkElements: 5000 });
  try {
    const [a, b] = [await whole.improvements(Y, 60 * 128), await small.improvements(Y, 60 * 128)];
    for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 1e-6, `sample ${i}: ${a[i]} against ${b[i]}`);
  } finally {
    whole.dispose();
    small.dispose();
  }
});

test('boxes are uploaded once per revision, again after add, and dispose frees every tensor', async () => {
  const m = 3;
  const front = makeFront('spherical', 20, m, 5);
  const boxes = new NondominatedBoxes(front.subarray(0, 15 * m), 15, m, [1.1, 1.1, 1.1]);
  const Y = samplesNearFront(front, 20, m, 4, 50, 0.05, 6);
  const before = tf.memory().numTensors;
  const tensor = new TensorBoxImprovements(boxes, { chunkElements: 640 });
  try {
    await checkTensorAgainstCpu(boxes, tensor, Y, 200, 'first front');
    const held = tf.memory().numTensors - before;
    // 31 boxes in ranges of 10: 4 ranges of upper and lower corners per objective
    assert.equal(held, 4 * 2 * m, 'only the boxes stay on the device between calls');
    await tensor.improvements(Y, 200);
    assert.equal(tf.memory().numTensors - before, held, 'a second call reuses them');
    for (let i = 15; i < 20; i++) boxes.add(front.subarray(i * m, i * m + m));
    await checkTensorAgainstCpu(boxes, tensor, Y, 200, 'after add');
  } finally {
    tensor.dispose();
  }
  assert.equal(tf.memory().numTensors, before, 'dispose leaves nothing behind');
  assert.equal((await tensor.improvements(new Float64Array(0), 0)).length, 0);
  await assert.rejects(tensor.improvements(new Float64Array([NaN, 0, 0]), 1), /candidates row 0 objective 0 is NaN/);
});
