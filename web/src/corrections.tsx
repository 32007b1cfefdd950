import { useEffect, useState } from 'preact/hooks';
import { api, apiAll, credential, explain, getText, type Results } from './api.js';
import type { Correction } from './contract.js';
import { formatNumber, labelOf } from './format.js';
import { columnName, csvRows, unescapeCell } from './worklist-file.js';

/**
 * Correcting a posted result of an external (ask/tell) campaign: pick an evaluation, change its
 * values (or mark it failed or abandoned) and say why. The API keeps each correction with the
 * values it replaced, who made it and when; the history below lists them, the old values beside
 * the new. The results, the front and the next model use the corrected values. A result posted
 * for the batch in progress (not an evaluation yet) is corrected the same way: the worklist CSV
 * carries what was posted for each pending candidate.
 */
interface Measure {
  name: string;
  unit?: string;
}

/** What the form sets: a partial result is a measured one with empty fields. */
type Status = 'measured' | 'failed' | 'abandoned';

interface Draft {
  evaluation: string;
  values: Record<string, string>;
  status: Status;
  reason: string;
  comment: string;
}

/** Fired by the worklist after it posted results: the form's list of posted results is read again. */
export const RESULTS_POSTED = 'kiln:results-posted';

/** A result posted for a pending candidate, read from the worklist: cells as the server wrote them (numbers in full). */
interface Posted {
  id: string;
  iteration: number;
  cells: Record<string, string>;
}

/** The worklist's rows that carry a posted result (a status), by column name (the header's without units), text cells unescaped. */
export function postedOf(csv: string): Posted[] {
  const [header, ...rows] = csvRows(csv.replace(/^\uFEFF/, ''));
  if (!header) return [];
  return rows
    .map((r) => Object.fromEntries(header.map((h, k) => [columnName(h), unescapeCell(r[k] ?? '')])))
    .filter((c) => c.status !== '' && c.status !== undefined)
    .map((cells) => ({ id: cells.id, iteration: Number(cells.iteration), cells }));
}

/** A result as the form starts from it: values written in full, so a value left alone is not changed by rounding. */
function draftOf(results: Results, posted: Posted[], measures: Measure[], evaluation: string): Draft {
  const row = results.evaluations.find((r) => r.id === evaluation);
  const failed = results.failed_evaluations?.find((r) => r.id === evaluation);
  const sent = posted.find((p) => p.id === evaluation);
  if (sent && !row && !failed) {
    const values = Object.fromEntries(measures.map((m) => [m.name, sent.cells[m.name] ?? '']));
    return { evaluation, values, status: sent.cells.status as Status, reason: sent.cells.reason ?? '', comment: '' };
  }
  const values: Record<string, string> = {};
  for (const [name, v] of Object.entries({ ...(row?.outcomes ?? {}), ...(row?.objectives ?? {}) })) {
    if (typeof v === 'number' && Number.isFinite(v)) values[name] = String(v);
  }
  // the stored state as it is: an abandoned result stays abandoned unless the person changes it
  return { evaluation, values, status: failed?.status ?? 'measured', reason: failed?.error ?? '', comment: '' };
}

/** The request body of PUT …/evaluations/{id}: empty cells are not measured (null). */
function bodyOf(draft: Draft, objectives: Measure[], outcomes: Measure[]): Record<string, unknown> {
  const comment = draft.comment.trim() ? { comment: draft.comment.trim() } : {};
  if (draft.status !== 'measured') return { status: draft.status, ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}), ...comment };
  const values = (list: Measure[]) =>
    Object.fromEntries(
      list.map((m) => {
        const text = (draft.values[m.name] ?? '').trim();
        if (text === '') return [m.name, null];
        const x = Number(text.replace(',', '.'));
        if (!Number.isFinite(x)) throw new Error(`"${text}" for ${m.name} is not a number.`);
        return [m.name, x];
      }),
    );
  return { status: 'measured', objectives: values(objectives), ...(outcomes.length > 0 ? { outcomes: values(outcomes) } : {}), ...comment };
}

