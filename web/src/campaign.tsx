import { useEffect, useRef, useState } from 'preact/hooks';
import { api, download, explain, subscribe, type Campaign, type Results } from './api.js';
import { Pager } from './pager.js';
import { deleteCampaign } from './campaigns.js';
import { ConvergencePlot, ParetoPlot, objectiveLimits } from './plots.js';

/**
 * Re-reads the campaign and its results on every progress or status event of its jobs. Events
 * can come faster than a large result set downloads, so at most one read is in flight and one
 * more is queued behind it.
 */
function useLiveCampaign(id: string) {
  const [campaign, setCampaign] = useState<Campaign | null>(null);
  const [results, setResults] = useState<Results | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reading = useRef<{ busy: boolean; again: boolean }>({ busy: false, again: false });
  const refresh = async (): Promise<void> => {
    if (reading.current.busy) {
      reading.current.again = true;
      return;
    }
    reading.current.busy = true;
    try {
      const [c, r] = await Promise.all([api<Campaign>('GET', `/v1/campaigns/${id}`), api<Results>('GET', `/v1/campaigns/${id}/results`)]);
      setCampaign(c.data);
      setResults(r.data);
      setError(null);
    } catch (e) {
      setError(explain(e));
    } finally {
      reading.current.busy = false;
      if (reading.current.again) {
        reading.current.again = false;
        void refresh();
      }
    }
  };
  useEffect(() => {
    void refresh();
    return subscribe(
      id,
      (event) => {
        if (event.type === 'job.progress' || event.type === 'job.status' || event.type === 'campaign.status') void refresh();
      },
      () => void refresh(),
    );
  }, [id]);
  return { campaign, results, error, setError, refresh };
}

