import { useState } from 'preact/hooks';
import type { Campaign, Results } from './api.js';
import { hypervolumeUnit, type Measure } from './format.js';
import { ConvergencePlot, ParetoPlot, objectiveLimits } from './plots.js';

/**
 * The convergence plot and the Pareto front side by side across the page, with one key for the
 * markers, the count of infeasible, partial, failed and abandoned evaluations (the last three are
 * not plotted: they lack values), and the switch between axes that follow
 * the Pareto front and axes that hold every point. Before the first results, a sentence says when
 * the plots will come instead of empty charts.
 */
export function CampaignPlots({ campaign, results }: { campaign: Campaign; results: Results }) {
  const [showAll, setShowAll] = useState(false);
  const objectives: Measure[] = campaign.mdl?.objectives ?? [];
  const constraints = campaign.mdl?.outcome_constraints ?? [];
  // a partial measurement lacks a coordinate: counted, not plotted
  const rows = results.evaluations.filter((r) => r.status === 'measured');
  const partial = results.evaluations.length - rows.length;
  if (results.evaluations.length === 0 && results.convergence_history.length === 0) {
    return (
      <section>
        <h2>Convergence and Pareto front</h2>
        <p class="plots-empty" data-testid="plots-empty">
          {emptyReason(campaign.status)}
        </p>
      </section>
    );
  }
  const pareto = rows.filter((r) => r.is_pareto).length;
  const infeasible = rows.filter((r) => r.feasible === false).length;
  const unscored = results.failed_evaluations ?? [];
  const failed = unscored.filter((f) => f.status === 'failed').length;
  const abandoned = unscored.length - failed;
  const scatter = objectives.length === 2 || objectives.length === 3;
  const layout = objectives.length > 3 ? 'plots wide-second' : 'plots';
  return (
    <section aria-labelledby="plots-heading">
      <h2 id="plots-heading">Convergence and Pareto front</h2>
      <div class="plot-bar">
        {/* parallel coordinates carry their own key */}
        {scatter && (
          <ul class="plot-key" aria-label="Markers">
            <li>
              <span class="marker pareto" aria-hidden="true" />
              Pareto front ({pareto})
            </li>
            <li>
              <span class="marker dominated" aria-hidden="true" />
              dominated ({rows.length - pareto - infeasible})
            </li>
            {constraints.length > 0 && (
              <li>
                <span class="marker infeasible" aria-hidden="true" />
                infeasible, hollow ({infeasible})
              </li>
            )}
          </ul>
        )}
        <span data-testid="evaluation-counts" data-infeasible={infeasible} data-partial={partial} data-failed={failed} data-abandoned={abandoned}>
          {infeasible} infeasible{partial > 0 ? `, ${partial} partial` : ''}, {failed} failed{abandoned > 0 ? `, ${abandoned} abandoned` : ''}
        </span>
        {scatter && (
          <label class="check">
            <input type="checkbox" checked={showAll} onChange={(e) => setShowAll((e.target as HTMLInputElement).checked)} data-testid="show-all" />
            Show every point (otherwise the axes follow the Pareto front)
          </label>
        )}
      </div>
      <div class={layout} data-testid="plots">
        <ConvergencePlot history={results.convergence_history} unit={hypervolumeUnit(objectives)} />
        <ParetoPlot
          rows={rows}
          objectives={objectives}
          parameters={campaign.mdl?.parameters ?? []}
          limits={objectiveLimits(
            constraints.map((c) => c.expression),
            objectives.map((o) => o.name),
          )}
          showAll={showAll}
        />
      </div>
      {unscored.length > 0 && (
        <details class="failed" data-testid="failed-evaluations">
          <summary>
            {[failed > 0 ? `${failed} failed` : '', abandoned > 0 ? `${abandoned} abandoned` : ''].filter(Boolean).join(' and ')}
            {failed + abandoned === 1 ? ' evaluation' : ' evaluations'}: no objective values, so not plotted
          </summary>
          <ul>
            {unscored.map((f) => (
              <li data-status={f.status}>
                iteration {f.iteration} · {f.id} · {f.status}: {f.error}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function emptyReason(status: string): string {
  if (status === 'created') return 'Nothing to plot yet: start the campaign, and the convergence plot and the Pareto front appear with its first evaluations.';
  if (status === 'running') return 'Waiting for the first evaluations: the plots appear as soon as they come back.';
  return 'This campaign has no evaluations to plot.';
}
