import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import type { StepOptions, StepResult } from '../engine/campaign/step.js';
import type { CampaignState } from '../engine/campaign/types.js';
import type { ModelReport } from '../engine/diagnostics/report.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { probeTensorBackend, type TensorBackendChoice, type TensorBackendInfo, type TensorBackendName } from '../engine/tensor/backend.js';
import type { StepTask, StepTaskResult } from './engine-worker.js';

export interface EnginePoolOptions {
  /** host threads; default 1 (one campaign step at a time per process) */
  threads?: number;
  backend?: TensorBackendChoice;
  /**
   * start threads at the first task instead of at once (they end after a minute idle either way):
   * for work that comes now and then, so a process that is killed or stopped early never pays
   * for loading the engine on them
   */
  lazy?: boolean;
}

const IDLE_TIMEOUT_MS = 60_000;

/**
 * Where a pooled step's seconds went: planning and the GP fits on the host threads, the
 * completion (posteriors, draws, acquisition) on the thread that proposes, the device thread
 * with webgpu. One host thread runs the whole step as its completion.
 */
export interface StepPhases {
  plan: number;
  fits: number;
  complete: number;
}

export type PooledStep = StepResult & { backend: TensorBackendInfo; phases: StepPhases };

/**
 * Runs engine steps (surrogate fit + acquisition) on piscina threads, so the event loop of the
 * process that owns the pool (the job supervisor, `kiln run`) stays responsive while a step
 * computes for seconds.
 *
 * Threads and the GPU. A process opens at most one GPU device. On the CPU backends every task runs
 * on the `threads` host threads. With webgpu, one more thread, the device thread, owns the GPU
 * and runs what uses it: the completion of each step (posteriors over candidate pools, Thompson
 * draws, acquisition), or the whole step when there is one host thread. The host threads run on
 * wasm (or cpu) and take the work that is CPU work on any backend: planning, the GP fits (float64
 * L-BFGS, Cholesky on the CPU) and model reports. Steps of several campaigns (a supervisor's
 * slots) therefore share the device one at a time, and the device memory a step allocates is
 * released when its step ends (every model disposes its tensors), so campaigns never hold GPU
 * memory between steps.
 */
export class EnginePool {
  private readonly host: Piscina<StepTask, StepTaskResult>;
  private device: Piscina<StepTask, StepTaskResult> | null = null;
  private readonly requested: TensorBackendChoice;
  private readonly threads: number;
  private placement: Promise<TensorBackendInfo> | null = null;
  private resolved: TensorBackendInfo | null = null;

  constructor(options: EnginePoolOptions = {}) {
    const threads = options.threads ?? 1;
    this.threads = threads;
    this.requested = options.backend ?? 'auto';
    this.host = newPool(threads, options.lazy === true);
  }

  /**
   * step(mdl, state, options) on the pool (options.count: an asynchronous step beside pending
   * candidates); the result also names the tensor backend that proposed. With more than one host
   * thread the step's GP fits (one per objective, and per trust region) run in parallel on them,
   * between planning and completing the step: the proposals are those of the same step in one piece.
   */
  async step(mdl: Mdl, state: CampaignState, options: StepOptions = {}): Promise<PooledStep> {
    const { hostBackend, proposer, proposerBackend } = await this.place();
    const started = performance.now();
    const since = (t: number) => (performance.now() - t) / 1000;
    if (this.threads === 1) {
      const done = await proposer.run({ kind: 'step', mdl, state, options, backend: proposerBackend });
      return this.finish(done, { plan: 0, fits: 0, complete: since(started) });
    }
    const plan = await this.host.run({ kind: 'plan', mdl, state, options, backend: hostBackend });
    const fits = plan.kind === 'plan' ? plan.fits : [];
    const planned = performance.now();
    const fitted = await Promise.all(
      fits.map(async (request) => {
        const done = await this.host.run({ kind: 'fit', request, backend: hostBackend });
        if (done.kind !== 'fit') throw new Error('Kiln: an engine thread answered a fit with something else.');
        return done.hyperparameters;
      }),
    );
    const fittedAt = performance.now();
    const done = await proposer.run({ kind: 'complete', mdl, state, fitted, options, backend: proposerBackend });
    return this.finish(done, { plan: (planned - started) / 1000, fits: (fittedAt - planned) / 1000, complete: since(fittedAt) });
  }

  private finish(done: StepTaskResult, phases: StepPhases): PooledStep {
    if (done.kind !== 'step') throw new Error('Kiln: an engine thread answered a step with something else.');
    this.resolved = done.backend;
    return { ...done.result, backend: done.backend, phases };
  }

  /** The campaign's model report (engine/diagnostics, float64 on the CPU), computed on a host thread. */
  async diagnose(mdl: Mdl, state: CampaignState): Promise<ModelReport> {
    const { hostBackend } = await this.place();
    const done = await this.host.run({ kind: 'diagnose', mdl, state, backend: hostBackend });
    if (done.kind !== 'report') throw new Error('Kiln: an engine thread answered a model report with something else.');
    return done.report;
  }

  /** The backend and device the pool proposes on, as probed before its first step (no device is opened to probe). */
  backend(): Promise<TensorBackendInfo> {
    return (this.placement ??= probeTensorBackend(this.requested));
  }

  /** The backend the pool's steps ran on, once a step has run (null before). */
  backendInUse(): TensorBackendInfo | null {
    return this.resolved;
  }

  async destroy(): Promise<void> {
    await Promise.all([this.host.destroy(), this.device?.destroy()]);
  }

  /** Where tasks run: the device thread (webgpu), started at the first step, or the host threads. */
  private async place(): Promise<{ hostBackend: TensorBackendName; proposer: Piscina<StepTask, StepTaskResult>; proposerBackend: TensorBackendName }> {
    const chosen = await this.backend();
    if (chosen.name !== 'webgpu') return { hostBackend: chosen.name, proposer: this.host, proposerBackend: chosen.name };
    this.device ??= newPool(1, true);
    return { hostBackend: 'wasm', proposer: this.device, proposerBackend: 'webgpu' };
  }
}

function newPool(threads: number, lazy: boolean): Piscina<StepTask, StepTaskResult> {
  return new Piscina({
    // under tsx (development) the worker is the .ts source, which the thread loads with tsx too
    filename: new URL(`./engine-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href,
    minThreads: lazy ? 0 : threads,
    maxThreads: threads,
    idleTimeout: IDLE_TIMEOUT_MS,
  });
}

/** Host threads beyond which a step's fits rarely spread further (a few regions, a few models each). */
const MOST_HOST_THREADS = 8;

/**
 * Host threads for one process's steps, as `kiln run` and the benchmarks use them: one per core,
 * at most MOST_HOST_THREADS, so a step's GP fits run side by side on a many-core GPU host as on a
 * two-core laptop.
 */
export function engineThreads(): number {
  return Math.max(1, Math.min(MOST_HOST_THREADS, availableParallelism()));
}
