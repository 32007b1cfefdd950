import * as tf from '@tensorflow/tfjs-core';

/**
 * Tensor backend selection. tfjs keeps one engine per thread, so the backend is chosen once per
 * thread and every engine module imports `tf` from here to be sure it talks to that engine.
 *
 * Order for 'auto': the native TensorFlow binding (@tensorflow/tfjs-node-gpu, an optional
 * dependency that is usually absent), then the WebAssembly backend (XNNPACK matmuls: about 16-20
 * GFLOPS for a 1000x1000 float32 product on one core here), then the pure-JavaScript cpu backend,
 * which is two orders of magnitude slower and only a last resort.
 */
export { tf };

export type TensorBackendName = 'tensorflow' | 'wasm' | 'cpu';

const BACKEND_NAMES: readonly TensorBackendName[] = ['tensorflow', 'wasm', 'cpu'];

let selection: Promise<TensorBackendName> | null = null;
let requested: TensorBackendName | 'auto' = 'auto';
let active: TensorBackendName | null = null;

/**
 * Chooses the backend once per thread: 'auto' tries @tensorflow/tfjs-node-gpu, then
 * @tensorflow/tfjs-backend-wasm, then cpu; a named backend is used alone (an Error if it cannot
 * start). Returns the name in use. Idempotent: concurrent and later callers share one promise;
 * asking for a different named backend once one is chosen is an Error, because tensors made on
 * one backend cannot be mixed with another's.
 */
export function initTensorBackend(preferred: TensorBackendName | 'auto' = 'auto'): Promise<TensorBackendName> {
  if (preferred !== 'auto' && !BACKEND_NAMES.includes(preferred)) {
    return Promise.reject(new Error(`Kiln: unknown tensor backend '${String(preferred)}'; choose auto, ${BACKEND_NAMES.join(', ')}.`));
  }
  if (selection === null) {
    requested = preferred;
    selection = select(preferred).then(
      (name) => {
        active = name;
        return name;
      },
      (error: unknown) => {
        selection = null;
        throw error;
      },
    );
    return selection;
  }
  if (preferred === 'auto' || preferred === requested) return selection;
  return selection.then((name) => {
    if (name === preferred) return name;
    throw new Error(
      `Kiln: the tensor backend is already '${name}' in this thread; it cannot switch to '${preferred}'. ` +
        'Call initTensorBackend with the same backend everywhere (or "auto").',
    );
  });
}

/** The backend chosen by initTensorBackend; an Error if that has not finished yet. */
export function tensorBackendName(): TensorBackendName {
  if (active === null) {
    throw new Error('Kiln: the tensor backend is not initialised; await initTensorBackend() before using tensors.');
  }
  return active;
}

async function select(preferred: TensorBackendName | 'auto'): Promise<TensorBackendName> {
  const order = preferred === 'auto' ? BACKEND_NAMES : [preferred];
  const failures: string[] = [];
  for (const name of order) {
    try {
      if (await start(name)) return name;
      failures.push(`${name}: did not start`);
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`Kiln: no tensor backend could start (${failures.join('; ')}).`);
}

async function start(name: TensorBackendName): Promise<boolean> {
  if (name === 'tensorflow') {
    // A variable specifier keeps TypeScript from requiring the optional package at compile time.
    const nativeBinding = '@tensorflow/tfjs-node-gpu';
    await import(nativeBinding);
  } else if (name === 'wasm') {
    await import('@tensorflow/tfjs-backend-wasm');
  } else {
    await import('@tensorflow/tfjs-backend-cpu');
  }
  if (!(await tf.setBackend(name))) return false;
  await tf.ready();
  if (name === 'cpu') silenceNodeBanner();
  return true;
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