/** A result as one line of the history: "f1 0.31 MPa, f2 4.2 %" in the MDL's order (a partial one marked), or its failure or abandonment. */
export function resultText(r: Correction['previous'], units: Record<string, string | undefined>): string {
  if (r.status === 'abandoned' || r.status === 'failed') return `${r.status}${r.error ? ` (${r.error})` : ''}`;
  const values: Record<string, number> = { ...(r.objectives ?? {}), ...(r.outcomes ?? {}) };
  // in the MDL's order (the order of `units`), whatever order the stored values came in
  const names = [...Object.keys(units).filter((name) => name in values), ...Object.keys(values).filter((name) => !(name in units))];
  const text = names.map((name) => `${name} ${formatNumber(values[name])}${units[name] ? ` ${units[name]}` : ''}`).join(', ');
  return r.status === 'partial' ? `${text} (partial)` : text;
}

export function Corrections({
  id,
  results,
  objectives,
  outcomes,
  running,
  onCorrected,
  onHistory,
}: {
  id: string;
  results: Results;
  objectives: Measure[];
  outcomes: Measure[];
  /** whether a batch may be in progress, with results posted for it */
  running: boolean;
  onCorrected: () => void;
  /** the evaluations corrected so far, for the table to mark */
  onHistory?: (corrected: ReadonlySet<string>) => void;
}) {
  const [posted, setPosted] = useState<Posted[]>([]);
  const [history, setHistory] = useState<Correction[] | null>(null);
  const [keyNames, setKeyNames] = useState<Record<string, string>>({});
  const [draft, setDraft] = useState<Draft | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const units = Object.fromEntries([...objectives, ...outcomes].map((m) => [m.name, m.unit]));
  const loadHistory = async () => {
    try {
      const list = await apiAll<Correction>(`/v1/campaigns/${id}/corrections`);
      setHistory(list);
      onHistory?.(new Set(list.map((c) => c.evaluation_id)));
    } catch (e) {
      setError(explain(e));
    }
  };
  // read when the form is opened: results are posted from the worklist above or by scripts
  const loadPosted = async () => {
    if (!running) return setPosted([]);
    try {
      setPosted(postedOf(await getText(`/v1/campaigns/${id}/worklist`)));
    } catch (e) {
      setError(explain(e));
    }
  };
  useEffect(() => {
    const again = () => void loadPosted();
    addEventListener(RESULTS_POSTED, again);
    return () => removeEventListener(RESULTS_POSTED, again);
  }, [id, running]);
  useEffect(() => {
    void loadHistory();
    void loadPosted();
    // an administrator sees the keys' names; anyone else sees the key id the API records
    api<{ id: string; name: string }[]>('GET', '/v1/api-keys?per_page=100').then(
      (r) => setKeyNames(Object.fromEntries(r.data.map((k) => [k.id, k.name]))),
      () => undefined,
    );
  }, [id]);
  const stored = new Set([...results.evaluations, ...(results.failed_evaluations ?? [])].map((r) => r.id));
  const choices = [
    ...results.evaluations.map((r) => ({ id: r.id, iteration: r.iteration, note: r.status === 'partial' ? ', partial' : '' })),
    ...(results.failed_evaluations ?? []).map((r) => ({ id: r.id, iteration: r.iteration, note: `, ${r.status}` })),
    ...posted.filter((p) => !stored.has(p.id)).map((p) => ({ id: p.id, iteration: p.iteration, note: ', posted, batch in progress' })),
  ].sort((a, b) => a.iteration - b.iteration || a.id.localeCompare(b.id, undefined, { numeric: true }));
  const save = async () => {
    if (!draft) return;
    try {
      const body = bodyOf(draft, objectives, outcomes);
      const answer = (
        await api<{ changed: boolean; correction: Correction | null }>('PUT', `/v1/campaigns/${id}/evaluations/${encodeURIComponent(draft.evaluation)}`, body)
      ).data;
      setError(null);
      if (!answer.changed || !answer.correction) {
        setMessage(`${draft.evaluation} already has these values: nothing changed.`);
        return;
      }
      setMessage(`${draft.evaluation} corrected: ${resultText(answer.correction.previous, units)} → ${resultText(answer.correction.corrected, units)}.`);
      setDraft(null);
      await Promise.all([loadHistory(), loadPosted()]);
      onCorrected();
    } catch (e) {
      setError(explain(e));
    }
  };
  // the API records the key, or the user a sign-in token stands for
  const me = credential.user();
  const by = (keyId: string) => (keyNames[keyId] ? `${keyNames[keyId]} (${keyId})` : me?.id === keyId ? `${me.name} <${me.email}>` : keyId);
  return (
    <section data-testid="corrections">
      <h2>Corrections</h2>
      <p class="muted">
        A posted value was wrong? Pick the evaluation, enter the right values and say why. The old values stay in the history below with who changed them and
        when; the results, the front and the next model use the corrected ones.
      </p>
      {choices.length === 0 && !running ? (
        <p>Nothing to correct yet: results appear here once they are posted.</p>
      ) : (
        <form
          class="correction-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <p class="row">
            <label>
              Evaluation{' '}
              <select
                data-testid="correction-evaluation"
                value={draft?.evaluation ?? ''}
                onFocus={() => void loadPosted()}
                onChange={(e) => {
                  const chosen = e.currentTarget.value;
                  setDraft(chosen ? draftOf(results, posted, [...objectives, ...outcomes], chosen) : null);
                  setMessage(null);
                }}
              >
                <option value="">choose…</option>
                {choices.map((c) => (
                  <option value={c.id}>
                    {c.id} (iteration {c.iteration}
                    {c.note})
                  </option>
                ))}
              </select>
            </label>
          </p>
          {draft && (
            <>
              <p class="row">
                <label>
                  Status{' '}
                  <select
                    data-testid="correction-status"
                    value={draft.status}
                    onChange={(e) => {
                      const status = e.currentTarget.value as Status;
                      setDraft({ ...draft, status });
                    }}
                  >
                    <option value="measured">measured</option>
                    <option value="failed">failed</option>
                    <option value="abandoned">abandoned</option>
                  </select>
                </label>
                {[...objectives, ...outcomes].map((m) => (
                  <label>
                    {labelOf(m.name, m.unit)}{' '}
                    <input
                      size={10}
                      inputMode="decimal"
                      aria-label={`corrected ${m.name}`}
                      disabled={draft.status !== 'measured'}
                      value={draft.values[m.name] ?? ''}
                      onInput={(e) => {
                        const text = e.currentTarget.value;
                        setDraft({ ...draft, values: { ...draft.values, [m.name]: text } });
                      }}
                    />
                  </label>
                ))}
                {draft.status !== 'measured' && (
                  <label>
                    Reason{' '}
                    <input
                      aria-label="reason of the failure"
                      value={draft.reason}
                      onInput={(e) => {
                        const reason = e.currentTarget.value;
                        setDraft({ ...draft, reason });
                      }}
                    />
                  </label>
                )}
              </p>
              <p class="row">
                <label>
                  Why{' '}
                  <input
                    size={40}
                    aria-label="why the value is corrected"
                    placeholder="e.g. decimal point misplaced"
                    value={draft.comment}
                    onInput={(e) => {
                      const comment = e.currentTarget.value;
                      setDraft({ ...draft, comment });
                    }}
                  />
                </label>
                <button type="submit">Save the correction</button>
              </p>
            </>
          )}
        </form>
      )}
      {message && (
        <p data-testid="correction-message" aria-live="polite">
          {message}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <h3>History</h3>
      {history === null ? (
        <p aria-live="polite">Loading the corrections…</p>
      ) : history.length === 0 ? (
        <p data-testid="corrections-none">No result has been corrected.</p>
      ) : (
        <div class="scroll">
          <table data-testid="corrections-history">
            <thead>
              <tr>
                <th scope="col">when</th>
                <th scope="col">evaluation</th>
                <th scope="col">was</th>
                <th scope="col">now</th>
                <th scope="col">by</th>
                <th scope="col">why</th>
              </tr>
            </thead>
            <tbody>
              {[...history].reverse().map((c) => (
                <tr data-evaluation={c.evaluation_id}>
                  <td>
                    <time dateTime={c.corrected_at}>{new Date(c.corrected_at).toLocaleString()}</time>
                  </td>
                  <td>{c.evaluation_id}</td>
                  <td>
                    <del>{resultText(c.previous, units)}</del>
                  </td>
                  <td>{resultText(c.corrected, units)}</td>
                  <td>{by(c.corrected_by)}</td>
                  <td>{c.comment ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
