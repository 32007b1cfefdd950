import type { Random } from '../../random.js';
import type { SearchSpace } from '../../space.js';

/**
 * NSGA-II's variation operators on encoded points (unit cube), as in Deb's reference code and
 * pymoo: simulated binary crossover (Deb & Agrawal 1995) and polynomial mutation (Deb & Goyal
 * 1996), both in their bounded forms, so children never leave [0, 1]. A categorical parameter is
 * one variable: crossover hands each child one parent's value, mutation draws a new value.
 */

export interface VariationSettings {
  /** probability that a pair is crossed at all (pymoo 0.9) */
  crossoverProbability: number;
  /** probability that a crossed pair exchanges each variable (pymoo 0.5) */
  variableProbability: number;
  /** SBX distribution index η_c (pymoo 15): larger keeps children nearer their parents */
  crossoverEta: number;
  /** polynomial mutation index η_m (pymoo 20) */
  mutationEta: number;
  /** per-variable mutation probability; default 1 / number of parameters */
  mutationProbability?: number;
}

export const DEFAULT_VARIATION: VariationSettings = {
  crossoverProbability: 0.9,
  variableProbability: 0.5,
  crossoverEta: 15,
  mutationEta: 20,
};

/**
 * Bounded SBX of two values in [0, 1] (y1 ≤ y2 after ordering); returns the two children in [0, 1].
 * `u`: a uniform draw in [0, 1).
 */
export function sbxPair(a: number, b: number, eta: number, u: number): [number, number] {
  if (Math.abs(a - b) <= 1e-14) return [a, b];
  const y1 = Math.min(a, b);
  const y2 = Math.max(a, b);
  const spread = y2 - y1;
  const spreadFactor = (beta: number): number => {
    const alpha = 2 - Math.pow(beta, -(eta + 1));
    return u <= 1 / alpha ? Math.pow(u * alpha, 1 / (eta + 1)) : Math.pow(1 / (2 - u * alpha), 1 / (eta + 1));
  };
  const c1 = 0.5 * (y1 + y2 - spreadFactor(1 + (2 * y1) / spread) * spread);
  const c2 = 0.5 * (y1 + y2 + spreadFactor(1 + (2 * (1 - y2)) / spread) * spread);
  return [clamp01(c1), clamp01(c2)];
}

/** Bounded polynomial mutation of y in [0, 1]; `u` uniform in [0, 1). */
export function polynomialMutation(y: number, eta: number, u: number): number {
  const power = 1 / (eta + 1);
  let delta: number;
  if (u < 0.5) {
    const value = 2 * u + (1 - 2 * u) * Math.pow(1 - y, eta + 1);
    delta = Math.pow(value, power) - 1;
  } else {
    const value = 2 * (1 - u) + 2 * (u - 0.5) * Math.pow(y, eta + 1);
    delta = 1 - Math.pow(value, power);
  }
  return clamp01(y + delta);
}

/**
 * Two children of two encoded parents (length `space.dimension`), crossed and mutated, not yet
 * snapped or repaired.
 */
export function offspring(
  space: SearchSpace,
  p1: Float64Array,
  p2: Float64Array,
  random: Random,
  settings: VariationSettings = DEFAULT_VARIATION,
): [Float64Array, Float64Array] {
  const c1 = Float64Array.from(p1);
  const c2 = Float64Array.from(p2);
  const crossed = random.uniform() < settings.crossoverProbability;
  const pm = settings.mutationProbability ?? 1 / space.layout.length;
  for (const { parameter, offset, width } of space.layout) {
    if (crossed && random.uniform() < settings.variableProbability) {
      if (parameter.type === 'categorical') {
        if (random.uniform() < 0.5) swapBlocks(c1, c2, offset, width);
      } else {
        const [a, b] = sbxPair(p1[offset], p2[offset], settings.crossoverEta, random.uniform());
        const flip = random.uniform() < 0.5;
        c1[offset] = flip ? b : a;
        c2[offset] = flip ? a : b;
      }
    }
    for (const child of [c1, c2]) {
      if (random.uniform() >= pm) continue;
      if (parameter.type === 'categorical') {
        child.fill(0, offset, offset + width);
        child[offset + random.int(width)] = 1;
      } else {
        child[offset] = polynomialMutation(child[offset], settings.mutationEta, random.uniform());
      }
    }
  }
  return [c1, c2];
}

function swapBlocks(a: Float64Array, b: Float64Array, offset: number, width: number): void {
  for (let j = offset; j < offset + width; j++) {
    const t = a[j];
    a[j] = b[j];
    b[j] = t;
  }
}

function clamp01(t: number): number {
  return t < 0 ? 0 : t > 1 ? 1 : t;
}
