import type { MeasuredNames } from './measured.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { BuiltinEvaluator } from './builtin.js';
import { CommandEvaluator, splitCommand } from './command.js';
import { HttpEvaluator } from './http.js';
import { EvaluatorError, type Evaluator, type EvaluatorOptions } from './types.js';

export interface ServiceEvaluatorOptions extends EvaluatorOptions {
  /**
   * Hosts http evaluators may post to (KILN_HTTP_EVALUATOR_HOSTS; see HttpEvaluatorSettings.allowHosts).
   * Only the Kiln service passes it: without it, http evaluators are 'unsupported'.
   */
  httpAllowHosts?: readonly string[];
}

/**
 * The evaluator a campaign's MDL asks for (external when it names none). Builtin and command
 * evaluators run anywhere; http evaluators run where options.httpAllowHosts is given (the Kiln
 * service) and external ones only in the service, so asking for them elsewhere throws an
 * EvaluatorError (code 'unsupported'). Command evaluators run programs on this machine and are
 * refused (code 'refused') unless options.allowCommand is set; http evaluators are refused when
 * their host is not allowed.
 */
export function createEvaluator(mdl: Mdl, options: ServiceEvaluatorOptions): Evaluator {
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
        names: measuredNames(mdl),
        timeoutSeconds: evaluator.timeout_seconds,
        cwd: options.cwd,
      });
    }
    case 'http':
      if (options.httpAllowHosts) {
        return new HttpEvaluator({
          url: evaluator.url,
          headers: evaluator.headers,
          timeoutSeconds: evaluator.timeout_seconds,
          names: measuredNames(mdl),
          allowHosts: options.httpAllowHosts,
        });
      }
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

/** What every result of this campaign must report: its objectives and outcomes, in MDL order. */
function measuredNames(mdl: Mdl): MeasuredNames {
  return { objectives: mdl.objectives.map((o) => o.name), outcomes: mdl.outcomes.map((o) => o.name) };
}
