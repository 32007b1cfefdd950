import type { Mdl, ParameterValue } from '../mdl/schema.js';
import { withNoise } from './noise.js';
import { builtinEvaluatorIssues, domainSimulator, testProblem } from './registry.js';
import { toUnitCube } from './unit-cube.js';

/** Objective values, and outcome values (MDL `outcomes`), by MDL name for one candidate's parameter values. */
export type BuiltinFunction = (values: Readonly<Record<string, ParameterValue>>) => {
  objectives: Record<string, number>;
  outcomes: Record<string, number>;
};

/**
 * The objective function of an MDL whose evaluator is builtin: a test problem sees the MDL's
 * parameters in order on the unit cube and fills the MDL's objectives in order; a simulator reads
 * and writes by name. Seeded relative noise is added when the evaluator asks for it. Throws when the
 * MDL's evaluator is not builtin or builtinEvaluatorIssues reports anything; the returned function
 * throws an Error naming the parameter when a candidate is malformed or out of bounds.
 */
export function createBuiltinFunction(mdl: Mdl): BuiltinFunction {
  const evaluator = mdl.evaluator;
  if (evaluator?.type !== 'builtin') {
    throw new Error(`the campaign's evaluator is ${evaluator?.type ?? 'external'}, not builtin.`);
  }
  const issues = builtinEvaluatorIssues(mdl);
  if (issues.length > 0) {
    throw new Error(`builtin evaluator '${evaluator.name}' does not fit this campaign: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}.`);
  }
  const objectiveNames = mdl.objectives.map((o) => o.name);
  const parameterNames = mdl.parameters.map((p) => p.name);
  const noise = evaluator.noise ?? 0;
  const seed = evaluator.seed ?? 0;
  const outcomeNames = mdl.outcomes.map((o) => o.name);
  const simulator = domainSimulator(evaluator.name);
  const ranges = Object.fromEntries((simulator?.objectives ?? []).map((o) => [o.name, o.range] as const));
  // outcomes are measurements too: the same noise, drawn after the objectives' (so adding an
  // outcome never changes the objectives' noise)
  const finish = (objectives: Record<string, number>, outcomes: Record<string, number>, values: Readonly<Record<string, ParameterValue>>) => {
    const noisy = withNoise({ ...objectives, ...outcomes }, [...objectiveNames, ...outcomeNames], noise, seed, parameterNames, values, ranges);
    return {
      objectives: Object.fromEntries(objectiveNames.map((name) => [name, noisy[name]])),
      outcomes: Object.fromEntries(outcomeNames.map((name) => [name, noisy[name]])),
    };
  };

  const problem = testProblem(evaluator.name);
  if (problem) {
    const m = objectiveNames.length;
    return (values) => {
      const x = toUnitCube(mdl.parameters, values);
      const f = problem.evaluate(x, m);
      const objectives: Record<string, number> = {};
      objectiveNames.forEach((name, i) => (objectives[name] = f[i]));
      const measured = problem.outcomes?.evaluate(x, f) ?? new Float64Array(0);
      const outcomes: Record<string, number> = {};
      outcomeNames.forEach((name, i) => (outcomes[name] = measured[i]));
      return finish(objectives, outcomes, values);
    };
  }
  if (!simulator) throw new Error(`unknown builtin evaluator '${evaluator.name}'.`);
  return (values) => {
    const outputs = simulator.evaluate(values);
    const objectives: Record<string, number> = {};
    for (const name of objectiveNames) objectives[name] = outputs[name];
    const outcomes: Record<string, number> = {};
    for (const name of outcomeNames) outcomes[name] = outputs[name];
    return finish(objectives, outcomes, values);
  };
}
