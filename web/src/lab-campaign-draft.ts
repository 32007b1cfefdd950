// the API's problem shape (problems.tsx names it Problem); from the contract, so this module needs no JSX to check
import type { MdlWarning as Problem } from './contract.js';

/**
 * A campaign whose results people enter, as its form holds it: every field as typed, turned into
 * the MDL document the API is sent (and the form shows as YAML) by `mdlOfDraft`. Nothing is checked
 * here: the API's validation is the one rule, and `placeProblems` puts each of its problems next to
 * the field it is about. Members the form has no field for (a template's parameter constraints,
 * scales, descriptions, optimizer settings) ride along in `extra`, so the YAML shows them and they
 * are sent as they were.
 */

export type ParameterType = 'continuous' | 'integer' | 'categorical';

/** `key` tells rows apart while they are added and removed; it is never sent. */
export interface ParameterDraft {
  key: number;
  name: string;
  type: ParameterType;
  lower: string;
  upper: string;
  step: string;
  /** allowed values (or a categorical parameter's choices), comma-separated */
  values: string;
  unit: string;
  extra: Record<string, unknown>;
}

export interface ObjectiveDraft {
  key: number;
  name: string;
  direction: 'maximize' | 'minimize';
  unit: string;
  reference: string;
  extra: Record<string, unknown>;
}

export interface OutcomeDraft {
  key: number;
  name: string;
  unit: string;
  extra: Record<string, unknown>;
}

export interface ConstraintDraft {
  key: number;
  expression: string;
  extra: Record<string, unknown>;
}

export interface CampaignDraft {
  name: string;
  domain: string;
  description: string;
  parameters: ParameterDraft[];
  objectives: ObjectiveDraft[];
  outcomes: OutcomeDraft[];
  outcomeConstraints: ConstraintDraft[];
  budget: string;
  batchSize: string;
  extra: Record<string, unknown>;
  optimizerExtra: Record<string, unknown>;
}

let lastKey = 0;
const nextKey = () => ++lastKey;

export const blankParameter = (): ParameterDraft => ({
  key: nextKey(),
  name: '',
  type: 'continuous',
  lower: '',
  upper: '',
  step: '',
  values: '',
  unit: '',
  extra: {},
});
export const blankObjective = (): ObjectiveDraft => ({ key: nextKey(), name: '', direction: 'maximize', unit: '', reference: '', extra: {} });
export const blankOutcome = (): OutcomeDraft => ({ key: nextKey(), name: '', unit: '', extra: {} });
export const blankConstraint = (): ConstraintDraft => ({ key: nextKey(), expression: '', extra: {} });

/** The empty form: one parameter and one objective to fill in, no outcomes. */
export function blankDraft(): CampaignDraft {
  return {
    name: '',
    domain: '',
    description: '',
    parameters: [blankParameter()],
    objectives: [blankObjective()],
    outcomes: [],
    outcomeConstraints: [],
    budget: '',
    batchSize: '',
    extra: {},
    optimizerExtra: {},
  };
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * A typed number as the document holds it: empty is absent, a number is a number, and anything
 * else is sent as the text it is, so the API says what is wrong with it ("expected a number, got
 * the text "0,5"") rather than the form guessing.
 */
function numberOrText(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return NUMBER.test(trimmed) ? Number(trimmed) : trimmed;
}

/** "EMC, DMC" → ["EMC", "DMC"]; "45, 63" → [45, 63]. */
function listOf(text: string): (number | string)[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => (NUMBER.test(item) ? Number(item) : item));
}

/** Only the members that hold something, in the order given: the YAML reads as a person would write it. */
function present(members: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(members).filter(([, v]) => v !== undefined && v !== ''));
}

function parameterOf(p: ParameterDraft): Record<string, unknown> {
  const base = { ...p.extra, name: p.name.trim(), type: p.type };
  const values = p.values.trim() === '' ? undefined : listOf(p.values);
  if (p.type === 'categorical') return present({ ...base, values, unit: undefined, scale: undefined, step: undefined, bounds: undefined });
  const [lower, upper] = [numberOrText(p.lower), numberOrText(p.upper)];
  // one bound typed and not the other: the empty one is sent as null, so the API names it
  const bounds = lower === undefined && upper === undefined ? undefined : [lower ?? null, upper ?? null];
  return present({ ...base, bounds, step: numberOrText(p.step), values, unit: p.unit.trim() });
}

