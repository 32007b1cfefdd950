import { tf } from './backend.js';

/**
 * A·B on the CPU, at once: the products of the blocked linear algebra (gp/linalg.ts), which
 * reads every product back before the next (a factorization's diagonal blocks are float64
 * JavaScript between them). A GPU backend cannot read back synchronously in Node (webgpu's
 * `dataSync` needs an OffscreenCanvas), and a round trip per block would cost more than the
 * block, so on webgpu these products run on the wasm backend that initTensorBackend starts beside
 * it (the cpu backend where wasm cannot start), by calling its matmul kernel directly: the same
 * XNNPACK kernel `tf.matMul` reaches on wasm, so the numbers are those of a wasm thread. On every
 * other backend they go through the engine as any op does.
 *
 * A: `r x k`, B: `k x c` row-major Float32Array. Returns `r x c`.
 */
export function hostMatMul(A: Float32Array, r: number, k: number, B: Float32Array, c: number): Float32Array {
  if (tf.getBackend() !== 'webgpu') {
    // the download happens outside tf.tidy: tidy walks whatever it returns element by element
    const product = tf.tidy(() => tf.matMul(tf.tensor2d(A, [r, k]), tf.tensor2d(B, [k, c])));
    const values = product.dataSync() as Float32Array;
    product.dispose();
    return values;
  }
  const { backend, kernel } = hostKernel();
  const a = { dataId: backend.write(A, [1, r, k], 'float32'), shape: [1, r, k], dtype: 'float32' as const };
  const b = { dataId: backend.write(B, [1, k, c], 'float32'), shape: [1, k, c], dtype: 'float32' as const };
  const out = kernel({ inputs: { a, b }, backend, attrs: { transposeA: false, transposeB: false } }) as tf.TensorInfo;
  try {
    return Float32Array.from(backend.readSync(out.dataId) as Float32Array);
  } finally {
    for (const id of [a.dataId, b.dataId, out.dataId]) backend.disposeData(id, true);
  }
}

let host: { backend: tf.KernelBackend; kernel: tf.KernelFunc } | null = null;

function hostKernel(): { backend: tf.KernelBackend; kernel: tf.KernelFunc } {
  if (host) return host;
  for (const name of ['wasm', 'cpu']) {
    const backend = tf.findBackend(name);
    const config = tf.getKernel('BatchMatMul', name) as tf.KernelConfig | undefined;
    if (backend && config) return (host = { backend, kernel: config.kernelFunc });
  }
  throw new Error('Kiln: no CPU tensor backend runs beside webgpu for the linear algebra (neither wasm nor cpu started).');
}
