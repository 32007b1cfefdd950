import { useEffect, useState } from 'preact/hooks';
import { api, explain } from './api.js';
import type { ModelReport } from './contract.js';
import { boundOf, boundText, valueFromSlack } from './constraint-bound.js';
import { Heading } from './heading.js';
import { formatNumber, formatParameter, labelOf, niceTicks, plainNumber, type ParameterShape } from './format.js';

const SIZE = 320;
const percent = (share: number) => `${Math.round(share * 100)} %`;
const short = (v: number) => formatNumber(v);

/**
 * The model report of a campaign: predicted against measured for every objective and outcome
 * constraint (each measurement predicted by the model fitted to all the others, with its ±1.96σ
 * interval), parameter importance, and the candidates awaiting evaluation as the model sees them.
 * Re-read when the campaign completes an iteration.
 */
export function ModelReportPanel({
  id,
  iteration,
  status,
  units,
  parameters = [],
}: {
  id: string;
  iteration: number;
  /** the campaign's status: a report read before the campaign started says so, and is read again once it runs */
  status: string;
  /** the unit of each objective and outcome, objectives first in the MDL's order */
  units: Record<string, string | undefined>;
  parameters?: ParameterShape[];
}) {
  const [report, setReport] = useState<ModelReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [making, setMaking] = useState(false);
  useEffect(() => {
    // the worker computes the report after the iteration ends: until it is there, look again
    let timer: ReturnType<typeof setTimeout> | undefined;
    let tries = 0;
    const read = () =>
      api<ModelReport>('GET', `/v1/campaigns/${id}/model`).then(
        (r) => {
          setReport(r.data);
          setError(null);
          // an older report, or none yet though the campaign has enough evaluations for one
          const behind = r.data.iteration < iteration || (r.data.computed_at === null && r.data.evaluations >= 5);
          const again = behind && ++tries < 12;
          setMaking(again);
          if (again) timer = setTimeout(read, 5000);
        },
        (e) => setError(explain(e)),
      );
    void read();
    return () => clearTimeout(timer);
  }, [id, iteration, status]);
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!report) return <p aria-live="polite">Loading the model report…</p>;
  if (report.outputs.length === 0)
    return <p data-testid="model-message">{making ? `A worker is making the model report of iteration ${iteration}…` : report.message}</p>;
  return (
    <div data-testid="model-report">
      <p class="muted">
        Leave-one-out check over the {report.points} most recent evaluations (iteration {report.iteration}): a calibrated model holds about 68 % of the
        measurements within ±1σ and 95 % within ±1.96σ.
      </p>
      <CheckLegend limit={report.outputs.some((o) => o.kind === 'constraint' && boundOf(o.name) !== null)} />
      <div class="report-grid">
        {report.outputs.map((o) => (
          <figure class="check" data-testid="model-check">
            <CheckPlot output={o} units={units} />
            <figcaption>
              <strong>{checkedName(o, units)}</strong>: R² {o.r2.toFixed(3)} · ±1σ holds {percent(o.coverage_68)} · ±1.96σ holds {percent(o.coverage_95)} · bias{' '}
              {o.mean_standardized_error.toFixed(2)}σ · {o.predictions.filter(outside).length} of {o.predictions.length} outside ±1.96σ (red)
            </figcaption>
          </figure>
        ))}
      </div>
      <h3>Parameter importance</h3>
      <p class="muted">Total Sobol index of the model's mean over the whole box: the share of its variation that involves the parameter.</p>
      <div class="report-grid">
        {report.importance.map((i) => (
          <ImportanceBars objective={i.objective} parameters={i.parameters} />
        ))}
      </div>
      {report.next.length > 0 && <NextCandidates next={report.next} units={units} parameters={parameters} />}
    </div>
  );
}

/** Plot box of a model check: room on the left for the y ticks, below for the x ticks and the axis name. */
const MARGIN = { left: 52, right: 12, top: 12, bottom: 44 };

/** Points the model missed: the measurement lies outside its ±1.96σ interval. */
const outside = (p: { measured: number; predicted: number; sd: number }) => Math.abs(p.measured - p.predicted) > 1.96 * p.sd;

type Output = ModelReport['outputs'][number];

/**
 * What a check is about, as a person names it: an objective, or an outcome constraint as its
 * quantity and limit ("viscosity ≤ 10 mPa·s"); a constraint over several quantities as written.
 */
