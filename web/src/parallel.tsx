import type { ResultRow } from './api.js';
import { formatNumber, labelOf, recipeText, withUnit, type Measure, type ParameterShape } from './format.js';

// Drawing units of the viewBox; the SVG is stretched to its container's width, and in the page's
// column (at most 1200 px) these are about screen pixels, so the 12–13 px text stays readable on a laptop.
const WIDTH = 880;
const HEIGHT = 400;
/** Room beside the outer axes for their centred names. */
const SIDE = 70;
const TOP = 96;
const BOTTOM = HEIGHT - 40;
/** Roughly how wide one character of a 13-px axis name is, to shorten names that would collide. */
const CHAR_WIDTH = 7.5;

interface Axis {
  name: string;
  unit?: string;
  direction: string;
  x: number;
  min: number;
  max: number;
}

/**
 * The parallel coordinates of many objectives: one vertical axis per objective (its own min at the
 * bottom, max at the top) and one polyline per evaluation. Pareto rows are drawn over the
 * dominated ones so the front stays visible among hundreds of evaluations.
 */
export function ParallelCoordinates({ rows, objectives, parameters = [] }: { rows: ResultRow[]; objectives: Measure[]; parameters?: ParameterShape[] }) {
  const spacing = (WIDTH - 2 * SIDE) / (objectives.length - 1);
  const axes: Axis[] = objectives.map(({ name, unit, direction }, i) => {
    let min = Infinity;
    let max = -Infinity;
    for (const r of rows) {
      min = Math.min(min, r.objectives[name]);
      max = Math.max(max, r.objectives[name]);
    }
    return { name, unit, direction, x: SIDE + i * spacing, min, max };
  });
  const pareto = rows.filter((r) => r.is_pareto);
  const dominated = rows.filter((r) => !r.is_pareto);
  const longest = Math.max(4, Math.floor(Math.min(spacing, 2 * SIDE) / CHAR_WIDTH));
  return (
    <svg
      class="parallel"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={`Parallel coordinates of ${objectives.length} objectives: ${rows.length} evaluations, ${pareto.length} on the Pareto front`}
      data-testid="pareto-parallel"
      data-points={rows.length}
      data-pareto={pareto.length}
    >
      <g class="legend" transform="translate(8 16)">
        <line class="swatch pareto" x1="0" x2="24" y1="0" y2="0" />
        <text x="30" y="4">
          Pareto front ({pareto.length})
        </text>
        <line class="swatch dominated" x1="170" x2="194" y1="0" y2="0" />
        <text x="200" y="4">
          dominated ({dominated.length})
        </text>
      </g>
      <g class="rows">
        {dominated.map((r) => (
          <Polyline key={r.id} row={r} axes={axes} parameters={parameters} />
        ))}
        {pareto.map((r) => (
          <Polyline key={r.id} row={r} axes={axes} parameters={parameters} />
        ))}
      </g>
      {axes.map((a) => (
        <g class="axis" data-objective={a.name}>
          <title>{labelOf(a.name, a.unit)}</title>
          <line x1={a.x} x2={a.x} y1={TOP} y2={BOTTOM} />
          <text class="axis-name" x={a.x} y={44}>
            {shorten(labelOf(a.name, a.unit), longest)}
          </text>
          <text class="axis-direction" x={a.x} y={62}>
            {a.direction === 'maximize' ? '↑ better' : '↓ better'}
          </text>
          {rows.length > 0 && (
            <text class="axis-max" x={a.x} y={TOP - 8}>
              {formatNumber(a.max)}
            </text>
          )}
          {rows.length > 0 && (
            <text class="axis-min" x={a.x} y={BOTTOM + 18}>
              {formatNumber(a.min)}
            </text>
          )}
        </g>
      ))}
    </svg>
  );
}

/** One evaluation; hovering it names its values and its recipe. */
function Polyline({ row, axes, parameters }: { row: ResultRow; axes: Axis[]; parameters: ParameterShape[] }) {
  const d = axes.map((a, i) => `${i === 0 ? 'M' : 'L'}${a.x.toFixed(1)} ${y(row.objectives[a.name], a).toFixed(1)}`).join(' ');
  const values = axes.map((a) => `${a.name} ${withUnit(row.objectives[a.name], a.unit)}`).join(', ');
  const recipe = parameters.length > 0 ? `; recipe: ${recipeText(row.parameters, parameters)}` : '';
  return (
    <path class={row.is_pareto ? 'pareto' : row.feasible === false ? 'infeasible' : 'dominated'} d={d} data-id={row.id}>
      <title>{`iteration ${row.iteration}${row.is_pareto ? ', Pareto front' : row.feasible === false ? ', infeasible' : ''}: ${values}${recipe}`}</title>
    </path>
  );
}

/** Where a value sits on its axis; an axis whose values are all equal carries them at its middle. */
function y(value: number, axis: Axis): number {
  if (axis.max === axis.min) return (TOP + BOTTOM) / 2;
  return TOP + ((axis.max - value) / (axis.max - axis.min)) * (BOTTOM - TOP);
}

function shorten(text: string, longest: number): string {
  return text.length > longest ? `${text.slice(0, longest - 1)}…` : text;
}
