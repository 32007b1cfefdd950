// The device bundle's stand-in for src/engine/tensor/optional-packages.ts (bench/device/build.mjs
// swaps it in): the optional packages by literal name, so that esbuild carries them.
export function importOptional(name) {
  switch (name) {
    case 'webgpu':
      return import('webgpu');
    case '@tensorflow/tfjs-backend-webgpu':
      return import('@tensorflow/tfjs-backend-webgpu');
    default:
      return Promise.reject(new Error(`${name} is not in the device bundle`));
  }
}
