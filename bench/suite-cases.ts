import { hypervolume } from '../src/engine/hypervolume.js';
import { realWorldReference } from '../src/engine/problems/re-common.js';
import { RE_FRONTS } from '../src/engine/problems/re-fronts.js';
import { testProblem } from '../src/engine/problems/registry.js';
import type { TestProblem } from '../src/engine/problems/types.js';

/**
 * The public benchmark suite's problems (`npm run bench -- suite`), each with its reference point
 * and the maximum hypervolume its results are shared of. Reference points: nadir + 10 % of the
 * front's range (ideal to nadir) everywhere, which is also what the literature uses where it
 * states one for these problems (ZDT and DTLZ2-4's 1.1, WFG's 2.2 i, Tanabe & Ishibuchi's
 * normalised 1.1 for RE from their published ideal and nadir points, BoTorch's 1.1 for C2-DTLZ2);
 * `refSource` says which. The maximum is the problem's analytic value where it has one, else the
 * hypervolume of a dense sample of its front, else (RE) that of the published approximated front.
 */

export type Family = 'zdt' | 'dtlz' | 'wfg' | 're' | 'constrained' | 'noisy';

export interface SuiteCase {
  /** unique label, e.g. 'dtlz2 m=3 d=7' */
  id: string;
  family: Family;
  problem: string;
  m: number;
  d: number;
  /** evaluation budgets this case runs at (90 always) */
  budgets: number[];
  /** relative measurement noise of the builtin evaluator (noisy variants) */
  noise?: number;
  /** explicit reference point (else nadir + 10 % of the front's sampled range) */
  ref?: number[];
  refSource?: string;
}

export interface ResolvedCase extends SuiteCase {
  ref: number[];
  refSource: string;
  maxHv: number;
  maxSource: string;
}

const DTLZ = ['dtlz1', 'dtlz2', 'dtlz3', 'dtlz4', 'dtlz5', 'dtlz6', 'dtlz7'];
const WFG = ['wfg1', 'wfg2', 'wfg3', 'wfg4', 'wfg5', 'wfg6', 'wfg7', 'wfg8', 'wfg9'];
const RE = ['re21', 're22', 're23', 're24', 're25', 're31', 're32', 're35', 're36', 're37', 're41', 're42', 're61'];
/** WFG's k = 4 position and l = 20 distance parameters, the paper's setting */
const WFG_D = 24;
const NOISE = 0.05;

/**
 * Problems whose every case ended at 0 for every method at 300 evaluations (at 90 where a case has
 * no 300): many local fronts (DTLZ1, DTLZ3, ZDT4, C1-DTLZ1) or a distance biased towards a bound
 * (DTLZ6, MW1, MW2, MW4). They, and every WFG case, also run at 1,000 evaluations, where our
 * users' campaigns are.
 */
const HARD_AT_300 = new Set(['dtlz1', 'dtlz3', 'dtlz6', 'zdt4', 'c1-dtlz1', 'mw1', 'mw2', 'mw4']);

/**
 * Budgets: 90 for every problem, 300 for m >= 3 and RE, 1,000 (batches of 50) for ZDT/DTLZ/WFG at
 * d >= 30, for every WFG case and for the problems of HARD_AT_300.
 */
function budgetsFor(family: Family, problem: string, m: number, d: number): number[] {
  const out = [90];
  if (m >= 3 || family === 're') out.push(300);
  const large = (family === 'zdt' || family === 'dtlz' || family === 'wfg') && d >= 30;
  if (large || family === 'wfg' || HARD_AT_300.has(problem)) out.push(1000);
  return out;
}

function make(family: Family, problem: string, m: number, d: number, extra: Partial<SuiteCase> = {}): SuiteCase {
  const base = family === 'noisy' ? `${problem}-noisy` : problem;
  const id = family === 're' || ['bnh', 'srn', 'tnk', 'osy', 'constr'].includes(problem) ? base : `${base} m=${m} d=${d}`;
  // the noisy variants run at the 90-evaluation budget only
  return { id, family, problem, m, d, budgets: family === 'noisy' ? [90] : budgetsFor(family, problem, m, d), ...extra };
}

/**
 * The degenerate DTLZ5/6 curve's nadir + 10 % (its ideal is 0): the curve f_1 = c r^(m-2),
 * f_i = c r^(m-i) (1 < i < m), f_m = s with r = cos(pi/4), c = cos th, s = sin th.
 */
function degenerateReference(m: number): number[] {
  return Array.from({ length: m }, (_, i) => 1.1 * Math.SQRT1_2 ** (i === 0 ? m - 2 : m - 1 - i));
}

