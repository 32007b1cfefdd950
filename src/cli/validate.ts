import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { parseMdl } from '../engine/mdl/parse.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { builtinEvaluators } from '../engine/problems/registry.js';
import { processIo, type CliIo } from './io.js';
import { formatProblem } from './problems.js';

/**
 * `kiln validate campaign.yaml`: checks an MDL file and prints a one-line summary and its
 * pre-flight warnings (exit code 0), or every problem (exit code 1), each located as formatProblem
 * writes it.
 */
export function validateCommand(io: Pick<CliIo, 'out' | 'err'> = processIo): Command {
  return new Command('validate')
    .description('check an MDL campaign file (YAML or JSON) and list every problem with its location')
    .argument('<campaign>', 'MDL document (YAML or JSON)')
    .action((file: string) => {
      const code = validateFile(file, io);
      if (code !== 0) process.exitCode = code;
    });
}

/** Validates the MDL file `file`; returns the exit code (0 valid, 1 invalid or unreadable). */
export function validateFile(file: string, io: Pick<CliIo, 'out' | 'err'>): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    io.err(`kiln: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}`);
    return 1;
  }
  const format = /\.json$/i.test(file) ? 'json' : /\.ya?ml$/i.test(file) ? 'yaml' : undefined;
  const result = parseMdl(text, format, { builtins: builtinEvaluators });
  if (!result.ok) {
    for (const issue of result.errors) io.err(formatProblem(file, issue));
    const count = result.errors.length;
    io.err(`${file} is not valid: ${count} ${count === 1 ? 'problem' : 'problems'}`);
    return 1;
  }
  io.out(`${file} is valid: ${summary(result.mdl)}`);
  for (const issue of result.warnings) io.err(formatProblem(file, issue, 'warning'));
  return 0;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function summary(mdl: Mdl): string {
  const kinds = (['continuous', 'integer', 'categorical'] as const)
    .map((kind) => [kind, mdl.parameters.filter((p) => p.type === kind).length] as const)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${count} ${kind}`);
  const { optimizer } = mdl;
  const evaluator = mdl.evaluator ?? { type: 'external' as const };
  const evaluatorText =
    evaluator.type === 'builtin'
      ? `builtin evaluator ${evaluator.name}`
      : evaluator.type === 'http'
        ? `http evaluator at ${new URL(evaluator.url).host}`
        : `${evaluator.type} evaluator`;
  return [
    `${plural(mdl.parameters.length, 'parameter')} (${kinds.join(', ')})`,
    plural(mdl.objectives.length, 'objective'),
    plural(mdl.constraints.length, 'constraint'),
    `budget ${optimizer.budget} in batches of ${optimizer.batch_size}`,
    `${optimizer.method} optimizer`,
    evaluatorText,
  ].join(', ');
}
