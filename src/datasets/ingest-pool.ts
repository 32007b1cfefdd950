import { Piscina } from 'piscina';
import type { IngestResult, IngestTask } from './ingest-worker.js';

/**
 * Ingest threads of an API process: uploads are parsed and stored there, so a 100 MB file never
 * blocks the event loop that serves every other request.
 */
export class IngestPool {
  private readonly pool: Piscina<IngestTask, IngestResult>;

  constructor(threads = 2) {
    this.pool = new Piscina({
      // under tsx (development) the worker is the .ts source, which the thread loads with tsx too
      filename: new URL(`./ingest-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 30_000,
    });
  }

  run(task: IngestTask): Promise<IngestResult> {
    return this.pool.run(task);
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
