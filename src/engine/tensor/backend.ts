import * as tf from '@tensorflow/tfjs-core';
import { TENSOR_BACKEND_CHOICES, TENSOR_BACKEND_NAMES, type TensorBackendChoice, type TensorBackendName } from './choices.js';
import { importOptional } from './optional-packages.js';
import { findAdapter, startWebGpu, type TensorDevice } from './webgpu.js';

/**
 * Tensor backend selection. tfjs keeps one engine per thread, so the backend is chosen once per
 * thread and every engine module imports `tf` from here to be sure it talks to that engine.
 *
 * Order for 'auto': the native TensorFlow binding (@tensorflow/tfjs-node-gpu, an optional
 * dependency that is usually absent), then WebGPU on a hardware adapter (Dawn's `webgpu` package
 * with @tensorflow/tfjs-backend-webgpu, both optional: a GPU through Vulkan, Metal or D3D12), then
 * the WebAssembly backend (XNNPACK matmuls: about 16-20 GFLOPS for a 1000x1000 float32 product on
 * one core here), then the pure-JavaScript cpu backend, two orders of magnitude slower and only a
 * last resort. A software WebGPU adapter (Mesa's lavapipe) is slower than wasm, so 'auto' passes
 * it over; asking for 'webgpu' by name takes it (that is how CI tests the GPU code path).
 */
export { tf };
export type { TensorDevice } from './webgpu.js';

export { TENSOR_BACKEND_CHOICES, type TensorBackendChoice, type TensorBackendName } from './choices.js';

/** The backend a thread runs on, the device behind it, and why 'auto' passed over the ones before it. */
export interface TensorBackendInfo {
  name: TensorBackendName;
  /** the GPU adapter (webgpu only; null on the CPU backends) */
  device: TensorDevice | null;
  /** one line per backend 'auto' tried first and passed over, e.g. "webgpu: no GPU adapter (…)" */
  passedOver: string[];
}

let selection: Promise<TensorBackendInfo> | null = null;
let requested: TensorBackendChoice = 'auto';
let active: TensorBackendInfo | null = null;

/**
 * Chooses the backend once per thread: 'auto' tries them in TENSOR_BACKEND_CHOICES order; a named
 * backend is used alone (an Error saying why if it cannot start). Returns the name in use.
 * Idempotent: concurrent and later callers share one promise; asking for a different named backend
 * once one is chosen is an Error, because tensors made on one backend cannot be mixed with another's.
 */
export async function initTensorBackend(preferred: TensorBackendChoice = 'auto'): Promise<TensorBackendName> {
  return (await initTensorBackendInfo(preferred)).name;
}

/** initTensorBackend, answering with the device and what 'auto' passed over. */
export function initTensorBackendInfo(preferred: TensorBackendChoice = 'auto'): Promise<TensorBackendInfo> {
  if (!TENSOR_BACKEND_CHOICES.includes(preferred)) {
    return Promise.reject(new Error(`Kiln: unknown tensor backend '${String(preferred)}'; choose ${TENSOR_BACKEND_CHOICES.join(', ')}.`));
  }
  if (selection === null) {
    requested = preferred;
    selection = select(preferred).then(
      (info) => {
        active = info;
        return info;
      },
      (error: unknown) => {
        selection = null;
        throw error;
      },
    );
    return selection;
  }
  if (preferred === 'auto' || preferred === requested) return selection;
  return selection.then((info) => {
    if (info.name === preferred) return info;
    throw new Error(
      `Kiln: the tensor backend is already '${info.name}' in this thread; it cannot switch to '${preferred}'. ` +
        'Call initTensorBackend with the same backend everywhere (or "auto").',
    );
  });
}

/** The backend chosen by initTensorBackend; an Error if that has not finished yet. */
export function tensorBackendName(): TensorBackendName {
  return tensorBackendInfo().name;
}

/** The backend chosen by initTensorBackend, with its device; an Error if that has not finished yet. */
export function tensorBackendInfo(): TensorBackendInfo {
  if (active === null) {
    throw new Error('Kiln: the tensor backend is not initialised; await initTensorBackend() before using tensors.');
  }
  return active;
}

/** "webgpu on nvidia hopper (NVIDIA H200)", "wasm": the backend and its device in a few words, for logs and headers. */
export function describeBackend(info: Pick<TensorBackendInfo, 'name' | 'device'>): string {
  return info.device ? `${info.name} on ${deviceLabel(info.device)}` : info.name;
}