export function CampaignDetail({ id }: { id: string }) {
  const { campaign, results, error, setError, refresh } = useLiveCampaign(id);
  const act = async (action: 'start' | 'stop') => {
    try {
      await api('POST', `/v1/campaigns/${id}/${action}`);
      await refresh();
    } catch (e) {
      setError(explain(e));
    }
  };
  const remove = async () => {
    try {
      if (campaign && (await deleteCampaign(campaign))) location.hash = '#/campaigns';
    } catch (e) {
      setError(explain(e));
    }
  };
  const save = (format: 'csv' | 'json') =>
    download(`/v1/campaigns/${id}/results${format === 'csv' ? '?format=csv' : ''}`, `${id}-results.${format}`).catch((e) => setError(explain(e)));
  if (error && !campaign) return <main><p role="alert" class="error">{error}</p><p><a href="#/campaigns">← Campaigns</a></p></main>;
  if (!campaign || !results) return <main><p aria-live="polite">Loading…</p></main>;
  const objectives = campaign.mdl?.objectives ?? [];
  const names = objectives.map((o) => o.name);
  const constraints = campaign.mdl?.outcome_constraints ?? [];
  const outcomes = campaign.mdl?.outcomes?.map((o) => o.name) ?? [];
  const infeasible = results.evaluations.filter((r) => r.feasible === false).length;
  const share = campaign.budget > 0 ? campaign.evaluations_completed / campaign.budget : 0;
  return (
    <main>
      <p><a href="#/campaigns">← Campaigns</a></p>
      <h1>{campaign.name}</h1>
      <p aria-live="polite">
        <span data-testid="status" class={`status status-${campaign.status}`}>{campaign.status}</span> · {campaign.domain} · {campaign.evaluations_completed} / {campaign.budget} evaluations · iteration{' '}
        {campaign.current_iteration} · hypervolume {campaign.hypervolume.toPrecision(5)} · {campaign.pareto_size} on the Pareto front
        {constraints.length > 0 && (
          <span data-testid="feasibility">
            {' '}· {results.evaluations.length - infeasible} feasible, {infeasible} infeasible (subject to {constraints.map((c) => c.expression).join(', ')})
          </span>
        )}
      </p>
      {campaign.stop_message && <p data-testid="stop-message">{campaign.stop_message}</p>}
      <progress max={1} value={share} aria-label="Evaluations done of the budget">{Math.round(share * 100)} %</progress>
      <p class="row">
        {(campaign.status === 'created' || campaign.status === 'stopped') && <button onClick={() => act('start')}>Start</button>}
        {campaign.status === 'running' && <button onClick={() => act('stop')}>Stop</button>}
        <button class="secondary" onClick={() => save('csv')}>Download CSV</button>
        <button class="secondary" onClick={() => save('json')}>Download JSON</button>
        {campaign.latest_job_id && <a href={`#/jobs/${campaign.latest_job_id}`}>Job and log</a>}
        <button class="danger" onClick={remove}>Delete</button>
      </p>
      {error && <p role="alert" class="error">{error}</p>}
      <div class={names.length > 2 ? 'plots stacked' : 'plots'}>
        <section>
          <h2>Convergence</h2>
          <ConvergencePlot history={results.convergence_history} />
        </section>
        <section>
          <h2>Pareto front</h2>
          <ParetoPlot
            rows={results.evaluations}
            objectives={names}
            directions={objectives.map((o) => o.direction)}
            limits={objectiveLimits(constraints.map((c) => c.expression), names)}
          />
        </section>
      </div>
      <section>
        <h2>Best objectives</h2>
        {Object.keys(campaign.best_objectives ?? {}).length === 0 ? (
          <p>None yet: they appear with the first evaluations.</p>
        ) : (
          <dl class="best" data-testid="best-objectives">
            {objectives.map((o) => (
              <div>
                <dt>{o.name} ({o.direction === 'maximize' ? 'highest' : 'lowest'})</dt>
                <dd>{campaign.best_objectives?.[o.name]?.toPrecision(5) ?? '—'}{o.unit ? ` ${o.unit}` : ''}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      <section>
        <h2>Evaluations</h2>
        <EvaluationTable
          rows={results.evaluations}
          parameters={campaign.mdl?.parameters.map((p) => p.name) ?? []}
          objectives={names}
          outcomes={outcomes}
          constrained={constraints.length > 0}
        />
      </section>
    </main>
  );
}

const ROWS_PER_PAGE = 100;

/**
 * Every evaluation, sortable by any column (click a heading), Pareto rows marked; a page of rows
 * at a time, since a large campaign has thousands and the table is redrawn on every iteration.
 */
function EvaluationTable({ rows, parameters, objectives, outcomes, constrained }: { rows: Results['evaluations']; parameters: string[]; objectives: string[]; outcomes: string[]; constrained: boolean }) {
  const [sort, setSort] = useState<{ key: string; descending: boolean }>({ key: 'iteration', descending: false });
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(rows.length / ROWS_PER_PAGE));
  const shown = Math.min(page, pages);
  const value = (r: Results['evaluations'][number], key: string): number | string =>
    key === 'iteration' ? r.iteration : key in r.objectives ? r.objectives[key] : r.outcomes && key in r.outcomes ? r.outcomes[key] : (r.parameters[key] ?? '');
  const sorted = [...rows].sort((a, b) => {
    const [x, y] = [value(a, sort.key), value(b, sort.key)];
    return (x < y ? -1 : x > y ? 1 : 0) * (sort.descending ? -1 : 1);
  });
  const heading = (key: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button class="linkish" onClick={() => setSort({ key, descending: sort.key === key ? !sort.descending : false })}>{key}</button>
    </th>
  );
  if (rows.length === 0) return <p>No evaluations yet.</p>;
  return (
    <div class="scroll">
      <table data-testid="evaluations">
        <thead><tr>{heading('iteration')}<th scope="col">Pareto</th>{constrained && <th scope="col">Feasible</th>}{parameters.map(heading)}{objectives.map(heading)}{outcomes.map(heading)}</tr></thead>
        <tbody>
          {sorted.slice((shown - 1) * ROWS_PER_PAGE, shown * ROWS_PER_PAGE).map((r) => (
            <tr class={r.is_pareto ? 'pareto' : r.feasible === false ? 'infeasible' : ''}>
              <td>{r.iteration}</td>
              <td>{r.is_pareto ? <span title="on the Pareto front">★<span class="visually-hidden"> Pareto</span></span> : ''}</td>
              {constrained && <td>{r.feasible === false ? 'no' : 'yes'}</td>}
              {parameters.map((p) => <td>{typeof r.parameters[p] === 'number' ? (r.parameters[p] as number).toPrecision(4) : r.parameters[p]}</td>)}
              {objectives.map((o) => <td>{r.objectives[o].toPrecision(5)}</td>)}
              {outcomes.map((o) => <td>{r.outcomes?.[o]?.toPrecision(5) ?? ''}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
      <Pager page={shown} pages={pages} label="Evaluation pages" position={`rows ${(shown - 1) * ROWS_PER_PAGE + 1}–${Math.min(rows.length, shown * ROWS_PER_PAGE)} of ${rows.length}`} onPage={setPage} />
    </div>
  );
}
