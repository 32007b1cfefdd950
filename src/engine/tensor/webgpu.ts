import { importOptional } from './optional-packages.js';

/**
 * WebGPU for tfjs in Node: Dawn's `webgpu` package (a prebuilt dawn.node) provides `navigator.gpu`,
 * which @tensorflow/tfjs-backend-webgpu looks for when it is imported. Both packages are optional
 * dependencies; without them, or without a GPU driver, this throws a one-line reason and the
 * caller moves on to the next backend.
 */

/** A GPU adapter as it describes itself (GPUAdapterInfo). */
export interface TensorDevice {
  /** e.g. "nvidia", "mesa" */
  vendor: string;
  /** e.g. "hopper", "software" */
  architecture: string;
  /** the device's name or id, e.g. "NVIDIA H200" (empty where the driver gives none) */
  device: string;
  /** the driver's description */
  description: string;
  /** a software rasterizer such as Mesa's lavapipe (Vulkan on the CPU), not a GPU */
  software: boolean;
}

interface DawnModule {
  create(flags: string[]): DawnGpu;
  globals: Record<string, unknown>;
}

interface DawnGpu {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<DawnAdapter | null>;
}

interface DawnAdapter {
  info: { vendor?: string; architecture?: string; device?: string; description?: string; isFallbackAdapter?: boolean };
}

/**
 * The GPU adapter tfjs would use (the high-performance one, as it asks for), described, without
 * opening a device: what `auto` would choose on this host. `named`: the user asked for webgpu, so a
 * software adapter is acceptable; otherwise it is refused, since wasm beats it on the same CPU.
 * Throws a one-line reason when there is none to use.
 */
export async function findAdapter(named: boolean): Promise<{ dawn: DawnModule; gpu: DawnGpu; device: TensorDevice }> {
  const dawn = (await importOptional('webgpu')) as DawnModule;
  const gpu = dawn.create([]);
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (adapter === null) {
    throw new Error('no GPU adapter (no Vulkan, Metal or D3D12 driver answered; on Linux install libvulkan1 and the GPU vendor driver)');
  }
  const device = describeAdapter(adapter);
  if (device.software && !named) {
    throw new Error(`only a software adapter (${device.description || device.device}), slower than wasm; ask for webgpu by name to use it`);
  }
  return { dawn, gpu, device };
}

/**
 * Makes `navigator.gpu` Dawn's and registers tfjs's webgpu backend on the adapter findAdapter
 * accepts; returns that adapter's description.
 */
export async function startWebGpu(named: boolean): Promise<TensorDevice> {
  const { dawn, gpu, device } = await findAdapter(named);
  // tfjs-backend-webgpu reads GPUBufferUsage and friends from the global scope, and registers
  // itself only when navigator.gpu exists at import
  for (const [name, value] of Object.entries(dawn.globals)) {
    if (!(name in globalThis)) Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  const navigator = ((globalThis as { navigator?: object }).navigator ?? {}) as Record<string, unknown>;
  Object.defineProperty(navigator, 'gpu', { value: gpu, configurable: true });
  if (!('navigator' in globalThis)) Object.defineProperty(globalThis, 'navigator', { value: navigator, configurable: true });
  await importOptional('@tensorflow/tfjs-backend-webgpu');
  return device;
}

function describeAdapter(adapter: DawnAdapter): TensorDevice {
  const info = adapter.info;
  const architecture = info.architecture ?? '';
  return {
    vendor: info.vendor ?? '',
    architecture,
    device: info.device ?? '',
    description: info.description ?? '',
    software: info.isFallbackAdapter === true || architecture === 'software',
  };
}
