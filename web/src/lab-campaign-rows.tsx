import type { ConstraintDraft, ObjectiveDraft, OutcomeDraft, ParameterDraft, ParameterType } from './lab-campaign-draft.js';
import { RowProblems, valueOf, type FieldProblems } from './lab-campaign-fields.js';

/**
 * The rows of the people-entered campaign form, one table per list of the document: each input is
 * labelled by its column and row ("lower bound of parameter 2"), marked invalid with the API's
 * problems listed under its row, and each row has a Remove button named for the row.
 */

interface Rows<T> {
  rows: T[];
  problems: FieldProblems;
  onChange: (index: number, row: T) => void;
  onRemove: (index: number) => void;
}

const rowName = (what: string, i: number, name: string) => `${what} ${i + 1}${name.trim() ? ` (${name.trim()})` : ''}`;

function Remove({ label, onRemove }: { label: string; onRemove: () => void }) {
  return (
    <button type="button" class="linkish" aria-label={`Remove ${label}`} onClick={onRemove}>
      Remove
    </button>
  );
}

export function ParameterRows({ rows, problems, onChange, onRemove }: Rows<ParameterDraft>) {
  return (
    <table class="draft-table" data-testid="parameter-rows">
      <thead>
        <tr>
          <th scope="col" class="w-name">
            Name
          </th>
          <th scope="col" class="w-type">
            Type
          </th>
          <th scope="col">Lower bound</th>
          <th scope="col">Upper bound</th>
          <th scope="col">Step</th>
          <th scope="col" class="w-values">
            Values
          </th>
          <th scope="col">Unit</th>
          <th scope="col">
            <span class="visually-hidden">Remove</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((p, i) => {
          const at = `parameters[${i}]`;
          const set = (change: Partial<ParameterDraft>) => onChange(i, { ...p, ...change });
          const label = (field: string) => `${field} of parameter ${i + 1}`;
          const ranged = p.type !== 'categorical';
          return [
            <tr key={p.key} data-row={i}>
              <td>
                <input
                  id={`${at}.name`}
                  aria-label={label('name')}
                  value={p.name}
                  onInput={(e) => set({ name: valueOf(e) })}
                  {...problems.attributes(`${at}.name`)}
                />
              </td>
              <td>
                <select
                  aria-label={label('type')}
                  value={p.type}
                  onChange={(e) => set({ type: valueOf(e) as ParameterType })}
                  {...problems.attributes(`${at}.type`)}
                >
                  <option value="continuous">continuous</option>
                  <option value="integer">integer</option>
                  <option value="categorical">categorical</option>
                </select>
              </td>
              {ranged ? (
                <>
                  <td>
                    <input
                      class="number"
                      inputMode="decimal"
                      aria-label={label('lower bound')}
                      value={p.lower}
                      onInput={(e) => set({ lower: valueOf(e) })}
                      {...problems.attributes(`${at}.bounds`)}
                    />
                  </td>
                  <td>
                    <input
                      class="number"
                      inputMode="decimal"
                      aria-label={label('upper bound')}
                      value={p.upper}
                      onInput={(e) => set({ upper: valueOf(e) })}
                      {...problems.attributes(`${at}.bounds`)}
                    />
                  </td>
                  <td>
                    <input
                      class="number"
                      inputMode="decimal"
                      aria-label={label('step')}
                      value={p.step}
                      placeholder="any"
                      onInput={(e) => set({ step: valueOf(e) })}
                      {...problems.attributes(`${at}.step`)}
                    />
                  </td>
                </>
              ) : (
                <td colSpan={3} class="muted">
                  choices only, no bounds
                </td>
              )}
              <td>
                <input
                  aria-label={ranged ? label('allowed values, comma-separated') : label('choices, comma-separated')}
                  value={p.values}
                  placeholder={ranged ? 'any' : 'a, b, c'}
                  onInput={(e) => set({ values: valueOf(e) })}
                  {...problems.attributes(`${at}.values`)}
                />
              </td>
              <td>
                {ranged && (
                  <input aria-label={label('unit')} value={p.unit} onInput={(e) => set({ unit: valueOf(e) })} {...problems.attributes(`${at}.unit`)} />
                )}
              </td>
              <td>
                <Remove label={rowName('parameter', i, p.name)} onRemove={() => onRemove(i)} />
              </td>
            </tr>,
            <RowProblems
              key={`${p.key}-problems`}
              problems={problems}
              columns={8}
              fields={[
                [at, ''],
                [`${at}.name`, 'Name'],
                [`${at}.type`, 'Type'],
                [`${at}.bounds`, 'Bounds'],
                [`${at}.step`, 'Step'],
                [`${at}.values`, ranged ? 'Values' : 'Choices'],
                [`${at}.unit`, 'Unit'],
              ]}
            />,
          ];
        })}
      </tbody>
    </table>
  );
}