/** The MDL document the form makes: what the YAML shows and the API is sent. */
export function mdlOfDraft(d: CampaignDraft): Record<string, unknown> {
  return present({
    ...d.extra,
    name: d.name.trim(),
    domain: d.domain.trim(),
    description: d.description.trim(),
    parameters: d.parameters.map(parameterOf),
    objectives: d.objectives.map((o) =>
      present({ ...o.extra, name: o.name.trim(), direction: o.direction, unit: o.unit.trim(), reference: numberOrText(o.reference) }),
    ),
    outcomes: d.outcomes.length > 0 ? d.outcomes.map((o) => present({ ...o.extra, name: o.name.trim(), unit: o.unit.trim() })) : undefined,
    outcome_constraints: d.outcomeConstraints.length > 0 ? d.outcomeConstraints.map((c) => ({ ...c.extra, expression: c.expression.trim() })) : undefined,
    optimizer: present({ ...d.optimizerExtra, budget: numberOrText(d.budget), batch_size: numberOrText(d.batchSize) }),
    // the point of the form: people measure the candidates and enter the results
    evaluator: { type: 'external' },
  });
}

type Json = Record<string, unknown>;
/** A member as a field shows it: a number or text as written, anything else (a document's mistake) as its JSON, so it is seen and sent back. */
const text = (v: unknown) =>
  v === undefined || v === null ? '' : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
function without(object: Json, keys: string[]): Json {
  return Object.fromEntries(Object.entries(object).filter(([k]) => !keys.includes(k)));
}

/** A document (a template's MDL) as the form's fields, whatever it has no field for kept in `extra`; its evaluator becomes people. */
export function draftOfMdl(mdl: Json): CampaignDraft {
  const list = (v: unknown) => (Array.isArray(v) ? (v as Json[]) : []);
  const optimizer = (mdl.optimizer ?? {}) as Json;
  return {
    name: text(mdl.name),
    domain: text(mdl.domain),
    description: text(mdl.description),
    parameters: list(mdl.parameters).map((p) => {
      const bounds = Array.isArray(p.bounds) ? (p.bounds as unknown[]) : [];
      return {
        key: nextKey(),
        name: text(p.name),
        type: (p.type as ParameterType) ?? 'continuous',
        lower: text(bounds[0]),
        upper: text(bounds[1]),
        step: text(p.step),
        values: Array.isArray(p.values) ? p.values.join(', ') : '',
        unit: text(p.unit),
        extra: without(p, ['name', 'type', 'bounds', 'step', 'values', 'unit']),
      };
    }),
    objectives: list(mdl.objectives).map((o) => ({
      key: nextKey(),
      name: text(o.name),
      direction: o.direction === 'minimize' ? 'minimize' : 'maximize',
      unit: text(o.unit),
      reference: text(o.reference),
      extra: without(o, ['name', 'direction', 'unit', 'reference']),
    })),
    outcomes: list(mdl.outcomes).map((o) => ({ key: nextKey(), name: text(o.name), unit: text(o.unit), extra: without(o, ['name', 'unit']) })),
    outcomeConstraints: list(mdl.outcome_constraints).map((c) => ({ key: nextKey(), expression: text(c.expression), extra: without(c, ['expression']) })),
    budget: text(optimizer.budget),
    batchSize: text(optimizer.batch_size),
    extra: without(mdl, ['name', 'domain', 'description', 'parameters', 'objectives', 'outcomes', 'outcome_constraints', 'optimizer', 'evaluator']),
    optimizerExtra: without(optimizer, ['budget', 'batch_size']),
  };
}

/** Every place the form can show a problem: its fields, each row as a whole, each list as a whole. */
export function fieldKeys(d: CampaignDraft): string[] {
  const rows = (list: string, count: number, fields: string[]) =>
    Array.from({ length: count }, (_, i) => [`${list}[${i}]`, ...fields.map((f) => `${list}[${i}].${f}`)]).flat();
  return [
    'name',
    'domain',
    'description',
    'parameters',
    'objectives',
    'outcomes',
    'outcome_constraints',
    'optimizer.budget',
    'optimizer.batch_size',
    ...rows('parameters', d.parameters.length, ['name', 'type', 'bounds', 'step', 'values', 'unit']),
    ...rows('objectives', d.objectives.length, ['name', 'direction', 'unit', 'reference']),
    ...rows('outcomes', d.outcomes.length, ['name', 'unit']),
    ...rows('outcome_constraints', d.outcomeConstraints.length, ['expression']),
  ];
}

/**
 * Each problem at the most specific place the form has for it (`parameters[0].bounds[1]` at the
 * bounds of the first parameter; `parameters[0].scale`, kept from a template, at that row), and
 * those with no place (the document as a whole, members the form keeps without a field) apart.
 */
export function placeProblems(problems: readonly Problem[], keys: readonly string[]): { at: Map<string, Problem[]>; unplaced: Problem[] } {
  const at = new Map<string, Problem[]>();
  const unplaced: Problem[] = [];
  const byLength = [...keys].sort((a, b) => b.length - a.length);
  for (const problem of problems) {
    const key = byLength.find((k) => problem.path === k || problem.path.startsWith(`${k}.`) || problem.path.startsWith(`${k}[`));
    if (key === undefined) unplaced.push(problem);
    else at.set(key, [...(at.get(key) ?? []), problem]);
  }
  return { at, unplaced };
}
