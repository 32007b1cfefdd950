import { cpus } from 'node:os';
import { TENSOR_BACKEND_CHOICES, type TensorBackendChoice } from '../src/engine/tensor/choices.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One benchmark suite: `npm run bench -- <name>` runs it alone. */
export interface BenchSuite {
  name: string;
  description: string;
  /** the command-line options it reads, beyond those every suite takes (COMMON_OPTIONS) */
  options?: BenchOption[];
  run(): Promise<BenchReport>;
}

/** A command-line option: a switch (`--quick`), or `--name=VALUE` when `value` names what it takes. */
export interface BenchOption {
  flag: `--${string}`;
  value?: string;
  description: string;
}

/** What every suite takes. */
export const COMMON_OPTIONS: BenchOption[] = [
  {
    flag: '--backend',
    value: 'NAME',
    description: `the tensor backend to run on: ${TENSOR_BACKEND_CHOICES.join(', ')} (default KILN_TENSOR_BACKEND, else auto)`,
  },
  { flag: '--help', description: 'print the suites and their options, and run nothing' },
];

/** Whether `arg` (as given on the command line) is `option`: the switch itself, or the option with its value. */
export function isOption(arg: string, option: BenchOption): boolean {
  return option.value === undefined ? arg === option.flag : arg.startsWith(`${option.flag}=`);
}

/** `--case=PREFIXES  the cases ...`, one option per line, aligned. */
export function optionLines(options: readonly BenchOption[]): string[] {
  const written = options.map((o) => (o.value === undefined ? o.flag : `${o.flag}=${o.value}`));
  const width = Math.max(...written.map((w) => w.length));
  return options.map((o, i) => `  ${written[i].padEnd(width)}  ${o.description}`);
}

/** What a suite reports: a table of rows (same keys in each) plus free-form notes. */
export interface BenchReport {
  rows: Record<string, string | number | boolean | null>[];
  notes?: string[];
}

export interface MachineInfo {
  node: string;
  cpu: string;
  cores: number;
  backend: string;
}

export function machineInfo(backend: string): MachineInfo {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return { node: process.version, cpu, cores: cpus().length, backend };
}

/** The backend the benchmarks run on: `--backend=NAME`, else KILN_TENSOR_BACKEND, else auto. */
export function backendOption(): TensorBackendChoice {
  const chosen = process.argv.find((a) => a.startsWith('--backend='))?.slice('--backend='.length) ?? process.env.KILN_TENSOR_BACKEND ?? 'auto';
  if (!(TENSOR_BACKEND_CHOICES as readonly string[]).includes(chosen)) {
    throw new Error(`--backend (or KILN_TENSOR_BACKEND) must be one of ${TENSOR_BACKEND_CHOICES.join(', ')}, not "${chosen}"`);
  }
  return chosen as TensorBackendChoice;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Median seconds per call of `fn`: one cold call first (reported separately, as tfjs does), then
 * unrecorded warm-up calls for `warmupSeconds` (V8 first runs WebAssembly in its baseline
 * compiler and tiers hot functions up in the background; timing before that finishes mixes the
 * two), then repeats until `minSeconds` have passed or `maxRepeats` calls were made.
 */
export function timeCalls(
  fn: () => unknown,
  { minSeconds = 0.5, maxRepeats = 1000, minRepeats = 3, warmupSeconds = 0.3 } = {},
): { coldSeconds: number; medianSeconds: number; repeats: number } {
  let t = process.hrtime.bigint();
  fn();
  const coldSeconds = Number(process.hrtime.bigint() - t) / 1e9;
  const warmupEnd = process.hrtime.bigint() + BigInt(Math.round(warmupSeconds * 1e9));
  while (process.hrtime.bigint() < warmupEnd) fn();
  const samples: number[] = [];
  const start = process.hrtime.bigint();
  while (samples.length < maxRepeats) {
    t = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e9);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    if (samples.length >= minRepeats && elapsed >= minSeconds) break;
  }
  return { coldSeconds, medianSeconds: median(samples), repeats: samples.length };
}

/** timeCalls for a function whose work ends when its promise does (a GPU computation read back). */
export async function timeCallsAsync(
  fn: () => Promise<unknown>,
  { minSeconds = 0.5, maxRepeats = 1000, minRepeats = 3, warmupSeconds = 0.3 } = {},
): Promise<{ coldSeconds: number; medianSeconds: number; repeats: number }> {
  let t = process.hrtime.bigint();
  await fn();
  const coldSeconds = Number(process.hrtime.bigint() - t) / 1e9;
  const warmupEnd = process.hrtime.bigint() + BigInt(Math.round(warmupSeconds * 1e9));
  while (process.hrtime.bigint() < warmupEnd) await fn();
  const samples: number[] = [];
  const start = process.hrtime.bigint();
  while (samples.length < maxRepeats) {
    t = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e9);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    if (samples.length >= minRepeats && elapsed >= minSeconds) break;
  }
  return { coldSeconds, medianSeconds: median(samples), repeats: samples.length };
}

/** Prints rows as an aligned text table. */
export function printTable(rows: BenchReport['rows']): void {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]);
  const cells = rows.map((r) => keys.map((k) => formatCell(r[k])));
  const widths = keys.map((k, i) => Math.max(k.length, ...cells.map((c) => c[i].length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padStart(widths[i])).join('  ');
  console.log(line(keys));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

function formatCell(v: unknown): string {
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(3) : v.toPrecision(4);
  }
  if (v === null || v === undefined) return '-';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Writes bench/results/<suite>.json with the machine description next to the rows. */
export function writeReport(suite: string, machine: MachineInfo, report: BenchReport): string {
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${suite}.json`);
  const body = { suite, date: new Date().toISOString(), machine, ...report };
  writeFileSync(file, JSON.stringify(body, null, 2) + '\n');
  return file;
}
