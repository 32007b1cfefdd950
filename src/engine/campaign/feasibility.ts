import { compileConstraint, type CompiledConstraint } from '../mdl/expression.js';
import type { Mdl } from '../mdl/schema.js';
import type { EvaluationRecord } from './types.js';

/**
 * Outcome constraints: inequalities over measured values (objectives and outcomes) that an
 * evaluation must meet to count. Only feasible evaluations enter the Pareto front, the
 * hypervolume and the best values; every evaluation still teaches the models.
 */

const compiledByMdl = new WeakMap<Mdl, CompiledConstraint[]>();

/** The campaign's outcome constraints, compiled once per MDL object. */
export function outcomeConstraints(mdl: Mdl): CompiledConstraint[] {
  let compiled = compiledByMdl.get(mdl);
  if (!compiled) {
    const names = [...mdl.objectives.map((o) => o.name), ...(mdl.outcomes ?? []).map((o) => o.name)];
    compiled = (mdl.outcome_constraints ?? []).map(({ expression }) => {
      const result = compileConstraint(expression, names, undefined, 'outcome or objective');
      if (!result.ok) {
        throw new Error(`outcome constraint "${expression}": ${result.errors.map((e) => e.message).join('; ')} (validate the MDL first)`);
      }
      return result.constraint;
    });
    compiledByMdl.set(mdl, compiled);
  }
  return compiled;
}

/**
 * The measured values of a successful evaluation by name: objectives and outcomes. Object.assign,
 * not spread syntax: with tens of outcomes the spread runs about 20 times slower in V8, and every
 * step merges every evaluation.
 */
function measured(record: EvaluationRecord): Record<string, number> {
  return Object.assign({}, record.objectives, record.outcomes);
}

/** Signed margins of a successful evaluation, one per outcome constraint (positive inside). */
export function evaluationSlacks(mdl: Mdl, record: EvaluationRecord): number[] {
  if (!record.objectives) throw new Error(`evaluation ${record.id} failed: it has no measured values`);
  const values = measured(record);
  return outcomeConstraints(mdl).map((c) => c.slack(values));
}

/** Whether every objective and outcome of the MDL was measured (a finite value). */
export function isComplete(mdl: Mdl, record: EvaluationRecord): boolean {
  const objectives = record.objectives;
  if (!objectives) return false;
  return mdl.objectives.every((o) => Number.isFinite(objectives[o.name])) && (mdl.outcomes ?? []).every((o) => Number.isFinite(record.outcomes?.[o.name]));
}

/** Whether an evaluation succeeded and meets every outcome constraint. */
export function isFeasible(mdl: Mdl, record: EvaluationRecord): boolean {
  if (!isComplete(mdl, record)) return false;
  // called for every evaluation on every iteration: no merged record when nothing constrains it
  const constraints = outcomeConstraints(mdl);
  if (constraints.length === 0) return true;
  const values = measured(record);
  return constraints.every((c) => c.violation(values) === 0);
}
