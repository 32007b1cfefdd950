import test from 'node:test';
import assert from 'node:assert/strict';
import { initTensorBackend, initTensorBackendInfo, tensorBackendName, tf } from '../src/engine/tensor/backend.js';

// The order matters: the backend is chosen once per thread (each test file runs in its own process).

test('tensorBackendName throws an actionable error before initialization', () => {
  assert.throws(() => tensorBackendName(), /await initTensorBackend\(\)/);
});

test('auto falls through the missing native binding to wasm, and concurrent callers share one promise', async () => {
  const first = initTensorBackendInfo('auto');
  const second = initTensorBackendInfo('auto');
  assert.equal(first, second);
  // @tensorflow/tfjs-node-gpu is an optional dependency that is not installed in this repository,
  // and this machine has no GPU: auto passes over webgpu (no adapter, or only a software one)
  const info = await first;
  assert.equal(info.name, 'wasm');
  assert.equal(info.device, null);
  assert.match(info.passedOver[0], /^tensorflow: the optional package '@tensorflow\/tfjs-node-gpu' is not installed$/);
  assert.match(info.passedOver[1], /^webgpu: (no GPU adapter|only a software adapter|the optional package)/);
  assert.equal(await initTensorBackend('auto'), 'wasm');
  assert.equal(tensorBackendName(), 'wasm');
  assert.equal(tf.getBackend(), 'wasm');
});

test('asking again for the backend in use, or for auto, returns it', async () => {
  assert.equal(await initTensorBackend('wasm'), 'wasm');
  assert.equal(await initTensorBackend(), 'wasm');
});

test('asking for a different backend once one is chosen is an error', async () => {
  await assert.rejects(initTensorBackend('cpu'), /already 'wasm'.*cannot switch to 'cpu'/);
  assert.equal(tf.getBackend(), 'wasm');
});

test('an unknown backend name is rejected with the valid choices', async () => {
  await assert.rejects(initTensorBackend('gpu' as never), /unknown tensor backend 'gpu'.*wasm/);
});

test('tensors computed after initialization use the chosen backend', () => {
  const product = tf.tidy(() => tf.matMul(tf.tensor2d([1, 2, 3, 4], [2, 2]), tf.tensor2d([5, 6, 7, 8], [2, 2])).dataSync());
  // [[1,2],[3,4]] · [[5,6],[7,8]] = [[19,22],[43,50]]
  assert.deepEqual(Array.from(product), [19, 22, 43, 50]);
});
