import { useState } from 'preact/hooks';
import { send } from './api.js';
import type { CampaignCreated } from './contract.js';
import { CreatedWithWarnings, ProblemList, refusal, type Problem } from './problems.js';

/**
 * A campaign from an MDL document, pasted or picked as a file: sent as the multipart form
 * (`mdl_file`), so YAML and JSON both work and errors come back with line and column.
 */
export function NewCampaignFromMdl() {
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CampaignCreated | null>(null);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblems([]);
    setError(null);
    setCreated(null);
    const form = new FormData();
    form.append('mdl_file', file ?? new Blob([text], { type: 'application/yaml' }), file?.name ?? 'campaign.yaml');
    try {
      const { data } = await send<CampaignCreated>('POST', '/v1/campaigns', form);
      if (data.warnings.length > 0) setCreated(data);
      else location.hash = `#/campaigns/${data.id}`;
    } catch (e) {
      const refused = refusal(e, 'campaign');
      setError(refused.summary);
      setProblems(refused.problems);
    }
  };
  return (
    <details>
      <summary>New campaign from an MDL document</summary>
      <form onSubmit={(e) => void submit(e)}>
        <label for="mdl-text">Paste YAML or JSON</label>
        <textarea id="mdl-text" rows={10} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} spellcheck={false} />
        <label for="mdl-upload">or choose a file</label>
        <input id="mdl-upload" type="file" accept=".yaml,.yml,.json" onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)} />
        <button type="submit" disabled={!text && !file}>
          Create from MDL
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ProblemList problems={problems} testId="mdl-errors" />
      {created && <CreatedWithWarnings campaign={created} />}
    </details>
  );
}
