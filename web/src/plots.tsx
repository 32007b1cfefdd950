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
export function ParetoPlot({ rows, objectives, directions }: { rows: ResultRow[]; objectives: string[]; directions: string[] }) {
  if (objectives.length < 2) return <p>One objective: see the convergence plot.</p>;
  if (objectives.length === 2) return <PairPlot rows={rows} fx={objectives[0]} fy={objectives[1]} testId="pareto-plot" />;
  if (objectives.length > 3) return <ParallelCoordinates rows={rows} objectives={objectives} directions={directions} />;
  const pairs = objectives.flatMap((fx, i) => objectives.slice(i + 1).map((fy) => [fx, fy] as const));
  return (
    <div class="matrix" data-testid="pareto-matrix" data-pairs={pairs.length}>
      {pairs.map(([fx, fy], k) => <PairPlot rows={rows} fx={fx} fy={fy} testId={k === 0 ? 'pareto-plot' : `pareto-plot-${k}`} small />)}
    </div>
  );
}

function PairPlot({ rows, fx, fy, testId, small = false }: { rows: ResultRow[]; fx: string; fy: string; testId: string; small?: boolean }) {
  const data = useMemo<uPlot.AlignedData>(() => {
    const sorted = [...rows].sort((a, b) => a.objectives[fx] - b.objectives[fx]);
    return [sorted.map((r) => r.objectives[fx]), sorted.map((r) => (r.is_pareto ? null : r.objectives[fy])), sorted.map((r) => (r.is_pareto ? r.objectives[fy] : null))];
  }, [rows, fx, fy]);
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
      ],
    }),
    data,
    [fx, fy, small],
  );
  return <div ref={ref} class="plot" data-testid={testId} data-points={rows.length} role="img" aria-label={`${fy} against ${fx}: ${rows.length} evaluations`} />;
}
