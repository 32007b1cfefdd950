/**
 * One way to write a number across the dashboard (header, lists, tables, plot ticks and read-outs)
 * and the job log: 5 significant digits, no trailing zeros. The log's `fmt` in
 * src/jobs/job-runner.ts follows the same rule, so a hypervolume reads alike in both.
 */
export function formatNumber(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  return Number(x.toPrecision(5)).toString();
}

/** An objective as the plots need it: its MDL name, unit and direction. */
export interface Measure {
  name: string;
  unit?: string;
  direction: string;
}

/** A value with its MDL unit: "98.2 %". */
export function withUnit(x: number | null | undefined, unit?: string): string {
  const text = formatNumber(x);
  return unit && text !== '—' ? `${text} ${unit}` : text;
}

/** The hypervolume's unit: the product of the objectives' units ("MPa × %"); undefined when none has a unit. */
export function hypervolumeUnit(objectives: readonly { unit?: string }[]): string | undefined {
  const units = objectives.map((o) => o.unit).filter((u): u is string => !!u);
  return units.length > 0 ? units.join(' × ') : undefined;
}

/** A column heading or axis label with its MDL unit: "salt_rejection (%)". */
export function labelOf(name: string, unit?: string): string {
  return unit ? `${name} (${unit})` : name;
}

/** The hypervolume of a campaign, or "—" before its first iteration (there is none yet, not a zero). */
export function hypervolumeOf(c: { hypervolume: number; current_iteration: number; evaluations_completed: number }): string {
  return c.current_iteration === 0 && c.evaluations_completed === 0 ? '—' : formatNumber(c.hypervolume);
}

/**
 * While no feasible point is inside the reference box the hypervolume stays 0; this says how far
 * the closest point still is, per objective (the API's `reference_distance`), e.g. "closest:
 * eval_7 misses capacity by 12 mAh/g, cost by 0 USD/kg".
 */
export function referenceDistanceText(d: { evaluation_id: string; distance: Record<string, number> }, units: Record<string, string | undefined> = {}): string {
  const gaps = Object.entries(d.distance).map(([name, gap]) => `${name} by ${withUnit(gap, units[name])}`);
  return `Reference point not reached yet: the closest evaluation, ${d.evaluation_id}, misses ${gaps.join(', ')}.`;
}

/**
 * A parameter as the worklist and tables need it: the MDL's members that decide how a value is
 * written (`step` is the resolution a lab can set, `values` the only ones it takes).
 */
export interface ParameterShape {
  name: string;
  type: string;
  unit?: string;
  bounds?: readonly [number, number] | readonly number[];
  step?: number;
  values?: readonly (number | string)[];
  scale?: string;
}

/**
 * A parameter's value as a person sets it, as the worklist file writes it (the server's
 * `parameterText` in src/service/worklist.ts is this rule for the file; test/web-format.test.ts
 * holds the two together): a categorical value as it is; an integer whole; a listed value
 * (`values`) as the MDL lists it; a stepped one (from the lower bound) with the grid's decimals,
 * trailing zeros kept (0.05 → "0.50"); any other number to 5 significant digits of its range (of the value itself on a
 * log scale, or without bounds), never with an exponent; a value within that rounding of a bound
 * as the bound (no 0.3999999999999716, no 5.5784238574612535e-8 for 0).
 */
