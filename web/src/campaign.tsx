import { useEffect, useRef, useState } from 'preact/hooks';
import { api, download, explain, subscribe, type Campaign, type Results } from './api.js';
import type { IterationSummary } from './contract.js';
import { applyIteration } from './apply-iteration.js';
import { NoisyFront } from './noisy-front.js';
import { deleteCampaign } from './campaigns.js';
import { CampaignPlots } from './campaign-plots.js';
import { EvaluationTable, tableRows, type Column } from './evaluations.js';
import { hypervolumeOf, referenceDistanceText, withUnit } from './format.js';
import { HypervolumeExplained } from './hypervolume-explained.js';
import { stateCounts } from './result-states.js';
import { ModelReportPanel } from './model-report.js';
import { Worklist } from './worklist.js';
import type { WorklistAnswer } from './worklist-answer.js';
import { Corrections } from './corrections.js';

/**
 * The campaign and its results, kept current from its jobs' events: each stored iteration's
 * `job.progress` carries what the iteration added, which is appended; the results are re-read
 * only when an event cannot be applied (an iteration missed, rows too many for one event) and
 * after a reconnect, since events sent while the socket was down are gone. A status change re-reads
 * the campaign alone. Reads can be slower than events on a large campaign, so at most one full read
 * is in flight, with one more queued behind it; events arriving meanwhile are applied after it.
 */
function useLiveCampaign(id: string) {
  const [campaign, setCampaign] = useState<Campaign | null>(null);
  const [results, setResults] = useState<Results | null>(null);
  const [error, setError] = useState<string | null>(null);
  const held = useRef<{ campaign: Campaign | null; results: Results | null }>({ campaign: null, results: null });
  const reading = useRef<{ busy: boolean; again: boolean; waiting: IterationSummary[] }>({ busy: false, again: false, waiting: [] });
  const show = (c: Campaign, r: Results | null) => {
    held.current = { campaign: c, results: r ?? held.current.results };
    setCampaign(c);
    if (r) setResults(r);
  };
  const apply = (summary: IterationSummary): void => {
    const { campaign: c, results: r } = held.current;
    if (reading.current.busy || !c || !r) {
      reading.current.waiting.push(summary);
      return;
    }
    const next = applyIteration(c, r, summary);
    if (next) show(next.campaign, next.results);
    else void refresh();
  };
  const refresh = async (): Promise<void> => {
    if (reading.current.busy) {
      reading.current.again = true;
      return;
    }
    reading.current.busy = true;
    try {
      const [c, r] = await Promise.all([api<Campaign>('GET', `/v1/campaigns/${id}`), api<Results>('GET', `/v1/campaigns/${id}/results`)]);
      show(c.data, r.data);
      setError(null);
    } catch (e) {
      setError(explain(e));
    } finally {
      reading.current.busy = false;
      if (reading.current.again) {
        reading.current.again = false;
        void refresh();
      } else {
        for (const summary of reading.current.waiting.splice(0)) apply(summary);
      }
    }
  };
  const reloadCampaign = async (): Promise<void> => {
    try {
      const c = await api<Campaign>('GET', `/v1/campaigns/${id}`);
      // figures already applied from newer events are kept
      const current = held.current.campaign;
      show(current && current.current_iteration > c.data.current_iteration ? { ...c.data, ...figures(current) } : c.data, null);
    } catch (e) {
      setError(explain(e));
    }
  };
  useEffect(() => {
    void refresh();
    return subscribe(
      id,
      (event) => {
        if (event.type === 'job.progress') apply(event.data.summary);
        else if (event.type === 'campaign.status') void reloadCampaign();
      },
      () => void refresh(),
    );
  }, [id]);
  return { campaign, results, error, setError, refresh: reloadCampaign, reload: refresh };
}

function figures(c: Campaign): Pick<Campaign, 'current_iteration' | 'evaluations_completed' | 'hypervolume' | 'pareto_size' | 'best_objectives'> {
  return {
    current_iteration: c.current_iteration,
    evaluations_completed: c.evaluations_completed,
    hypervolume: c.hypervolume,
    pareto_size: c.pareto_size,
    best_objectives: c.best_objectives,
  };
}

