import type { ParameterValue } from './mdl/schema.js';
import type { Random } from './random.js';
import { parameterLevels, type SearchSpace } from './space.js';

/** Squared distances below this count as this, so coincident points give a large finite penalty. */
const minSquaredDistance = 1e-10;
const randomCandidates = 5;
/** Work budget for pair swaps, in distance-coordinate operations. */
const swapWork = 2e7;
/** Designs larger than this skip pair swaps, whose n x n distance table would be large. */
const maxSwapRows = 1000;
/** Designs larger than this use a single random Latin hypercube. */
const maxScoredRows = 2000;
const triesPerReplacement = 2000;
const candidatesPerReplacement = 8;
/** Spaces of integer and categorical parameters with at most this many combinations are enumerated. */
const maxEnumerated = 100_000;
/** Beyond this share of repaired or replaced points the Latin structure is mostly gone. */
const maxMovedShare = 0.25;
/** Feasible candidates per design point for the farthest-point alternative, and its work cap. */
const poolPerPoint = 10;
const minPool = 256;
const maxSelectionWork = 5e7;

/**
 * `count` feasible points (`count x dimension` row-major, unit cube, snapped) by an improved
 * Latin hypercube.
 *
 * Each parameter is one stratified column: every one of the `count` strata of [0, 1] holds one
 * point (categoricals map strata to values in equal shares). Several random hypercubes are drawn
 * and the best under the Morris–Mitchell criterion phi_p = (sum over pairs of d^-p)^(1/p), a
 * smooth stand-in for maximin distance, is improved by swapping a column's entries between two
 * rows when that lowers phi_p (Morris & Mitchell, "Exploratory designs for computational
 * experiments", J. Stat. Plan. Inference 43, 1995). Distances are taken between snapped encoded
 * points. Infeasible points are repaired, then replaced by the farthest of a few fresh feasible
 * samples (rejection, with a bounded number of tries); an Error says so when the feasible set
 * looks empty. When constraints moved more than a quarter of the points (an equality such as a
 * composition moves them all, and projection piles them onto the boundary), the design is
 * compared with a greedy farthest-point selection from a pool of feasible points and the one with
 * the larger smallest distance is kept. Points repeat only in finite spaces with fewer feasible
 * points than `count`.
 */
export function latinHypercube(space: SearchSpace, count: number, random: Random): Float64Array {
  if (!Number.isInteger(count) || count < 0) {
    throw new Error(`the number of design points must be a whole number of at least 0, got ${count}`);
  }
  const d = space.dimension;
  if (count === 0) return new Float64Array(0);

  const finite = finiteFeasiblePoints(space);
  if (finite && finite.length === 0) throw emptyFeasibleSet(space, 'no combination of the parameter values');
  if (finite && count >= finite.length) return repeatEvenly(finite, count, d, random);

  const design = bestLatinHypercube(space, count, random);
  const keys = new Map<string, number>();
  const pending: number[] = [];
  let moved = 0;
  for (let i = 0; i < count; i++) {
    const row = design.subarray(i * d, (i + 1) * d);
    if (space.violationAt(row) > 0) {
      moved++;
      row.set(space.repair(row));
      if (space.violationAt(row) > 0) {
        pending.push(i);
        continue;
      }
    }
    const key = row.join(',');
    if (keys.has(key)) pending.push(i);
    else keys.set(key, i);
  }
  const accepted = new Uint8Array(count).fill(1);
  for (const i of pending) accepted[i] = 0;
  for (const i of pending) {
    const point = finite ? farthestUnused(finite, design, accepted, keys, d, random) : freshFeasiblePoint(space, design, accepted, keys, random);
    design.set(point, i * d);
    accepted[i] = 1;
    keys.set(point.join(','), i);
  }
  if (moved <= maxMovedShare * count || count < 2) return design;
  const pool = finite ?? feasiblePool(space, design, new Set(keys.keys()), random);
  if (count * pool.length * d > maxSelectionWork) return design;
  const alternative = farthestPointSelection(pool, count, d, random);
  return smallestSquaredDistance(alternative, count, d) > smallestSquaredDistance(design, count, d) ? alternative : design;
}

