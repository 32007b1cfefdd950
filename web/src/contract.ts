/**
 * The API's shapes as the dashboard reads them, derived from the server's own zod schemas and
 * event and error definitions. Every import here is type-only: the build erases them, so no server
 * code reaches the bundle, and a change to a schema fails the dashboard's typecheck instead of
 * drifting from a hand-written copy.
 */
import type { z } from 'zod';
import type * as schemas from '../../src/api/schemas.js';

export type { ErrorBody, ErrorCode } from '../../src/errors.js';
export type { EventMessage, IterationSummary, KilnEventData, ServerMessage } from '../../src/events.js';

export type Campaign = z.output<typeof schemas.campaignDetailSchema>;
export type CampaignListItem = z.output<typeof schemas.campaignListItemSchema>;
export type CampaignCreated = z.output<typeof schemas.campaignCreatedSchema>;
export type ImportedCampaign = z.output<typeof schemas.importedCampaignSchema>;
export type MdlWarning = z.output<typeof schemas.mdlWarningSchema>;
/** GET /v1/campaigns/{id}/results without pareto_only: every member present. */
export type Results = z.output<typeof schemas.resultsSchema> &
  Required<Pick<z.output<typeof schemas.resultsSchema>, 'evaluations' | 'hypervolume' | 'convergence_history'>>;
export type ResultRow = Results['pareto_front'][number];
/** A candidate without a value: failed, or abandoned (never measured). */
export type FailedRow = NonNullable<Results['failed_evaluations']>[number];
/** A result's state, one word everywhere: measured, partial, failed, abandoned. */
export type ResultStatus = z.output<typeof schemas.resultStatusSchema>;
export type PostedResults = z.output<typeof schemas.postedResultsSchema>;
export type Candidate = z.output<typeof schemas.candidateSchema>;
export type Job = z.output<typeof schemas.jobDetailSchema>;
export type JobListItem = z.output<typeof schemas.jobListItemSchema>;
export type LogEntry = z.output<typeof schemas.logEntrySchema>;
export type Correction = z.output<typeof schemas.correctionSchema>;
export type ModelReport = z.output<typeof schemas.modelReportSchema>;
export type Dataset = z.output<typeof schemas.datasetSchema>;
export type DatasetDetail = z.output<typeof schemas.datasetDetailSchema>;
export type Material = z.output<typeof schemas.materialSchema>;
export type TemplateListItem = z.output<typeof schemas.templateListItemSchema>;
export type Template = z.output<typeof schemas.templateDetailSchema>;
