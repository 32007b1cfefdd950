import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { ImportedCampaign } from './contract.js';
import { useCampaignCreation } from './campaign-creation.js';

/**
 * A campaign from an export document (the Export button of a campaign page, another Kiln, or
 * `kiln export` of a local run): it arrives stopped where it stood, to be started to continue.
 */
export function ImportCampaign() {
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const creation = useCampaignCreation('import-errors');
  const submit = async (event: Event) => {
    event.preventDefault();
    creation.reset();
    let document: unknown;
    try {
      document = JSON.parse(await file!.text());
    } catch (e) {
      creation.fail(`${file!.name} is not JSON (${(e as Error).message}): choose the file a campaign's Export button saved.`);
      return;
    }
    if (document === null || typeof document !== 'object' || Array.isArray(document)) {
      creation.fail(`${file!.name} holds no export document: choose the file a campaign's Export button saved.`);
      return;
    }
    const overrides = { ...(name ? { name } : {}), ...(domain ? { domain } : {}) };
    await creation.create(() => api<ImportedCampaign>('POST', '/v1/campaigns/import', { ...document, ...overrides }));
  };
  return (
    <details>
      <summary>Import a campaign from an export document</summary>
      <form onSubmit={(e) => void submit(e)}>
        <label for="import-file">Export document (JSON)</label>
        <input id="import-file" type="file" accept=".json,application/json" onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)} />
        <label for="import-name">Name (optional; default: the exported campaign's)</label>
        <input id="import-name" value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for="import-domain">Domain (optional; needed when the document names none)</label>
        <input id="import-domain" value={domain} maxLength={64} onInput={(e) => setDomain((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={!file}>
          Import
        </button>
      </form>
      {creation.outcome}
    </details>
  );
}
