import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ResultRow } from './api.js';
import { ParallelCoordinates } from './parallel.js';

/** Hypervolume after each iteration. */
export function ConvergencePlot({ history }: { history: number[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const x = history.map((_, i) => i + 1);
    const plot = new uPlot(
      {
        width: Math.min(640, ref.current.clientWidth || 640),
        height: 260,
        scales: { x: { time: false } },
        axes: [{ label: 'iteration' }, { label: 'hypervolume' }],
        series: [{}, { label: 'hypervolume', stroke: '#1f5fbf', width: 2, points: { show: true } }],
      },
      [x, history],
      ref.current,
    );
    return () => plot.destroy();
  }, [history]);
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
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const sorted = [...rows].sort((a, b) => a.objectives[fx] - b.objectives[fx]);
    const x = sorted.map((r) => r.objectives[fx]);
    const dominated = sorted.map((r) => (r.is_pareto ? null : r.objectives[fy]));
    const front = sorted.map((r) => (r.is_pareto ? r.objectives[fy] : null));
    const plot = new uPlot(
      {
        width: small ? 300 : Math.min(640, ref.current.clientWidth || 640),
        height: small ? 240 : 300,
        mode: 1,
        scales: { x: { time: false } },
        axes: [{ label: fx }, { label: fy }],
        series: [
          {},
          { label: 'dominated', stroke: 'rgba(110,110,110,0.45)', paths: () => null, points: { show: true, size: 6 } },
          { label: 'Pareto front', stroke: '#c0392b', paths: () => null, points: { show: true, size: 9 } },
        ],
      },
      [x, dominated, front] as uPlot.AlignedData,
      ref.current,
    );
    return () => plot.destroy();
  }, [rows, fx, fy, small]);
  return <div ref={ref} class="plot" data-testid={testId} data-points={rows.length} role="img" aria-label={`${fy} against ${fx}: ${rows.length} evaluations`} />;
}
