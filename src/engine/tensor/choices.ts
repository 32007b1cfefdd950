/**
 * The tensor backends by name, in the order 'auto' tries them (backend.ts says why). Apart from
 * backend.ts so that the configuration and the CLI can check a choice without loading tfjs.
 */
export type TensorBackendName = 'tensorflow' | 'webgpu' | 'wasm' | 'cpu';
export type TensorBackendChoice = TensorBackendName | 'auto';

/** What KILN_TENSOR_BACKEND, the config and every --backend flag take. */
export const TENSOR_BACKEND_CHOICES: readonly TensorBackendChoice[] = ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'];

export const TENSOR_BACKEND_NAMES: readonly TensorBackendName[] = ['tensorflow', 'webgpu', 'wasm', 'cpu'];
