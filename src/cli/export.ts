import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Command } from 'commander';
import { frontSummary } from '../engine/campaign/state.js';
import type { CampaignState } from '../engine/campaign/types.js';
import { validateMdl } from '../engine/mdl/parse.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { builtinEvaluators } from '../engine/problems/registry.js';
import { packageVersion } from '../package-root.js';
import { documentProblems } from '../service/export-checks.js';
import { documentReceipts, exportedEvaluations, stateFromDocument } from '../service/export-document.js';
import { EXPORT_VERSION, exportDocumentSchema, type ExportDocument } from '../service/export-schema.js';
import { loadCheckpoint, type Checkpoint } from './checkpoint.js';
import { processIo, type CliIo } from './io.js';

export interface ExportOptions {
  output?: string;
  url?: string;
  apiKey?: string;
}

/** `kiln export <run-folder | campaign-id>`: one campaign as an export document (for POST /v1/campaigns/import). */
export function exportCommand(io: CliIo = processIo): Command {
  return new Command('export')
    .description('write a campaign as one export document: from a kiln run output folder, or from a Kiln service with --url')
    .argument('<source>', 'a kiln run --out folder, or a campaign id (with --url and --api-key)')
    .option('-o, --output <file>', 'write the document here (default: standard output)')
    .option('--url <base>', 'the Kiln service to export the campaign id from, e.g. http://localhost:8080')
    .option('--api-key <key>', 'an API key with campaigns:read (default: KILN_API_KEY)')
    .action(async (source: string, opts: ExportOptions) => {
      process.exitCode = await exportCampaignTo(source, opts, io);
    });
}

/** Exports `source`; returns the exit code. */
export async function exportCampaignTo(source: string, opts: ExportOptions, io: Pick<CliIo, 'out' | 'err'>): Promise<number> {
  let doc: unknown;
  try {
    if (opts.url !== undefined) doc = await fetchExport(opts.url, source, opts.apiKey ?? process.env.KILN_API_KEY);
    else if (existsSync(source) && statSync(source).isDirectory()) doc = runFolderDocument(source, loadCheckpoint(source));
    else throw new Error(`${source} is not a kiln run output folder; to export a campaign from a service, pass --url`);
  } catch (error) {
    io.err(`kiln: cannot export: ${(error as Error).message}`);
    return 1;
  }
  const text = JSON.stringify(doc, null, 2) + '\n';
  if (opts.output === undefined) io.out(text.trimEnd());
  else {
    writeFileSync(opts.output, text);
    io.err(`Wrote ${opts.output}: continue it with kiln run --resume-from ${opts.output}, or POST it to /v1/campaigns/import`);
  }
  return 0;
}

async function fetchExport(base: string, id: string, key: string | undefined): Promise<unknown> {
  const res = await fetch(`${base.replace(/\/+$/, '')}/v1/campaigns/${encodeURIComponent(id)}/export`, {
    headers: key ? { Authorization: `Bearer ${key}` } : {},
  });
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!res.ok) throw new Error(`${base} answered ${res.status}: ${body?.error?.message ?? 'no message'}`);
  return body;
}

/**
 * The export document of a kiln run output folder. A run has no per-iteration rows, so they are
 * rebuilt from the checkpoint: the hypervolume history, the Pareto set as it stood after each
 * iteration, and the receipts; the timings were not kept (null).
 */
export function runFolderDocument(folder: string, checkpoint: Checkpoint, exportedAt = new Date()): ExportDocument {
  const { mdl, state, seed } = checkpoint;
  const receipts = new Map((checkpoint.receipts ?? []).map((r) => [r.iteration, r]));
  const { evaluations: _evaluations, convergenceHistory: _history, ...engine } = state;
  return {
    kiln_export_version: EXPORT_VERSION,
    engine_version: packageVersion(),
    exported_at: exportedAt.toISOString(),
    source: { kind: 'kiln-run', campaign_id: null },
    campaign: {
      name: mdl.name ?? basename(resolve(folder)),
      domain: mdl.domain ?? null,
      // an interrupted run (still running when it stopped) continues like a stopped campaign
      status: state.status === 'running' ? 'stopped' : state.status,
      seed,
      mdl,
      warm_start: null,
    },
    evaluations: exportedEvaluations(mdl, state.evaluations, state.pending, new Map()),
    iterations: Array.from({ length: state.iteration }, (_, k) => {
      const iteration = k + 1;
      const rows = state.evaluations.filter((e) => e.iteration === iteration);
      const receipt = receipts.get(iteration) ?? null;
      return {
        iteration,
        hypervolume: state.convergenceHistory[k] ?? 0,
        pareto_size: paretoSizeAfter(mdl, state, iteration),
        evaluated: rows.length,
        failed: rows.filter((e) => e.objectives === null).length,
        strategy: receipt?.strategy ?? (iteration === 1 ? 'initial-design' : 'unknown'),
        propose_seconds: null,
        evaluate_seconds: null,
        store_seconds: null,
        receipt: receipt as unknown as ExportDocument['iterations'][number]['receipt'],
      };
    }),
    engine_state: state.iteration === 0 && state.pending.length === 0 ? null : engine,
  };
}

function paretoSizeAfter(mdl: Mdl, state: CampaignState, iteration: number): number {
  return frontSummary(mdl, { ...state, evaluations: state.evaluations.filter((e) => e.iteration <= iteration) }).paretoSize;
}

/**
 * The checkpoint `kiln run --resume-from` starts from: the document read and checked as the
 * service's import checks it. Throws an Error listing the problems a person can fix.
 */
export function checkpointFromDocument(file: string): Checkpoint {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not readable JSON (${(error as Error).message})`);
  }
  const version = (json as { kiln_export_version?: unknown } | null)?.kiln_export_version;
  if (version !== EXPORT_VERSION) {
    throw new Error(
      `${file} is not a Kiln export document of version ${EXPORT_VERSION} (kiln_export_version is ${JSON.stringify(version)}); GET /v1/campaigns/{id}/export or kiln export <run-folder> writes one`,
    );
  }
  const parsed = exportDocumentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${issue.path.join('.') || 'the document'}: ${issue.message}`);
  }
  const doc = parsed.data;
  const result = validateMdl(doc.campaign.mdl, { builtins: builtinEvaluators, warmStart: doc.evaluations.some((e) => e.iteration === 0) });
  if (!result.ok) throw new Error(`${file}: the campaign's MDL does not validate: ${result.errors.map((e) => `${e.path || 'mdl'}: ${e.message}`).join('; ')}`);
  const problems = documentProblems(doc, result.mdl);
  if (problems.length > 0) throw new Error(`${file}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
  return {
    version: 1,
    mdl: result.mdl,
    seed: doc.campaign.seed,
    cwd: process.cwd(),
    state: stateFromDocument(doc, result.mdl),
    receipts: documentReceipts(doc),
  };
}
