import { z } from 'zod';
import { cancelJob, jobDetailFor, jobLogs, listJobsFor, retryJob } from '../../service/jobs.js';
import type { Db } from '../../store/db.js';
import { pageMeta, paging, type RouteTable } from '../route.js';
import * as s from '../schemas.js';

const tag = 'Jobs';

export function jobRoutes(table: RouteTable, db: Db): void {
  table.add({
    method: 'get',
    path: '/jobs',
    operationId: 'listJobs',
    tag,
    summary: 'List jobs',
    scope: 'campaigns:read',
    query: s.jobListQuery,
    responses: { 200: { description: 'a page of jobs', data: s.jobListItemSchema, list: true } },
    handle: async ({ query, principal }) => {
      const { page, perPage } = paging(query);
      const { data, total } = await listJobsFor(db, principal, {
        campaignId: query.campaign_id,
        status: query.status,
        sort: s.parseSort(query.sort, '-created_at'),
        page,
        perPage,
      });
      return { data, meta: pageMeta(page, perPage, total) };
    },
  });

  table.add({
    method: 'get',
    path: '/jobs/{job_id}',
    operationId: 'getJob',
    tag,
    summary: 'Job detail with progress and timing',
    scope: 'campaigns:read',
    responses: { 200: { description: 'the job', data: s.jobDetailSchema } },
    handle: async ({ params, principal }) => ({ data: await jobDetailFor(db, principal, params.job_id) }),
  });

  table.add({
    method: 'get',
    path: '/jobs/{job_id}/logs',
    operationId: 'getJobLogs',
    tag,
    summary: 'Job log entries, oldest first',
    scope: 'campaigns:read',
    query: s.logsQuery,
    responses: { 200: { description: 'log entries', data: s.logEntrySchema, list: true } },
    handle: async ({ params, query, principal }) => ({
      data: await jobLogs(db, principal, params.job_id, {
        level: query.level ?? 'debug',
        since: query.since ? new Date(query.since) : undefined,
        tail: query.tail ?? 100,
      }),
    }),
  });

  table.add({
    method: 'post',
    path: '/jobs/{job_id}/cancel',
    operationId: 'cancelJob',
    tag,
    summary: 'Cancel a job (a running one stops after its current iteration; a queued or waiting one at once)',
    scope: 'campaigns:write',
    responses: { 202: { description: 'cancelled or cancel requested', data: s.jobDetailSchema } },
    handle: async ({ params, principal }) => ({ status: 202, data: await cancelJob(db, principal, params.job_id) }),
  });

  table.add({
    method: 'post',
    path: '/jobs/{job_id}/retry',
    operationId: 'retryJob',
    tag,
    summary: 'Retry a failed job; the new job resumes after the last saved iteration',
    description: "The new job gets the failed job's timeout unless `timeout_hours` gives another.",
    scope: 'campaigns:write',
    body: s.startCampaignBody,
    responses: { 202: { description: 'the new job', data: s.jobDetailSchema.extend({ retry_of: z.string() }) } },
    handle: async ({ params, body, principal }) => ({
      status: 202,
      data: await retryJob(db, principal, params.job_id, { timeoutHours: body.timeout_hours }),
    }),
  });
}
