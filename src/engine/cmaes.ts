/**
 * CMA-ES (Hansen 2016, "The CMA Evolution Strategy: A Tutorial"; Hansen & Ostermeier 2001) with the
 * active covariance update (Jastrebski & Arnold 2006; Hansen & Ros 2010), pycma's box-constraint
 * transformation and IPOP restarts (Auger & Hansen 2005).
 *
 * The algorithm runs in the AssemblyScript kernel `build/cmaes.wasm` (assembly/cmaes.ts), one WASM
 * instance per optimizer: a new optimizer costs about 0.1 ms (n = 10) to 0.2 ms (n = 100), about one
 * generation's work, and gets its own linear memory, so optimizers never share state. This module
 * only validates options, moves numbers across the boundary and drives restarts.
 */
import { Random } from './random.js';
import { wasmInstance } from './wasm/load.js';

export interface CmaEsOptions {
  /** x0, length = dimension; inside the bounds when bounds are given */
  mean: ArrayLike<number>;
  /** initial step size (same units as x); with bounds, capped so that no coordinate's standard
   *  deviation exceeds a third of its range (pycma's maxstd_boundrange) */
  sigma: number;
  /** box bounds (both or neither), lower < upper per coordinate */
  lower?: ArrayLike<number>;
  upper?: ArrayLike<number>;
  /** lambda; default 4 + floor(3 ln n) */
  populationSize?: number;
  /** unsigned 32-bit integer; same seed → same samples */
  seed: number;
  /** active (negative-weight) covariance update, default true */
  active?: boolean;
}

export type CmaStopReason = 'tolfun' | 'tolx' | 'tolupsigma' | 'conditioncov' | 'noeffectaxis' | 'noeffectcoord' | 'stagnation' | 'maxiter';

/** Kernel stop codes, index = code returned by the kernel's tell(). */
const STOP_REASONS: readonly (CmaStopReason | null)[] = [
  null,
  'tolfun',
  'tolx',
  'tolupsigma',
  'conditioncov',
  'noeffectaxis',
  'noeffectcoord',
  'stagnation',
  'maxiter',
];

/** The exports of build/cmaes.wasm (see assembly/cmaes.ts for the protocol). */
interface CmaKernel {
  memory: { readonly buffer: ArrayBuffer };
  setup(dimension: number, lambda: number, active: number, bounded: number): number;
  start(sigma: number, seed: number): void;
  meanPtr(): number;
  lowerPtr(): number;
  upperPtr(): number;
  populationPtr(): number;
  fitnessPtr(): number;
  bestPtr(): number;
  ask(): void;
  tell(): number;
  writeMean(): void;
  generation(): number;
  evaluations(): number;
  stepSize(): number;
  bestValue(): number;
  stopReason(): number;
}

/** The default population size 4 + floor(3 ln n) (Hansen 2016, Table 1). */
export function defaultPopulationSize(dimension: number): number {
  return 4 + Math.floor(3 * Math.log(dimension));
}

export class CmaEs {
  readonly dimension: number;
  readonly populationSize: number;
  private readonly kernel: CmaKernel;
  private readonly population: Float64Array;
  private readonly fitness: Float64Array;
  private readonly meanView: Float64Array;
  private readonly bestView: Float64Array;

  constructor(options: CmaEsOptions) {
    const n = options.mean.length;
    const lambda = options.populationSize ?? defaultPopulationSize(n);
    const bounded = validate(options, n, lambda);
    this.dimension = n;
    this.populationSize = lambda;
    this.kernel = wasmInstance('cmaes').exports as unknown as CmaKernel;
    if (!this.kernel.setup(n, lambda, options.active === false ? 0 : 1, bounded ? 1 : 0)) {
      throw new Error(`CMA-ES: cannot allocate WASM memory for dimension ${n} and population size ${lambda}.`);
    }
    // setup() was the only memory.grow, so these views stay attached for the optimizer's lifetime.
    const buffer = this.kernel.memory.buffer;
    const view = (ptr: number, length: number) => new Float64Array(buffer, ptr, length);
    this.population = view(this.kernel.populationPtr(), lambda * n);
    this.fitness = view(this.kernel.fitnessPtr(), lambda);
    this.meanView = view(this.kernel.meanPtr(), n);
    this.bestView = view(this.kernel.bestPtr(), n);
    this.meanView.set(options.mean);
    if (bounded) {
      view(this.kernel.lowerPtr(), n).set(options.lower!);
      view(this.kernel.upperPtr(), n).set(options.upper!);
    }
    this.kernel.start(options.sigma, options.seed >>> 0);
  }

