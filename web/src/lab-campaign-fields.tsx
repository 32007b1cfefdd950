import type { ComponentChildren } from 'preact';
import type { Problem } from './problems.js';

/**
 * How the people-entered campaign form shows the API's problems beside its fields: a field with
 * problems is marked invalid and described by them, and each list of problems names the field it
 * is about, so a screen reader and a sighted person read the same thing at the same place.
 */
export interface FieldProblems {
  /** the problems placed at `key` (a path in the document: `parameters[0].bounds`) */
  at(key: string): Problem[];
  /** the attributes of the control for `key`: invalid and described by its problems, when it has any */
  attributes(key: string): { 'aria-invalid'?: true; 'aria-describedby'?: string };
}

export const problemId = (key: string) => `problem-${key.replace(/[^\w]+/g, '-')}`;

export function fieldProblems(placed: ReadonlyMap<string, Problem[]>): FieldProblems {
  const at = (key: string) => placed.get(key) ?? [];
  return {
    at,
    attributes: (key) => (at(key).length > 0 ? { 'aria-invalid': true, 'aria-describedby': problemId(key) } : {}),
  };
}

/** The problems of some fields, each named by its field's label ("Bounds: lower bound 5 must be below upper bound 1"). */
export function ProblemsOf({ problems, fields }: { problems: FieldProblems; fields: [key: string, label: string][] }) {
  const shown = fields.filter(([key]) => problems.at(key).length > 0);
  if (shown.length === 0) return null;
  return (
    <div class="field-problems">
      {shown.map(([key, label]) => (
        <p id={problemId(key)} data-testid="field-problem" data-path={key}>
          {problems.at(key).map((p) => (
            <span>
              {label ? `${label}: ` : ''}
              {p.message}{' '}
            </span>
          ))}
        </p>
      ))}
    </div>
  );
}

/** A row's problems under the row, across the table, so a long message never squeezes a column. */
export function RowProblems({ problems, fields, columns }: { problems: FieldProblems; fields: [key: string, label: string][]; columns: number }) {
  if (fields.every(([key]) => problems.at(key).length === 0)) return null;
  return (
    <tr class="row-problems">
      <td colSpan={columns}>
        <ProblemsOf problems={problems} fields={fields} />
      </td>
    </tr>
  );
}

/** A section of the form: its legend, a line on what it is for, its rows and the button that adds one. */
export function Section({
  legend,
  hint,
  children,
  onAdd,
  addLabel,
  addId,
}: {
  legend: string;
  hint: ComponentChildren;
  children: ComponentChildren;
  onAdd?: () => void;
  addLabel?: string;
  /** the add button's id: the focus goes there when a row of the section is removed */
  addId?: string;
}) {
  return (
    <fieldset class="draft-section">
      <legend>{legend}</legend>
      <p class="muted hint">{hint}</p>
      {children}
      {onAdd && (
        <button type="button" id={addId} class="secondary" onClick={onAdd}>
          {addLabel}
        </button>
      )}
    </fieldset>
  );
}

/** The value of the input or select an event came from. */
export const valueOf = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
