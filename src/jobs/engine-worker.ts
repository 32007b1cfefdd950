import { step, type StepResult } from '../engine/campaign/step.js';
import type { CampaignState } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { initTensorBackend, type TensorBackendName } from '../engine/tensor/backend.js';

/** One unit of engine work sent to a pool thread. */
export interface StepTask {
  mdl: Mdl;
  state: CampaignState;
  backend: TensorBackendName | 'auto';
}

export interface StepTaskResult extends StepResult {
  backend: TensorBackendName;
}

/**
 * Entry point of a piscina worker thread: the tensor backend and the WASM kernels are set up once
 * per thread (on its first task) and reused by every later task. The task carries only the MDL
 * and the campaign state, both plain JSON; the surrogate is refitted from the state inside the
 * thread, so no tensors or kernel memory ever cross threads.
 */
export default async function runStep(task: StepTask): Promise<StepTaskResult> {
  const backend = await initTensorBackend(task.backend);
  return { ...step(task.mdl, task.state), backend };
}