function checkedName(output: Output, units: Record<string, string | undefined>): string {
  if (output.kind !== 'constraint') return output.name;
  const bound = boundOf(output.name);
  return bound ? boundText(bound, units[bound.name]) : output.name;
}

/**
 * A check as it is drawn: an objective's values as they are; an outcome constraint on one quantity
 * (`viscosity <= 10`) as that quantity's values, turned back from the constraint's slack, with its
 * limit; any other constraint as its margin (the slack: how far inside it, negative outside).
 */
function drawnCheck(output: Output, units: Record<string, string | undefined>): { label: string; predictions: Output['predictions']; limit?: number } {
  if (output.kind !== 'constraint') return { label: labelOf(output.name, units[output.name]), predictions: output.predictions };
  const bound = boundOf(output.name);
  if (!bound) return { label: `margin of ${output.name}`, predictions: output.predictions };
  const value = (slack: number) => valueFromSlack(bound, slack);
  return {
    label: labelOf(bound.name, units[bound.name]),
    predictions: output.predictions.map((p) => ({ ...p, measured: value(p.measured), predicted: value(p.predicted) })),
    limit: bound.value,
  };
}

/**
 * Predicted (y) against measured (x), with ±1.96σ bars and the line of perfect prediction. Both
 * axes share one range and the same round ticks, so the diagonal is the 45° line; a point in red
 * is a measurement outside its interval (see the legend above the plots). An outcome constraint's
 * limit is a dashed orange line on both axes, as on the Pareto plots.
 */
function CheckPlot({ output, units }: { output: Output; units: Record<string, string | undefined> }) {
  const { label, predictions, limit } = drawnCheck(output, units);
  const values = [...predictions.flatMap((p) => [p.measured, p.predicted - 1.96 * p.sd, p.predicted + 1.96 * p.sd]), ...(limit === undefined ? [] : [limit])];
  const ticks = niceTicks(Math.min(...values), Math.max(...values));
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const x = (v: number) => MARGIN.left + ((v - lo) / (hi - lo)) * (SIZE - MARGIN.left - MARGIN.right);
  const y = (v: number) => SIZE - MARGIN.bottom - ((v - lo) / (hi - lo)) * (SIZE - MARGIN.top - MARGIN.bottom);
  return (
    <svg viewBox={`0 0 ${SIZE} ${SIZE}`} width={SIZE} height={SIZE} role="img" aria-label={`Predicted against measured ${label}`}>
      <g class="check-axes" font-size="11" fill="#57606a">
        {ticks.map((t) => (
          <g data-tick={t}>
            <line x1={x(t)} x2={x(t)} y1={y(lo)} y2={y(hi)} stroke="#eaeef2" />
            <line x1={x(lo)} x2={x(hi)} y1={y(t)} y2={y(t)} stroke="#eaeef2" />
            <text class="x-tick" x={x(t)} y={y(lo) + 14} text-anchor="middle">
              {short(t)}
            </text>
            <text class="y-tick" x={x(lo) - 5} y={y(t) + 4} text-anchor="end">
              {short(t)}
            </text>
          </g>
        ))}
        <rect x={x(lo)} y={y(hi)} width={x(hi) - x(lo)} height={y(lo) - y(hi)} fill="none" stroke="#8c959f" />
      </g>
      <line x1={x(lo)} y1={y(lo)} x2={x(hi)} y2={y(hi)} stroke="#57606a" stroke-dasharray="4 3" />
      {limit !== undefined && (
        <g class="limit" stroke="#d68910" stroke-width="1.5" stroke-dasharray="6 4">
          <title>{`the limit: ${checkedName(output, units)}`}</title>
          <line x1={x(limit)} x2={x(limit)} y1={y(lo)} y2={y(hi)} />
          <line x1={x(lo)} x2={x(hi)} y1={y(limit)} y2={y(limit)} />
        </g>
      )}
      {predictions.map((p) => {
        const color = outside(p) ? '#c0392b' : '#1f5fbf';
        return (
          <g class={outside(p) ? 'missed' : 'held'}>
            <title>{`${p.id}: measured ${short(p.measured)}, predicted ${short(p.predicted)} ± ${short(1.96 * p.sd)}${outside(p) ? ' (outside the interval)' : ''}`}</title>
            <line
              x1={x(p.measured)}
              x2={x(p.measured)}
              y1={y(p.predicted - 1.96 * p.sd)}
              y2={y(p.predicted + 1.96 * p.sd)}
              stroke={color}
              stroke-opacity="0.35"
            />
            <circle cx={x(p.measured)} cy={y(p.predicted)} r="3" fill={color} />
          </g>
        );
      })}
      <text x={(x(lo) + x(hi)) / 2} y={SIZE - 8} text-anchor="middle" font-size="12">
        measured {label}
      </text>
      <text x={12} y={(y(lo) + y(hi)) / 2} text-anchor="middle" font-size="12" transform={`rotate(-90 12 ${(y(lo) + y(hi)) / 2})`}>
        predicted
      </text>
    </svg>
  );
}

