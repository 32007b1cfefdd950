import { Piscina } from 'piscina';
import type { StepOptions, StepResult } from '../engine/campaign/step.js';
import type { CampaignState } from '../engine/campaign/types.js';
import type { ModelReport } from '../engine/diagnostics/report.js';
import type { Mdl } from '../engine/mdl/schema.js';
import type { TensorBackendName } from '../engine/tensor/backend.js';
import type { StepTask, StepTaskResult } from './engine-worker.js';

export interface EnginePoolOptions {
  /** worker threads; default 1 (one campaign step at a time per process) */
  threads?: number;
  backend?: TensorBackendName | 'auto';
  /**
   * start threads at the first task instead of at once (they end after a minute idle either way):
   * for work that comes now and then, so a process that is killed or stopped early never pays
   * for loading the engine on them
   */
  lazy?: boolean;
}

/**
 * Runs engine steps (surrogate fit + acquisition) on a piscina thread pool, so the event loop of
 * the process that owns the pool (the job supervisor, later the API's process) stays responsive
 * while a step computes for seconds.
 */
export class EnginePool {
  private readonly pool: Piscina<StepTask, StepTaskResult>;
  private readonly backend: TensorBackendName | 'auto';
  private readonly threads: number;
  private resolved: TensorBackendName | null = null;

  constructor(options: EnginePoolOptions = {}) {
    const threads = options.threads ?? 1;
    this.threads = threads;
    this.backend = options.backend ?? 'auto';
    this.pool = new Piscina({
      // under tsx (development) the worker is the .ts source, which the thread loads with tsx too
      filename: new URL(`./engine-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href,
      minThreads: options.lazy ? 0 : threads,
      maxThreads: threads,
      idleTimeout: 60_000,
    });
  }

  /**
   * step(mdl, state, options) on the pool (options.count: an asynchronous step beside pending candidates); the result also names the threads' tensor backend. With more
   * than one thread the step's GP fits (one per objective, and per trust region) run in parallel
   * on all threads, between planning and completing the step on one of them: the proposals are
   * those of the same step in one piece.
   */
  async step(mdl: Mdl, state: CampaignState, options: StepOptions = {}): Promise<StepResult & { backend: TensorBackendName }> {
    const backend = this.backend;
    if (this.threads === 1) return this.finish(await this.pool.run({ kind: 'step', mdl, state, options, backend }));
    const plan = await this.pool.run({ kind: 'plan', mdl, state, options, backend });
    const fits = plan.kind === 'plan' ? plan.fits : [];
    const fitted = await Promise.all(
      fits.map(async (request) => {
        const done = await this.pool.run({ kind: 'fit', request, backend });
        if (done.kind !== 'fit') throw new Error('Kiln: an engine thread answered a fit with something else.');
        return done.hyperparameters;
      }),
    );
    return this.finish(await this.pool.run({ kind: 'complete', mdl, state, fitted, options, backend }));
  }

  private finish(done: StepTaskResult): StepResult & { backend: TensorBackendName } {
    if (done.kind !== 'step') throw new Error('Kiln: an engine thread answered a step with something else.');
    this.resolved = done.backend;
    return { ...done.result, backend: done.backend };
  }

  /** The campaign's model report (engine/diagnostics), computed on a pool thread. */
  async diagnose(mdl: Mdl, state: CampaignState): Promise<ModelReport> {
    const done = await this.pool.run({ kind: 'diagnose', mdl, state, backend: this.backend });
    if (done.kind !== 'report') throw new Error('Kiln: an engine thread answered a model report with something else.');
    return done.report;
  }

  /** The backend the pool's threads run on, once a step has run (null before). */
  backendInUse(): TensorBackendName | null {
    return this.resolved;
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
