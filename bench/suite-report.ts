import { median, type BenchReport } from './common.js';
import type { ResolvedCase } from './suite-cases.js';
import { METHODS, type Method, type RunResult } from './suite-run.js';

/** Kiln's figures per case and budget as stored in bench/results/suite-baseline.json. */
export interface BaselineRow {
  case: string;
  budget: number;
  kiln_mean_share: number;
  kiln_worst_share: number;
  seeds: number;
}

export interface Baseline {
  /** what the stored figures are: the release, when, on which machine, which cases */
  release: string;
  date: string;
  machine: string;
  covers: string;
  rows: BaselineRow[];
}

/** A drop larger than this share of the maximum below the stored figure is flagged. */
export const REGRESSION_TOLERANCE = 0.02;

interface Cell {
  mean: number;
  worst: number;
  shares: number[];
  secondsPerIteration: number;
}

function cell(runs: RunResult[]): Cell | undefined {
  if (runs.length === 0) return undefined;
  const shares = runs.map((r) => r.share);
  return {
    mean: shares.reduce((a, b) => a + b, 0) / shares.length,
    worst: Math.min(...shares),
    shares,
    secondsPerIteration: median(runs.map((r) => r.secondsPerIteration)),
  };
}

const pct = (v: number | undefined): number | null => (v === undefined ? null : Math.round(v * 1000) / 10);

/** The normalised gain (Kiln - random) / (max - random) in shares of the maximum; undefined when random reaches the maximum. */
export function normalizedGain(kiln: number, random: number): number | undefined {
  return random >= 1 ? undefined : (kiln - random) / (1 - random);
}

export interface SuiteSummary {
  report: BenchReport;
  /** Kiln's figures of this run, in the baseline file's form */
  baselineRows: BaselineRow[];
}

/**
 * The suite's table (one row per case and budget: shares of the maximum in %, mean and worst
 * seed, for each method; Kiln's seconds per iteration; the stored previous figures and the
 * change) and the notes: the median normalised gain over the 90-evaluation cases and each of the
 * issue's targets, met or missed with the cases that miss it.
 */
