import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, download, downloadConverted, explain, send } from './api.js';
import type { Candidate, PostedResults } from './contract.js';
import { worklistTsv } from './worklist-file.js';
import { RESULTS_POSTED } from './corrections.js';
import { formatParameter, type ParameterShape } from './format.js';
import { Heading } from './heading.js';
import { WorklistAnswerBox, type WorklistAnswer } from './worklist-answer.js';

/**
 * The pending batch of an external (ask/tell) campaign as a worklist for the lab: the initial
 * design included, in the MDL's parameter order with units and ids. Results are typed in row by
 * row or come back as the filled worklist CSV; rows left empty wait, so a batch may be posted in
 * parts. A row can be marked failed (with the reason) or abandoned (never measured). A candidate
 * that repeats a measured design says so, and why, before it is measured; a post that stores a
 * measurement without some of its values says which, row by row. The answer to a post is held by
 * the campaign page (`answer`), so it outlives the batch, and the campaign, that it completed.
 */
interface Measure {
  name: string;
  unit?: string;
}

type Entry = { values: Record<string, string>; status: 'measured' | 'failed' | 'abandoned'; reason: string };

const blank = (): Entry => ({ values: {}, status: 'measured', reason: '' });

/** A typed cell as the results route reads it: empty is not measured (null), anything else must be a number. */
function cellValue(text: string, name: string, id: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const x = Number(trimmed.replace(',', '.'));
  if (!Number.isFinite(x)) throw new Error(`${id}: "${trimmed}" for ${name} is not a number.`);
  return x;
}

/** The JSON entries for the rows that have something in them; untouched rows wait. */
export function entriesOf(rows: Candidate[], typed: Record<string, Entry>, objectives: Measure[], outcomes: Measure[]): unknown[] {
  const entries: unknown[] = [];
  for (const row of rows) {
    const e = typed[row.id];
    if (!e) continue;
    if (e.status !== 'measured') {
      entries.push({ id: row.id, status: e.status, reason: e.reason.trim() || (e.status === 'failed' ? 'failed in the lab' : undefined) });
      continue;
    }
    const values = (list: Measure[]) => Object.fromEntries(list.map((m) => [m.name, cellValue(e.values[m.name] ?? '', m.name, row.id)]));
    const objectiveValues = values(objectives);
    const outcomeValues = values(outcomes);
    if ([...Object.values(objectiveValues), ...Object.values(outcomeValues)].every((v) => v === null)) continue;
    entries.push({ id: row.id, objectives: objectiveValues, ...(outcomes.length > 0 ? { outcomes: outcomeValues } : {}) });
  }
  return entries;
}

/**
 * A refused post as the lab reads it: the API's message first, then each problem it lists that the
 * message does not already name (a file's columns, a row's values).
 */
function refusal(e: unknown): string[] {
  const text = explain(e);
  const errors = e instanceof ApiError && Array.isArray(e.details?.errors) ? (e.details.errors as { path: string; message: string }[]) : [];
  const unnamed = errors.filter((x) => !text.includes(x.message)).map((x) => `${x.path}: ${x.message}`);
  return [text, ...unnamed];
}

