import type { Mdl } from '../../engine/mdl/schema.js';
import { BuiltinEvaluator } from './builtin.js';
import { CommandEvaluator, splitCommand } from './command.js';
import { EvaluatorError, type Evaluator, type EvaluatorOptions } from './types.js';

/**
 * The evaluator a campaign's MDL asks for (external when it names none). Builtin and command
 * evaluators run here; http and external ones belong to the Kiln service, so asking for them here
 * throws an EvaluatorError (code 'unsupported'). Command evaluators run programs on this machine and
 * are refused (code 'refused') unless options.allowCommand is set.
 */
export function createEvaluator(mdl: Mdl, options: EvaluatorOptions): Evaluator {
  const evaluator = mdl.evaluator ?? { type: 'external' as const };
  switch (evaluator.type) {
    case 'builtin':
      return new BuiltinEvaluator(mdl);
    case 'command': {
      const argv = splitCommand(evaluator.command);
      if (!options.allowCommand) {
        throw new EvaluatorError(
          'refused',
          `this campaign's command evaluator would run \`${argv.join(' ')}\` on this machine, and command evaluators are disabled. ` +
            'An administrator must enable them (allowCommand) before such a campaign can run; otherwise use a builtin, http or external evaluator.',
        );
      }
      return new CommandEvaluator({
        argv,
        objectiveNames: mdl.objectives.map((o) => o.name),
        timeoutSeconds: evaluator.timeout_seconds,
        cwd: options.cwd,
      });
    }
    case 'http':
      throw new EvaluatorError(
        'unsupported',
        `http evaluators run inside the Kiln service, which posts each batch to ${evaluator.url}; submit this campaign to the service to evaluate it.`,
      );
    case 'external':
      throw new EvaluatorError(
        'unsupported',
        'this campaign has an external evaluator (the default when none is given): results are posted to the Kiln service from outside. ' +
          'Submit it to the service, or set evaluator.type to builtin or command to evaluate it here.',
      );
  }
}
