import { useEffect, useState } from 'preact/hooks';
import type { Dataset as DatasetRecord, DatasetDetail, ErrorBody } from './contract.js';
import { api, ApiError, credential, download, explain, refusal } from './api.js';

/** A dataset as the list shows it, with its preview on its own page. */
type Dataset = DatasetRecord & Partial<Pick<DatasetDetail, 'preview'>>;
type Issue = DatasetRecord['warnings'][number];

/** A preview cell: rows hold JSON values; text shows as it is, anything else as JSON (numbers and booleans alike). */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Multipart upload through XMLHttpRequest, which reports upload progress (fetch does not). */
function upload(form: FormData, onProgress: (fraction: number) => void): Promise<Dataset> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/datasets');
    xhr.setRequestHeader('Authorization', `Bearer ${credential.get() ?? ''}`);
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onload = () => {
      let body: { data?: Dataset; error?: ErrorBody } | null = null;
      try {
        body = JSON.parse(xhr.responseText) as { data?: Dataset; error?: ErrorBody };
      } catch {
        // a proxy's HTML error page: the status says enough
      }
      if (xhr.status === 201 && body?.data) resolve(body.data);
      else reject(refusal(xhr.status, xhr.statusText, body));
    };
    xhr.onerror = () => reject(new Error('The upload failed: the connection was lost.'));
    xhr.send(form);
  });
}

function Report({ issues, title }: { issues: Issue[]; title: string }) {
  if (issues.length === 0) return null;
  return (
    <details open>
      <summary>
        {title} ({issues.length})
      </summary>
      <ul>
        {issues.map((i) => (
          <li>
            {i.row !== null ? `row ${i.row}` : 'file'}
            {i.column ? `, ${i.column}` : ''}: {i.message}
          </li>
        ))}
      </ul>
    </details>
  );
}

export function Datasets() {
  const [datasets, setDatasets] = useState<Dataset[] | null>(null);
  const [selected, setSelected] = useState<Dataset | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [errors, setErrors] = useState<Issue[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<Dataset[]>('GET', '/v1/datasets?per_page=100').then(
      (r) => setDatasets(r.data),
      (e) => setError(explain(e)),
    );
  useEffect(() => void load(), []);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const open = async (id: string) => {
    try {
      setSelected((await api<Dataset>('GET', `/v1/datasets/${id}`)).data);
    } catch (e) {
      setError(explain(e));
    }
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setErrors([]);
    const form = new FormData(event.target as HTMLFormElement);
    if (!form.get('mdl')) form.delete('mdl');
    try {
      setProgress(0);
      const created = await upload(form, setProgress);
      (event.target as HTMLFormElement).reset();
      await load();
      await open(created.id);
    } catch (e) {
      setError(explain(e));
      if (e instanceof ApiError && Array.isArray(e.details?.errors)) setErrors(e.details.errors as Issue[]);
    } finally {
      setProgress(null);
    }
  };
  const remove = async (d: Dataset) => {
    if (!confirm(`Delete dataset "${d.name}"? Campaigns warm-started from it keep their copies.`)) return;
    try {
      await api('DELETE', `/v1/datasets/${d.id}`);
      setSelected(null);
      await load();
    } catch (e) {
      setError(explain(e));
    }
  };
  const save = (d: Dataset) => download(`/v1/datasets/${d.id}/download`, d.name).catch((e) => setError(explain(e)));
  return (
    <main>
      <h1>Datasets</h1>
      <form onSubmit={(e) => void submit(e)} aria-label="Upload a dataset">
        <label for="file">File (CSV, JSON or Parquet)</label>
        <input id="file" name="file" type="file" accept=".csv,.json,.parquet" required />
        <label for="ds-name">Name</label>
        <input id="ds-name" name="name" />
        <label for="ds-description">Description</label>
        <input id="ds-description" name="description" />
        <label for="ds-mdl">Check against an MDL (optional, YAML or JSON)</label>
        <textarea id="ds-mdl" name="mdl" rows={3} />
        <button type="submit" disabled={progress !== null}>
          Upload
        </button>
        {progress !== null && <progress value={progress} max={1} aria-label="Upload progress" />}
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <Report issues={errors} title="Errors" />
      {datasets === null ? (
        <p>Loading…</p>
      ) : datasets.length === 0 ? (
        <p>No datasets yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Format</th>
              <th>Rows</th>
              <th>Size</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {datasets.map((d) => (
              <tr>
                <td>
                  <button class="linkish" onClick={() => void open(d.id)}>
                    {d.name}
                  </button>
                </td>
                <td>{d.format}</td>
                <td>{d.rows}</td>
                <td>{(d.size_bytes / 1024).toFixed(1)} KiB</td>
                <td>{new Date(d.created_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && (
        <section data-testid="dataset">
          <h2>{selected.name}</h2>
          <p>
            {selected.description} · {selected.rows} rows · {selected.columns.join(', ')}
          </p>
          <Report issues={selected.warnings} title="Warnings" />
          <Report issues={selected.flagged_rows.map((f) => ({ row: f.row, column: null, message: f.reason }))} title="Flagged rows (excluded from training)" />
          <h3>Preview</h3>
          <table data-testid="preview">
            <thead>
              <tr>
                {selected.columns.map((c) => (
                  <th>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {(selected.preview ?? []).map((row) => (
                <tr>
                  {selected.columns.map((c) => (
                    <td>{cellText(row[c])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <p class="row">
            <button onClick={() => void save(selected)}>Download</button>
            <button onClick={() => void remove(selected)}>Delete</button>
          </p>
        </section>
      )}
    </main>
  );
}
