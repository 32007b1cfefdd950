import type { Logger } from 'pino';
import type { CampaignState } from '../engine/campaign/types.js';
import type { ModelReport } from '../engine/diagnostics/report.js';
import type { Mdl } from '../engine/mdl/schema.js';
import type { EnginePool } from './engine-pool.js';

/**
 * Keeps one campaign's model report current beside its loop: each `schedule` asks for a report of
 * that state, computed on the report pool while the loop goes on. At most one report is computed
 * at a time; states asked for meanwhile collapse into the latest, since only the newest report is
 * kept. A report that fails is logged and costs the campaign nothing.
 */
export class ModelReporter {
  private running: Promise<void> | null = null;
  private queued: { mdl: Mdl; state: CampaignState } | null = null;

  constructor(
    private readonly pool: EnginePool,
    private readonly save: (report: ModelReport) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  schedule(mdl: Mdl, state: CampaignState): void {
    this.queued = { mdl, state };
    if (!this.running) this.running = this.drain();
  }

  /** Resolves when every report asked for so far is stored (or has failed). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queued) {
      const { mdl, state } = this.queued;
      this.queued = null;
      try {
        await this.save(await this.pool.diagnose(mdl, state));
      } catch (error) {
        this.logger.warn({ err: error, iteration: state.iteration }, 'model report failed');
      }
    }
    this.running = null;
  }
}
