import { findJsonError } from '../../engine/mdl/jsonSyntax.js';
import { EvaluatorError, type EvaluationOutcome, type EvaluationRequest } from './types.js';

/**
 * The stdin/stdout protocol of command evaluators (docs/evaluators.md). The program reads
 *   {"candidates": [{"parameters": {...}}, ...], "objectives": ["f1", "f2"]}
 * and prints
 *   {"results": [{"objectives": {"f1": 1.2, "f2": 3.4}} | {"error": "why"}, ...]}
 * or a bare array of objective objects, one result per candidate, in order.
 */

/** The JSON document written to the program's stdin. */
export function commandInput(batch: readonly EvaluationRequest[], objectiveNames: readonly string[]): string {
  return JSON.stringify({ candidates: batch.map((r) => ({ parameters: r.parameters })), objectives: objectiveNames });
}

const PREVIEW = 200;

function preview(text: string): string {
  return JSON.stringify(text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text);
}

/**
 * The outcomes in a program's stdout: one per candidate, { ok: false } for results that report an
 * error or lack an objective. Throws EvaluatorError (code 'protocol') when the output as a whole is
 * unusable: empty, not JSON, of the wrong shape, or with the wrong number of results.
 */
export function parseCommandOutput(stdout: string, count: number, objectiveNames: readonly string[]): EvaluationOutcome[] {
  const text = stdout.charCodeAt(0) === 0xfeff ? stdout.slice(1) : stdout;
  if (text.trim() === '') {
    throw new EvaluatorError('protocol', 'the command printed nothing on stdout; it must print {"results": [...]} with one result per candidate.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // V8's messages do not always give a position, so the text is scanned again for one
    const found = findJsonError(text) ?? { offset: 0, message: (error as Error).message };
    const { line, column } = lineColumn(text, found.offset);
    throw new EvaluatorError(
      'protocol',
      `the command's output is not valid JSON (line ${line}, column ${column}: ${found.message}); ` +
        `the output begins ${preview(text)}. Print only the JSON result on stdout and send logs to stderr.`,
      { cause: error },
    );
  }
  const bare = Array.isArray(parsed);
  const results: unknown = bare ? parsed : (parsed as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) {
    throw new EvaluatorError(
      'protocol',
      `the command's output must be {"results": [...]} or a JSON array of results; it begins ${preview(text)}.`,
    );
  }
  if (results.length !== count) {
    throw new EvaluatorError(
      'protocol',
      `the command returned ${results.length} result${results.length === 1 ? '' : 's'} for ${count} candidate${count === 1 ? '' : 's'}; it must return one result per candidate, in order.`,
    );
  }
  return results.map((entry, i) => outcome(entry, i, objectiveNames));
}

function outcome(entry: unknown, index: number, objectiveNames: readonly string[]): EvaluationOutcome {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return { ok: false, error: `result ${index} is ${JSON.stringify(entry)}, not an object of objective values.` };
  }
  const record = entry as Record<string, unknown>;
  if ('error' in record) {
    const reason = typeof record.error === 'string' ? record.error : JSON.stringify(record.error);
    return { ok: false, error: `the command reported: ${reason}` };
  }
  const source = 'objectives' in record ? record.objectives : record;
  if (source === null || typeof source !== 'object' || Array.isArray(source)) {
    return { ok: false, error: `result ${index} has objectives ${JSON.stringify(source)}, not an object of objective values.` };
  }
  const values = source as Record<string, unknown>;
  const objectives: Record<string, number> = {};
  for (const name of objectiveNames) {
    const value = values[name];
    if (value === undefined) {
      return { ok: false, error: `result ${index} lacks objective '${name}' (expected ${objectiveNames.join(', ')}).` };
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return { ok: false, error: `objective '${name}' of result ${index} is ${JSON.stringify(value)}, not a finite number.` };
    }
    objectives[name] = value;
  }
  return { ok: true, objectives };
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
