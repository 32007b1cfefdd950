import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, credential, subscribe, type Campaign, type Results } from './api.js';
import { Materials, Templates } from './browse.js';
import { Datasets } from './datasets.js';
import { JobDetail, JobList } from './jobs.js';
import { ApiKeys } from './keys.js';
import { NewCampaignFromMdl } from './new-campaign.js';
import { ConvergencePlot, ParetoPlot } from './plots.js';
import './style.css';

/** Routes are the location hash: #/campaigns and #/campaigns/<id>. */
function useRoute(): string {
  const [hash, setHash] = useState(location.hash || '#/campaigns');
  useEffect(() => {
    const update = () => setHash(location.hash || '#/campaigns');
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

function message(error: unknown): string {
  return error instanceof ApiError ? error.explain() : String((error as Error)?.message ?? error);
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    credential.set(key.trim());
    try {
      await api('GET', '/v1/campaigns?per_page=1');
      onSignedIn();
    } catch (e) {
      credential.clear();
      setError(message(e));
    }
  };
  return (
    <main class="narrow">
      <h1>Sign in to Kiln</h1>
      <form onSubmit={submit}>
        <label for="key">API key or token</label>
        <input id="key" type="password" autocomplete="off" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} required />
        <button type="submit">Sign in</button>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      <p>Or, without signing in: <a href="#/templates">browse templates</a> · <a href="#/materials">look up materials</a></p>
    </main>
  );
}

function CampaignList() {
  const [campaigns, setCampaigns] = useState<Campaign[] | null>(null);
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState('-created_at');
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState(1);
  const [templates, setTemplates] = useState<{ id: string; slug: string; name: string; default_budget: number }[]>([]);
  const [template, setTemplate] = useState('');
  const [budget, setBudget] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const query = new URLSearchParams({ per_page: '20', page: String(page), sort, ...(status ? { status } : {}) });
    api<Campaign[]>('GET', `/v1/campaigns?${query}`).then(
      (r) => {
        setCampaigns(r.data);
        setPages(Math.max(1, r.meta?.total_pages ?? 1));
      },
      (e) => setError(message(e)),
    );
  }, [status, sort, page]);
  useEffect(() => {
    api<typeof templates>('GET', '/v1/templates?per_page=100').then((r) => setTemplates(r.data), (e) => setError(message(e)));
  }, []);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const overrides = budget ? { optimizer: { budget: Number(budget) } } : undefined;
      const created = await api<Campaign>('POST', '/v1/campaigns', { template_id: template, overrides });
      location.hash = `#/campaigns/${created.data.id}`;
    } catch (e) {
      setError(message(e));
    }
  };
  return (
    <main>
      <h1>Campaigns</h1>
      <form class="row" onSubmit={create} aria-label="New campaign from a template">
        <label for="template">Template</label>
        <select id="template" value={template} onChange={(e) => setTemplate((e.target as HTMLSelectElement).value)} required>
          <option value="">choose…</option>
          {templates.map((t) => (
            <option value={t.id}>{t.name}</option>
          ))}
        </select>
        <label for="budget">Budget</label>
        <input id="budget" type="number" min="1" value={budget} onInput={(e) => setBudget((e.target as HTMLInputElement).value)} placeholder="template default" />
        <button type="submit">Create campaign</button>
      </form>
      <NewCampaignFromMdl />
      {error && <p role="alert" class="error">{error}</p>}
      <form class="row" onSubmit={(e) => e.preventDefault()} aria-label="Filter campaigns">
        <label for="status-filter">Status</label>
        <select id="status-filter" value={status} onChange={(e) => { setStatus((e.target as HTMLSelectElement).value); setPage(1); }}>
          <option value="">all</option>
          {['created', 'running', 'completed', 'converged', 'failed', 'stopped'].map((s) => <option value={s}>{s}</option>)}
        </select>
        <label for="sort">Sort</label>
        <select id="sort" value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value)}>
          <option value="-created_at">newest first</option>
          <option value="created_at">oldest first</option>
          <option value="name">name</option>
          <option value="-hypervolume">hypervolume</option>
        </select>
      </form>
      {campaigns === null ? (
        <p>Loading…</p>
      ) : campaigns.length === 0 ? (
        <p>{status ? `No ${status} campaigns.` : 'No campaigns yet: create one from a template above.'}</p>
      ) : (
        <table>
          <thead>
            <tr><th>Name</th><th>Domain</th><th>Status</th><th>Evaluations</th><th>Hypervolume</th></tr>
          </thead>
          <tbody>
            {campaigns.map((c) => (
              <tr>
                <td><a href={`#/campaigns/${c.id}`}>{c.name}</a></td>
                <td>{c.domain}</td>
                <td>{c.status}</td>
                <td>{c.evaluations_completed} / {c.budget}</td>
                <td>{c.hypervolume.toPrecision(4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <nav class="row" aria-label="Pages">
          <button disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
          <span>page {page} of {pages}</span>
          <button disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </nav>
      )}
    </main>
  );
}

function CampaignDetail({ id }: { id: string }) {
  const [campaign, setCampaign] = useState<Campaign | null>(null);
  const [results, setResults] = useState<Results | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = async () => {
    try {
      const [c, r] = await Promise.all([api<Campaign>('GET', `/v1/campaigns/${id}`), api<Results>('GET', `/v1/campaigns/${id}/results`)]);
      setCampaign(c.data);
      setResults(r.data);
    } catch (e) {
      setError(message(e));
    }
  };
  useEffect(() => {
    void refresh();
    // every progress or status event of the campaign's jobs: re-read, no reload
    return subscribe(id, (event) => {
      if (event.type === 'job.progress' || event.type === 'campaign.status') void refresh();
    });
  }, [id]);
  const act = async (action: 'start' | 'stop') => {
    try {
      await api('POST', `/v1/campaigns/${id}/${action}`);
      await refresh();
    } catch (e) {
      setError(message(e));
    }
  };
  if (error && !campaign) return <main><p role="alert" class="error">{error}</p></main>;
  if (!campaign || !results) return <main><p>Loading…</p></main>;
  const objectives = campaign.mdl?.objectives.map((o) => o.name) ?? [];
  return (
    <main>
      <p><a href="#/campaigns">← Campaigns</a></p>
      <h1>{campaign.name}</h1>
      <p>
        <span data-testid="status">{campaign.status}</span> · {campaign.evaluations_completed} / {campaign.budget} evaluations · iteration {campaign.current_iteration} ·
        hypervolume {campaign.hypervolume.toPrecision(5)}
      </p>
      <p class="row">
        {(campaign.status === 'created' || campaign.status === 'stopped') && <button onClick={() => act('start')}>Start</button>}
        {campaign.status === 'running' && <button onClick={() => act('stop')}>Stop</button>}
        <a href={`/v1/campaigns/${id}/results?format=csv`} download>Download CSV</a>
        {campaign.latest_job_id && <a href={`#/jobs/${campaign.latest_job_id}`}>Job and log</a>}
      </p>
      {error && <p role="alert" class="error">{error}</p>}
      <section>
        <h2>Convergence</h2>
        <ConvergencePlot history={results.convergence_history} />
      </section>
      <section>
        <h2>Pareto front</h2>
        <ParetoPlot rows={results.evaluations} objectives={objectives} directions={campaign.mdl?.objectives.map((o) => o.direction) ?? []} />
      </section>
      <section>
        <h2>Evaluations</h2>
        <EvaluationTable rows={results.evaluations} parameters={campaign.mdl?.parameters.map((p) => p.name) ?? []} objectives={objectives} />
      </section>
      <section>
        <h2>Best objectives</h2>
        <ul>
          {Object.entries(campaign.best_objectives ?? {}).map(([name, value]) => (
            <li>{name}: {value.toPrecision(5)}</li>
          ))}
        </ul>
      </section>
    </main>
  );
}

/** Every evaluation, sortable by any column (click a heading), Pareto rows marked. */
function EvaluationTable({ rows, parameters, objectives }: { rows: Results['evaluations']; parameters: string[]; objectives: string[] }) {
  const [sort, setSort] = useState<{ key: string; descending: boolean }>({ key: 'iteration', descending: false });
  const value = (r: Results['evaluations'][number], key: string): number | string =>
    key === 'iteration' ? r.iteration : key in r.objectives ? r.objectives[key] : (r.parameters[key] ?? '');
  const sorted = [...rows].sort((a, b) => {
    const [x, y] = [value(a, sort.key), value(b, sort.key)];
    return (x < y ? -1 : x > y ? 1 : 0) * (sort.descending ? -1 : 1);
  });
  const heading = (key: string) => (
    <th aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button class="linkish" onClick={() => setSort({ key, descending: sort.key === key ? !sort.descending : false })}>{key}</button>
    </th>
  );
  if (rows.length === 0) return <p>No evaluations yet.</p>;
  return (
    <table data-testid="evaluations">
      <thead><tr>{heading('iteration')}<th>Pareto</th>{parameters.map(heading)}{objectives.map(heading)}</tr></thead>
      <tbody>
        {sorted.map((r) => (
          <tr class={r.is_pareto ? 'pareto' : ''}>
            <td>{r.iteration}</td>
            <td>{r.is_pareto ? '★' : ''}</td>
            {parameters.map((p) => <td>{typeof r.parameters[p] === 'number' ? (r.parameters[p] as number).toPrecision(4) : r.parameters[p]}</td>)}
            {objectives.map((o) => <td>{r.objectives[o].toPrecision(5)}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(credential.get() !== null);
  if (!signedIn) {
    // guests may browse templates and look up materials, as the API allows
    const guestPage = route === '#/templates' ? <Templates /> : route === '#/materials' ? <Materials /> : null;
    if (!guestPage) return <SignIn onSignedIn={() => setSignedIn(true)} />;
    return (
      <>
        <header>
          <nav class="row" aria-label="Main">
            <strong>Kiln</strong>
            <a href="#/templates">Templates</a>
            <a href="#/materials">Materials</a>
          </nav>
          <a href="#/campaigns">Sign in</a>
        </header>
        {guestPage}
      </>
    );
  }
  const detail = /^#\/campaigns\/(camp_\w+)$/.exec(route);
  const job = /^#\/jobs\/(job_\w+)$/.exec(route);
  const page = detail ? <CampaignDetail id={detail[1]} /> : job ? <JobDetail id={job[1]} /> : route === '#/jobs' ? <JobList /> : route === '#/settings/api-keys' ? <ApiKeys /> : route === '#/templates' ? <Templates /> : route === '#/materials' ? <Materials /> : route === '#/datasets' ? <Datasets /> : <CampaignList />;
  return (
    <>
      <header>
        <nav class="row" aria-label="Main">
          <strong>Kiln</strong>
          <a href="#/campaigns">Campaigns</a>
          <a href="#/jobs">Jobs</a>
          <a href="#/datasets">Datasets</a>
          <a href="#/templates">Templates</a>
          <a href="#/materials">Materials</a>
          <a href="#/settings/api-keys">API keys</a>
        </nav>
        <button class="link" onClick={() => { credential.clear(); setSignedIn(false); }}>Sign out</button>
      </header>
      {page}
    </>
  );
}

render(<App />, document.getElementById('app')!);