export function formatParameter(value: unknown, p: ParameterShape): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'number') return JSON.stringify(value);
  if (!Number.isFinite(value)) return '—';
  if (p.type === 'categorical') return String(value);
  if (p.type === 'integer') return String(Math.round(value));
  const [lower, upper] = p.bounds && p.bounds.length === 2 ? [p.bounds[0], p.bounds[1]] : [undefined, undefined];
  const listed = (p.values ?? []).filter((v): v is number => typeof v === 'number');
  if (listed.length > 0) return String(listed.reduce((a, b) => (Math.abs(b - value) < Math.abs(a - value) ? b : a)));
  if (p.step !== undefined && p.step > 0) {
    const base = lower ?? 0;
    const decimals = Math.min(15, Math.max(decimalsOf(p.step), decimalsOf(base)));
    const snapped = base + Math.round((value - base) / p.step) * p.step;
    return (lower === undefined || upper === undefined ? snapped : Math.min(upper, Math.max(lower, snapped))).toFixed(decimals);
  }
  if (lower === undefined || upper === undefined) return plainNumber(value);
  if (upper === lower) return String(lower);
  if (p.scale === 'log') {
    const rounded = Number(value.toPrecision(5));
    for (const bound of [lower, upper]) if (rounded === Number(bound.toPrecision(5))) return String(bound);
    return fixed(rounded, Math.max(0, 4 - Math.floor(Math.log10(Math.abs(rounded)))));
  }
  const decimals = Math.max(0, 4 - Math.floor(Math.log10(upper - lower)));
  const half = 0.5 * 10 ** -decimals;
  for (const bound of [lower, upper]) if (Math.abs(value - bound) <= half) return String(bound);
  return fixed(value, decimals);
}

/** The decimals a number is written with: 0.05 → 2, 5 → 0, 1e-7 → 7. */
function decimalsOf(x: number): number {
  const [mantissa, exponent] = x.toExponential().split('e');
  return Math.max(0, (mantissa.split('.')[1] ?? '').length - Number(exponent));
}

/** `x` to `decimals` decimals, trailing zeros dropped, never an exponent. */
function fixed(x: number, decimals: number): string {
  const text = x.toFixed(Math.min(decimals, 20));
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** A design's parameter values as a lab sets them, with their units, in the MDL's order: "salt 1.20 mol/L, solvent EMC". */
export function recipeText(values: Readonly<Record<string, unknown>>, parameters: readonly ParameterShape[]): string {
  return parameters.map((p) => `${p.name} ${formatParameter(values[p.name], p)}${p.unit && values[p.name] !== undefined ? ` ${p.unit}` : ''}`).join(', ');
}

/** 5 significant digits written out without an exponent between 1e-9 and 1e15 (lab notation has none). */
export function plainNumber(x: number): string {
  if (!Number.isFinite(x)) return formatNumber(x);
  if (x === 0) return '0';
  const magnitude = Math.abs(x);
  if (magnitude < 1e-9 || magnitude >= 1e15) return formatNumber(x);
  const decimals = Math.max(0, 4 - Math.floor(Math.log10(magnitude)));
  const text = Number(x.toFixed(decimals)).toFixed(decimals);
  return decimals > 0 ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * Axis ticks for a plot drawn by hand (the model check): about `count` round values (1, 2 or 5
 * times a power of ten apart) covering [lo, hi], the first at or below lo and the last at or above
 * hi, so the axis starts and ends on a labelled tick. Each tick is rounded to the step's decimals
 * (0.1 + 0.2 reads 0.3). A range of zero width is widened by one around its value.
 */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [0, 1];
  if (hi < lo) [lo, hi] = [hi, lo];
  if (hi === lo) [lo, hi] = [lo - 1, hi + 1];
  const rough = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough * 0.999) ?? 10 * power;
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const ticks: number[] = [];
  for (let k = first; k <= last; k++) ticks.push(Number((k * step).toFixed(Math.min(decimals, 15))));
  return ticks;
}

/** 75 → "1 min 15 s": people read ETAs of hours, not thousands of seconds. */
export function duration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * The time left while a job runs. Before its first iteration ends there is no iteration time to
 * extrapolate from, and 0 s would read as "about to finish": say so instead. An external campaign's
 * job counts only the optimizer's work; the lab's time is not in it.
 */
export function etaText(timing: { avg_iteration_seconds: number; estimated_remaining_seconds: number }): string {
  if (!(timing.avg_iteration_seconds > 0)) return 'ETA known after the first iteration';
  return `ETA ${duration(timing.estimated_remaining_seconds)}`;
}
