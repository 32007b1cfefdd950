/**
 * A small bound-constrained L-BFGS: the two-loop recursion (Nocedal & Wright, Numerical
 * Optimization, 2nd ed., Algorithm 7.4) restricted to the free variables, a projected
 * backtracking Armijo line search, and the stopping rules of L-BFGS-B (Byrd, Lu, Nocedal & Zhu
 * 1995): projected-gradient norm and relative decrease of the objective. It replaces
 * L-BFGS-B's generalized Cauchy point by fixing the variables whose gradient pushes them into an
 * active bound, which is enough for the d + 2 well-scaled log-hyperparameters it serves.
 */

/** Returns f(x) and writes ∇f(x) into `gradient`; a non-finite value marks x as infeasible. */
export type Objective = (x: Float64Array, gradient: Float64Array) => number;

/** Curvature pairs (s_k, y_k), oldest first. */
export interface LbfgsMemory {
  s: Float64Array[];
  y: Float64Array[];
}

export interface LbfgsOptions {
  lower: Float64Array;
  upper: Float64Array;
  maxIterations: number;
  /** objective calls, line searches included (default 2.5 x maxIterations + 5) */
  maxEvaluations?: number;
  /** curvature pairs kept (default 10) */
  memorySize?: number;
  /** stop when the projected gradient's largest entry is below this (default 1e-5) */
  gradientTolerance?: number;
  /** stop when (f_k − f_k+1) / max(|f_k|, |f_k+1|, 1) is below this (default 1e-9) */
  relativeTolerance?: number;
  /** curvature pairs from a related problem, e.g. the same objective on a data subset */
  memory?: LbfgsMemory;
}

export interface LbfgsResult {
  x: Float64Array;
  value: number;
  gradient: Float64Array;
  iterations: number;
  evaluations: number;
  converged: boolean;
  memory: LbfgsMemory;
}

const ARMIJO = 1e-4;
const MAX_BACKTRACKS = 20;

/** Minimizes f over the box [lower, upper] from x0 (projected onto the box first). */
export function minimizeBounded(f: Objective, x0: ArrayLike<number>, options: LbfgsOptions): LbfgsResult {
  const { lower, upper, maxIterations } = options;
  const size = lower.length;
  const memorySize = options.memorySize ?? 10;
  const maxEvaluations = options.maxEvaluations ?? Math.ceil(2.5 * maxIterations) + 5;
  const pgtol = options.gradientTolerance ?? 1e-5;
  const ftol = options.relativeTolerance ?? 1e-9;
  const memory: LbfgsMemory = {
    s: (options.memory?.s ?? []).slice(-memorySize).map((v) => Float64Array.from(v)),
    y: (options.memory?.y ?? []).slice(-memorySize).map((v) => Float64Array.from(v)),
  };

  const x = new Float64Array(size);
  for (let i = 0; i < size; i++) x[i] = clamp(x0[i], lower[i], upper[i]);
  const g = new Float64Array(size);
  let value = f(x, g);
  let evaluations = 1;
  let iterations = 0;
  let converged = false;
  const result = (): LbfgsResult => ({ x, value, gradient: g, iterations, evaluations, converged, memory });
  if (!Number.isFinite(value)) return result();

  const direction = new Float64Array(size);
  const trial = new Float64Array(size);
  const trialGradient = new Float64Array(size);
  const free = new Uint8Array(size);

  while (iterations < maxIterations && evaluations < maxEvaluations) {
    let pgNorm = 0;
    for (let i = 0; i < size; i++) {
      const blocked = (x[i] <= lower[i] && g[i] > 0) || (x[i] >= upper[i] && g[i] < 0);
      free[i] = blocked ? 0 : 1;
      if (!blocked) pgNorm = Math.max(pgNorm, Math.abs(g[i]));
    }
    if (pgNorm <= pgtol) {
      converged = true;
      break;
    }
    searchDirection(g, free, memory, direction);
    let slope = 0;
    for (let i = 0; i < size; i++) slope += g[i] * direction[i];
    if (!(slope < 0)) {
      memory.s.length = 0;
      memory.y.length = 0;
      for (let i = 0; i < size; i++) direction[i] = free[i] ? -g[i] : 0;
      slope = 0;
      for (let i = 0; i < size; i++) slope += g[i] * direction[i];
    }
    // Without curvature information the first step is limited to one unit in log space.
    let step = memory.s.length > 0 ? 1 : Math.min(1, 1 / maxAbs(direction));
    let accepted = false;
    let trialValue = Infinity;
    for (let back = 0; back < MAX_BACKTRACKS && evaluations < maxEvaluations; back++) {
      let decrease = 0;
      for (let i = 0; i < size; i++) {
        trial[i] = clamp(x[i] + step * direction[i], lower[i], upper[i]);
        decrease += g[i] * (trial[i] - x[i]);
      }
      trialValue = f(trial, trialGradient);
      evaluations++;
      if (Number.isFinite(trialValue) && trialValue <= value + ARMIJO * decrease) {
        accepted = true;
        break;
      }
      step = Number.isFinite(trialValue) ? backtrack(step, slope, value, trialValue) : step * 0.25;
    }
    if (!accepted) {
      if (memory.s.length === 0) break;
      // A stale quasi-Newton model can point uphill along the projected path: retry as steepest descent.
      memory.s.length = 0;
      memory.y.length = 0;
      continue;
    }
    iterations++;
    const s = new Float64Array(size);
    const yv = new Float64Array(size);
    let sy = 0;
    let yy = 0;
    for (let i = 0; i < size; i++) {
      s[i] = trial[i] - x[i];
      yv[i] = trialGradient[i] - g[i];
      sy += s[i] * yv[i];
      yy += yv[i] * yv[i];
    }
    if (sy > 1e-10 * yy) {
      memory.s.push(s);
      memory.y.push(yv);
      if (memory.s.length > memorySize) {
        memory.s.shift();
        memory.y.shift();
      }
    }
    const previous = value;
    x.set(trial);
    g.set(trialGradient);
    value = trialValue;
    if (previous - value <= ftol * Math.max(Math.abs(previous), Math.abs(value), 1)) {
      converged = true;
      break;
    }
  }
  return result();
}

