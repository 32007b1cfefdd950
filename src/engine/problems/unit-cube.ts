import type { Parameter, ParameterValue } from '../mdl/schema.js';

/** Values this far outside a parameter's range (relative to its width) count as rounding, not errors. */
const SLACK = 1e-9;

/**
 * The position in [0, 1] of one parameter value: (x - lo) / (hi - lo) for continuous and integer
 * parameters, the same in log space for log-scale ones, index / (k - 1) for a categorical with k
 * values (0 when k = 1). Throws when the value is of the wrong kind or outside the bounds.
 */
export function unitPosition(parameter: Parameter, value: ParameterValue | undefined): number {
  if (value === undefined) throw new Error(`parameter '${parameter.name}' has no value.`);
  if (parameter.type === 'categorical') {
    const index = parameter.values.findIndex((v) => v === value);
    if (index < 0) {
      throw new Error(`parameter '${parameter.name}' is ${JSON.stringify(value)}, which is not one of ${JSON.stringify(parameter.values)}.`);
    }
    const k = parameter.values.length;
    return k === 1 ? 0 : index / (k - 1);
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`parameter '${parameter.name}' must be a finite number, got ${JSON.stringify(value)}.`);
  }
  const [lo, hi] = parameter.bounds;
  let u: number;
  if (lo === hi) {
    u = value === lo ? 0 : NaN; // a fixed parameter (equal bounds) has one position
  } else if (parameter.scale === 'log') {
    if (!(lo > 0) || !(value > 0)) {
      throw new Error(`log-scale parameter '${parameter.name}' needs positive bounds and values, got ${value} in [${lo}, ${hi}].`);
    }
    u = Math.log(value / lo) / Math.log(hi / lo);
  } else {
    u = (value - lo) / (hi - lo);
  }
  if (!(u >= -SLACK && u <= 1 + SLACK)) {
    throw new Error(`parameter '${parameter.name}' is ${value}, outside its bounds [${lo}, ${hi}].`);
  }
  return Math.min(1, Math.max(0, u));
}

/**
 * Maps a candidate onto the unit cube, one coordinate per MDL parameter in MDL order.
 * Returns a Float64Array of length parameters.length.
 */
export function toUnitCube(parameters: readonly Parameter[], values: Readonly<Record<string, ParameterValue>>): Float64Array {
  const x = new Float64Array(parameters.length);
  for (let i = 0; i < parameters.length; i++) x[i] = unitPosition(parameters[i], values[parameters[i].name]);
  return x;
}
