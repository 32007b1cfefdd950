import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { IterationReceipt, Receipt } from '../engine/campaign/receipt.js';
import type { RecordedCampaign } from '../engine/campaign/replay.js';
import { abandonedReason } from '../engine/campaign/result-status.js';
import type { EvaluationRecord } from '../engine/campaign/types.js';
import { parseMdl, validateMdl } from '../engine/mdl/parse.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { builtinEvaluators } from '../engine/problems/registry.js';
import { exportDocumentSchema } from '../service/export-schema.js';
import { CHECKPOINT, loadCheckpoint } from './checkpoint.js';

/**
 * What `kiln replay` reads: results.json as `kiln run` writes it, or the results of
 * GET /v1/campaigns/{id}/results (with or without its `data` envelope); they share one shape.
 * An export document is turned into that shape first (fromExportDocument).
 * Only the members replay needs are checked; receipts pass through as recorded.
 */
const parameters = z.record(z.string(), z.union([z.number(), z.string()]));
const resultsShape = z.object({
  evaluations: z.array(
    z.object({
      id: z.string(),
      iteration: z.int(),
      parameters,
      objectives: z.record(z.string(), z.number()),
      outcomes: z.record(z.string(), z.number()).optional(),
    }),
  ),
  failed_evaluations: z
    .array(z.object({ id: z.string(), iteration: z.int(), parameters, error: z.string().optional(), abandoned: z.boolean().optional() }))
    .default([]),
  iterations: z.array(
    z.object({
      iteration: z.int(),
      receipt: z.looseObject({ version: z.literal(1), iteration: z.int() }).nullable(),
      evaluation_ids: z.array(z.string()),
    }),
  ),
});

/** The recorded campaign in a results payload, for `replayCampaign`; an Error a person can act on when it is not one. */
export function recordedCampaign(mdl: Mdl, json: unknown): RecordedCampaign {
  const body = json !== null && typeof json === 'object' && 'data' in json ? json.data : json;
  const parsed = resultsShape.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.join('.') || 'the top level';
    const hint =
      issue.path[0] === 'iterations' || issue.path[0] === 'evaluations' ? ' (results from before receipts, or pareto_only=true, cannot be replayed)' : '';
    throw new Error(`these are not Kiln results with receipts: ${where}: ${issue.message}${hint}`);
  }
  const results = parsed.data;
  const evaluations: EvaluationRecord[] = [
    ...results.evaluations.map((e) => ({
      id: e.id,
      iteration: e.iteration,
      parameters: e.parameters,
      objectives: e.objectives,
      ...(e.outcomes ? { outcomes: e.outcomes } : {}),
    })),
    ...results.failed_evaluations.map((e) => ({
      id: e.id,
      iteration: e.iteration,
      parameters: e.parameters,
      objectives: null,
      ...(e.abandoned ? { error: abandonedReason(e.error ?? 'never measured'), abandoned: true as const } : { error: e.error ?? 'no result' }),
    })),
  ];
  const iterations: IterationReceipt[] = results.iterations.map((i) => ({ ...i, receipt: i.receipt as Receipt | null }));
  return { mdl, evaluations, iterations };
}

/**
 * The results and the campaign definition behind `path`: a `kiln run` output folder (results.json
 * and the MDL in its checkpoint), or a results file with the MDL from `--mdl` or, failing that,
 * from a checkpoint beside it.
 */
export function readReplayInput(path: string, mdlFile: string | undefined): { mdl: Mdl; results: unknown; source: string } {
  if (!existsSync(path)) throw new Error(`${path} does not exist: name a kiln run output folder or a results JSON file`);
  const folder = statSync(path).isDirectory();
  const resultsFile = folder ? join(path, 'results.json') : path;
  if (!existsSync(resultsFile)) throw new Error(`${path} holds no results.json: name the --out folder of a kiln run`);
  let results: unknown;
  try {
    results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  } catch (error) {
    throw new Error(`${resultsFile} is not readable JSON (${(error as Error).message})`);
  }
  if (isExportDocument(results)) return { ...fromExportDocument(results, resultsFile), ...(mdlFile !== undefined ? { mdl: readMdl(mdlFile) } : {}) };
  if (mdlFile !== undefined) return { mdl: readMdl(mdlFile), results, source: resultsFile };
  const beside = folder ? path : dirname(resultsFile);
  if (!existsSync(join(beside, CHECKPOINT))) {
    throw new Error(`no campaign definition for ${resultsFile}: pass the campaign's MDL with --mdl (GET /v1/campaigns/{id} returns it as mdl)`);
  }
  return { mdl: loadCheckpoint(beside).mdl, results, source: resultsFile };
}

function isExportDocument(json: unknown): json is { kiln_export_version: unknown } {
  return json !== null && typeof json === 'object' && 'kiln_export_version' in json;
}

/**
 * An export document (GET /v1/campaigns/{id}/export, kiln export) as results: its MDL, and its
 * evaluations grouped by iteration in the order they were told. Pending evaluations were never
 * told, so they play no part.
 */
function fromExportDocument(json: { kiln_export_version: unknown }, source: string): { mdl: Mdl; results: unknown; source: string } {
  const parsed = exportDocumentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${source} is not an export document this Kiln reads: ${issue.path.join('.') || 'the document'}: ${issue.message}`);
  }
  const doc = parsed.data;
  const checked = validateMdl(doc.campaign.mdl, { builtins: builtinEvaluators });
  if (!checked.ok) throw new Error(`${source}: the campaign's MDL does not validate on this Kiln (${checked.errors[0].path}: ${checked.errors[0].message})`);
  const told = doc.evaluations.filter((e) => e.status !== 'pending');
  return {
    mdl: checked.mdl,
    source,
    results: {
      evaluations: told
        .filter((e) => e.status === 'completed')
        .map((e) => ({
          id: e.id,
          iteration: e.iteration,
          parameters: e.parameters,
          objectives: e.objectives,
          ...(e.outcomes ? { outcomes: e.outcomes } : {}),
        })),
      failed_evaluations: told
        .filter((e) => e.status === 'failed')
        .map((e) => ({
          id: e.id,
          iteration: e.iteration,
          parameters: e.parameters,
          error: e.error ?? 'no result',
          ...(e.abandoned ? { abandoned: true } : {}),
        })),
      iterations: doc.iterations.map((i) => ({
        iteration: i.iteration,
        receipt: i.receipt,
        evaluation_ids: told.filter((e) => e.iteration === i.iteration).map((e) => e.id),
      })),
    },
  };
}

function readMdl(file: string): Mdl {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const parsed = parseMdl(text, /\.json$/i.test(file) ? 'json' : undefined, { builtins: builtinEvaluators });
  if (!parsed.ok) throw new Error(`${file} is not a valid campaign (kiln validate ${file} lists why)`);
  return parsed.mdl;
}
