import type { tf } from './backend.js';

/**
 * The tensors' values in float64, read back together and asynchronously (the only way from a GPU
 * in Node; every download is queued before the first is awaited), each tensor disposed whatever
 * happens.
 */
export async function readBack(...tensors: tf.Tensor[]): Promise<Float64Array[]> {
  try {
    return (await Promise.all(tensors.map((t) => t.data()))).map((values) => Float64Array.from(values));
  } finally {
    for (const t of tensors) t.dispose();
  }
}
