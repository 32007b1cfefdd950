import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tensorBackendName } from '../src/engine/tensor/backend.js';
import { machineInfo, type BenchSuite } from './common.js';
import { allCases, QUICK, resolveCase, type Family, type ResolvedCase } from './suite-cases.js';
import { FULL_SEEDS, markdownTable, summarize, type Baseline } from './suite-report.js';
import { METHODS, runKey, runOnce, type Method, type RunResult } from './suite-run.js';

/**
 * The public benchmark suite: `npm run bench -- suite [options]`. Every case runs Kiln (cma-es,
 * strategy auto), random search, Latin hypercube and Kiln's NSGA-II at each of its budgets and
 * seeds; the table gives each method's mean and worst share of the case's maximum hypervolume,
 * Kiln's seconds per iteration and the stored previous figures (bench/results/suite-baseline.json),
 * and the notes check the targets.
 *
 * Its options are `suite.options` below (one token each, as `npm run bench` passes suite names
 * bare; `npm run bench -- suite --help` prints them), with `--backend=NAME` as for every suite.
 * Every finished run is appended to bench/results/suite-runs.jsonl, so a long suite can resume.
 */

const RESULTS = join(process.cwd(), 'bench', 'results');
const RUNS_FILE = join(RESULTS, 'suite-runs.jsonl');
const BASELINE_FILE = join(RESULTS, 'suite-baseline.json');

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const list = (name: string): string[] | undefined =>
  option(name)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function selectCases(): ResolvedCase[] {
  const quick = process.argv.includes('--quick');
  const families = list('family') as Family[] | undefined;
  const prefixes = list('case');
  const budgets = list('budget')?.map(Number);
  let cases = allCases();
  if (quick && !prefixes) cases = cases.filter((c) => QUICK.includes(c.id));
  if (families) cases = cases.filter((c) => families.includes(c.family));
  if (prefixes) cases = cases.filter((c) => prefixes.some((p) => c.id === p || c.id.startsWith(`${p} `) || c.id.startsWith(p)));
  const wanted = budgets ?? (quick ? [90] : undefined);
  return cases
    .map((c) => ({ ...c, budgets: wanted ? c.budgets.filter((b) => wanted.includes(b)) : c.budgets }))
    .filter((c) => c.budgets.length > 0)
    .map(resolveCase);
}

