import { useState } from 'preact/hooks';
import type { FailedRow, ResultRow, ResultStatus } from './api.js';
import { formatNumber, formatParameter, labelOf, type ParameterShape } from './format.js';
import { Pager } from './pager.js';

/** One row of the table: a scored evaluation (measured or partial), or one without a value (failed, abandoned). */
export interface TableRow {
  id: string;
  iteration: number;
  parameters: Record<string, number | string>;
  objectives: Record<string, number>;
  outcomes?: Record<string, number>;
  status: ResultStatus;
  /** why a failed or abandoned one has no value */
  error?: string;
  is_pareto: boolean;
  feasible?: boolean;
}

/** Every stored evaluation, scored or not, in iteration order: the table lists them all, each with its state. */
export function tableRows(rows: readonly ResultRow[], failed: readonly FailedRow[] = []): TableRow[] {
  return [...rows, ...failed.map((f) => ({ ...f, objectives: {}, is_pareto: false }))].sort((a, b) => a.iteration - b.iteration);
}

/** What a state reads as in the table: "partial (f2 not measured)", "abandoned: furnace down". */
export function stateText(r: TableRow, measures: readonly { name: string }[]): string {
  if (r.status === 'failed' || r.status === 'abandoned') return `${r.status}${r.error ? `: ${r.error}` : ''}`;
  if (r.status === 'partial') {
    const missing = measures.filter((m) => !Number.isFinite(r.objectives[m.name] ?? r.outcomes?.[m.name])).map((m) => m.name);
    return `partial (${missing.join(', ')} not measured)`;
  }
  return 'measured';
}

const ROWS_PER_PAGE = 100;

/** A column of the table: an MDL parameter (with what decides how its values are written), objective or outcome, headed by its name and unit. */
export interface Column extends Partial<Omit<ParameterShape, 'name' | 'unit'>> {
  name: string;
  unit?: string;
  kind: 'parameter' | 'objective' | 'outcome';
}

function value(r: TableRow, column: Column | 'iteration'): number | string {
  if (column === 'iteration') return r.iteration;
  if (column.kind === 'objective') return r.objectives[column.name] ?? '';
  if (column.kind === 'outcome') return r.outcomes?.[column.name] ?? '';
  return r.parameters[column.name] ?? '';
}

/** A measured value to 5 significant digits; a parameter as a lab sets it, as the worklist writes it. */
function cell(v: number | string, column: Column): string {
  if (column.kind === 'parameter' && v !== '') return formatParameter(v, { ...column, type: column.type ?? 'continuous' });
  if (v === '' && column.kind !== 'parameter') return '—';
  return typeof v === 'number' ? formatNumber(v) : v;
}

/**
 * Every evaluation, sortable by any column (click a heading), Pareto rows marked, each with its
 * state: measured, partial (which values are missing), failed or abandoned (and why); a page of
 * rows at a time, since a large campaign has thousands and the table is redrawn on every
 * iteration. A campaign with many parameters is wider than a laptop: the table scrolls sideways
 * with the iteration column kept in view, and the column chooser hides what is not needed.
 */
export function EvaluationTable({
  rows,
  columns,
  constrained,
  corrected,
}: {
  rows: TableRow[];
  columns: Column[];
  constrained: boolean;
  /** evaluations whose result was corrected: marked, their old values are in the corrections' history */
  corrected?: ReadonlySet<string>;
}) {
  const [sort, setSort] = useState<{ key: string; descending: boolean }>({ key: 'iteration', descending: false });
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [page, setPage] = useState(1);
  if (rows.length === 0) return <p>No evaluations yet.</p>;
  const pages = Math.max(1, Math.ceil(rows.length / ROWS_PER_PAGE));
  const shown = Math.min(page, pages);
  const visible = columns.filter((c) => !hidden.has(c.name));
  // iteration, id, state, Pareto (and Feasible) are always shown: counted, so the summary matches the table
  const fixed = constrained ? 5 : 4;
  const measures = columns.filter((c) => c.kind !== 'parameter');
  const sortColumn = sort.key === 'iteration' ? 'iteration' : (columns.find((c) => c.name === sort.key) ?? 'iteration');
  const sorted = [...rows].sort((a, b) => {
    const [x, y] = [value(a, sortColumn), value(b, sortColumn)];
    return (x < y ? -1 : x > y ? 1 : 0) * (sort.descending ? -1 : 1);
  });
  const heading = (key: string, text: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button class="linkish" onClick={() => setSort({ key, descending: sort.key === key ? !sort.descending : false })}>
        {text}
      </button>
    </th>
  );
  const toggle = (name: string) => {
    const next = new Set(hidden);
    if (!next.delete(name)) next.add(name);
    setHidden(next);
  };
  return (
    <>
      <details class="columns" data-testid="column-chooser">
        <summary>
          Columns ({visible.length + fixed} of {columns.length + fixed} shown)
        </summary>
        <fieldset>
          <legend class="visually-hidden">Columns to show</legend>
          {columns.map((c) => (
            <label class="check">
              <input type="checkbox" checked={!hidden.has(c.name)} onChange={() => toggle(c.name)} /> {labelOf(c.name, c.unit)}
            </label>
          ))}
        </fieldset>
      </details>
      <div class="scroll table-scroll" data-testid="evaluations-scroll" tabIndex={0} aria-label="Evaluations, scrolls sideways">
        <table data-testid="evaluations" class="evaluations">
          <thead>
            <tr>
              {heading('iteration', 'iteration')}
              <th scope="col">id</th>
              <th scope="col">state</th>
              <th scope="col">Pareto</th>
              {constrained && <th scope="col">Feasible</th>}
              {visible.map((c) => heading(c.name, labelOf(c.name, c.unit)))}
            </tr>
          </thead>
          <tbody>
            {sorted.slice((shown - 1) * ROWS_PER_PAGE, shown * ROWS_PER_PAGE).map((r) => (
              <tr
                data-id={r.id}
                data-status={r.status}
                class={r.is_pareto ? 'pareto' : r.status !== 'measured' ? `unmeasured ${r.status}` : r.feasible === false ? 'infeasible' : ''}
              >
                <td>{r.iteration}</td>
                <td>
                  {r.id}
                  {corrected?.has(r.id) && (
                    <span class="badge" title="corrected: the values it had are in the history under Corrections">
                      corrected
                    </span>
                  )}
                </td>
                <td class="state">{stateText(r, measures)}</td>
                <td>
                  {r.is_pareto ? (
                    <span title="on the Pareto front">
                      ★<span class="visually-hidden"> Pareto</span>
                    </span>
                  ) : (
                    ''
                  )}
                </td>
                {constrained && <td>{r.status !== 'measured' ? '—' : r.feasible === false ? 'no' : 'yes'}</td>}
                {visible.map((c) => (
                  <td>{cell(value(r, c), c)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        page={shown}
        pages={pages}
        label="Evaluation pages"
        position={`rows ${(shown - 1) * ROWS_PER_PAGE + 1}–${Math.min(rows.length, shown * ROWS_PER_PAGE)} of ${rows.length}`}
        onPage={setPage}
      />
    </>
  );
}
