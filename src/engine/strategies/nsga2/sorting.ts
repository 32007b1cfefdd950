/**
 * Non-dominated sorting and crowding distance (Deb, Pratap, Agarwal & Meyarivan, "A fast and
 * elitist multiobjective genetic algorithm: NSGA-II", IEEE TEC 6(2), 2002), in minimization
 * space. Infeasible rows (violation > 0) are ranked after every feasible one by Deb's
 * constrained domination: among them, a smaller total violation wins.
 */

/** True when row a dominates row b (no worse in every objective, better in one). */
function dominates(Y: Float64Array, a: number, b: number, m: number): boolean {
  let better = false;
  for (let j = 0; j < m; j++) {
    const ya = Y[a * m + j];
    const yb = Y[b * m + j];
    if (ya > yb) return false;
    if (ya < yb) better = true;
  }
  return better;
}

/**
 * Front index of every row (0 = non-dominated), by the fast non-dominated sort: O(m n²).
 * Y: `n x m` row-major minimization-space objectives; violation: length n, ≥ 0, optional.
 */
export function nondominatedRanks(Y: Float64Array, n: number, m: number, violation?: ArrayLike<number>): Int32Array {
  const rank = new Int32Array(n).fill(-1);
  const feasible: number[] = [];
  const infeasible: number[] = [];
  for (let i = 0; i < n; i++) ((violation?.[i] ?? 0) > 0 ? infeasible : feasible).push(i);

  const dominatedBy: number[][] = feasible.map(() => []);
  const count = new Int32Array(feasible.length);
  for (let a = 0; a < feasible.length; a++) {
    for (let b = a + 1; b < feasible.length; b++) {
      if (dominates(Y, feasible[a], feasible[b], m)) {
        dominatedBy[a].push(b);
        count[b]++;
      } else if (dominates(Y, feasible[b], feasible[a], m)) {
        dominatedBy[b].push(a);
        count[a]++;
      }
    }
  }
  let current: number[] = [];
  for (let a = 0; a < feasible.length; a++) if (count[a] === 0) current.push(a);
  let front = 0;
  while (current.length > 0) {
    const next: number[] = [];
    for (const a of current) {
      rank[feasible[a]] = front;
      for (const b of dominatedBy[a]) if (--count[b] === 0) next.push(b);
    }
    current = next;
    front++;
  }
  // Infeasible rows: one front per distinct violation, smallest first.
  infeasible.sort((a, b) => violation![a] - violation![b]);
  let previous = NaN;
  for (const i of infeasible) {
    if (violation![i] !== previous) {
      previous = violation![i];
      front++;
    }
    rank[i] = front - 1;
  }
  return rank;
}

/**
 * Crowding distance of the rows in `members` (one front), in their order: the sum over
 * objectives of the normalized gap between each row's two neighbours; the extremes get Infinity.
 * Y: `n x m` row-major.
 */
export function crowdingDistances(Y: Float64Array, m: number, members: readonly number[]): Float64Array {
  const k = members.length;
  const distance = new Float64Array(k);
  if (k <= 2) return distance.fill(Infinity);
  const order = Array.from({ length: k }, (_, i) => i);
  for (let j = 0; j < m; j++) {
    const value = (i: number): number => Y[members[i] * m + j];
    order.sort((a, b) => value(a) - value(b) || a - b);
    const span = value(order[k - 1]) - value(order[0]);
    distance[order[0]] = Infinity;
    distance[order[k - 1]] = Infinity;
    if (!(span > 0)) continue;
    for (let i = 1; i < k - 1; i++) distance[order[i]] += (value(order[i + 1]) - value(order[i - 1])) / span;
  }
  return distance;
}