function readRuns(): Map<string, RunResult> {
  const runs = new Map<string, RunResult>();
  if (!existsSync(RUNS_FILE)) return runs;
  for (const line of readFileSync(RUNS_FILE, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const run = JSON.parse(line) as RunResult;
    runs.set(run.key, run);
  }
  return runs;
}

function readBaseline(): Baseline | undefined {
  return existsSync(BASELINE_FILE) ? (JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline) : undefined;
}

export const suite: BenchSuite = {
  name: 'suite',
  description: 'public problems (ZDT, DTLZ, WFG, RE, constrained, noisy): Kiln vs random, Latin hypercube and NSGA-II, share of the maximum hypervolume',
  options: [
    { flag: '--quick', description: 'a few cases (one or two per family), seeds 1 and 2, 90 evaluations' },
    { flag: '--family', value: 'zdt,dtlz', description: 'families: zdt, dtlz, wfg, re, constrained, noisy' },
    { flag: '--case', value: 'dtlz2', description: 'cases whose id starts with any of these (e.g. dtlz2, "dtlz2 m=3", re21)' },
    {
      flag: '--budget',
      value: '90,300',
      description: 'budgets (90 always exists; 300 for m >= 3 and RE; 1000 for d >= 30, WFG and the problems every method left at 0 at 300)',
    },
    { flag: '--seeds', value: '1,2,3', description: 'seeds (default 1-5)' },
    { flag: '--methods', value: 'kiln,random', description: `methods (default ${METHODS.join(', ')})` },
    { flag: '--resume', description: 'reuse the runs already in bench/results/suite-runs.jsonl' },
    { flag: '--report-only', description: 'run nothing: report the runs already stored (each row says its seeds)' },
    { flag: '--write-baseline', value: 'LABEL', description: "store this run's Kiln figures as the previous release's (LABEL names it)" },
    { flag: '--list', description: 'print the cases with their reference points and maxima, run nothing' },
  ],
  async run() {
    const quick = process.argv.includes('--quick');
    const cases = selectCases();
    if (cases.length === 0) throw new Error('no suite case matches the filters; see --list');
    const seeds = list('seeds')?.map(Number) ?? (quick ? [1, 2] : Array.from({ length: FULL_SEEDS }, (_, i) => i + 1));
    const methods = (list('methods') ?? [...METHODS]) as Method[];
    const unknown = methods.filter((m) => !(METHODS as readonly string[]).includes(m));
    if (unknown.length > 0) throw new Error(`unknown method ${unknown.join(', ')}; choose from ${METHODS.join(', ')}`);
    if (process.argv.includes('--list')) {
      return {
        rows: cases.map((c) => ({
          case: c.id,
          family: c.family,
          m: c.m,
          d: c.d,
          budgets: c.budgets.join(' '),
          ref: c.ref.map((r) => +r.toPrecision(6)).join(', '),
          ref_from: c.refSource,
          max_hv: c.maxHv,
          max_from: c.maxSource,
        })),
      };
    }
    mkdirSync(RESULTS, { recursive: true });
    const reportOnly = process.argv.includes('--report-only');
    const previous = process.argv.includes('--resume') || reportOnly ? readRuns() : new Map<string, RunResult>();
    const runs: RunResult[] = [];
    const total = cases.reduce((s, c) => s + c.budgets.length, 0) * seeds.length * methods.length;
    for (const c of cases) {
      for (const budget of c.budgets) {
        for (const method of methods) {
          for (const seed of seeds) {
            const stored = previous.get(runKey(c.id, budget, method, seed));
            // the share is recomputed: a better-known maximum changes it, not the hypervolume reached
            let run = stored ? { ...stored, share: stored.hv / c.maxHv } : undefined;
            if (!run && reportOnly) continue;
            if (!run) {
              run = await runOnce(c, budget, method, seed);
              appendFileSync(RUNS_FILE, JSON.stringify(run) + '\n');
            }
            runs.push(run);
            if (!reportOnly) {
              console.log(
                `[${runs.length}/${total}] ${c.id} @${budget} ${method} seed ${seed}: ${(100 * run.share).toFixed(1)} % of max (${run.secondsPerIteration.toFixed(2)} s/iteration)`,
              );
            }
          }
        }
      }
    }
    const machine = machineInfo(tensorBackendName());
    const { report, baselineRows } = summarize(cases, runs, readBaseline());
    report.notes?.push(`backend ${machine.backend} on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}; seeds ${seeds.join(', ')}`);
    writeFileSync(join(RESULTS, 'suite-table.md'), markdownTable(report.rows));
    report.notes?.push(`the table as Markdown: ${join(RESULTS, 'suite-table.md')}`);
    const label = option('write-baseline');
    if (label !== undefined) {
      const stored: Baseline = {
        release: label || 'unnamed',
        date: new Date().toISOString().slice(0, 10),
        machine: `${machine.cpu} (${machine.cores} cores), Node ${machine.node}, backend ${machine.backend}`,
        covers: [90, 300, 1000]
          .map((budget) => {
            const rows = baselineRows.filter((r) => r.budget === budget);
            const seedCounts = [...new Set(rows.map((r) => r.seeds))].sort().join(' or ');
            return `${rows.length} cases at ${budget} evaluations (${seedCounts || 0} seeds each)`;
          })
          .join('; '),
        rows: baselineRows,
      };
      writeFileSync(BASELINE_FILE, JSON.stringify(stored, null, 2) + '\n');
      report.notes?.push(`stored Kiln's figures as '${stored.release}' in ${BASELINE_FILE}`);
    }
    return report;
  },
};
