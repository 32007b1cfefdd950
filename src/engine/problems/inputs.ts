import type { SimulatorParameter } from './types.js';

/** Relative slack on a simulator's calibrated range, so values rounded at the bounds are accepted. */
const SLACK = 1e-9;

/**
 * The value of a numeric simulator parameter; throws an Error naming the simulator and parameter
 * when it is missing, not a finite number, or outside the calibrated bounds.
 */
export function readNumber(simulator: string, values: Readonly<Record<string, number | string>>, parameter: SimulatorParameter): number {
  const value = values[parameter.name];
  if (value === undefined) throw new Error(`${simulator} needs parameter '${parameter.name}' (${parameter.description}).`);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`${simulator}: parameter '${parameter.name}' must be a finite number, got ${JSON.stringify(value)}.`);
  }
  if (parameter.bounds) {
    const [lo, hi] = parameter.bounds;
    const slack = SLACK * (hi - lo);
    if (value < lo - slack || value > hi + slack) {
      const unit = parameter.unit ? ` ${parameter.unit}` : '';
      throw new Error(`${simulator}: ${parameter.name} = ${value} is outside the model's range [${lo}, ${hi}]${unit}.`);
    }
  }
  return value;
}

/** The value of a categorical simulator parameter; throws when missing or not one of its values. */
export function readChoice(simulator: string, values: Readonly<Record<string, number | string>>, parameter: SimulatorParameter): string | number {
  const value = values[parameter.name];
  if (value === undefined) throw new Error(`${simulator} needs parameter '${parameter.name}' (${parameter.description}).`);
  if (!parameter.values?.includes(value)) {
    throw new Error(`${simulator}: ${parameter.name} = ${JSON.stringify(value)} is not one of ${JSON.stringify(parameter.values)}.`);
  }
  return value;
}
