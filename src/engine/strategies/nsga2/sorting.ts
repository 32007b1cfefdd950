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
 * Front index of every row (0 = non-dominated), by efficient non-dominated sorting with binary
 * search (Zhang, Tian, Cheng & Jin 2015, ENS-BS): rows in lexicographic order, so every row's
 * dominators come before it, each placed in the first front none of whose members dominates it.
 * The fronts form a chain (a row dominated by a member of front k is dominated by a member of
 * every earlier front), so that front is found by bisection, and within a front the most recent
 * members, the likeliest dominators, are checked first. The ranks are those of Deb's fast
 * non-dominated sort at a fraction of its O(m n²) comparisons and without its O(n²) lists: at
 * 10,000 rows of two objectives, milliseconds instead of about half a second.
 * Y: `n x m` row-major minimization-space objectives; violation: length n, ≥ 0, optional.
 */
export function nondominatedRanks(Y: Float64Array, n: number, m: number, violation?: ArrayLike<number>): Int32Array {
  const rank = new Int32Array(n).fill(-1);
  const feasible: number[] = [];
  const infeasible: number[] = [];
  for (let i = 0; i < n; i++) ((violation?.[i] ?? 0) > 0 ? infeasible : feasible).push(i);

  feasible.sort((a, b) => {
    for (let j = 0; j < m; j++) {
      const difference = Y[a * m + j] - Y[b * m + j];
      if (difference !== 0) return difference;
    }
    return a - b;
  });
  const fronts: number[][] = [];
  const dominatedWithin = (front: readonly number[], row: number): boolean => {
    for (let k = front.length - 1; k >= 0; k--) if (dominates(Y, front[k], row, m)) return true;
    return false;
  };
  for (const row of feasible) {
    let lo = 0;
    let hi = fronts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (dominatedWithin(fronts[mid], row)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === fronts.length) fronts.push([]);
    fronts[lo].push(row);
    rank[row] = lo;
  }
  let front = fronts.length;
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
