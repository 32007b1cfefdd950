import { findJsonError } from '../engine/mdl/jsonSyntax.js';
import { quoteNonFiniteTokens } from '../json-text.js';
import { isObject, readMeasured, reportsFailure, type MeasuredNames } from './measured.js';
import { EvaluatorError, type EvaluationOutcome, type EvaluationRequest } from './types.js';

/**
 * The stdin/stdout protocol of command evaluators (docs/evaluators.md). The program reads
 *   {"candidates": [{"parameters": {...}}, ...], "objectives": ["f1", "f2"]}
 * (plus "outcomes": ["cycle_life"] when the campaign declares outcomes) and prints
 *   {"results": [{"objectives": {"f1": 1.2, "f2": 3.4}, "outcomes": {...}} | {"error": "why"}, ...]}
 * or a bare array of objective objects, one result per candidate, in order.
 */

/** The JSON document written to the program's stdin. */
export function commandInput(batch: readonly EvaluationRequest[], names: MeasuredNames): string {
  return JSON.stringify({
    candidates: batch.map((r) => ({ parameters: r.parameters })),
    objectives: names.objectives,
    ...(names.outcomes.length > 0 ? { outcomes: names.outcomes } : {}),
  });
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
export function parseCommandOutput(stdout: string, count: number, names: MeasuredNames): EvaluationOutcome[] {
  const text = stdout.charCodeAt(0) === 0xfeff ? stdout.slice(1) : stdout;
  if (text.trim() === '') {
    throw new EvaluatorError('protocol', 'the command printed nothing on stdout; it must print {"results": [...]} with one result per candidate.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(quoteNonFiniteTokens(text));
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
    throw new EvaluatorError('protocol', `the command's output must be {"results": [...]} or a JSON array of results; it begins ${preview(text)}.`);
  }
  if (results.length !== count) {
    throw new EvaluatorError(
      'protocol',
      `the command returned ${results.length} result${results.length === 1 ? '' : 's'} for ${count} candidate${count === 1 ? '' : 's'}; it must return one result per candidate, in order.`,
    );
  }
  return results.map((entry, i) => outcome(entry, i, names));
}

function outcome(entry: unknown, index: number, names: MeasuredNames): EvaluationOutcome {
  if (!isObject(entry)) {
    return { ok: false, error: `result ${index} is ${JSON.stringify(entry)}, not an object of objective values.` };
  }
  const bare = !('objectives' in entry);
  if (reportsFailure(entry, names, bare)) {
    const reason = typeof entry.error === 'string' ? entry.error : JSON.stringify(entry.error);
    return { ok: false, error: `the command reported: ${reason}` };
  }
  const source = bare ? entry : entry.objectives;
  if (!isObject(source)) {
    return { ok: false, error: `result ${index} has objectives ${JSON.stringify(source)}, not an object of objective values.` };
  }
  return readMeasured(source, entry, names, `result ${index}`);
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