/** direction = −H·g on the free variables (two-loop recursion), zero on the fixed ones. */
function searchDirection(g: Float64Array, free: Uint8Array, memory: LbfgsMemory, direction: Float64Array): void {
  const size = g.length;
  const q = direction;
  for (let i = 0; i < size; i++) q[i] = free[i] ? g[i] : 0;
  const count = memory.s.length;
  const alpha = new Float64Array(count);
  const rho = new Float64Array(count);
  for (let k = count - 1; k >= 0; k--) {
    const s = memory.s[k];
    const y = memory.y[k];
    let sy = 0;
    let sq = 0;
    for (let i = 0; i < size; i++) {
      if (!free[i]) continue;
      sy += s[i] * y[i];
      sq += s[i] * q[i];
    }
    rho[k] = sy > 0 ? 1 / sy : 0;
    alpha[k] = rho[k] * sq;
    for (let i = 0; i < size; i++) if (free[i]) q[i] -= alpha[k] * y[i];
  }
  if (count > 0) {
    const s = memory.s[count - 1];
    const y = memory.y[count - 1];
    let sy = 0;
    let yy = 0;
    for (let i = 0; i < size; i++) {
      if (!free[i]) continue;
      sy += s[i] * y[i];
      yy += y[i] * y[i];
    }
    const gamma = sy > 0 && yy > 0 ? sy / yy : 1;
    for (let i = 0; i < size; i++) q[i] *= gamma;
  }
  for (let k = 0; k < count; k++) {
    const s = memory.s[k];
    const y = memory.y[k];
    let yq = 0;
    for (let i = 0; i < size; i++) if (free[i]) yq += y[i] * q[i];
    const beta = rho[k] * yq;
    for (let i = 0; i < size; i++) if (free[i]) q[i] += (alpha[k] - beta) * s[i];
  }
  for (let i = 0; i < size; i++) direction[i] = free[i] ? -q[i] : 0;
}

/** Next step from the minimizer of the quadratic through f(0), f'(0) and f(step), safeguarded. */
function backtrack(step: number, slope: number, f0: number, fStep: number): number {
  const curvature = fStep - f0 - slope * step;
  const candidate = curvature > 0 ? (-slope * step * step) / (2 * curvature) : 0.5 * step;
  return Math.min(0.5 * step, Math.max(0.1 * step, candidate));
}

function maxAbs(v: Float64Array): number {
  let m = 0;
  for (let i = 0; i < v.length; i++) m = Math.max(m, Math.abs(v[i]));
  return m;
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