export function summarize(cases: readonly ResolvedCase[], runs: readonly RunResult[], baseline: Baseline | undefined): SuiteSummary {
  const rows: BenchReport['rows'] = [];
  const baselineRows: BaselineRow[] = [];
  const missed = { belowBaselines: [] as string[], zeroWhereRandomIsNot: [] as string[], seedBelowRandom: [] as string[], regressed: [] as string[] };
  const gains: number[] = [];
  // the 90-evaluation cases where some method reached the reference box (the others all score 0)
  const reachedGains: number[] = [];
  for (const c of cases) {
    for (const budget of c.budgets) {
      const cells = Object.fromEntries(METHODS.map((m) => [m, cell(runs.filter((r) => r.case === c.id && r.budget === budget && r.method === m))])) as Record<
        Method,
        Cell | undefined
      >;
      const kiln = cells.kiln;
      if (!kiln) continue;
      const label = `${c.id} @${budget}`;
      const stored = baseline?.rows.find((b) => b.case === c.id && b.budget === budget);
      const change = stored ? kiln.mean - stored.kiln_mean_share : undefined;
      const flagged = change !== undefined && change < -REGRESSION_TOLERANCE;
      if (flagged) missed.regressed.push(`${label} (${pct(kiln.mean)} % vs ${pct(stored?.kiln_mean_share)} %)`);
      const random = cells.random;
      for (const rival of [cells.random, cells.nsga2]) {
        if (rival && kiln.mean < rival.mean) missed.belowBaselines.push(`${label} (${pct(kiln.mean)} % < ${pct(rival.mean)} %)`);
      }
      if (random) {
        if (kiln.worst === 0 && random.mean > 0) missed.zeroWhereRandomIsNot.push(label);
        if (kiln.worst < random.mean) missed.seedBelowRandom.push(`${label} (worst ${pct(kiln.worst)} % < random ${pct(random.mean)} %)`);
        const gain = normalizedGain(kiln.mean, random.mean);
        if (budget === 90 && gain !== undefined) {
          gains.push(gain);
          if (METHODS.some((m) => (cells[m]?.mean ?? 0) > 0)) reachedGains.push(gain);
        }
      }
      baselineRows.push({ case: c.id, budget, kiln_mean_share: kiln.mean, kiln_worst_share: kiln.worst, seeds: kiln.shares.length });
      rows.push({
        case: c.id,
        family: c.family,
        budget,
        ref: c.refSource,
        max_hv: c.maxHv,
        max_from: c.maxSource,
        kiln_mean: pct(kiln.mean),
        kiln_worst: pct(kiln.worst),
        random_mean: pct(random?.mean),
        random_worst: pct(random?.worst),
        lhs_mean: pct(cells.lhs?.mean),
        nsga2_mean: pct(cells.nsga2?.mean),
        nsga2_worst: pct(cells.nsga2?.worst),
        kiln_s_per_iter: Math.round(kiln.secondsPerIteration * 1000) / 1000,
        seeds: kiln.shares.length,
        previous_kiln_mean: pct(stored?.kiln_mean_share),
        change: pct(change),
        flag: flagged ? 'REGRESSED' : '',
      });
    }
  }
  const notes: string[] = [];
  notes.push(
    'shares of the maximum hypervolume in %: mean over seeds and worst seed; noisy cases score the true (noiseless) hypervolume of the front each method reports.',
  );
  const medianGain = gains.length > 0 ? median(gains) : undefined;
  notes.push(
    `median normalised gain (Kiln - random) / (max - random) over ${gains.length} 90-evaluation cases: ${medianGain === undefined ? 'n/a' : medianGain.toFixed(3)} (target >= 0.8: ${medianGain !== undefined && medianGain >= 0.8 ? 'met' : 'MISSED'})`,
  );
  if (reachedGains.length < gains.length) {
    notes.push(
      `median normalised gain over the ${reachedGains.length} of them where some method reaches the reference box: ${reachedGains.length > 0 ? median(reachedGains).toFixed(3) : 'n/a'} (in the other ${gains.length - reachedGains.length} every method ends at 0)`,
    );
  }
  const target = (name: string, list: string[]) => notes.push(`target ${name}: ${list.length === 0 ? 'met' : `MISSED on ${list.length}: ${list.join('; ')}`}`);
  target("Kiln's mean at least random's and NSGA-II's", missed.belowBaselines);
  target('no Kiln seed ends at hypervolume 0 where random search does not', missed.zeroWhereRandomIsNot);
  target("no Kiln seed below random's mean", missed.seedBelowRandom);
  if (baseline) {
    target(
      `no case more than ${REGRESSION_TOLERANCE * 100} % of its maximum below the stored figures (${baseline.release}, ${baseline.date})`,
      missed.regressed,
    );
  } else notes.push('no stored figures (bench/results/suite-baseline.json) to compare with');
  return { report: { rows, notes }, baselineRows };
}

const cellText = (v: string | number | boolean | null | undefined): string => (v === null || v === undefined ? '–' : String(v));

/** Seeds a case runs at full size; a row over fewer (a run still under way) says so. */
export const FULL_SEEDS = 5;

/** The suite's table as Markdown, the columns docs/benchmarks.md shows (shares of the maximum in %). */
export function markdownTable(rows: BenchReport['rows']): string {
  const header =
    '| case | budget | max HV (from) | Kiln mean / worst | random mean / worst | LHS mean | NSGA-II mean / worst | Kiln s/iter | previous Kiln | |';
  const lines = [header, '|---|---|---|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    const max = typeof r.max_hv === 'number' ? r.max_hv.toPrecision(4) : cellText(r.max_hv);
    lines.push(
      `| ${cellText(r.case)}${typeof r.seeds === 'number' && r.seeds < FULL_SEEDS ? ` (${r.seeds} of ${FULL_SEEDS} seeds)` : ''} | ${cellText(r.budget)} | ${max} (${cellText(r.max_from)}) | ${cellText(r.kiln_mean)} / ${cellText(r.kiln_worst)} | ` +
        `${cellText(r.random_mean)} / ${cellText(r.random_worst)} | ${cellText(r.lhs_mean)} | ${cellText(r.nsga2_mean)} / ${cellText(r.nsga2_worst)} | ` +
        `${cellText(r.kiln_s_per_iter)} | ${cellText(r.previous_kiln_mean)} | ${cellText(r.flag)} |`,
    );
  }
  return lines.join('\n') + '\n';
}
