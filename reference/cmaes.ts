/**
 * Speed baseline for the CMA-ES kernel: the same algorithm as assembly/cmaes.ts (Hansen 2016,
 * "The CMA Evolution Strategy: A Tutorial", with pycma's learning rates, the active update, lazy
 * eigendecomposition with the same gap and the same termination criteria) in plain TypeScript with
 * Float64Arrays, unbounded only. Normals come from src/engine/random.ts, so its samples differ from
 * the kernel's; it exists to measure what compiling the kernel to WASM buys.
 */
import { Random } from '../src/engine/random.js';
import { symmetricEigenReference } from './cmaes-eigen.js';

export interface CmaEsReferenceOptions {
  mean: ArrayLike<number>;
  sigma: number;
  populationSize?: number;
  seed: number;
  active?: boolean;
}

export type ReferenceStopReason = 'tolfun' | 'tolx' | 'tolupsigma' | 'conditioncov' | 'noeffectaxis' | 'noeffectcoord' | 'stagnation' | 'maxiter';

export class CmaEsReference {
  readonly dimension: number;
  readonly populationSize: number;
  private readonly random: Random;
  private readonly mu: number;
  private readonly weights: Float64Array;
  private readonly mueff: number;
  private readonly cc: number;
  private readonly cs: number;
  private readonly ds: number;
  private readonly c1: number;
  private readonly cmu: number;
  private readonly chiN: number;
  private readonly sumWeights: number;
  private readonly eigenGap: number;
  private readonly flatIndex: number;
  private readonly sigma0: number;
  private readonly maxIter: number;
  private readonly funHist: Float64Array;
  private readonly bestHist: number[] = [];
  private readonly medianHist: number[] = [];
  private xmean: Float64Array;
  private readonly pc: Float64Array;
  private readonly ps: Float64Array;
  /** `n x n` row-major, symmetric. */
  private readonly C: Float64Array;
  /** `n x n`, row j = eigenvector j. */
  private B: Float64Array;
  private readonly D: Float64Array;
  private readonly Z: Float64Array;
  private readonly Y: Float64Array;
  private readonly X: Float64Array;
  private step: number;
  private gen = 0;
  private lastEigen = 0;
  private minEig = 1;
  private maxEig = 1;
  private stop: ReferenceStopReason | null = null;
  private bestF = Infinity;

