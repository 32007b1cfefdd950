import { rankingObjectives } from '../feasibility.js';
import type { Random } from '../../random.js';
import type { SearchSpace } from '../../space.js';
import { randomPoints } from '../space-filling.js';
import { NO_FITS, type Observations, type Strategy, type StrategyContext } from '../types.js';
import { offspring } from './operators.js';
import { crowdingDistances, nondominatedRanks } from './sorting.js';

/**
 * NSGA-II (Deb et al. 2002) with one generation per batch: the population is the best
 * `batch_size` evaluations by non-dominated rank and crowding distance among the last population
 * and its offspring (elitist survival); the next offspring come from binary tournaments on
 * (rank, crowding), simulated binary crossover and polynomial mutation (operators.ts). Children
 * are repaired into the parameter constraints, and duplicates of evaluated or pending points are redrawn
 * (as pymoo's eliminate_duplicates). Failed evaluations never survive.
 *
 * Memory: the ids of the current population and the last iteration it has seen, so a resumed or
 * retried campaign continues the same generations.
 */
interface Nsga2Memory {
  population: string[];
  seenIteration: number;
}

interface Member {
  row: number;
  rank: number;
  crowding: number;
}

/** Draws allowed per child before a duplicate or infeasible child is accepted or replaced. */
const TRIES_PER_CHILD = 20;

export const nsga2Strategy: Strategy = {
  name: 'nsga2',
  plan: () => NO_FITS,
  async propose(context) {
    const { observations, space, random, q } = context;
    const size = Math.max(2, context.campaign.batchSize);
    const population = survivors(context, size);
    if (population.length < 2) {
      return { points: randomPoints(space, q, random), label: 'nsga2', memory: memoryOf(context, population) };
    }
    const points = breed(space, observations, population, q, random);
    return { points, label: 'nsga2', memory: memoryOf(context, population) };
  },
};

function memoryOf(context: StrategyContext, population: Member[]): Nsga2Memory {
  const { ids, iterations } = context.observations;
  let seen = 0;
  for (let i = 0; i < iterations.length; i++) seen = Math.max(seen, iterations[i]);
  return { population: population.map((p) => ids[p.row]), seenIteration: seen };
}

/** Elitist survival: the last population and everything evaluated since, cut to `size`. */
function survivors(context: StrategyContext, size: number): Member[] {
  const { observations } = context;
  const memory = context.memory as Nsga2Memory | undefined;
  const previous = new Set(memory?.population ?? []);
  const candidates: number[] = [];
  for (let i = 0; i < observations.n; i++) {
    if (!memory || previous.has(observations.ids[i]) || observations.iterations[i] > memory.seenIteration) candidates.push(i);
  }
  // outcome constraints as Deb's constrained domination: feasible rows first, then by violation
  const { Y } = rankingObjectives(observations, context.campaign.reach);
  const { m } = observations;
  const local = new Float64Array(candidates.length * m);
  candidates.forEach((r, i) => local.set(Y.subarray(r * m, (r + 1) * m), i * m));
  const ranks = nondominatedRanks(local, candidates.length, m);
  const fronts: number[][] = [];
  candidates.forEach((_, i) => (fronts[ranks[i]] ??= []).push(i));

  const chosen: Member[] = [];
  for (const front of fronts) {
    if (!front || chosen.length >= size) continue;
    const crowding = crowdingDistances(local, m, front);
    const members = front.map((i, k) => ({ row: candidates[i], rank: ranks[i], crowding: crowding[k] }));
    if (chosen.length + members.length > size) {
      members.sort((a, b) => b.crowding - a.crowding || a.row - b.row);
      members.length = size - chosen.length;
    }
    chosen.push(...members);
  }
  return chosen;
}

/** Binary tournament: lower rank wins, then larger crowding distance, then a coin. */
function tournament(population: Member[], random: Random): Member {
  const a = population[random.int(population.length)];
  const b = population[random.int(population.length)];
  if (a.rank !== b.rank) return a.rank < b.rank ? a : b;
  if (a.crowding !== b.crowding) return a.crowding > b.crowding ? a : b;
  return random.uniform() < 0.5 ? a : b;
}

function breed(space: SearchSpace, o: Observations, population: Member[], q: number, random: Random): Float64Array[] {
  const d = o.d;
  const seen = new Set<string>();
  for (let i = 0; i < o.n; i++) seen.add(key(o.X.subarray(i * d, (i + 1) * d)));
  for (const x of o.failed) seen.add(key(x));
  for (const x of o.pending ?? []) seen.add(key(x));
  const children: Float64Array[] = [];
  let tries = 0;
  while (children.length < q) {
    const a = tournament(population, random).row;
    const b = tournament(population, random).row;
    for (const child of offspring(space, o.X.slice(a * d, (a + 1) * d), o.X.slice(b * d, (b + 1) * d), random)) {
      if (children.length >= q) break;
      const x = space.repair(child);
      const fresh = !seen.has(key(x)) && space.isFeasible(space.decode(x));
      if (fresh || tries >= TRIES_PER_CHILD * q) {
        children.push(fresh ? x : randomPoints(space, 1, random)[0]);
        seen.add(key(x));
      }
      tries++;
    }
  }
  return children;
}

function key(x: ArrayLike<number>): string {
  return Array.from(x, (v) => v.toFixed(12)).join(',');
}