export function allCases(): SuiteCase[] {
  const cases: SuiteCase[] = [];
  cases.push(make('zdt', 'zdt1', 2, 30), make('zdt', 'zdt2', 2, 30), make('zdt', 'zdt3', 2, 30), make('zdt', 'zdt4', 2, 10), make('zdt', 'zdt6', 2, 10));
  for (const problem of DTLZ) {
    for (const m of [2, 3, 4]) {
      for (const d of [m + 4, m + 9]) {
        const degenerate = (problem === 'dtlz5' || problem === 'dtlz6') && m >= 3;
        cases.push(make('dtlz', problem, m, d, degenerate ? { ref: degenerateReference(m), refSource: 'nadir + 10 % of the degenerate curve' } : {}));
      }
    }
  }
  // many objectives (formulation work has 4 to 6): DTLZ2 at m = 5 besides the m = 2..4 above
  cases.push(make('dtlz', 'dtlz2', 5, 9));
  for (const problem of WFG) for (const m of [2, 3]) cases.push(make('wfg', problem, m, WFG_D));
  for (const problem of RE) {
    const front = RE_FRONTS[problem];
    cases.push(
      make('re', problem, front.ideal.length, testProblem(problem)!.minDimension(front.ideal.length), {
        ref: realWorldReference(front),
        refSource: 'published nadir + 10 % (Tanabe & Ishibuchi)',
      }),
    );
  }
  cases.push(
    make('constrained', 'c1-dtlz1', 2, 6),
    make('constrained', 'c1-dtlz1', 3, 7),
    make('constrained', 'c2-dtlz2', 2, 4, { ref: [1.1, 1.1], refSource: 'BoTorch 1.1 (= nadir + 10 %)' }),
    make('constrained', 'c3-dtlz4', 2, 6),
    make('constrained', 'c3-dtlz4', 3, 7),
    make('constrained', 'bnh', 2, 2),
    make('constrained', 'srn', 2, 2),
    make('constrained', 'tnk', 2, 2),
    make('constrained', 'osy', 2, 6),
    make('constrained', 'constr', 2, 2),
    make('constrained', 'mw1', 2, 15),
    make('constrained', 'mw2', 2, 15),
    make('constrained', 'mw3', 2, 15),
    make('constrained', 'mw4', 3, 15),
  );
  cases.push(
    make('noisy', 'zdt1', 2, 30, { noise: NOISE }),
    make('noisy', 'dtlz2', 2, 6, { noise: NOISE }),
    make('noisy', 'dtlz2', 3, 7, { noise: NOISE }),
    make('noisy', 'dtlz7', 2, 6, { noise: NOISE }),
    make('noisy', 'wfg4', 2, WFG_D, { noise: NOISE }),
    make('noisy', 're21', 2, 4, { noise: NOISE, ref: realWorldReference(RE_FRONTS.re21), refSource: 'published nadir + 10 % (Tanabe & Ishibuchi)' }),
    make('noisy', 're37', 3, 4, { noise: NOISE, ref: realWorldReference(RE_FRONTS.re37), refSource: 'published nadir + 10 % (Tanabe & Ishibuchi)' }),
  );
  return cases;
}

/** The `--quick` selection: one or two problems per family. */
export const QUICK = ['zdt1 m=2 d=30', 'dtlz2 m=3 d=7', 'wfg4 m=2 d=24', 're21', 'c2-dtlz2 m=2 d=4', 'dtlz2-noisy m=2 d=6'];

/** Ideal and nadir of `problem`'s front from a dense sample (the samplers keep each objective's extremes). */
function frontRange(problem: TestProblem, m: number): { ideal: number[]; nadir: number[] } {
  const count = 20_000;
  const front = problem.paretoFront(m, count);
  const ideal = Array<number>(m).fill(Infinity);
  const nadir = Array<number>(m).fill(-Infinity);
  for (let i = 0; i < front.length; i++) {
    ideal[i % m] = Math.min(ideal[i % m], front[i]);
    nadir[i % m] = Math.max(nadir[i % m], front[i]);
  }
  return { ideal, nadir };
}

/** Round up to 4 significant digits, so a reference reads well and stays >= nadir + 10 %. */
function roundUp(v: number): number {
  if (v === 0) return 0;
  const scale = 10 ** (Math.floor(Math.log10(Math.abs(v))) - 3);
  return Math.ceil(v / scale - 1e-9) * scale;
}

export function resolveCase(c: SuiteCase): ResolvedCase {
  const problem = testProblem(c.problem);
  if (!problem) throw new Error(`suite case ${c.id}: no builtin problem '${c.problem}'`);
  let ref = c.ref;
  let refSource = c.refSource ?? 'nadir + 10 % of the front';
  if (!ref) {
    const { ideal, nadir } = frontRange(problem, c.m);
    ref = nadir.map((v, i) => roundUp(v + 0.1 * (v - ideal[i])));
    refSource = c.refSource ?? 'nadir + 10 % of the front';
  }
  const exact = problem.maxHypervolume?.(c.m, ref);
  if (exact !== undefined) return { ...c, ref, refSource, maxHv: exact, maxSource: problem.maxHypervolumeSource?.(c.m) ?? 'closed form' };
  const count = 20_000;
  return { ...c, ref, refSource, maxHv: hypervolume(problem.paretoFront(c.m, count), count, c.m, ref), maxSource: 'dense front sample' };
}
