// The tutorial's stagnation criterion (Hansen 2016, Section B.3): keep the best and the median
// fitness of every generation over the last 20% of the run (at least 120 + 30 n / lambda and at most
// 20000 generations); stop when, in both histories, the median of the most recent 30% is not better
// than the median of the oldest 30%.

import { selectKth } from './cmaes-order';

// Median of the `count` ring entries starting `from` generations ago (oldest first).
function windowMedian(hist: usize, scratch: usize, cap: i32, gen: i32, from: i32, count: i32): f64 {
  for (let i = 0; i < count; i++) {
    const slot = (gen - from + i) % cap;
    store<f64>(scratch + (<usize>i << 3), load<f64>(hist + (<usize>slot << 3)));
  }
  return selectKth(scratch, count, count >> 1);
}

/**
 * Whether the search has stagnated after `gen` generations.
 * best, median: ring buffers of `cap` per-generation values (generation g at slot (g - 1) % cap);
 * scratch: `cap` f64; minWindow: 120 + 30 n / lambda.
 * The test runs every window/20 generations: a verdict a few generations late changes nothing,
 * and the selections would otherwise dominate the per-generation cost of long runs.
 */
export function stagnated(best: usize, median: usize, scratch: usize, cap: i32, gen: i32, minWindow: f64): bool {
  if (<f64>gen < minWindow) return false;
  const window = min(min(gen, cap), max(<i32>Math.ceil(0.2 * <f64>gen), <i32>Math.ceil(minWindow)));
  if (gen % max(1, window / 20) != 0) return false;
  const part = <i32>(0.3 * <f64>window);
  const oldBest = windowMedian(best, scratch, cap, gen, window, part);
  const newBest = windowMedian(best, scratch, cap, gen, part, part);
  if (newBest < oldBest) return false;
  const oldMedian = windowMedian(median, scratch, cap, gen, window, part);
  const newMedian = windowMedian(median, scratch, cap, gen, part, part);
  return newMedian >= oldMedian;
}
