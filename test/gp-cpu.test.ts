import test from 'node:test';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { blockedPathAgreesWithFloat64 } from './support/gp-conformance.js';

// Each test file runs in its own process, so this one can choose the plain cpu backend.
await initTensorBackend('cpu');

test('on the cpu backend the blocked float32 path also agrees with float64', async () => {
  await blockedPathAgreesWithFloat64();
});
