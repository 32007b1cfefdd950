import { useEffect, useState } from 'preact/hooks';
import type { CampaignCreated, TemplateListItem } from './contract.js';
import { api, explain } from './api.js';
import { MdlPreview } from './mdl-preview.js';
import { useCampaignCreation } from './campaign-creation.js';

interface TemplateParameter {
  name: string;
  type: string;
  bounds?: [number, number];
  unit?: string;
}

interface TemplateMdl {
  parameters: TemplateParameter[];
  optimizer: { budget: number; seed?: number };
}

type Bounds = Record<string, [string, string]>;

const numberOrUndefined = (text: string) => (text.trim() === '' ? undefined : Number(text));

/**
 * The template overrides from the form (`optimizer` members, and `parameters.<name>.bounds`): only
 * what the person changed, so a template fixed later still gives its new defaults for the rest.
 */
function overridesFrom(mdl: TemplateMdl, budget: string, seed: string, bounds: Bounds): Record<string, unknown> | undefined {
  const optimizer = { ...(budget ? { budget: Number(budget) } : {}), ...(seed ? { seed: Number(seed) } : {}) };
  const parameters: Record<string, { bounds: [number, number] }> = {};
  for (const p of mdl.parameters) {
    const [low, high] = bounds[p.name] ?? ['', ''];
    if (!p.bounds || (low === '' && high === '')) continue;
    parameters[p.name] = { bounds: [numberOrUndefined(low) ?? p.bounds[0], numberOrUndefined(high) ?? p.bounds[1]] };
  }
  const overrides = { ...(Object.keys(optimizer).length ? { optimizer } : {}), ...(Object.keys(parameters).length ? { parameters } : {}) };
  return Object.keys(overrides).length ? overrides : undefined;
}

/** Create a campaign from a template: pick it, read its MDL, change name, budget, seed or bounds. */
export function NewCampaignFromTemplate() {
  const [templates, setTemplates] = useState<TemplateListItem[]>([]);
  // the Templates page links here with #/campaigns?template=<id>
  const [templateId, setTemplateId] = useState(() => new URLSearchParams(location.hash.split('?')[1] ?? '').get('template') ?? '');
  const [mdl, setMdl] = useState<TemplateMdl | null>(null);
  const [name, setName] = useState('');
  const [budget, setBudget] = useState('');
  const [seed, setSeed] = useState('');
  const [bounds, setBounds] = useState<Bounds>({});
  const creation = useCampaignCreation('template-campaign-errors');
  const fail = (e: unknown) => creation.fail(explain(e));
  useEffect(() => {
    api<TemplateListItem[]>('GET', '/v1/templates?per_page=100').then((r) => setTemplates(r.data), fail);
  }, []);
  useEffect(() => {
    setMdl(null);
    setBounds({});
    if (templateId) api<{ mdl: TemplateMdl }>('GET', `/v1/templates/${templateId}`).then((r) => setMdl(r.data.mdl), fail);
  }, [templateId]);
  const chosen = templates.find((t) => t.id === templateId);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const create = async (event: Event) => {
    event.preventDefault();
    await creation.create(() => {
      const overrides = mdl ? overridesFrom(mdl, budget, seed, bounds) : undefined;
      return api<CampaignCreated>('POST', '/v1/campaigns', {
        template_id: templateId,
        ...(name ? { name } : {}),
        ...(overrides ? { overrides } : {}),
      });
    });
  };
  const bound = (parameter: string, side: 0 | 1, value: string) => {
    const current = bounds[parameter] ?? ['', ''];
    setBounds({ ...bounds, [parameter]: side === 0 ? [value, current[1]] : [current[0], value] });
  };
  return (
    <form onSubmit={(e) => void create(e)} aria-label="New campaign from a template">
      <div class="row">
        <label for="template">Template</label>
        <select id="template" value={templateId} onChange={(e) => setTemplateId((e.target as HTMLSelectElement).value)} required>
          <option value="">choose…</option>
          {templates.map((t) => (
            <option value={t.id}>{t.name}</option>
          ))}
        </select>
        <label for="campaign-name">Name</label>
        <input
          id="campaign-name"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
          placeholder={chosen?.name ?? 'the template name'}
          maxLength={200}
        />
      </div>
      <div class="row">
        <label for="budget">Budget</label>
        <input
          id="budget"
          type="number"
          min="1"
          step="1"
          value={budget}
          onInput={(e) => setBudget((e.target as HTMLInputElement).value)}
          placeholder={chosen ? String(chosen.default_budget) : 'template default'}
        />
        <label for="seed">Seed</label>
        <input
          id="seed"
          type="number"
          step="1"
          value={seed}
          onInput={(e) => setSeed((e.target as HTMLInputElement).value)}
          placeholder={mdl?.optimizer.seed !== undefined ? String(mdl.optimizer.seed) : 'random'}
        />
        <button type="submit" disabled={!templateId}>
          Create campaign
        </button>
      </div>
      {mdl && (
        <details>
          <summary>Parameter bounds and the template's MDL</summary>
          <table data-testid="bounds">
            <thead>
              <tr>
                <th scope="col">Parameter</th>
                <th scope="col">Lower bound</th>
                <th scope="col">Upper bound</th>
              </tr>
            </thead>
            <tbody>
              {mdl.parameters.map((p) => (
                <tr>
                  <th scope="row">
                    {p.name}
                    {p.unit ? ` (${p.unit})` : ''}
                  </th>
                  {p.bounds ? (
                    ([0, 1] as const).map((side) => (
                      <td>
                        <input
                          type="number"
                          step="any"
                          aria-label={`${p.name} ${side === 0 ? 'lower' : 'upper'} bound`}
                          value={bounds[p.name]?.[side] ?? ''}
                          placeholder={String(p.bounds![side])}
                          onInput={(e) => bound(p.name, side, (e.target as HTMLInputElement).value)}
                        />
                      </td>
                    ))
                  ) : (
                    <td colSpan={2} class="muted">
                      {p.type}: no bounds to change
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          <MdlPreview mdl={mdl} testId="template-mdl" />
        </details>
      )}
      {creation.outcome}
    </form>
  );
}
