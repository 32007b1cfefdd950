import type { Knex } from 'knex';
import type { ApiKeyRow } from './api-keys.js';
import type { Patch } from './db.js';
import type { CampaignRow, EvaluationRow, IterationRow } from './campaigns.js';
import type { CorrectionRow } from './corrections.js';
import type { DatasetRow, StoredRow } from './datasets.js';
import type { ExternalResultRow } from './external-results.js';
import type { JobLogRow, JobRow } from './jobs.js';
import type { LoginCodeRow, LoginStateRow, UserRow } from './logins.js';
import type { ModelReportRow } from './model-reports.js';
import type { OrganizationRow } from './organizations.js';
import type { RevokedTokenRow } from './revoked-tokens.js';
import type { TemplateRow } from './templates.js';
import type { WorkerRow } from './workers.js';

/**
 * What a write may give a column: its value, an SQL expression (now(), attempt + 1), or for a
 * jsonb column its JSON text (pg would send a JavaScript array as a Postgres array, not JSON).
 */
type Write<Row, Json extends keyof Row> = Patch<Omit<Row, Json>> & { [K in Json]?: string | null | Knex.Raw };

/** A table read as `Row`, with its jsonb columns `Json` written as text. */
type Table<Row, Json extends keyof Row = never> = Knex.CompositeTableType<Row, Write<Row, Json>, Write<Row, Json>>;

// The rows of each table, so that knex types every query on it (rate_limits belongs to
// rate-limiter-flexible, which queries it itself).
declare module 'knex/types/tables.js' {
  interface Tables {
    organizations: Table<OrganizationRow>;
    api_keys: Table<ApiKeyRow, 'scopes' | 'allowed_ips'>;
    campaigns: Table<CampaignRow, 'mdl' | 'best_objectives' | 'engine_state' | 'warm_start'>;
    evaluations: Table<EvaluationRow, 'parameters' | 'objectives' | 'outcomes'>;
    campaign_iterations: Table<IterationRow>;
    campaign_model_reports: Table<ModelReportRow, 'report'>;
    jobs: Table<JobRow, 'progress' | 'batch_deadlines'>;
    job_logs: Table<JobLogRow>;
    external_results: Table<ExternalResultRow, 'objectives' | 'outcomes' | 'parameters'>;
    evaluation_corrections: Table<CorrectionRow, 'previous' | 'corrected'>;
    workers: Table<WorkerRow>;
    revoked_tokens: Table<RevokedTokenRow>;
    datasets: Table<DatasetRow, 'columns' | 'mdl' | 'warnings' | 'flagged_rows'>;
    dataset_rows: Table<StoredRow, 'data'>;
    templates: Table<TemplateRow, 'tags' | 'mdl'>;
    users: Table<UserRow>;
    login_codes: Table<LoginCodeRow>;
    login_states: Table<LoginStateRow>;
  }
}
