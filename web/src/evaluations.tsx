import { useState } from 'preact/hooks';
import type { ResultRow } from './api.js';
import { formatNumber, labelOf } from './format.js';
import { Pager } from './pager.js';

const ROWS_PER_PAGE = 100;

/** A column of the table: an MDL parameter, objective or outcome, headed by its name and unit. */
export interface Column {
  name: string;
  unit?: string;
  kind: 'parameter' | 'objective' | 'outcome';
}

function value(r: ResultRow, column: Column | 'iteration'): number | string {
  if (column === 'iteration') return r.iteration;
  if (column.kind === 'objective') return r.objectives[column.name];
  if (column.kind === 'outcome') return r.outcomes?.[column.name] ?? '';
  return r.parameters[column.name] ?? '';
}

const cell = (v: number | string) => (typeof v === 'number' ? formatNumber(v) : v);

/**
 * Every evaluation, sortable by any column (click a heading), Pareto rows marked; a page of rows
 * at a time, since a large campaign has thousands and the table is redrawn on every iteration.
 * A campaign with many parameters is wider than a laptop: the table scrolls sideways with the
 * iteration column kept in view, and the column chooser hides what is not needed.
 */
export function EvaluationTable({
  rows,
  columns,
  constrained,
  corrected,
}: {
  rows: ResultRow[];
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
  // iteration, id, Pareto (and Feasible) are always shown: counted, so the summary matches the table
  const fixed = constrained ? 4 : 3;
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
              <th scope="col">Pareto</th>
              {constrained && <th scope="col">Feasible</th>}
              {visible.map((c) => heading(c.name, labelOf(c.name, c.unit)))}
            </tr>
          </thead>
          <tbody>
            {sorted.slice((shown - 1) * ROWS_PER_PAGE, shown * ROWS_PER_PAGE).map((r) => (
              <tr class={r.is_pareto ? 'pareto' : r.feasible === false ? 'infeasible' : ''}>
                <td>{r.iteration}</td>
                <td>
                  {r.id}
                  {corrected?.has(r.id) && (
                    <span class="badge" title="corrected: the values it had are in the history under Corrections">
                      corrected
                    </span>
                  )}
                </td>
                <td>
                  {r.is_pareto ? (
                    <span title="on the Pareto front">
                      ★<span class="visually-hidden"> Pareto</span>
                    </span>
                  ) : (
                    ''
                  )}
                </td>
                {constrained && <td>{r.feasible === false ? 'no' : 'yes'}</td>}
                {visible.map((c) => (
                  <td>{cell(value(r, c))}</td>
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
