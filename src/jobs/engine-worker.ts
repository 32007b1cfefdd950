import { completeStep, planStep, step, type StepOptions, type StepResult } from '../engine/campaign/step.js';
import type { CampaignState } from '../engine/campaign/types.js';
import { diagnoseCampaign, type ModelReport } from '../engine/diagnostics/report.js';
import type { GpHyperparameters } from '../engine/gp/priors.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { fitModel } from '../engine/strategies/fit.js';
import type { FitRequest } from '../engine/strategies/types.js';
import { initTensorBackendInfo, type TensorBackendChoice, type TensorBackendInfo } from '../engine/tensor/backend.js';
import { packageVersion } from '../package-root.js';
import { computeScale } from './compute-scale.js';

/**
 * One unit of engine work sent to a pool thread: a whole step, or one of its three phases (plan
 * the fits, run one fit, complete the step from all of them), which lets the pool spread the fits
 * of one step over its threads; or a campaign's model report.
 */
export type StepTask = { backend: TensorBackendChoice } & (
  | { kind: 'step'; mdl: Mdl; state: CampaignState; options?: StepOptions }
  | { kind: 'plan'; mdl: Mdl; state: CampaignState; options?: StepOptions }
  | { kind: 'fit'; request: FitRequest }
  | { kind: 'complete'; mdl: Mdl; state: CampaignState; fitted: GpHyperparameters[]; options?: StepOptions }
  | { kind: 'diagnose'; mdl: Mdl; state: CampaignState }
);

/** Every answer names the thread's tensor backend and its device. */
export type StepTaskResult = { backend: TensorBackendInfo } & (
  | { kind: 'step'; result: StepResult }
  | { kind: 'plan'; fits: FitRequest[] }
  | { kind: 'fit'; hyperparameters: GpHyperparameters }
  | { kind: 'report'; report: ModelReport }
);

/**
 * Entry point of a piscina worker thread: the tensor backend and the WASM kernels are set up once
 * per thread (on its first task) and reused by every later task. Tasks carry only plain data (the
 * MDL, the campaign state, fit requests and hyperparameters); models are rebuilt inside the thread,
 * so no tensors or kernel memory ever cross threads.
 */
let version: string | undefined;

export default async function runStep(task: StepTask): Promise<StepTaskResult> {
  const backend = await initTensorBackendInfo(task.backend);
  // The receipt names the code, the backend and the device that really proposed the batch: this thread's.
  const environment = { engine_version: (version ??= packageVersion()), tensor_backend: backend.name, tensor_device: backend.device };
  switch (task.kind) {
    case 'step':
      return { kind: 'step', result: await step(task.mdl, task.state, { ...environment, compute_scale: await computeScale(backend) }, task.options), backend };
    case 'plan':
      return { kind: 'plan', fits: planStep(task.mdl, task.state, task.options), backend };
    case 'fit':
      return { kind: 'fit', hyperparameters: fitModel(task.request), backend };
    case 'complete':
      return {
        kind: 'step',
        result: await completeStep(task.mdl, task.state, task.fitted, { ...environment, compute_scale: await computeScale(backend) }, task.options),
        backend,
      };
    case 'diagnose':
      return { kind: 'report', report: diagnoseCampaign(task.mdl, task.state), backend };
  }
}
