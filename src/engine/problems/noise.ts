import type { ParameterValue } from '../mdl/schema.js';
import { Random } from '../random.js';

/**
 * 32-bit FNV-1a hash of the evaluator seed and a candidate's values, in the order of `names`, so a
 * candidate's noise depends on what it is, not on when or in which batch it is evaluated.
 * Numbers are written in their shortest round-trip form, strings quoted (so 1 and "1" differ).
 */
export function candidateHash(seed: number, names: readonly string[], values: Readonly<Record<string, ParameterValue>>): number {
  const parts = [String(seed)];
  for (const name of names) {
    const v = values[name];
    parts.push(`${name}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
  }
  const text = parts.join(';');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Multiplies each objective by (1 + noise * z), z standard normal, drawing the z in the order of
 * `objectiveNames` from a generator seeded by candidateHash. Relative noise keeps the scale of
 * every objective, so one `noise` setting suits objectives of any magnitude (a value of exactly 0
 * stays 0). A measurement never leaves what is physically possible: where `ranges` gives an
 * objective's range (a rejection in [0, 100] %, a lifetime ≥ 0), the noisy value is clipped to it,
 * as an instrument reads 100 % rather than 101.9 %.
 */
export function withNoise(
  objectives: Readonly<Record<string, number>>,
  objectiveNames: readonly string[],
  noise: number,
  seed: number,
  parameterNames: readonly string[],
  values: Readonly<Record<string, ParameterValue>>,
  ranges: Readonly<Record<string, readonly [number, number]>> = {},
): Record<string, number> {
  const out: Record<string, number> = { ...objectives };
  if (noise === 0) return out;
  const random = new Random(candidateHash(seed, parameterNames, values));
  for (const name of objectiveNames) {
    const noisy = objectives[name] * (1 + noise * random.normal());
    const [lo, hi] = ranges[name] ?? [-Infinity, Infinity];
    out[name] = Math.min(hi, Math.max(lo, noisy));
  }
  return out;
}