  constructor(options: CmaEsReferenceOptions) {
    const n = options.mean.length;
    const lam = options.populationSize ?? 4 + Math.floor(3 * Math.log(n));
    this.dimension = n;
    this.populationSize = lam;
    this.random = new Random(options.seed);
    this.mu = lam >> 1;
    const raw = Float64Array.from({ length: lam }, (_, i) => Math.log((lam + 1) / 2) - Math.log(i + 1));
    const pos = raw.subarray(0, this.mu);
    const neg = raw.subarray(this.mu);
    const sumPos = pos.reduce((a, b) => a + b, 0);
    const sumNeg = neg.reduce((a, b) => a + b, 0);
    this.mueff = sumPos ** 2 / pos.reduce((a, b) => a + b * b, 0);
    const negSq = neg.reduce((a, b) => a + b * b, 0);
    const mueffNeg = negSq > 0 ? sumNeg ** 2 / negSq : 0;
    this.cc = (4 + this.mueff / n) / (n + 4 + (2 * this.mueff) / n);
    this.cs = (this.mueff + 2) / (n + this.mueff + 3);
    this.c1 = 2 / ((n + 1.3) ** 2 + this.mueff);
    this.cmu = Math.min(1 - this.c1, (2 * (0.25 + this.mueff + 1 / this.mueff - 2)) / ((n + 2) ** 2 + this.mueff));
    this.ds = 1 + 2 * Math.max(0, Math.sqrt((this.mueff - 1) / (n + 1)) - 1) + this.cs;
    this.chiN = Math.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n));
    let negScale = 0;
    if (options.active !== false && sumNeg < 0) {
      const limit = Math.min(1 + this.c1 / this.cmu, 1 + (2 * mueffNeg) / (this.mueff + 2), (1 - this.c1 - this.cmu) / (n * this.cmu));
      negScale = limit / -sumNeg;
    }
    this.weights = raw.map((w, i) => (i < this.mu ? w / sumPos : w * negScale));
    this.sumWeights = this.weights.reduce((a, b) => a + b, 0);
    this.eigenGap = Math.max(1 / ((this.c1 + this.cmu) * n * 10), n / lam);
    this.flatIndex = Math.min(lam - 1, Math.ceil(0.1 + lam / 4));
    this.sigma0 = options.sigma;
    this.step = options.sigma;
    this.maxIter = Math.floor(100 + (150 * (n + 3) ** 2) / Math.sqrt(lam));
    this.funHist = new Float64Array(10 + Math.ceil((30 * n) / lam));
    this.xmean = Float64Array.from(options.mean);
    this.pc = new Float64Array(n);
    this.ps = new Float64Array(n);
    this.C = new Float64Array(n * n);
    this.B = new Float64Array(n * n);
    for (let j = 0; j < n; j++) this.C[j * n + j] = this.B[j * n + j] = 1;
    this.D = new Float64Array(n).fill(1);
    this.Z = new Float64Array(lam * n);
    this.Y = new Float64Array(lam * n);
    this.X = new Float64Array(lam * n);
  }

  get generation(): number {
    return this.gen;
  }

  get evaluations(): number {
    return this.gen * this.populationSize;
  }

  get sigma(): number {
    return this.step;
  }

  best(): number {
    return this.bestF;
  }

  stopReason(): ReferenceStopReason | null {
    return this.stop;
  }

  /** `lambda x n` row-major candidates; a view valid until the next ask(). */
  ask(): Float64Array {
    const { dimension: n, populationSize: lam, Z, Y, X, B, D } = this;
    for (let i = 0; i < lam * n; i++) Z[i] = this.random.normal();
    Y.fill(0);
    for (let i = 0; i < lam; i++) {
      const o = i * n;
      for (let j = 0; j < n; j++) {
        const a = D[j] * Z[o + j];
        const b = j * n;
        for (let k = 0; k < n; k++) Y[o + k] += a * B[b + k];
      }
      for (let k = 0; k < n; k++) X[o + k] = this.xmean[k] + this.step * Y[o + k];
    }
    return X;
  }

  tell(fitness: ArrayLike<number>): void {
    const { dimension: n, populationSize: lam, weights, Z, Y, X, C, B } = this;
    const f = Float64Array.from(fitness, (v) => (Number.isFinite(v) ? v : Infinity));
    for (let i = 0; i < lam; i++) this.bestF = Math.min(this.bestF, f[i]);
    const order = Array.from({ length: lam }, (_, i) => i).sort((a, b) => f[a] - f[b] || a - b);
    const old = this.xmean;
    this.xmean = new Float64Array(n);
    const zmean = new Float64Array(n);
    for (let r = 0; r < this.mu; r++) {
      const o = order[r] * n;
      for (let k = 0; k < n; k++) {
        this.xmean[k] += weights[r] * X[o + k];
        zmean[k] += weights[r] * Z[o + k];
      }
    }
    const psFactor = Math.sqrt(this.cs * (2 - this.cs) * this.mueff);
    for (let k = 0; k < n; k++) this.ps[k] *= 1 - this.cs;
    for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) this.ps[k] += psFactor * zmean[j] * B[j * n + k];
    const psNorm2 = this.ps.reduce((a, b) => a + b * b, 0);
    const hsig = psNorm2 / n / (1 - (1 - this.cs) ** (2 * (this.gen + 1))) < 2 + 4 / (n + 1);
    const pcFactor = hsig ? Math.sqrt(this.cc * (2 - this.cc) * this.mueff) / this.step : 0;
    for (let k = 0; k < n; k++) this.pc[k] = (1 - this.cc) * this.pc[k] + pcFactor * (this.xmean[k] - old[k]);

    const decay = 1 - this.c1 - this.cmu * this.sumWeights + (hsig ? 0 : this.c1 * this.cc * (2 - this.cc));
    const coef = new Float64Array(lam);
    for (let r = 0; r < lam; r++) {
      let w = weights[r];
      if (w < 0) {
        let z2 = 0;
        for (let k = 0; k < n; k++) z2 += Z[order[r] * n + k] ** 2;
        w = z2 > 0 ? (w * n) / z2 : 0;
      }
      coef[r] = this.cmu * w;
    }
    for (let j = 0; j < n; j++) {
      for (let k = j; k < n; k++) {
        let v = decay * C[j * n + k] + this.c1 * this.pc[j] * this.pc[k];
        for (let r = 0; r < lam; r++) {
          if (coef[r] !== 0) v += coef[r] * Y[order[r] * n + j] * Y[order[r] * n + k];
        }
        C[j * n + k] = C[k * n + j] = v;
      }
    }

    this.step *= Math.exp(Math.min(1, (this.cs / this.ds) * (Math.sqrt(psNorm2) / this.chiN - 1)));
    if (f[order[0]] === f[order[this.flatIndex]]) this.step *= Math.exp(0.2 + this.cs / this.ds);
    this.gen++;
    if (this.gen - this.lastEigen >= this.eigenGap) this.updateEigen();
    this.funHist[(this.gen - 1) % this.funHist.length] = f[order[0]];
    this.bestHist.push(f[order[0]]);
    this.medianHist.push(f[order[lam >> 1]]);
    this.stop ??= this.stopCriterion(f, order);
  }

  private updateEigen(): void {
    const n = this.dimension;
    this.lastEigen = this.gen;
    const decomposition = symmetricEigenReference(this.C, n);
    if (decomposition === null) return;
    const { values, vectors } = decomposition;
    let lo = Math.min(...values);
    const hi = Math.max(...values);
    if (!(hi > 0) || !Number.isFinite(hi)) return;
    if (!(lo > 0)) {
      const shift = hi / 1e14 - lo;
      for (let j = 0; j < n; j++) {
        values[j] += shift;
        this.C[j * n + j] += shift;
      }
      lo += shift;
    }
    for (let j = 0; j < n; j++) this.D[j] = Math.sqrt(values[j]);
    this.B = vectors;
    this.minEig = lo;
    this.maxEig = hi;
  }

  private stopCriterion(f: Float64Array, order: number[]): ReferenceStopReason | null {
    const n = this.dimension;
    const lam = this.populationSize;
    const { C, pc, xmean, step: sigma } = this;
    const hist = this.funHist;
    if (this.gen >= hist.length && f[order[lam - 1]] - f[order[0]] < 1e-11 && Math.max(...hist) - Math.min(...hist) < 1e-11) {
      return 'tolfun';
    }
    const tolx = 1e-12 * this.sigma0;
    let small = true;
    for (let j = 0; j < n && small; j++) small = sigma * Math.sqrt(C[j * n + j]) < tolx && sigma * Math.abs(pc[j]) < tolx;
    if (small) return 'tolx';
    if (sigma / this.sigma0 > 1e20 * Math.sqrt(this.maxEig)) return 'tolupsigma';
    if (this.maxEig > 1e14 * this.minEig) return 'conditioncov';
    const axis = this.gen % n;
    let noEffect = true;
    for (let j = 0; j < n && noEffect; j++) {
      noEffect = xmean[j] + 0.1 * sigma * this.D[axis] * this.B[axis * n + j] === xmean[j];
    }
    if (noEffect) return 'noeffectaxis';
    for (let j = 0; j < n; j++) if (xmean[j] + 0.2 * sigma * Math.sqrt(C[j * n + j]) === xmean[j]) return 'noeffectcoord';
    if (this.stagnated()) return 'stagnation';
    return this.gen >= this.maxIter ? 'maxiter' : null;
  }

  private stagnated(): boolean {
    const g = this.gen;
    const minWindow = 120 + (30 * this.dimension) / this.populationSize;
    if (g < minWindow) return false;
    const window = Math.min(g, 20000, Math.max(Math.ceil(0.2 * g), Math.ceil(minWindow)));
    if (g % Math.max(1, Math.floor(window / 20)) !== 0) return false;
    const part = Math.floor(0.3 * window);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[part >> 1];
    const older = (h: number[]) => h.slice(g - window, g - window + part);
    const newer = (h: number[]) => h.slice(g - part, g);
    return median(newer(this.bestHist)) >= median(older(this.bestHist)) && median(newer(this.medianHist)) >= median(older(this.medianHist));
  }
}
