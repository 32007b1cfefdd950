import type { SearchSpace } from '../space.js';
import type { Observations } from './types.js';

/**
 * Probes on the bounds. An optimum on a bound (none of an additive, a ratio at its limit) is
 * approached by a continuous search without ever being proposed: candidates are drawn inside
 * boxes, and a stationary model cannot tell 1e-6 from 0, although the objective may (x^0.1 falls
 * by a quarter over that gap). Where one of the best points sits within BOUND_TOLERANCE of a
 * bound in some continuous coordinates, the same point with exactly those coordinates on the
 * bound is worth one evaluation: a probe. It is proposed once (never when evaluated or pending
 * already); when it improves, it becomes one of the best points itself, and the search goes on
 * from the bound.
 */

/** A coordinate this close to a bound, as a share of its parameter's encoded range, is probed on it. */
export const BOUND_TOLERANCE = 0.01;

/**
 * The probe of `x` (length d, encoded): its continuous coordinates within `tolerance` (per encoded
 * coordinate, default BOUND_TOLERANCE) of 0 or 1 set onto that bound, repaired into the linear
 * constraints; null when no coordinate moves, or the probe breaks a nonlinear constraint.
 */
export function boundProbe(space: SearchSpace, x: ArrayLike<number>, tolerance?: ArrayLike<number>): Float64Array | null {
  const probe = Float64Array.from(x);
  let moved = false;
  for (const { parameter, offset } of space.layout) {
    if (parameter.type !== 'continuous') continue;
    const v = probe[offset];
    const near = Math.max(BOUND_TOLERANCE, tolerance?.[offset] ?? 0);
    const target = v < near ? 0 : v > 1 - near ? 1 : v;
    if (target !== v) {
      probe[offset] = target;
      moved = true;
    }
  }
  if (!moved) return null;
  const repaired = space.repair(probe);
  if (space.constraints.length > 0 && !space.isFeasible(space.decode(repaired))) return null;
  return repaired;
}

/**
 * The probes of the rows `best` (best first) of the observations, at most `most`, each distinct
 * from every evaluated and pending point and from the others, with the row each probes.
 */
export function boundProbes(
  space: SearchSpace,
  o: Observations,
  best: readonly number[],
  most: number,
  tolerance?: (row: number) => ArrayLike<number>,
): { point: Float64Array; row: number }[] {
  if (most <= 0) return [];
  const { d } = o;
  const key = (x: ArrayLike<number>): string => Array.from(x).join(',');
  const seen = new Set<string>();
  for (let i = 0; i < o.n; i++) seen.add(key(o.X.subarray(i * d, (i + 1) * d)));
  for (const x of o.failed) seen.add(key(x));
  for (const x of o.pending ?? []) seen.add(key(x));
  if (o.partial) for (let i = 0; i < o.partial.n; i++) seen.add(key(o.partial.X.subarray(i * d, (i + 1) * d)));
  const probes: { point: Float64Array; row: number }[] = [];
  for (const row of best) {
    if (probes.length >= most) break;
    const probe = boundProbe(space, o.X.subarray(row * d, (row + 1) * d), tolerance?.(row));
    if (!probe || seen.has(key(space.snap(probe)))) continue;
    seen.add(key(space.snap(probe)));
    probes.push({ point: probe, row });
  }
  return probes;
}
