import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { hypervolume } from '../engine/hypervolume.js';
import { paretoMask } from '../engine/pareto.js';
import { processIo, type CliIo } from './io.js';

type Io = Pick<CliIo, 'out' | 'err'>;

/** Exit code for unusable input files and options. */
const BAD_INPUT = 2;

/** A problem with the user's file or options, reported as one sentence. */
class InputError extends Error {}

/**
 * `kiln hv front.json [--repeat N]`: the exact hypervolume of `{"points": [[...], ...], "ref":
 * [...]}` (minimisation), printed with 17 significant digits; with --repeat, also the median
 * seconds per call over N calls.
 */
export function hvCommand(io: Io = processIo): Command {
  return new Command('hv')
    .description('exact hypervolume of a front (minimisation) from {"points": [[...]], "ref": [...]}')
    .argument('<front>', 'JSON file with "points" (rows of objective values) and "ref" (the reference point)')
    .option('--repeat <n>', 'also time n calls and print the median seconds per call')
    .action((file: string, options: { repeat?: string }) => {
      guarded(io, () => {
        const repeat = options.repeat === undefined ? 0 : parseRepeat(options.repeat);
        const front = readFront(file, true);
        const ref = front.ref as number[];
        const value = hypervolume(front.points, front.n, front.m, ref);
        io.out(value.toPrecision(17));
        if (repeat > 0) {
          const seconds: number[] = [];
          for (let i = 0; i < repeat; i++) {
            const start = process.hrtime.bigint();
            hypervolume(front.points, front.n, front.m, ref);
            seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
          }
          io.out(`median ${median(seconds).toExponential(3)} s per call over ${repeat} calls`);
        }
      });
    });
}

/** `kiln pareto front.json`: the non-dominated rows of "points" (minimisation), in input order, as JSON. */
export function paretoCommand(io: Io = processIo): Command {
  return new Command('pareto')
    .description('print the non-dominated subset (minimisation) of {"points": [[...]]} as JSON, in input order')
    .argument('<front>', 'JSON file with "points" (rows of objective values); "ref" is ignored')
    .action((file: string) => {
      guarded(io, () => {
        const front = readFront(file, false);
        const mask = front.n === 0 ? new Uint8Array(0) : paretoMask(front.points, front.n, front.m);
        io.out(JSON.stringify({ points: front.rows.filter((_, i) => mask[i] === 1) }));
      });
    });
}

/** Runs `body`, turning an InputError into one line on stderr and exit code 2. */
function guarded(io: Io, body: () => void): void {
  try {
    body();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    io.err(`kiln: ${error.message}`);
    process.exitCode = BAD_INPUT;
  }
}

function parseRepeat(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InputError(`--repeat must be a positive whole number of calls, got "${text}".`);
  return n;
}

interface Front {
  rows: number[][];
  points: Float64Array;
  n: number;
  m: number;
  ref?: number[];
}

/** Reads and checks `{"points": [[...]], "ref": [...]}`; `ref` is required only when `needRef`. */
function readFront(file: string, needRef: boolean): Front {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'there is no such file' : code === 'EISDIR' ? 'it is a folder' : String(code ?? error);
    throw new InputError(`cannot read ${file}: ${why}.`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file} is not valid JSON (${(error as Error).message}).`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new InputError(`${file} must hold a JSON object like {"points": [[1, 2], [2, 1]], "ref": [3, 3]}.`);
  }
  const { points, ref } = data as { points?: unknown; ref?: unknown };
  if (!Array.isArray(points)) throw new InputError(`${file}: "points" must be an array of rows of numbers.`);
  const rows = points.map((row, i) => numberRow(file, row, `points[${i}]`));
  let m = rows.length > 0 ? rows[0].length : 0;
  rows.forEach((row, i) => {
    if (row.length !== m) {
      throw new InputError(`${file}: points[${i}] has ${row.length} values but points[0] has ${m}; every row needs one value per objective.`);
    }
  });
  if (rows.length > 0 && m === 0) throw new InputError(`${file}: the rows of "points" are empty; each needs one value per objective.`);
  let refRow: number[] | undefined;
  if (needRef) {
    if (ref === undefined) throw new InputError(`${file} has no "ref": give the reference point as an array with one number per objective.`);
    refRow = numberRow(file, ref, 'ref');
    if (rows.length === 0) m = refRow.length;
    if (refRow.length !== m || m === 0) {
      throw new InputError(`${file}: "ref" has ${refRow.length} values but the points have ${m} objectives.`);
    }
  }
  return { rows, points: Float64Array.from(rows.flat()), n: rows.length, m, ref: refRow };
}

function numberRow(file: string, row: unknown, where: string): number[] {
  if (!Array.isArray(row)) throw new InputError(`${file}: ${where} must be an array of numbers.`);
  row.forEach((v, j) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new InputError(`${file}: ${where}[${j}] is ${JSON.stringify(v) ?? String(v)}, not a number.`);
    }
  });
  return row as number[];
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
