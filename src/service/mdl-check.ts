import { Piscina } from 'piscina';
import { mdlLimits } from '../engine/mdl/limits.js';
import { parseMdl, validateMdl, type MdlResult } from '../engine/mdl/parse.js';
import { builtinEvaluators } from '../engine/problems/registry.js';
import { KilnError } from '../errors.js';
import { unstorableMembers } from '../text-rules.js';

/** One document to validate against the MDL rules, with the builtin evaluators known. */
export type MdlCheck = ({ document: unknown } | { text: string; format?: 'json' | 'yaml' }) & { warmStart?: boolean };

/**
 * Below this size a document validates in a few milliseconds (a few constraints, tens of
 * parameters), so it is checked in place; larger ones go to a thread, where a document at the
 * limits (1,000 parameters, 50,000 characters of constraints) takes its 0.2 s without holding
 * the event loop that serves every other organization.
 */
const inPlaceBytes = 16 * 1024;

let pool: Piscina<MdlCheck, MdlResult> | null = null;

/**
 * Validates an MDL document, refusing one over `mdlLimits.documentBytes` with 413 before any
 * parsing. `what` names the document in that message (e.g. "mdl", "the MDL file").
 */
export async function checkMdl(task: MdlCheck, what: string): Promise<MdlResult> {
  const bytes = 'text' in task ? Buffer.byteLength(task.text) : Buffer.byteLength(JSON.stringify(task.document) ?? '');
  if (bytes > mdlLimits.documentBytes) {
    throw new KilnError(
      'PAYLOAD_TOO_LARGE',
      `${what} is ${Math.ceil(bytes / 1024)} KiB; an MDL document may be at most ${mdlLimits.documentBytes / 1024} KiB (limit: MDL document size).`,
      { limit: mdlLimits.documentBytes },
    );
  }
  if (bytes <= inPlaceBytes) return checkInPlace(task);
  pool ??= new Piscina<MdlCheck, MdlResult>({
    // under tsx (development) the worker is the .ts source, which the thread loads with tsx too
    filename: new URL(`./mdl-check-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 5_000,
  });
  return pool.run(task);
}

/** Validation on the calling thread: the MDL-check thread's body, and the path for small documents. */
export function checkInPlace(task: MdlCheck): MdlResult {
  const options = { builtins: builtinEvaluators, warmStart: task.warmStart };
  const result = 'text' in task ? parseMdl(task.text, task.format, options) : validateMdl(task.document, options);
  if (!result.ok) return result;
  // a YAML or JSON escape can spell a NUL or a lone surrogate, which no store keeps: an error at its path
  const unstorable = unstorableMembers(result.mdl);
  return unstorable.length > 0 ? { ok: false, errors: unstorable } : result;
}
