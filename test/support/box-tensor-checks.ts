import assert from 'node:assert/strict';
import type { NondominatedBoxes } from '../../src/engine/hypervolume-boxes.js';
import type { TensorBoxImprovements } from '../../src/engine/hypervolume-boxes-tensor.js';

/**
 * The tolerance of the float32 tensor evaluation, as a share of the unit volume Π_j (ref_j − the
 * front's best value in j): on wasm, errors stayed below 3e-8 of it over spherical fronts of 20 to
 * 200 points at m = 2 to 6, 2,560 samples each.
 */
export const TENSOR_TOLERANCE = 1e-6;

/**
 * Asserts that the tensor evaluation of the `count` rows of Y equals the float64 CPU one within
 * TENSOR_TOLERANCE of the unit volume; returns the largest error in those units.
 */
export async function checkTensorAgainstCpu(
  boxes: NondominatedBoxes,
  tensor: TensorBoxImprovements,
  Y: Float64Array,
  count: number,
  what: string,
): Promise<number> {
  const { m, ref } = boxes;
  const { count: boxCount, upper } = boxes.boxes();
  let unit = 1;
  for (let j = 0; j < m; j++) {
    let best = Infinity;
    for (let b = 0; b < boxCount; b++) best = Math.min(best, upper[b * m + j]);
    unit *= ref[j] - best > 0 ? ref[j] - best : 1;
  }
  const cpu = boxes.improvements(Y, count);
  const device = await tensor.improvements(Y, count);
  assert.equal(device.length, count);
  let worst = 0;
  let improving = 0;
  for (let i = 0; i < count; i++) {
    const error = Math.abs(device[i] - cpu[i]) / unit;
    assert.ok(error <= TENSOR_TOLERANCE, `${what}, sample ${i}: ${device[i]} on the device against ${cpu[i]} (error ${error} of the unit volume)`);
    worst = Math.max(worst, error);
    if (cpu[i] > 0) improving++;
  }
  assert.ok(improving > count / 10 && improving < count, `${what}: the samples mix improving (${improving}) and non-improving ones`);
  return worst;
}
