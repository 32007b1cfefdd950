import { z } from 'zod';
import { datasetCsv, datasetDetail, getDataset, listDatasetsFor, removeDataset, uploadDataset, type DatasetServices } from '../../service/datasets.js';
import { planLimits } from '../../service/plans.js';
import { pageMeta, paging, type RouteTable } from '../route.js';
import { datasetDetailSchema, datasetSchema, pageQuery } from '../schemas.js';
import { receiveUpload } from '../upload.js';

const tag = 'Datasets';

const uploadSchema = z.object({
  file: z
    .string()
    .describe('the dataset: CSV with a header row, a JSON array of flat objects, or Parquet (format from the part Content-Type, else the extension)'),
  name: z.string().optional().describe('default: the file name'),
  description: z.string().optional(),
  mdl: z.string().optional().describe('an MDL document (YAML or JSON) to check the rows against'),
  template_id: z.string().optional().describe('or a template whose MDL the rows are checked against'),
});

export function datasetRoutes(table: RouteTable, services: DatasetServices): void {
  const { db } = services;
  table.add({
    method: 'post',
    path: '/datasets',
    operationId: 'uploadDataset',
    tag,
    summary: 'Upload a dataset (multipart)',
    description:
      'Streams the file part to storage while counting: over the plan size or row limit it is refused at once with 413 and nothing is stored. With mdl or template_id the rows are checked against that MDL: missing columns or unparseable values are 422 DATASET_INVALID listing every error with row and column; out-of-bounds values are warnings; rows with NaN or empty objectives are flagged.',
    scope: 'datasets:write',
    rateLimit: { perMinute: 5 },
    multipart: uploadSchema,
    streamsBody: true,
    responses: { 201: { description: 'stored', data: datasetSchema } },
    handle: async ({ ctx, principal }) => {
      const upload = await receiveUpload(ctx.req, planLimits(principal.plan).datasetBytes);
      try {
        return { status: 201, data: await uploadDataset(services, principal, upload) };
      } finally {
        await upload.discard();
      }
    },
  });

  table.add({
    method: 'get',
    path: '/datasets',
    operationId: 'listDatasets',
    tag,
    summary: 'List datasets',
    scope: 'datasets:read',
    query: z.object(pageQuery),
    responses: { 200: { description: 'a page of datasets', data: datasetSchema, list: true } },
    handle: async ({ query, principal }) => {
      const { page, perPage } = paging(query);
      const { data, total } = await listDatasetsFor(db, principal, page, perPage);
      return { data, meta: pageMeta(page, perPage, total) };
    },
  });

  table.add({
    method: 'get',
    path: '/datasets/{dataset_id}',
    operationId: 'getDataset',
    tag,
    summary: 'Dataset detail with a preview of the first 10 rows',
    scope: 'datasets:read',
    responses: { 200: { description: 'the dataset', data: datasetDetailSchema } },
    handle: async ({ params, principal }) => ({ data: await datasetDetail(db, principal, params.dataset_id) }),
  });

  table.add({
    method: 'get',
    path: '/datasets/{dataset_id}/download',
    operationId: 'downloadDataset',
    tag,
    summary: 'The dataset as a CSV file (formula-escaped)',
    scope: 'datasets:read',
    responses: { 200: { description: 'CSV attachment', content: 'text/csv' } },
    handle: async ({ ctx, params, principal }) => {
      const dataset = await getDataset(db, principal, params.dataset_id);
      ctx.status = 200;
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${dataset.id}.csv"`);
      ctx.body = datasetCsv(db, dataset);
    },
  });

  table.add({
    method: 'delete',
    path: '/datasets/{dataset_id}',
    operationId: 'deleteDataset',
    tag,
    summary: 'Delete a dataset (campaigns warm-started from it keep their copies)',
    scope: 'datasets:write',
    responses: { 200: { description: 'deleted', data: z.object({ id: z.string(), deleted: z.literal(true) }) } },
    handle: async ({ params, principal }) => ({ data: await removeDataset(db, principal, params.dataset_id) }),
  });
}