/** The design's rows plus fresh feasible points (repaired when possible), without duplicates. */
function feasiblePool(space: SearchSpace, design: Float64Array, seen: Set<string>, random: Random): Float64Array[] {
  const d = space.dimension;
  const count = design.length / d;
  const pool: Float64Array[] = Array.from({ length: count }, (_, i) => design.slice(i * d, (i + 1) * d));
  const target = count + Math.max(minPool, poolPerPoint * count);
  for (let attempt = 0; attempt < 20 * target && pool.length < target; attempt++) {
    let point = space.snap(uniformPoint(space, random));
    if (space.violationAt(point) > 0) {
      point = space.repair(point);
      if (space.violationAt(point) > 0) continue;
    }
    const key = point.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    pool.push(point);
  }
  return pool;
}

/**
 * `count` rows of `pool` (each of length d) chosen greedily, each the farthest from those chosen
 * before (Gonzalez 1985: within a factor 2 of the best smallest distance the pool allows);
 * returned as `count x d` row-major. The first row is drawn at random.
 */
function farthestPointSelection(pool: readonly Float64Array[], count: number, d: number, random: Random): Float64Array {
  const out = new Float64Array(count * d);
  const nearest = new Float64Array(pool.length).fill(Infinity);
  let next = random.int(pool.length);
  for (let k = 0; k < count; k++) {
    const chosen = pool[next];
    out.set(chosen, k * d);
    let best = -1;
    for (let i = 0; i < pool.length; i++) {
      let sum = 0;
      for (let c = 0; c < d; c++) {
        const diff = pool[i][c] - chosen[c];
        sum += diff * diff;
      }
      if (sum < nearest[i]) nearest[i] = sum;
      if (best < 0 || nearest[i] > nearest[best]) best = i;
    }
    next = best;
  }
  return out;
}

/** Smallest squared distance between two rows of `x` (`n x d` row-major). */
function smallestSquaredDistance(x: Float64Array, n: number, d: number): number {
  let smallest = Infinity;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) smallest = Math.min(smallest, squaredDistance(x, i, j, d));
  return smallest;
}

/**
 * Every feasible point (snapped, encoded) of a space made only of integer, stepped, listed and
 * categorical parameters with few combinations; undefined for other spaces.
 */
function finiteFeasiblePoints(space: SearchSpace): Float64Array[] | undefined {
  const levels: ParameterValue[][] = [];
  let combinations = 1;
  for (const parameter of space.parameters) {
    const values = parameter.type === 'categorical' ? [...parameter.values] : parameterLevels(parameter, maxEnumerated);
    if (!values) return undefined;
    combinations *= values.length;
    if (combinations > maxEnumerated) return undefined;
    levels.push(values);
  }
  const points: Float64Array[] = [];
  const digits = new Array<number>(levels.length).fill(0);
  const values: Record<string, ParameterValue> = {};
  for (let combination = 0; combination < combinations; combination++) {
    space.parameters.forEach((parameter, k) => (values[parameter.name] = levels[k][digits[k]]));
    if (space.isFeasible(values)) points.push(space.encode(values));
    for (let k = levels.length - 1; k >= 0 && ++digits[k] === levels[k].length; k--) digits[k] = 0;
  }
  return points;
}

/** The best of a few random Latin hypercubes under phi_p, improved by pair swaps. */
function bestLatinHypercube(space: SearchSpace, n: number, random: Random): Float64Array {
  const d = space.dimension;
  const candidates = n > maxScoredRows ? 1 : randomCandidates;
  let best = randomLatinHypercube(space, n, random);
  let bestPhi = candidates > 1 ? phi(best, n, d) : 0;
  for (let c = 1; c < candidates; c++) {
    const next = randomLatinHypercube(space, n, random);
    const value = phi(next, n, d);
    if (value < bestPhi) {
      best = next;
      bestPhi = value;
    }
  }
  if (n >= 3 && n <= maxSwapRows) improveBySwaps(space, best, n, random);
  return best;
}

