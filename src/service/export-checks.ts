import type { Mdl, Parameter } from '../engine/mdl/schema.js';
import type { ExportDocument, ExportedEvaluation } from './export-schema.js';
import type { FieldError } from './validation.js';

/** More problems than this are summarized: a document from another campaign fails on every row. */
const MAX_PROBLEMS = 50;

/**
 * What an export document must satisfy beyond its shape before a campaign continues from it:
 * evaluations that fit the MDL's parameters, objectives and outcomes, and an engine state that
 * agrees with its evaluations and iterations. Returns every problem found (up to MAX_PROBLEMS),
 * each with its path in the document.
 */
export function documentProblems(doc: ExportDocument, mdl: Mdl): FieldError[] {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  doc.evaluations.forEach((e, k) => {
    if (problems.length >= MAX_PROBLEMS) return;
    const path = `evaluations[${k}]`;
    if (seen.has(e.id)) problems.push({ path: `${path}.id`, message: `${e.id} appears more than once; evaluation ids must be distinct` });
    seen.add(e.id);
    problems.push(...parameterProblems(mdl, e, path), ...resultProblems(mdl, e, path));
  });
  if (problems.length >= MAX_PROBLEMS) {
    return [
      ...problems.slice(0, MAX_PROBLEMS),
      { path: 'evaluations', message: `more problems not listed: are these the evaluations of this MDL's campaign?` },
    ];
  }
  problems.push(...stateProblems(doc, mdl));
  return problems;
}

function parameterProblems(mdl: Mdl, e: ExportedEvaluation, path: string): FieldError[] {
  const problems: FieldError[] = [];
  const names = new Set(mdl.parameters.map((p) => p.name));
  for (const p of mdl.parameters) {
    const value = e.parameters[p.name];
    const at = `${path}.parameters.${p.name}`;
    if (value === undefined) problems.push({ path: at, message: `is missing: the MDL's parameters are ${[...names].join(', ')}` });
    else {
      const wrong = valueProblem(p, value, e.iteration > 0);
      if (wrong) problems.push({ path: at, message: wrong });
    }
  }
  for (const extra of Object.keys(e.parameters).filter((n) => !names.has(n))) {
    problems.push({ path: `${path}.parameters.${extra}`, message: `is not a parameter of the MDL (${[...names].join(', ')})` });
  }
  return problems;
}

/**
 * Why `value` cannot be this parameter's, if it cannot. Bounds are checked for proposed points
 * only: warm-start rows (iteration 0) may lie outside them, as a dataset's flagged rows do.
 */
function valueProblem(p: Parameter, value: number | string, proposed: boolean): string | null {
  if (p.type === 'categorical') return p.values.includes(value) ? null : `${JSON.stringify(value)} is not one of the values ${JSON.stringify(p.values)}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a finite number, not ${JSON.stringify(value)}`;
  if (p.type === 'integer' && !Number.isInteger(value)) return `must be a whole number (integer parameter), not ${value}`;
  const [lower, upper] = p.bounds;
  const slack = 1e-9 * Math.max(1, upper - lower);
  if (proposed && (value < lower - slack || value > upper + slack)) return `${value} lies outside the bounds [${lower}, ${upper}]`;
  return null;
}

function resultProblems(mdl: Mdl, e: ExportedEvaluation, path: string): FieldError[] {
  if (e.status === 'failed') {
    return e.objectives === null ? [] : [{ path: `${path}.objectives`, message: 'must be null for a failed evaluation (its error says why)' }];
  }
  if (e.objectives === null) {
    return e.status === 'completed' ? [{ path: `${path}.objectives`, message: 'is required for a completed evaluation' }] : [];
  }
  const problems = namedValues(
    e.objectives,
    mdl.objectives.map((o) => o.name),
    `${path}.objectives`,
    'objective',
  );
  if (mdl.outcomes.length > 0) {
    if (e.outcomes === null)
      problems.push({ path: `${path}.outcomes`, message: `is required: the MDL measures outcomes ${mdl.outcomes.map((o) => o.name).join(', ')}` });
    else
      problems.push(
        ...namedValues(
          e.outcomes,
          mdl.outcomes.map((o) => o.name),
          `${path}.outcomes`,
          'outcome',
        ),
      );
  }
  return problems;
}

function namedValues(given: Record<string, number>, wanted: readonly string[], path: string, noun: string): FieldError[] {
  const problems: FieldError[] = [];
  for (const name of wanted) {
    if (!Number.isFinite(given[name]))
      problems.push({ path: `${path}.${name}`, message: `must be a finite number (the MDL's ${noun}s are ${wanted.join(', ')})` });
  }
  for (const extra of Object.keys(given).filter((n) => !wanted.includes(n))) {
    problems.push({ path: `${path}.${extra}`, message: `is not an ${noun} of the MDL (${wanted.join(', ') || 'none'})` });
  }
  return problems;
}

/** The engine state, the iterations and the evaluations must tell the same story. */
function stateProblems(doc: ExportDocument, mdl: Mdl): FieldError[] {
  const state = doc.engine_state;
  const pendingRows = doc.evaluations.filter((e) => e.status === 'pending');
  if (state === null) {
    const problems: FieldError[] = [];
    if (doc.iterations.length > 0) problems.push({ path: 'iterations', message: 'must be empty when engine_state is null (a campaign that never ran)' });
    if (doc.evaluations.some((e) => e.iteration > 0))
      problems.push({ path: 'evaluations', message: 'a campaign that never ran (engine_state null) holds warm-start rows (iteration 0) only' });
    return problems;
  }
  const problems: FieldError[] = [];
  if (state.seed !== doc.campaign.seed)
    problems.push({ path: 'engine_state.seed', message: `is ${state.seed} but campaign.seed is ${doc.campaign.seed}; they must agree` });
  if (state.referencePoint !== null && state.referencePoint.length !== mdl.objectives.length) {
    problems.push({
      path: 'engine_state.referencePoint',
      message: `has ${state.referencePoint.length} values for the MDL's ${mdl.objectives.length} objectives`,
    });
  }
  if (doc.iterations.length !== state.iteration || doc.iterations.some((it, k) => it.iteration !== k + 1)) {
    problems.push({
      path: 'iterations',
      message: `must list iterations 1 to ${state.iteration} in order (engine_state.iteration is ${state.iteration}), one entry each`,
    });
  }
  const late = doc.evaluations.findIndex((e) => e.status !== 'pending' && e.iteration > state.iteration);
  if (late >= 0)
    problems.push({
      path: `evaluations[${late}].iteration`,
      message: `is after the last completed iteration (${state.iteration}); only pending evaluations may belong to the next`,
    });
  const pendingIds = new Set(state.pending.map((p) => p.id));
  const listed = new Set(pendingRows.map((e) => e.id));
  if (pendingIds.size !== listed.size || [...pendingIds].some((id) => !listed.has(id))) {
    problems.push({
      path: 'evaluations',
      message: `the pending evaluations (${[...listed].join(', ') || 'none'}) must be the engine state's pending batch (${[...pendingIds].join(', ') || 'none'})`,
    });
  }
  state.pending.forEach((p, k) => {
    const wrong = mdl.parameters.filter((param) => p.parameters[param.name] === undefined).map((param) => param.name);
    if (wrong.length > 0) problems.push({ path: `engine_state.pending[${k}].parameters`, message: `lacks ${wrong.join(', ')}` });
  });
  return problems;
}
