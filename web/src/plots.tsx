import { useEffect, useMemo, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ResultRow } from './api.js';
import { ParallelCoordinates } from './parallel.js';

/**
 * A uPlot chart made once per set of options and fed new data as the campaign runs: redrawing
 * with setData keeps the axes' state and costs a fraction of building the chart again.
 */
function useUPlot(options: (width: number) => uPlot.Options, data: uPlot.AlignedData, optionKeys: unknown[]) {
  const ref = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    if (!ref.current) return;
    plot.current = new uPlot(options(ref.current.clientWidth || 640), data, ref.current);
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, optionKeys);
  useEffect(() => plot.current?.setData(data), [data]);
  return ref;
}

/** Iterations are whole numbers: no tick at 1.25. */
const ITERATION_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

/** Hypervolume after each iteration. */
export function ConvergencePlot({ history }: { history: number[] }) {
  const data = useMemo<uPlot.AlignedData>(() => [history.map((_, i) => i + 1), history], [history]);
  const ref = useUPlot(
    (width) => ({
      width: Math.min(640, width),
      height: 260,
      scales: { x: { time: false } },
      axes: [{ label: 'iteration', incrs: ITERATION_TICKS }, { label: 'hypervolume' }],
      series: [{}, { label: 'hypervolume', stroke: '#1f5fbf', width: 2, points: { show: true } }],
    }),
    data,
    [],
  );
  return <div ref={ref} class="plot" data-testid="convergence-plot" data-points={history.length} aria-label={`Convergence: ${history.length} iterations`} role="img" />;
}

/**
 * The Pareto front: for two objectives one scatter; for three, the scatter of every pair (a
 * matrix); beyond that the pairs grow too many, so parallel coordinates. Pareto rows are
 * highlighted over all objectives, dominated ones faded. `directions` are the MDL's
 * ('minimize' or 'maximize'), in the order of `objectives`.
 */
export function ParetoPlot({ rows, objectives, directions, limits = [] }: { rows: ResultRow[]; objectives: string[]; directions: string[]; limits?: Limit[] }) {
  if (objectives.length < 2) return <p>One objective: see the convergence plot.</p>;
  if (objectives.length === 2) return <PairPlot rows={rows} fx={objectives[0]} fy={objectives[1]} testId="pareto-plot" limits={limits} />;
  if (objectives.length > 3) return <ParallelCoordinates rows={rows} objectives={objectives} directions={directions} />;
  const pairs = objectives.flatMap((fx, i) => objectives.slice(i + 1).map((fy) => [fx, fy] as const));
  return (
    <div class="matrix" data-testid="pareto-matrix" data-pairs={pairs.length}>
      {pairs.map(([fx, fy], k) => <PairPlot rows={rows} fx={fx} fy={fy} testId={k === 0 ? 'pareto-plot' : `pareto-plot-${k}`} limits={limits} small />)}
    </div>
  );
}

/**
 * A bound an outcome constraint puts on one objective (`f1 <= 0.8`), drawn as a dashed line on
 * every plot with that objective on an axis.
 */
export interface Limit {
  name: string;
  value: number;
  expression: string;
}

/** The limits among outcome-constraint expressions of the simple form `name op number` (or `number op name`). */
export function objectiveLimits(expressions: readonly string[], objectives: readonly string[]): Limit[] {
  const limits: Limit[] = [];
  for (const expression of expressions) {
    const direct = /^\s*([A-Za-z_]\w*)\s*(<=|>=|<|>)\s*(-?[\d.]+(?:e[-+]?\d+)?)\s*$/i.exec(expression);
    const flipped = /^\s*(-?[\d.]+(?:e[-+]?\d+)?)\s*(<=|>=|<|>)\s*([A-Za-z_]\w*)\s*$/i.exec(expression);
    const [name, value] = direct ? [direct[1], Number(direct[3])] : flipped ? [flipped[3], Number(flipped[1])] : [null, NaN];
    if (name && objectives.includes(name) && Number.isFinite(value)) limits.push({ name, value, expression: expression.trim() });
  }
  return limits;
}

function PairPlot({ rows, fx, fy, testId, limits, small = false }: { rows: ResultRow[]; fx: string; fy: string; testId: string; limits: Limit[]; small?: boolean }) {
  const infeasible = rows.filter((r) => r.feasible === false).length;
  const data = useMemo<uPlot.AlignedData>(() => {
    const sorted = [...rows].sort((a, b) => a.objectives[fx] - b.objectives[fx]);
    const series = (keep: (r: ResultRow) => boolean) => sorted.map((r) => (keep(r) ? r.objectives[fy] : null));
    return [
      sorted.map((r) => r.objectives[fx]),
      series((r) => !r.is_pareto && r.feasible !== false),
      series((r) => r.is_pareto),
      series((r) => r.feasible === false),
    ];
  }, [rows, fx, fy]);
  const drawn = limits.filter((l) => l.name === fx || l.name === fy);
  const ref = useUPlot(
    (width) => ({
      width: small ? 300 : Math.min(640, width),
      height: small ? 240 : 300,
      mode: 1,
      scales: { x: { time: false } },
      axes: [{ label: fx }, { label: fy }],
      series: [
        {},
        { label: 'dominated', stroke: 'rgba(110,110,110,0.45)', paths: () => null, points: { show: true, size: 6 } },
        { label: 'Pareto front', stroke: '#c0392b', fill: 'rgba(192,57,43,0.35)', paths: () => null, points: { show: true, size: 9, fill: 'rgba(192,57,43,0.35)' } },
        { label: 'infeasible', stroke: '#d68910', fill: 'rgba(255,255,255,0)', paths: () => null, points: { show: true, size: 7, width: 1.5, fill: 'rgba(255,255,255,0)' } },
      ],
      hooks: { draw: [(u: uPlot) => drawLimits(u, drawn, fx)] },
    }),
    data,
    [fx, fy, small, drawn.map((l) => l.expression).join()],
  );
  const label = `${fy} against ${fx}: ${rows.length} evaluations${infeasible > 0 ? `, ${infeasible} infeasible (hollow orange)` : ''}${drawn.length > 0 ? `; limits ${drawn.map((l) => l.expression).join(', ')} dashed` : ''}`;
  return <div ref={ref} class="plot" data-testid={testId} data-points={rows.length} data-infeasible={infeasible} data-limits={drawn.length} role="img" aria-label={label} />;
}

/** Dashed lines at the limits (vertical for the x objective, horizontal for the y one). */
function drawLimits(u: uPlot, limits: Limit[], fx: string): void {
  if (limits.length === 0) return;
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  ctx.save();
  ctx.strokeStyle = '#d68910';
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 1.5 * devicePixelRatio;
  for (const limit of limits) {
    ctx.beginPath();
    if (limit.name === fx) {
      const x = u.valToPos(limit.value, 'x', true);
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
    } else {
      const y = u.valToPos(limit.value, 'y', true);
      ctx.moveTo(left, y);
      ctx.lineTo(left + width, y);
    }
    ctx.stroke();
  }
  ctx.restore();
}