  /** New candidates: `lambda x n` row-major, inside the bounds; a view valid until the next ask(). */
  ask(): Float64Array {
    this.kernel.ask();
    return this.population;
  }

  /** Ranks the last ask()'s candidates by `fitness` (lambda values, minimised; non-finite = worst). */
  tell(fitness: ArrayLike<number>): void {
    if (fitness.length !== this.populationSize) {
      throw new Error(`CMA-ES: tell() needs ${this.populationSize} fitness values, got ${fitness.length}.`);
    }
    this.fitness.set(fitness);
    if (this.kernel.tell() < 0) throw new Error('CMA-ES: tell() was called without a preceding ask().');
  }

  get generation(): number {
    return this.kernel.generation();
  }

  get evaluations(): number {
    return this.kernel.evaluations();
  }

  get sigma(): number {
    return this.kernel.stepSize();
  }

  /** The distribution mean mapped into the bounds (a copy). */
  mean(): Float64Array {
    this.kernel.writeMean();
    return this.meanView.slice();
  }

  /** The best candidate told so far (a copy); f = Infinity and x = x0 before any finite value. */
  best(): { x: Float64Array; f: number } {
    return { x: this.bestView.slice(), f: this.kernel.bestValue() };
  }

  stopReason(): CmaStopReason | null {
    return STOP_REASONS[this.kernel.stopReason()] ?? null;
  }
}

/** Checks the options and returns whether bounds are given. */
function validate(options: CmaEsOptions, n: number, lambda: number): boolean {
  if (n < 1) throw new Error('CMA-ES: the initial mean must have at least one coordinate.');
  if (!Array.from(options.mean).every(Number.isFinite)) throw new Error('CMA-ES: the initial mean must be finite.');
  if (!(options.sigma > 0 && Number.isFinite(options.sigma))) {
    throw new Error(`CMA-ES: sigma must be a positive finite number, got ${options.sigma}.`);
  }
  if (!Number.isInteger(lambda) || lambda < 2) {
    throw new Error(`CMA-ES: populationSize must be an integer >= 2, got ${lambda}.`);
  }
  if (!Number.isInteger(options.seed)) throw new Error(`CMA-ES: seed must be an integer, got ${options.seed}.`);
  const { lower, upper } = options;
  if ((lower === undefined) !== (upper === undefined)) {
    throw new Error('CMA-ES: give both lower and upper bounds, or neither.');
  }
  if (lower === undefined || upper === undefined) return false;
  if (lower.length !== n || upper.length !== n) {
    throw new Error(`CMA-ES: bounds must have ${n} coordinates like the mean (got ${lower.length} and ${upper.length}).`);
  }
  for (let j = 0; j < n; j++) {
    if (!(Number.isFinite(lower[j]) && Number.isFinite(upper[j]) && lower[j] < upper[j])) {
      throw new Error(`CMA-ES: coordinate ${j} needs finite bounds with lower < upper (got [${lower[j]}, ${upper[j]}]).`);
    }
    if (!(options.mean[j] >= lower[j] && options.mean[j] <= upper[j])) {
      throw new Error(`CMA-ES: the initial mean ${options.mean[j]} of coordinate ${j} lies outside [${lower[j]}, ${upper[j]}].`);
    }
  }
  return true;
}

export interface MinimizeOptions extends Omit<CmaEsOptions, 'mean'> {
  mean: ArrayLike<number>;
  /** budget of objective evaluations over all restarts (the last generation may be cut short) */
  maxEvaluations: number;
  /** stop as soon as a value <= targetValue is seen */
  targetValue?: number;
  /** IPOP restarts (population doubles each restart), default 9 */
  restarts?: number;
}