export function Worklist({
  id,
  status,
  parameters,
  objectives,
  outcomes,
  version,
  answer,
  onAnswer,
}: {
  id: string;
  /** the campaign's: once it is no longer running, no batch is awaited and the last answer stays until dismissed */
  status: string;
  parameters: ParameterShape[];
  objectives: Measure[];
  outcomes: Measure[];
  version: number;
  answer: WorklistAnswer | null;
  onAnswer: (answer: WorklistAnswer | null) => void;
}) {
  const [rows, setRows] = useState<Candidate[] | null>(null);
  const [typed, setTyped] = useState<Record<string, Entry>>({});
  const running = status === 'running';
  const load = async () => {
    if (!running) {
      setRows([]);
      return;
    }
    try {
      setRows((await api<Candidate[]>('GET', `/v1/campaigns/${id}/candidates`)).data);
    } catch (e) {
      onAnswer({ at: 'file', refused: refusal(e) });
    }
  };
  useEffect(() => void load(), [id, version, running]);
  // the next batch is proposed after the iteration's event: while none is pending, look again
  useEffect(() => {
    if (!running || rows?.length !== 0) return;
    const timer = setTimeout(() => void load(), 2000);
    return () => clearTimeout(timer);
  }, [rows, running]);
  const edit = (rowId: string, change: (e: Entry) => Entry) => setTyped((t) => ({ ...t, [rowId]: change(t[rowId] ?? blank()) }));
  const posted = async (answer: PostedResults, at: WorklistAnswer['at'], file?: string) => {
    onAnswer({ at, posted: answer, file });
    setTyped({});
    dispatchEvent(new CustomEvent(RESULTS_POSTED));
    await load();
  };
  const post = async () => {
    try {
      const entries = entriesOf(rows ?? [], typed, objectives, outcomes);
      if (entries.length === 0) throw new Error('Nothing to post: type a value, or mark a row failed or abandoned.');
      await posted((await api<PostedResults>('POST', `/v1/campaigns/${id}/evaluations`, { evaluations: entries })).data, 'typed');
    } catch (e) {
      onAnswer({ at: 'typed', refused: refusal(e) });
    }
  };
  const upload = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      await posted((await send<PostedResults>('POST', `/v1/campaigns/${id}/evaluations`, form)).data, 'file', file.name);
    } catch (e) {
      onAnswer({ at: 'file', refused: refusal(e) });
    } finally {
      // the same file, fixed and chosen again, is a new upload
      input.value = '';
    }
  };
  const fileFailed = (e: unknown) => onAnswer({ at: 'file', refused: refusal(e) });
  if (!rows) return <p aria-live="polite">Loading the pending batch…</p>;
  // an answer to the typed results shows under their button while the table is there, any other beside the file row
  const typedHere = rows.length > 0 && answer?.at === 'typed';
  const layout = `${status}:${version}:${rows.map((r) => r.id).join()}`;
  const dismiss = () => onAnswer(null);
  return (
    <section data-testid="worklist">
      <h2>{running ? 'Worklist: the batch awaiting your results' : 'Worklist'}</h2>
      {!running ? (
        <p data-testid="worklist-empty">The campaign is no longer running ({status}): no candidate awaits a result.</p>
      ) : rows.length === 0 ? (
        <p data-testid="worklist-empty">No candidate awaits a result: Kiln is proposing the next batch.</p>
      ) : (
        <>
          <p class="muted">
            {rows.length === 1 ? 'Measure this candidate' : `Measure these ${rows.length} candidates`} (iteration {rows[0].iteration}
            {rows[0].iteration === 1 ? ', the initial design' : ''}). Type the results below or download the worklist, fill it in a spreadsheet and upload it.
            Rows left empty wait for a later post; mark a row failed (with the reason) or abandoned if it was never measured.
          </p>
          {rows.some((r) => r.repeat_of) && (
            <ul class="repeats" data-testid="worklist-repeats">
              {rows
                .filter((r) => r.repeat_of)
                .map((r) => (
                  <li>
                    <strong>{r.id}</strong> is a {r.note}.
                  </li>
                ))}
            </ul>
          )}
          <p class="row">
            <button class="secondary" onClick={() => void download(`/v1/campaigns/${id}/worklist`, `${id}-worklist.csv`).catch(fileFailed)}>
              Download worklist (CSV)
            </button>
            <button
              class="secondary"
              title="Tab-separated, so Excel opens it in columns whatever the region's list separator; upload it back filled as it is"
              onClick={() =>
                void downloadConverted(`/v1/campaigns/${id}/worklist`, `${id}-worklist.tsv`, 'text/tab-separated-values;charset=utf-8', worklistTsv).catch(
                  fileFailed,
                )
              }
            >
              Download for Excel (tab-separated)
            </button>
            <label>
              Upload the filled worklist{' '}
              <input
                type="file"
                accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
                data-testid="worklist-upload"
                onChange={(e) => void upload(e.currentTarget)}
              />
            </label>
          </p>
        </>
      )}
      <WorklistAnswerBox answer={typedHere ? null : answer} testId="worklist-answer" layout={layout} onDismiss={dismiss} />
      {running && rows.length > 0 && (
        <>
          <div class="scroll">
            <table data-testid="worklist-table" class="worklist">
              <thead>
                <tr>
                  <th scope="col">id</th>
                  {[...parameters, ...objectives, ...outcomes].map((m) => (
                    <th scope="col">
                      <Heading name={m.name} unit={m.unit} />
                    </th>
                  ))}
                  <th scope="col">status</th>
                  <th scope="col">reason</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const e = typed[row.id] ?? blank();
                  return (
                    <tr data-id={row.id}>
                      <td>
                        {row.id}
                        {row.repeat_of && (
                          <span class="badge" title={row.note}>
                            repeat of {row.repeat_of}
                          </span>
                        )}
                      </td>
                      {parameters.map((p) => (
                        <td class="number">{formatParameter(row.parameters[p.name], p)}</td>
                      ))}
                      {[...objectives, ...outcomes].map((m) => (
                        <td>
                          <input
                            size={8}
                            inputMode="decimal"
                            aria-label={`${m.name} of ${row.id}`}
                            value={e.values[m.name] ?? ''}
                            disabled={e.status !== 'measured'}
                            onInput={(ev) => {
                              const text = ev.currentTarget.value;
                              edit(row.id, (x) => ({ ...x, values: { ...x.values, [m.name]: text } }));
                            }}
                          />
                        </td>
                      ))}
                      <td>
                        <select
                          aria-label={`status of ${row.id}`}
                          value={e.status}
                          onChange={(ev) => {
                            const chosen = ev.currentTarget.value as Entry['status'];
                            edit(row.id, (x) => ({ ...x, status: chosen }));
                          }}
                        >
                          <option value="measured">measured</option>
                          <option value="failed">failed</option>
                          <option value="abandoned">abandoned</option>
                        </select>
                      </td>
                      <td>
                        <input
                          aria-label={`reason for ${row.id}`}
                          value={e.reason}
                          onInput={(ev) => {
                            const reason = ev.currentTarget.value;
                            edit(row.id, (x) => ({ ...x, reason }));
                          }}
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <p class="row">
            <button onClick={() => void post()}>Post the typed results</button>
          </p>
          <WorklistAnswerBox answer={typedHere ? answer : null} testId="worklist-answer-typed" layout={layout} onDismiss={dismiss} />
        </>
      )}
    </section>
  );
}