/** One random Latin hypercube, snapped: `n x dimension` row-major. */
function randomLatinHypercube(space: SearchSpace, n: number, random: Random): Float64Array {
  const d = space.dimension;
  const raw = new Float64Array(n * d);
  const strata = new Int32Array(n);
  for (const { parameter, offset, width } of space.layout) {
    for (let i = 0; i < n; i++) strata[i] = i;
    random.shuffle(strata);
    for (let i = 0; i < n; i++) {
      // Keep the jitter off the stratum edges so rounding cannot move a point to its neighbour.
      const t = (strata[i] + Math.min(1 - 1e-9, Math.max(1e-9, random.uniform()))) / n;
      if (parameter.type === 'categorical') raw[i * d + offset + Math.min(width - 1, Math.floor(t * width))] = 1;
      else raw[i * d + offset] = t;
    }
  }
  const out = new Float64Array(n * d);
  for (let i = 0; i < n; i++) out.set(space.snap(raw.subarray(i * d, (i + 1) * d)), i * d);
  return out;
}

/**
 * The pair term of the Morris–Mitchell criterion phi_p for squared distance `d2`: d^-p with
 * p = 20, large enough to act like maximin and small enough to stay finite; (d²)^-10 by squaring.
 */
function phiTerm(d2: number): number {
  const s = d2 < minSquaredDistance ? minSquaredDistance : d2;
  const s2 = s * s;
  const s4 = s2 * s2;
  return 1 / (s4 * s4 * s2);
}

function squaredDistance(x: Float64Array, i: number, j: number, d: number): number {
  let sum = 0;
  for (let c = 0; c < d; c++) {
    const diff = x[i * d + c] - x[j * d + c];
    sum += diff * diff;
  }
  return sum;
}

/** sum over pairs of d^-p for `x`: `n x d` row-major; monotone in phi_p, so it ranks designs the same way. */
function phi(x: Float64Array, n: number, d: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) sum += phiTerm(squaredDistance(x, i, j, d));
  return sum;
}

/**
 * Greedy Morris–Mitchell search on `x` (`n x dimension`, in place): swap one parameter's block
 * between two random rows and keep the swap when the pair terms it touches sum lower. Swapping
 * whole blocks keeps every column a Latin permutation and every point snapped.
 */
function improveBySwaps(space: SearchSpace, x: Float64Array, n: number, random: Random): void {
  const d = space.dimension;
  const blocks = space.layout;
  const distances = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) distances[i * n + j] = distances[j * n + i] = squaredDistance(x, i, j, d);
  }
  const newI = new Float64Array(n);
  const newJ = new Float64Array(n);
  const iterations = Math.floor(swapWork / (n * (d + 8)));
  const patience = Math.max(500, 20 * n);
  let sinceImprovement = 0;
  for (let iteration = 0; iteration < iterations && sinceImprovement < patience; iteration++) {
    const { offset, width } = blocks[random.int(blocks.length)];
    const i = random.int(n);
    let j = random.int(n - 1);
    if (j >= i) j++;
    let equal = true;
    for (let c = offset; c < offset + width && equal; c++) equal = x[i * d + c] === x[j * d + c];
    sinceImprovement++;
    if (equal) continue;
    let change = 0;
    for (let r = 0; r < n; r++) {
      if (r === i || r === j) continue;
      // Row i takes row j's block and vice versa; only that block's share of each distance moves.
      let shift = 0;
      for (let c = offset; c < offset + width; c++) {
        const a = x[i * d + c] - x[r * d + c];
        const b = x[j * d + c] - x[r * d + c];
        shift += b * b - a * a;
      }
      newI[r] = Math.max(0, distances[i * n + r] + shift);
      newJ[r] = Math.max(0, distances[j * n + r] - shift);
      change += phiTerm(newI[r]) - phiTerm(distances[i * n + r]) + phiTerm(newJ[r]) - phiTerm(distances[j * n + r]);
    }
    if (!(change < 0)) continue;
    for (let c = offset; c < offset + width; c++) {
      const t = x[i * d + c];
      x[i * d + c] = x[j * d + c];
      x[j * d + c] = t;
    }
    for (let r = 0; r < n; r++) {
      if (r === i || r === j) continue;
      distances[i * n + r] = distances[r * n + i] = newI[r];
      distances[j * n + r] = distances[r * n + j] = newJ[r];
    }
    sinceImprovement = 0;
  }
}

