import { useState } from 'preact/hooks';
import { send } from './api.js';
import type { CampaignCreated } from './contract.js';
import { useCampaignCreation } from './campaign-creation.js';

/**
 * A campaign from an MDL document, pasted or picked as a file: sent as the multipart form
 * (`mdl_file`), so YAML and JSON both work and errors come back with line and column.
 */
export function NewCampaignFromMdl() {
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const creation = useCampaignCreation('mdl-errors');
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData();
    form.append('mdl_file', file ?? new Blob([text], { type: 'application/yaml' }), file?.name ?? 'campaign.yaml');
    await creation.create(() => send<CampaignCreated>('POST', '/v1/campaigns', form));
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
      {creation.outcome}
    </details>
  );
}
