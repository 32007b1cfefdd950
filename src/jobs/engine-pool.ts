import { Piscina } from 'piscina';
import type { StepResult } from '../engine/campaign/step.js';
import type { CampaignState } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import type { TensorBackendName } from '../engine/tensor/backend.js';
import type { StepTask, StepTaskResult } from './engine-worker.js';

export interface EnginePoolOptions {
  /** worker threads; default 1 (one campaign step at a time per process) */
  threads?: number;
  backend?: TensorBackendName | 'auto';
}

/**
 * Runs engine steps (surrogate fit + acquisition) on a piscina thread pool, so the event loop of
 * the process that owns the pool (the job supervisor, later the API's process) stays responsive
 * while a step computes for seconds.
 */
export class EnginePool {
  private readonly pool: Piscina<StepTask, StepTaskResult>;
  private readonly backend: TensorBackendName | 'auto';
  private resolved: TensorBackendName | null = null;

  constructor(options: EnginePoolOptions = {}) {
    const threads = options.threads ?? 1;
    this.backend = options.backend ?? 'auto';
    this.pool = new Piscina({
      // under tsx (development) the worker is the .ts source, which the thread loads with tsx too
      filename: new URL(`./engine-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
    });
  }

  /** step(mdl, state) on a pool thread; the result also names the thread's tensor backend. */
  async step(mdl: Mdl, state: CampaignState): Promise<StepResult & { backend: TensorBackendName }> {
    const result: StepResult & { backend: TensorBackendName } = await this.pool.run({ mdl, state, backend: this.backend });
    this.resolved = result.backend;
    return result;
  }

  /** The backend the pool's threads run on, once a step has run (null before). */
  backendInUse(): TensorBackendName | null {
    return this.resolved;
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