export function ObjectiveRows({ rows, problems, onChange, onRemove }: Rows<ObjectiveDraft>) {
  return (
    <table class="draft-table" data-testid="objective-rows">
      <thead>
        <tr>
          <th scope="col" class="w-name">
            Name
          </th>
          <th scope="col" class="w-type">
            Direction
          </th>
          <th scope="col">Unit</th>
          <th scope="col">Reference (worst acceptable)</th>
          <th scope="col">
            <span class="visually-hidden">Remove</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((o, i) => {
          const at = `objectives[${i}]`;
          const set = (change: Partial<ObjectiveDraft>) => onChange(i, { ...o, ...change });
          const label = (field: string) => `${field} of objective ${i + 1}`;
          return [
            <tr key={o.key} data-row={i}>
              <td>
                <input
                  id={`${at}.name`}
                  aria-label={label('name')}
                  value={o.name}
                  onInput={(e) => set({ name: valueOf(e) })}
                  {...problems.attributes(`${at}.name`)}
                />
              </td>
              <td>
                <select
                  aria-label={label('direction')}
                  value={o.direction}
                  onChange={(e) => set({ direction: valueOf(e) as ObjectiveDraft['direction'] })}
                  {...problems.attributes(`${at}.direction`)}
                >
                  <option value="maximize">maximize</option>
                  <option value="minimize">minimize</option>
                </select>
              </td>
              <td>
                <input aria-label={label('unit')} value={o.unit} onInput={(e) => set({ unit: valueOf(e) })} {...problems.attributes(`${at}.unit`)} />
              </td>
              <td>
                <input
                  class="number"
                  inputMode="decimal"
                  aria-label={label('reference')}
                  value={o.reference}
                  placeholder="from the first data"
                  onInput={(e) => set({ reference: valueOf(e) })}
                  {...problems.attributes(`${at}.reference`)}
                />
              </td>
              <td>
                <Remove label={rowName('objective', i, o.name)} onRemove={() => onRemove(i)} />
              </td>
            </tr>,
            <RowProblems
              key={`${o.key}-problems`}
              problems={problems}
              columns={5}
              fields={[
                [at, ''],
                [`${at}.name`, 'Name'],
                [`${at}.direction`, 'Direction'],
                [`${at}.unit`, 'Unit'],
                [`${at}.reference`, 'Reference'],
              ]}
            />,
          ];
        })}
      </tbody>
    </table>
  );
}

export function OutcomeRows({ rows, problems, onChange, onRemove }: Rows<OutcomeDraft>) {
  if (rows.length === 0) return null;
  return (
    <table class="draft-table" data-testid="outcome-rows">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Unit</th>
          <th scope="col">
            <span class="visually-hidden">Remove</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((o, i) => {
          const at = `outcomes[${i}]`;
          const set = (change: Partial<OutcomeDraft>) => onChange(i, { ...o, ...change });
          return [
            <tr key={o.key} data-row={i}>
              <td>
                <input
                  id={`${at}.name`}
                  aria-label={`name of outcome ${i + 1}`}
                  value={o.name}
                  onInput={(e) => set({ name: valueOf(e) })}
                  {...problems.attributes(`${at}.name`)}
                />
              </td>
              <td>
                <input
                  aria-label={`unit of outcome ${i + 1}`}
                  value={o.unit}
                  onInput={(e) => set({ unit: valueOf(e) })}
                  {...problems.attributes(`${at}.unit`)}
                />
              </td>
              <td>
                <Remove label={rowName('outcome', i, o.name)} onRemove={() => onRemove(i)} />
              </td>
            </tr>,
            <RowProblems
              key={`${o.key}-problems`}
              problems={problems}
              columns={3}
              fields={[
                [at, ''],
                [`${at}.name`, 'Name'],
                [`${at}.unit`, 'Unit'],
              ]}
            />,
          ];
        })}
      </tbody>
    </table>
  );
}

export function ConstraintRows({ rows, problems, onChange, onRemove }: Rows<ConstraintDraft>) {
  if (rows.length === 0) return null;
  return (
    <table class="draft-table" data-testid="constraint-rows">
      <thead>
        <tr>
          <th scope="col">Condition</th>
          <th scope="col">
            <span class="visually-hidden">Remove</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c, i) => {
          const at = `outcome_constraints[${i}]`;
          return [
            <tr key={c.key} data-row={i}>
              <td>
                <input
                  id={`${at}.expression`}
                  class="expression"
                  aria-label={`condition of outcome constraint ${i + 1}`}
                  value={c.expression}
                  placeholder="viscosity <= 10"
                  onInput={(e) => onChange(i, { ...c, expression: valueOf(e) })}
                  {...problems.attributes(`${at}.expression`)}
                />
              </td>
              <td>
                <Remove label={rowName('outcome constraint', i, c.expression)} onRemove={() => onRemove(i)} />
              </td>
            </tr>,
            <RowProblems
              key={`${c.key}-problems`}
              problems={problems}
              columns={2}
              fields={[
                [at, ''],
                [`${at}.expression`, 'Condition'],
              ]}
            />,
          ];
        })}
      </tbody>
    </table>
  );
}