export interface MinimizeResult {
  x: Float64Array;
  f: number;
  evaluations: number;
  restarts: number;
  stopReason: CmaStopReason | 'target' | 'maxevals';
}

/** Evaluates the first `count` rows of `population` (`lambda x n`) into `out`. */
type GenerationEvaluator = (population: Float64Array, lambda: number, count: number, out: Float64Array) => void;

/** Minimizes `fn` with IPOP-CMA-ES; `fn` receives a copy of each candidate. */
export function minimize(fn: (x: Float64Array) => number, options: MinimizeOptions): MinimizeResult {
  const n = options.mean.length;
  return drive(options, (population, _lambda, count, out) => {
    for (let i = 0; i < count; i++) out[i] = fn(population.slice(i * n, (i + 1) * n));
  });
}

/**
 * Batched form: fn gets the whole population (`lambda x n` row-major, a view valid during the call)
 * and returns lambda values. The acquisition optimizer calls this with a batched GP posterior. When
 * the budget ends inside a generation, fn gets only the first rows and the matching smaller lambda.
 */
export function minimizeBatch(fn: (population: Float64Array, lambda: number) => Float64Array, options: MinimizeOptions): MinimizeResult {
  const n = options.mean.length;
  return drive(options, (population, lambda, count, out) => {
    const values = fn(count === lambda ? population : population.subarray(0, count * n), count);
    if (values.length < count) {
      throw new Error(`CMA-ES: the batch objective returned ${values.length} values for ${count} candidates.`);
    }
    for (let i = 0; i < count; i++) out[i] = values[i];
  });
}

/**
 * IPOP-CMA-ES (Auger & Hansen 2005): whenever a run meets a stopping criterion, start again with
 * twice the population, from a uniform random mean inside the bounds (the original mean when
 * unbounded) and the original sigma, until the target, the budget or the restarts are used up.
 */
function drive(options: MinimizeOptions, evaluate: GenerationEvaluator): MinimizeResult {
  const { maxEvaluations, targetValue } = options;
  const maxRestarts = options.restarts ?? 9;
  if (!(maxEvaluations >= 1)) throw new Error(`CMA-ES: maxEvaluations must be at least 1, got ${maxEvaluations}.`);
  if (!Number.isInteger(maxRestarts) || maxRestarts < 0) {
    throw new Error(`CMA-ES: restarts must be a non-negative integer, got ${maxRestarts}.`);
  }
  const n = options.mean.length;
  const restartRandom = new Random(options.seed);
  let lambda = options.populationSize ?? defaultPopulationSize(n);
  let mean: ArrayLike<number> = options.mean;
  let seed = options.seed;
  let evaluations = 0;
  let restarts = 0;
  let bestF = Infinity;
  let bestX = Float64Array.from(options.mean);
  const result = (stopReason: MinimizeResult['stopReason']): MinimizeResult => ({
    x: bestX,
    f: bestF,
    evaluations,
    restarts,
    stopReason,
  });

  for (;;) {
    const es = new CmaEs({ ...options, mean, seed, populationSize: lambda });
    const values = new Float64Array(lambda);
    let reason: CmaStopReason | null = null;
    while (reason === null) {
      const population = es.ask();
      const count = Math.min(lambda, maxEvaluations - evaluations);
      evaluate(population, lambda, count, values);
      evaluations += count;
      for (let i = 0; i < count; i++) {
        if (values[i] < bestF && Number.isFinite(values[i])) {
          bestF = values[i];
          bestX = population.slice(i * n, (i + 1) * n);
        }
      }
      if (targetValue !== undefined && bestF <= targetValue) return result('target');
      if (evaluations >= maxEvaluations) return result('maxevals');
      es.tell(values);
      reason = es.stopReason();
    }
    if (restarts >= maxRestarts) return result(reason);
    restarts++;
    lambda *= 2;
    seed = restartRandom.seed();
    mean = randomMean(options, restartRandom);
  }
}

function randomMean(options: MinimizeOptions, random: Random): ArrayLike<number> {
  const { lower, upper } = options;
  if (lower === undefined || upper === undefined) return options.mean;
  return Float64Array.from(lower, (lo, j) => lo + random.uniform() * (upper[j] - lo));
}