/** What the model checks draw, once for all of them; `limit` when some check draws an outcome constraint's limit. */
function CheckLegend({ limit }: { limit: boolean }) {
  return (
    <ul class="plot-key" data-testid="model-check-legend">
      <li>
        <span class="marker held" aria-hidden="true" /> measurement inside the model's ±1.96σ interval (the bar)
      </li>
      <li>
        <span class="marker missed" aria-hidden="true" /> red: outside it, the model missed this measurement (about 1 in 20 when calibrated)
      </li>
      <li>
        <span class="diagonal" aria-hidden="true" /> dashed: perfect prediction
      </li>
      {limit && (
        <li>
          <span class="diagonal limit" aria-hidden="true" /> dashed orange: an outcome constraint's limit
        </li>
      )}
    </ul>
  );
}

function ImportanceBars({ objective, parameters }: { objective: string; parameters: ModelReport['importance'][number]['parameters'] }) {
  const shown = [...parameters].sort((a, b) => b.total_sobol - a.total_sobol).slice(0, 12);
  return (
    <figure class="importance" data-testid="importance">
      <figcaption>
        <strong>{objective}</strong>
      </figcaption>
      <table>
        <tbody>
          {shown.map((p) => (
            <tr title={`lengthscale share ${percent(p.lengthscale_share)}`}>
              <th scope="row">{p.name}</th>
              <td class="bar-cell">
                <span class="bar" style={{ width: `${Math.max(1, p.total_sobol * 100)}%` }} />
              </td>
              <td>{p.total_sobol.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/**
 * The pending candidates as the model sees them: why each was chosen first (its probability of
 * meeting the outcome constraints and its expected improvement, kept in view beside its id however
 * many parameters follow), then the predicted objectives (mean ± sd, the sd to 2 significant
 * digits) and the parameters in the MDL's order with their units, written as a lab sets them (to
 * the step when declared, else 5 significant digits without an exponent). The expected improvement,
 * a small quantity by nature, has 3 significant digits.
 */
function NextCandidates({
  next,
  units,
  parameters: declared,
}: {
  next: ModelReport['next'];
  units: Record<string, string | undefined>;
  parameters: ParameterShape[];
}) {
  const named = new Set(declared.map((p) => p.name));
  const parameters = [
    ...declared,
    ...Object.keys(next[0].parameters)
      .filter((n) => !named.has(n))
      .map((name): ParameterShape => ({ name, type: 'continuous' })),
  ];
  // the MDL's order (the units' keys), then any the report has beyond them
  const predicted = Object.keys(next[0].predicted);
  const objectives = [...Object.keys(units).filter((o) => predicted.includes(o)), ...predicted.filter((o) => !(o in units))];
  const significant = (x: number, digits: number) => Number(x.toPrecision(digits)).toString();
  return (
    <>
      <h3>Where the campaign looks next</h3>
      <p class="muted">The candidates awaiting evaluation, with the model's prediction (mean ± sd) and its expected hypervolume improvement.</p>
      <div class="scroll table-scroll" tabIndex={0} aria-label="The next candidates, scroll sideways for every parameter">
        <table data-testid="next-candidates" class="sticky-first compact">
          <thead>
            <tr>
              <th scope="col">candidate</th>
              <th scope="col">P(feasible)</th>
              <th scope="col">
                expected <wbr />
                improvement
              </th>
              {objectives.map((o) => (
                <th scope="col">
                  <Heading name={o} unit={units[o]} />
                </th>
              ))}
              {parameters.map((p) => (
                <th scope="col">
                  <Heading name={p.name} unit={p.unit} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {next.map((c) => (
              <tr>
                <td>{c.id}</td>
                <td>{c.probability_feasible.toFixed(2)}</td>
                <td>{significant(c.expected_improvement, 3)}</td>
                {objectives.map((o) => (
                  <td>
                    {plainNumber(c.predicted[o].mean)} ± {significant(c.predicted[o].sd, 2)}
                  </td>
                ))}
                {parameters.map((p) => (
                  <td>{formatParameter(c.parameters[p.name], p)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
