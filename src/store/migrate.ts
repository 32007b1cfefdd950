import type { Knex } from 'knex';
import type { Db } from './db.js';
import * as serviceCore from './migrations/001-service-core.js';
import * as rateLimits from './migrations/002-rate-limits.js';
import * as datasetsTemplates from './migrations/003-datasets-templates.js';
import * as access from './migrations/004-access.js';
import * as outcomes from './migrations/005-outcomes.js';
import * as jobBackoff from './migrations/006-job-backoff.js';
import * as modelReports from './migrations/007-model-reports.js';
import * as receipts from './migrations/008-receipts.js';
import * as templateOwners from './migrations/009-template-owners.js';
import * as resultsFromPeople from './migrations/010-results-from-people.js';
import * as waitingJobs from './migrations/011-waiting-jobs.js';
import * as asynchronousBatches from './migrations/012-asynchronous-batches.js';
import * as fairClaims from './migrations/013-fair-claims.js';
import * as tensorDevices from './migrations/014-tensor-devices.js';
import * as abandonedReasons from './migrations/015-abandoned-reasons.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Migrations are modules compiled with the rest of the code and listed here in order, so they
 * run the same from `dist/` on any host, with no directory scanning.
 */
const MIGRATIONS: ReadonlyArray<[string, Migration]> = [
  ['001-service-core', serviceCore],
  ['002-rate-limits', rateLimits],
  ['003-datasets-templates', datasetsTemplates],
  ['004-access', access],
  ['005-outcomes', outcomes],
  ['006-job-backoff', jobBackoff],
  ['007-model-reports', modelReports],
  ['008-receipts', receipts],
  ['009-template-owners', templateOwners],
  ['010-results-from-people', resultsFromPeople],
  ['011-waiting-jobs', waitingJobs],
  ['012-asynchronous-batches', asynchronousBatches],
  ['013-fair-claims', fairClaims],
  ['014-tensor-devices', tensorDevices],
  ['015-abandoned-reasons', abandonedReasons],
];

const source: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

/**
 * Brings the schema up to date. Knex's migration lock makes concurrent starts (several API nodes
 * and workers at once) safe: one migrates, the others wait for it and then find nothing to do.
 */
export async function migrate(db: Db): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      const [, applied] = (await db.migrate.latest({ migrationSource: source, tableName: 'kiln_migrations' })) as [number, string[]];
      return applied;
    } catch (error) {
      // Knex refuses rather than waits when another process holds the lock.
      if (!/already locked/i.test(String((error as Error).message)) || attempt >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