/** The device in a few words: vendor, architecture and name, each where the adapter gives it. */
export function deviceLabel(device: TensorDevice): string {
  const kind = [device.vendor, device.architecture].filter((s) => s !== '').join(' ');
  const name = device.description || device.device;
  return [kind, name ? `(${name})` : ''].filter((s) => s !== '').join(' ') || 'an unnamed adapter';
}

let probe: Promise<TensorBackendInfo> | null = null;

/**
 * What initTensorBackend(choice) would pick on this host, without starting it: the native binding
 * if it loads, a WebGPU adapter as findAdapter describes it (no device is opened), else wasm.
 * For a process that reports the backend (the API's health) or places work on threads (the engine
 * pool), so that only the thread that runs on a GPU opens it. Cached per choice and thread.
 */
export function probeTensorBackend(choice: TensorBackendChoice = 'auto'): Promise<TensorBackendInfo> {
  if (!TENSOR_BACKEND_CHOICES.includes(choice)) {
    return Promise.reject(new Error(`Kiln: unknown tensor backend '${String(choice)}'; choose ${TENSOR_BACKEND_CHOICES.join(', ')}.`));
  }
  if (choice !== 'auto' && choice !== 'webgpu') return Promise.resolve({ name: choice, device: null, passedOver: [] });
  if (choice === 'webgpu') return findAdapter(true).then(({ device }) => ({ name: 'webgpu', device, passedOver: [] }));
  return (probe ??= probeAuto());
}

async function probeAuto(): Promise<TensorBackendInfo> {
  const passedOver: string[] = [];
  try {
    await importOptional('@tensorflow/tfjs-node-gpu');
    return { name: 'tensorflow', device: null, passedOver };
  } catch (error) {
    passedOver.push(`tensorflow: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const { device } = await findAdapter(false);
    return { name: 'webgpu', device, passedOver };
  } catch (error) {
    passedOver.push(`webgpu: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { name: 'wasm', device: null, passedOver };
}

async function select(preferred: TensorBackendChoice): Promise<TensorBackendInfo> {
  const order = preferred === 'auto' ? TENSOR_BACKEND_NAMES : [preferred];
  const passedOver: string[] = [];
  for (const name of order) {
    try {
      const device = await start(name, preferred === name);
      return { name, device, passedOver };
    } catch (error) {
      passedOver.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`Kiln: no tensor backend could start (${passedOver.join('; ')}).`);
}

/**
 * Starts one backend and makes it the thread's; returns its device (webgpu) or null. Throws with a
 * one-line reason when it cannot start. `named`: asked for by name, so a software adapter will do.
 */
async function start(name: TensorBackendName, named: boolean): Promise<TensorDevice | null> {
  if (name === 'webgpu') {
    const device = await startWebGpu(named);
    // linear algebra that reads back at once (linalg.ts) runs on the CPU beside it: see host-matmul.ts
    await import('@tensorflow/tfjs-backend-wasm');
    if (!(await tf.setBackend('wasm'))) {
      await import('@tensorflow/tfjs-backend-cpu');
      await tf.setBackend('cpu');
    }
    if (!(await tf.setBackend('webgpu'))) throw new Error('tfjs could not open the WebGPU device');
    await tf.ready();
    return device;
  }
  if (name === 'tensorflow') {
    await importOptional('@tensorflow/tfjs-node-gpu');
  } else if (name === 'wasm') {
    await import('@tensorflow/tfjs-backend-wasm');
  } else {
    await import('@tensorflow/tfjs-backend-cpu');
  }
  if (!(await tf.setBackend(name))) throw new Error('did not start');
  await tf.ready();
  if (name === 'cpu') silenceNodeBanner();
  return null;
}

/**
 * For benchmarks and tests that compare backends in one thread: starts `name` beside the thread's
 * chosen backend (a software WebGPU adapter included) and switches back, so `tf.setBackend(name)`
 * can then move between them. The thread's choice (tensorBackendInfo) does not change. Returns the
 * device of a webgpu backend; an Error with the reason when `name` cannot start.
 */
export async function startBackendBeside(name: TensorBackendName): Promise<TensorDevice | null> {
  const previous = tf.getBackend();
  try {
    return await start(name, true);
  } finally {
    if (previous) await tf.setBackend(previous);
  }
}

/**
 * The cpu backend prints an "install the node backend" banner on its first tensor write; Kiln
 * chose cpu deliberately, so the banner would only confuse a user. The backend reads a
 * `firstUse` flag before printing, which is cleared here.
 */
function silenceNodeBanner(): void {
  const backend = tf.backend() as unknown as { firstUse?: boolean };
  if (typeof backend.firstUse === 'boolean') backend.firstUse = false;
}
