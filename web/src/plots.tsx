import { useMemo, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import type { ResultRow } from './api.js';
import { axis, padded, useChart } from './chart.js';
import { boundOf, type Bound } from './constraint-bound.js';
import { labelOf, recipeText, withUnit, type Measure, type ParameterShape } from './format.js';
import { ParallelCoordinates } from './parallel.js';

/** Iterations are whole numbers: no tick at 1.25. */
const ITERATION_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
const HEIGHT = 300;
/** How close (CSS px) the cursor must come to a point for the read-out to show it. */
const REACH = 24;

/** Hypervolume after each iteration (in `unit`, the product of the objectives' units), with the hovered iteration read out under the chart. */
export function ConvergencePlot({ history, unit }: { history: number[]; unit?: string }) {
  const data = useMemo<uPlot.AlignedData>(() => [history.map((_, i) => i + 1), history], [history]);
  const [hovered, setHovered] = useState<number | null>(null);
  const ref = useChart(
    (width) => ({
      width,
      height: HEIGHT,
      scales: { x: { time: false } },
      cursor: { drag: { x: false, y: false } },
      axes: [axis('iteration', { incrs: ITERATION_TICKS }), axis(labelOf('hypervolume', unit))],
      series: [{}, { label: 'hypervolume', stroke: '#1f5fbf', width: 2, points: { show: true } }],
    }),
    data,
    [],
    (u) => setHovered(u.cursor.idx ?? null),
  );
  const point = hovered !== null && hovered < history.length ? hovered : null;
  return (
    <figure class="chart">
      <figcaption>Convergence: hypervolume per iteration</figcaption>
      <div
        ref={ref}
        class="plot"
        data-testid="convergence-plot"
        data-points={history.length}
        aria-label={`Convergence: ${history.length} iterations`}
        role="img"
      />
      <p class="readout" data-testid="readout" aria-live="off">
        {point === null ? 'Hover the chart to read an iteration.' : `iteration ${point + 1}: hypervolume ${withUnit(history[point], unit)}`}
      </p>
    </figure>
  );
}

/**
 * The Pareto front: for two objectives one scatter; for three, the scatter of every pair (its
 * charts laid into the page's grid of plots beside the convergence plot); beyond that the pairs
 * grow too many, so parallel coordinates. Axes follow the Pareto front unless `showAll`.
 */
export function ParetoPlot({
  rows,
  objectives,
  parameters = [],
  limits = [],
  showAll,
}: {
  rows: ResultRow[];
  objectives: Measure[];
  /** named in a hovered point's read-out, so a point on the front says how to make it */
  parameters?: ParameterShape[];
  limits?: Limit[];
  showAll: boolean;
}) {
  if (objectives.length < 2) return <p>One objective: see the convergence plot.</p>;
  const pair = (fx: Measure, fy: Measure, testId: string) => (
    <PairPlot rows={rows} fx={fx} fy={fy} parameters={parameters} testId={testId} limits={limits} showAll={showAll} />
  );
  if (objectives.length === 2) return pair(objectives[0], objectives[1], 'pareto-plot');
  if (objectives.length > 3) {
    return (
      <figure class="chart">
        <figcaption>Pareto front: parallel coordinates (hover a line to read it)</figcaption>
        <ParallelCoordinates rows={rows} objectives={objectives} parameters={parameters} />
      </figure>
    );
  }
  const pairs = objectives.flatMap((fx, i) => objectives.slice(i + 1).map((fy) => [fx, fy] as const));
  return (
    <div class="matrix" data-testid="pareto-matrix" data-pairs={pairs.length}>
      {pairs.map(([fx, fy], k) => pair(fx, fy, k === 0 ? 'pareto-plot' : `pareto-plot-${k}`))}
    </div>
  );
}

/**
 * A bound an outcome constraint puts on one objective (`f1 <= 0.8`), drawn as a dashed line on
 * every plot with that objective on an axis.
 */
export type Limit = Bound;

/** The limits among outcome-constraint expressions of the simple form `name op number` (or `number op name`) on an objective. */
export function objectiveLimits(expressions: readonly string[], objectives: readonly string[]): Limit[] {
  return expressions.map(boundOf).filter((b): b is Bound => b !== null && objectives.includes(b.name));
}

/** The rows the axes are fitted to: the Pareto front (every row until there is one), or all. */
function fitted(rows: ResultRow[], showAll: boolean): ResultRow[] {
  const front = rows.filter((r) => r.is_pareto);
  return showAll || front.length === 0 ? rows : front;
}

/** The padded range of `name` over `rows`, and over the limits on it: a front hugs its constraint, so the line belongs in view. */
function extent(rows: ResultRow[], name: string, limits: Limit[]): [number, number] {
  const values = [...rows.map((r) => r.objectives[name]), ...limits.filter((l) => l.name === name).map((l) => l.value)];
  return padded(Math.min(...values), Math.max(...values));
}

function PairPlot({
  rows,
  fx,
  fy,
  parameters,
  testId,
  limits,
  showAll,
}: {
  rows: ResultRow[];
  fx: Measure;
  fy: Measure;
  parameters: ParameterShape[];
  testId: string;
  limits: Limit[];
  showAll: boolean;
}) {
  const infeasible = rows.filter((r) => r.feasible === false).length;
  const sorted = useMemo(() => [...rows].sort((a, b) => a.objectives[fx.name] - b.objectives[fx.name]), [rows, fx.name]);
  // the scales' range functions outlive a render: they read the rows to fit from here
  const fit = useRef<ResultRow[]>(rows);
  fit.current = fitted(rows, showAll);
  const data = useMemo<uPlot.AlignedData>(() => {
    const series = (keep: (r: ResultRow) => boolean) => sorted.map((r) => (keep(r) ? r.objectives[fy.name] : null));
    return [
      sorted.map((r) => r.objectives[fx.name]),
      series((r) => !r.is_pareto && r.feasible !== false),
      series((r) => r.is_pareto),
      series((r) => r.feasible === false),
    ];
    // showAll: a new array makes uPlot range the scales again
  }, [sorted, fy.name, showAll]);
  const [hovered, setHovered] = useState<ResultRow | null>(null);
  const drawn = limits.filter((l) => l.name === fx.name || l.name === fy.name);
  const ref = useChart(
    (width) => ({
      width,
      height: HEIGHT,
      mode: 1,
      scales: { x: { time: false, range: () => extent(fit.current, fx.name, drawn) }, y: { range: () => extent(fit.current, fy.name, drawn) } },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      axes: [axis(labelOf(fx.name, fx.unit)), axis(labelOf(fy.name, fy.unit))],
      series: [
        {},
        { label: 'dominated', stroke: 'rgba(110,110,110,0.45)', paths: () => null, points: { show: true, size: 6 } },
        {
          label: 'Pareto front',
          stroke: '#c0392b',
          fill: 'rgba(192,57,43,0.35)',
          paths: () => null,
          points: { show: true, size: 9, fill: 'rgba(192,57,43,0.35)' },
        },
        {
          label: 'infeasible',
          stroke: '#d68910',
          fill: 'rgba(255,255,255,0)',
          paths: () => null,
          points: { show: true, size: 7, width: 1.5, fill: 'rgba(255,255,255,0)' },
        },
      ],
      hooks: { draw: [(u: uPlot) => drawLimits(u, drawn, fx.name)] },
    }),
    data,
    [fx.name, fy.name, drawn.map((l) => l.expression).join()],
    (u) => {
      const next = nearest(u, sorted, fx.name, fy.name);
      setHovered((previous) => (previous?.id === next?.id ? previous : next));
    },
  );
  const label = `${fy.name} against ${fx.name}: ${rows.length} evaluations${infeasible > 0 ? `, ${infeasible} infeasible (hollow orange)` : ''}${drawn.length > 0 ? `; limits ${drawn.map((l) => l.expression).join(', ')} dashed` : ''}`;
  return (
    <figure class="chart">
      <figcaption>
        Pareto front: {fy.name} against {fx.name}
      </figcaption>
      <div
        ref={ref}
        class="plot"
        data-testid={testId}
        data-points={rows.length}
        data-infeasible={infeasible}
        data-limits={drawn.length}
        data-range={showAll ? 'all' : 'front'}
        role="img"
        aria-label={label}
      />
      <p class="readout" data-testid="readout" aria-live="off">
        {hovered === null ? 'Hover a point to read its values and its recipe.' : readout(hovered, [fx, fy], parameters)}
      </p>
    </figure>
  );
}

/** "iteration 4 · eval_… · Pareto front · cost 0.52 USD · loss 1.3 · recipe: x1 0.25 g, x2 3": what a hovered point is and how to make it. */
function readout(row: ResultRow, measures: Measure[], parameters: ParameterShape[]): string {
  const kind = row.is_pareto ? 'Pareto front' : row.feasible === false ? 'infeasible' : 'dominated';
  const recipe = parameters.length > 0 ? [`recipe: ${recipeText(row.parameters, parameters)}`] : [];
  return [`iteration ${row.iteration}`, row.id, kind, ...measures.map((m) => `${m.name} ${withUnit(row.objectives[m.name], m.unit)}`), ...recipe].join(' · ');
}

/** The row drawn nearest the cursor inside the plot, if within reach. */
function nearest(u: uPlot, rows: ResultRow[], fx: string, fy: string): ResultRow | null {
  const { left, top } = u.cursor;
  if (left === undefined || top === undefined || left < 0 || top < 0) return null;
  let best: ResultRow | null = null;
  let bestDistance = REACH * REACH;
  for (const r of rows) {
    const dx = u.valToPos(r.objectives[fx], 'x') - left;
    const dy = u.valToPos(r.objectives[fy], 'y') - top;
    if (dx * dx + dy * dy < bestDistance) {
      bestDistance = dx * dx + dy * dy;
      best = r;
    }
  }
  return best;
}

/** Dashed lines at the limits (vertical for the x objective, horizontal for the y one). */
function drawLimits(u: uPlot, limits: Limit[], fx: string): void {
  if (limits.length === 0) return;
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  ctx.save();
  // a limit outside the axes' range would otherwise be drawn over the ticks
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
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
