import { useEffect, useState } from 'preact/hooks';
import { api, explain, type Campaign } from './api.js';
import { hypervolumeOf } from './format.js';
import { Pager } from './pager.js';
import { NewCampaignFromMdl } from './new-campaign.js';
import { ImportCampaign } from './import-campaign.js';
import { NewCampaignFromTemplate } from './new-from-template.js';

const STATUSES = ['created', 'running', 'completed', 'converged', 'failed', 'stopped'];
/** the domains of the built-in templates; any other domain can be typed */
export const DOMAINS = ['water', 'battery', 'energy', 'alloys', 'polymers', 'benchmark'];

/** Asks first, since a campaign goes with its jobs, evaluations and logs. */
export async function deleteCampaign(c: Pick<Campaign, 'id' | 'name' | 'status' | 'evaluations_completed'>): Promise<boolean> {
  const running = c.status === 'running' ? ' It is running: its job is cancelled.' : '';
  if (!confirm(`Delete campaign "${c.name}" with its ${c.evaluations_completed} evaluations, jobs and logs? This cannot be undone.${running}`)) return false;
  await api('DELETE', `/v1/campaigns/${c.id}`);
  return true;
}

export function CampaignList() {
  const [campaigns, setCampaigns] = useState<Campaign[] | null>(null);
  const [status, setStatus] = useState('');
  const [domain, setDomain] = useState('');
  const [sort, setSort] = useState('-created_at');
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState(1);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    const query = new URLSearchParams({ per_page: '20', page: String(page), sort, ...(status ? { status } : {}), ...(domain ? { domain } : {}) });
    return api<Campaign[]>('GET', `/v1/campaigns?${query}`).then(
      (r) => {
        setCampaigns(r.data);
        setPages(Math.max(1, r.meta?.total_pages ?? 1));
      },
      (e) => setError(explain(e)),
    );
  };
  useEffect(() => void load(), [status, domain, sort, page]);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const remove = async (c: Campaign) => {
    setError(null);
    try {
      if (await deleteCampaign(c)) await load();
    } catch (e) {
      setError(explain(e));
    }
  };
  const filtered = status || domain;
  return (
    <main>
      <h1>Campaigns</h1>
      <p>
        <a href="#/campaigns/new" class="button">
          New campaign with results you enter
        </a>{' '}
        <span class="muted">a form for experiments your lab runs and measures</span>
      </p>
      <NewCampaignFromTemplate />
      <NewCampaignFromMdl />
      <ImportCampaign />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form class="row" onSubmit={(e) => e.preventDefault()} aria-label="Filter campaigns">
        <label for="status-filter">Status</label>
        <select
          id="status-filter"
          value={status}
          onChange={(e) => {
            setStatus((e.target as HTMLSelectElement).value);
            setPage(1);
          }}
        >
          <option value="">all</option>
          {STATUSES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <label for="domain-filter">Domain</label>
        <input
          id="domain-filter"
          list="domains"
          value={domain}
          placeholder="all"
          size={12}
          onChange={(e) => {
            setDomain((e.target as HTMLInputElement).value.trim());
            setPage(1);
          }}
        />
        <datalist id="domains">
          {DOMAINS.map((d) => (
            <option value={d} />
          ))}
        </datalist>
        <label for="sort">Sort</label>
        <select id="sort" value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value)}>
          <option value="-created_at">newest first</option>
          <option value="created_at">oldest first</option>
          <option value="name">name</option>
          <option value="status">status</option>
          <option value="-hypervolume">hypervolume</option>
          <option value="-evaluations_completed">most evaluations</option>
        </select>
      </form>
      {campaigns === null ? (
        <p aria-live="polite">Loading…</p>
      ) : campaigns.length === 0 ? (
        <p>
          {filtered
            ? `No ${[status, 'campaigns'].filter(Boolean).join(' ')}${domain ? ` in ${domain}` : ''}.`
            : 'No campaigns yet: create one from a template above.'}
        </p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Domain</th>
                <th scope="col">Status</th>
                <th scope="col">Evaluations</th>
                <th scope="col">Hypervolume</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {campaigns.map((c) => (
                <tr data-testid="campaign-row">
                  <td>
                    <a href={`#/campaigns/${c.id}`}>{c.name}</a>
                  </td>
                  <td>{c.domain}</td>
                  <td>
                    <span class={`status status-${c.status}`}>{c.status}</span>
                  </td>
                  <td>
                    {c.evaluations_completed} / {c.budget}
                  </td>
                  <td>{hypervolumeOf(c)}</td>
                  <td>
                    <button class="secondary" aria-label={`Delete ${c.name}`} onClick={() => void remove(c)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages" onPage={setPage} />
    </main>
  );
}