/** Smallest squared distance from `point` to the accepted rows of `design` (`n x d`). */
function nearestAccepted(point: Float64Array, design: Float64Array, accepted: Uint8Array, d: number): number {
  let nearest = Infinity;
  for (let i = 0; i < accepted.length; i++) {
    if (!accepted[i]) continue;
    let sum = 0;
    for (let c = 0; c < d; c++) {
      const diff = point[c] - design[i * d + c];
      sum += diff * diff;
    }
    if (sum < nearest) nearest = sum;
  }
  return nearest;
}

/** A feasible point not yet in the design, the farthest of a few random feasible samples. */
function freshFeasiblePoint(space: SearchSpace, design: Float64Array, accepted: Uint8Array, keys: Map<string, number>, random: Random): Float64Array {
  const d = space.dimension;
  let best: Float64Array | undefined;
  let bestDistance = -1;
  let found = 0;
  let feasibleDuplicate: Float64Array | undefined;
  for (let attempt = 0; attempt < triesPerReplacement && found < candidatesPerReplacement; attempt++) {
    let point = space.snap(uniformPoint(space, random));
    if (space.violationAt(point) > 0) {
      point = space.repair(point);
      if (space.violationAt(point) > 0) continue;
    }
    if (keys.has(point.join(','))) {
      feasibleDuplicate ??= point;
      continue;
    }
    found++;
    const distance = nearestAccepted(point, design, accepted, d);
    if (distance > bestDistance) {
      best = point;
      bestDistance = distance;
    }
  }
  if (best) return best;
  if (feasibleDuplicate) return feasibleDuplicate;
  throw emptyFeasibleSet(space, `none of ${triesPerReplacement} random points (each repaired when possible)`);
}

/** For enumerated finite spaces: the unused feasible point farthest from the design among a few random ones. */
function farthestUnused(
  feasible: readonly Float64Array[],
  design: Float64Array,
  accepted: Uint8Array,
  keys: Map<string, number>,
  d: number,
  random: Random,
): Float64Array {
  const unused = feasible.filter((p) => !keys.has(p.join(',')));
  random.shuffle(unused);
  let best = unused[0];
  let bestDistance = -1;
  for (const point of unused.slice(0, candidatesPerReplacement)) {
    const distance = nearestAccepted(point, design, accepted, d);
    if (distance > bestDistance) {
      best = point;
      bestDistance = distance;
    }
  }
  return best;
}

/** `count` rows cycling through shuffled copies of `points`, so multiplicities differ by at most one. */
function repeatEvenly(points: readonly Float64Array[], count: number, d: number, random: Random): Float64Array {
  const out = new Float64Array(count * d);
  const order = Array.from(points.keys());
  for (let i = 0; i < count; i++) {
    if (i % points.length === 0) random.shuffle(order);
    out.set(points[order[i % points.length]], i * d);
  }
  return out;
}

/** A uniform random point in the unit cube (categoricals: a uniformly chosen one-hot value). */
function uniformPoint(space: SearchSpace, random: Random): Float64Array {
  const u = new Float64Array(space.dimension);
  for (const { parameter, offset, width } of space.layout) {
    if (parameter.type === 'categorical') u[offset + random.int(width)] = 1;
    else u[offset] = random.uniform();
  }
  return u;
}

function emptyFeasibleSet(space: SearchSpace, what: string): Error {
  const list = space.constraints.map((c) => `"${c.source}"`).join(', ');
  return new Error(
    `cannot build the initial design: ${what} satisfied the constraints ${list}; ` +
      'the feasible set looks empty, so check the constraint directions and the parameter bounds',
  );
}
