import { useState } from 'preact/hooks';
import { ApiError, send, type Campaign } from './api.js';

interface FieldError {
  path: string;
  message: string;
}

/**
 * A campaign from an MDL document, pasted or picked as a file: sent as the multipart form
 * (`mdl_file`), so YAML and JSON both work and errors come back with line and column.
 */
export function NewCampaignFromMdl() {
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setErrors([]);
    setError(null);
    const form = new FormData();
    form.append('mdl_file', file ?? new Blob([text], { type: 'application/yaml' }), file?.name ?? 'campaign.yaml');
    try {
      const created = await send<Campaign>('POST', '/v1/campaigns', form);
      location.hash = `#/campaigns/${created.data.id}`;
    } catch (e) {
      if (!(e instanceof ApiError)) return setError(String((e as Error)?.message ?? e));
      setError(e.explain());
      if (Array.isArray(e.details?.errors)) setErrors(e.details.errors as FieldError[]);
    }
  };
  return (
    <details>
      <summary>New campaign from an MDL document</summary>
      <form onSubmit={submit}>
        <label for="mdl-text">Paste YAML or JSON</label>
        <textarea id="mdl-text" rows={10} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} spellcheck={false} />
        <label for="mdl-upload">or choose a file</label>
        <input id="mdl-upload" type="file" accept=".yaml,.yml,.json" onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)} />
        <button type="submit" disabled={!text && !file}>Create from MDL</button>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {errors.length > 0 && (
        <ul data-testid="mdl-errors">
          {errors.map((e) => <li><code>{e.path}</code>: {e.message}</li>)}
        </ul>
      )}
    </details>
  );
}