export function CampaignDetail({ id }: { id: string }) {
  const { campaign, results, error, setError, refresh, reload } = useLiveCampaign(id);
  const [corrected, setCorrected] = useState<ReadonlySet<string>>(new Set());
  // held here, not in the worklist, so the answer to the post that completed the campaign stays on the page
  const [worklistAnswer, setWorklistAnswer] = useState<WorklistAnswer | null>(null);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
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
  if (error && !campaign)
    return (
      <main>
        <p role="alert" class="error">
          {error}
        </p>
        <p>
          <a href="#/campaigns">← Campaigns</a>
        </p>
      </main>
    );
  if (!campaign || !results)
    return (
      <main>
        <p aria-live="polite">Loading…</p>
      </main>
    );
  const objectives = campaign.mdl?.objectives ?? [];
  const constraints = campaign.mdl?.outcome_constraints ?? [];
  const columns: Column[] = [
    ...(campaign.mdl?.parameters ?? []).map((p) => ({ ...p, kind: 'parameter' as const })),
    ...objectives.map((o) => ({ ...o, kind: 'objective' as const })),
    ...(campaign.mdl?.outcomes ?? []).map((o) => ({ ...o, kind: 'outcome' as const })),
  ];
  const evaluator = campaign.mdl?.evaluator as { type?: string } | undefined;
  const external = !evaluator || evaluator.type === 'external';
  const rows = tableRows(results.evaluations, results.failed_evaluations);
  // outcome constraints judge complete measurements; a partial one is counted as partial
  const complete = results.evaluations.filter((r) => r.status === 'measured');
  const infeasible = complete.filter((r) => r.feasible === false).length;
  const share = campaign.budget > 0 ? campaign.evaluations_completed / campaign.budget : 0;
  return (
    <main class="wide">
      <p>
        <a href="#/campaigns">← Campaigns</a>
      </p>
      <h1>{campaign.name}</h1>
      <p aria-live="polite">
        <span data-testid="status" class={`status status-${campaign.status}`}>
          {campaign.status}
        </span>{' '}
        · {campaign.domain} · {campaign.evaluations_completed} / {campaign.budget} evaluations
        <span data-testid="state-counts">{stateCounts(rows)}</span> · iteration {campaign.current_iteration} · hypervolume{' '}
        <span data-testid="hypervolume">{hypervolumeOf(campaign)}</span>
        {results.noisy && <span data-testid="hypervolume-basis"> (the model's predictions; measurements are noisy)</span>} ·{' '}
        {/* the front the plots draw, so the header and the chart never disagree */}
        <span data-testid="pareto-size">{results.evaluations.filter((r) => r.is_pareto).length}</span> on the Pareto front
        {constraints.length > 0 && (
          <span data-testid="feasibility">
            {' '}
            · {complete.length - infeasible} feasible, {infeasible} infeasible (subject to {constraints.map((c) => c.expression).join(', ')})
          </span>
        )}
      </p>
      <HypervolumeExplained objectives={objectives} results={results} />
      {results.reference_distance && (
        <p data-testid="reference-distance">{referenceDistanceText(results.reference_distance, Object.fromEntries(objectives.map((o) => [o.name, o.unit])))}</p>
      )}
      {campaign.stop_message && <p data-testid="stop-message">{campaign.stop_message}</p>}
      <progress max={1} value={share} aria-label="Evaluations done of the budget">
        {Math.round(share * 100)} %
      </progress>
      <p class="row">
        {(campaign.status === 'created' || campaign.status === 'stopped') && <button onClick={() => void act('start')}>Start</button>}
        {campaign.status === 'running' && <button onClick={() => void act('stop')}>Stop</button>}
        <button class="secondary" onClick={() => void save('csv')}>
          Download CSV
        </button>
        <button class="secondary" onClick={() => void save('json')}>
          Download JSON
        </button>
        <button
          class="secondary"
          title="The whole campaign (MDL, evaluations, receipts, engine state) as one document, to import into another Kiln or continue with kiln run --resume-from"
          onClick={() => void download(`/v1/campaigns/${id}/export`, `${id}-export.json`).catch((e) => setError(explain(e)))}
        >
          Export
        </button>
        {campaign.latest_job_id && <a href={`#/jobs/${campaign.latest_job_id}`}>Job and log</a>}
        <button class="danger" onClick={() => void remove()}>
          Delete
        </button>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {external && (campaign.status === 'running' || worklistAnswer) && (
        <Worklist
          id={campaign.id}
          status={campaign.status}
          parameters={campaign.mdl?.parameters ?? []}
          objectives={objectives}
          outcomes={campaign.mdl?.outcomes ?? []}
          version={campaign.evaluations_completed + campaign.current_iteration * 1e6}
          answer={worklistAnswer}
          onAnswer={setWorklistAnswer}
        />
      )}
      <CampaignPlots campaign={campaign} results={results} />
      <section>
        <h2>Best objectives{results.noisy ? ' (predicted)' : ''}</h2>
        {Object.keys(campaign.best_objectives ?? {}).length === 0 ? (
          <p>None yet: they appear with the first evaluations.</p>
        ) : (
          <dl class="best" data-testid="best-objectives">
            {objectives.map((o) => (
              <div>
                <dt>
                  {o.name} ({o.direction === 'maximize' ? 'highest' : 'lowest'})
                </dt>
                <dd>{withUnit(campaign.best_objectives?.[o.name], o.unit)}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      <section>
        <h2>Model</h2>
        <ModelReportPanel
          id={campaign.id}
          iteration={campaign.current_iteration}
          status={campaign.status}
          units={Object.fromEntries([...objectives, ...(campaign.mdl?.outcomes ?? [])].map((o) => [o.name, o.unit]))}
          parameters={campaign.mdl?.parameters ?? []}
        />
      </section>
      <NoisyFront results={results} parameters={campaign.mdl?.parameters ?? []} objectives={objectives} />
      <section>
        <h2>Evaluations</h2>
        <EvaluationTable rows={rows} columns={columns} constrained={constraints.length > 0} corrected={corrected} />
      </section>
      {external && (
        <Corrections
          id={campaign.id}
          results={results}
          objectives={objectives}
          outcomes={campaign.mdl?.outcomes ?? []}
          running={campaign.status === 'running'}
          onCorrected={() => void reload()}
          onHistory={setCorrected}
        />
      )}
    </main>
  );
}
