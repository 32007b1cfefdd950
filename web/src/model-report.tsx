import { useEffect, useState } from 'preact/hooks';
import { api, explain } from './api.js';
import type { ModelReport } from './contract.js';
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
  units,
  parameters = [],
}: {
  id: string;
  iteration: number;
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
  }, [id, iteration]);
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
      <CheckLegend />
      <div class="report-grid">
        {report.outputs.map((o) => (
          <figure class="check" data-testid="model-check">
            <CheckPlot output={o} unit={units[o.name]} />
            <figcaption>
              <strong>{o.name}</strong>: R² {o.r2.toFixed(3)} · ±1σ holds {percent(o.coverage_68)} · ±1.96σ holds {percent(o.coverage_95)} · bias{' '}
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

/**
 * Predicted (y) against measured (x), with ±1.96σ bars and the line of perfect prediction. Both
 * axes share one range and the same round ticks, so the diagonal is the 45° line; a point in red
 * is a measurement outside its interval (see the legend above the plots).
 */
function CheckPlot({ output, unit }: { output: ModelReport['outputs'][number]; unit?: string }) {
  const values = output.predictions.flatMap((p) => [p.measured, p.predicted - 1.96 * p.sd, p.predicted + 1.96 * p.sd]);
  const ticks = niceTicks(Math.min(...values), Math.max(...values));
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const x = (v: number) => MARGIN.left + ((v - lo) / (hi - lo)) * (SIZE - MARGIN.left - MARGIN.right);
  const y = (v: number) => SIZE - MARGIN.bottom - ((v - lo) / (hi - lo)) * (SIZE - MARGIN.top - MARGIN.bottom);
  const label = `${output.kind === 'constraint' ? `slack of ${output.name}` : output.name}${unit ? ` (${unit})` : ''}`;
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
      {output.predictions.map((p) => {
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

/** What the model checks draw, once for all of them. */
function CheckLegend() {
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
 * The pending candidates as the model sees them, parameters in the MDL's order with their units,
 * written as a lab sets them (to the step when declared, else 5 significant digits without an
 * exponent); the expected improvement, a small quantity by nature, to 3 significant digits.
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
  const objectives = Object.keys(next[0].predicted);
  return (
    <>
      <h3>Where the campaign looks next</h3>
      <p class="muted">The candidates awaiting evaluation, with the model's prediction (mean ± sd) and its expected hypervolume improvement.</p>
      <div class="scroll">
        <table data-testid="next-candidates">
          <thead>
            <tr>
              <th scope="col">candidate</th>
              {parameters.map((p) => (
                <th scope="col">{labelOf(p.name, p.unit)}</th>
              ))}
              {objectives.map((o) => (
                <th scope="col">{labelOf(o, units[o])}</th>
              ))}
              <th scope="col">P(feasible)</th>
              <th scope="col">expected improvement</th>
            </tr>
          </thead>
          <tbody>
            {next.map((c) => (
              <tr>
                <td>{c.id}</td>
                {parameters.map((p) => (
                  <td>{formatParameter(c.parameters[p.name], p)}</td>
                ))}
                {objectives.map((o) => (
                  <td>
                    {plainNumber(c.predicted[o].mean)} ± {plainNumber(c.predicted[o].sd)}
                  </td>
                ))}
                <td>{c.probability_feasible.toFixed(2)}</td>
                <td>{Number(c.expected_improvement.toPrecision(3)).toString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
