import { spawn, type ChildProcess } from 'node:child_process';
import { commandInput, parseCommandOutput } from './command-protocol.js';
import type { MeasuredNames } from './measured.js';
import { EvaluatorError, type EvaluateOptions, type EvaluationOutcome, type EvaluationRequest, type Evaluator } from './types.js';

export interface CommandEvaluatorSettings {
  /** Program and arguments; run directly, without a shell. */
  argv: readonly string[];
  /** MDL objective and outcome names, in order: sent to the program and required in every result. */
  names: MeasuredNames;
  timeoutSeconds: number;
  cwd?: string;
  /** Largest stdout accepted, in bytes (default 64 MiB). */
  maxOutputBytes?: number;
  /** Wait between SIGTERM and SIGKILL when stopping the program, in ms (default 3000). */
  killGraceMs?: number;
}

const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 3000;
/** Characters of stderr kept for error messages: the end is where the reason usually is. */
const STDERR_TAIL = 2000;

/** A command given as one string is split on whitespace; no shell quoting or expansion applies. */
export function splitCommand(command: string | readonly string[]): string[] {
  const argv = typeof command === 'string' ? command.trim().split(/\s+/) : [...command];
  if (argv.length === 0 || argv[0] === '') throw new EvaluatorError('invalid', 'the command evaluator has an empty command.');
  return argv;
}

/**
 * Runs a local program once per batch: the batch goes to its stdin as JSON and the results come
 * back on its stdout (protocol: command-protocol.ts, docs/evaluators.md). The program runs in its
 * own process group so that a timeout or cancellation stops everything it started.
 */
export class CommandEvaluator implements Evaluator {
  readonly kind = 'command' as const;
  private readonly settings: CommandEvaluatorSettings;

  constructor(settings: CommandEvaluatorSettings) {
    if (settings.argv.length === 0) throw new EvaluatorError('invalid', 'the command evaluator has an empty command.');
    this.settings = settings;
  }

  async evaluate(batch: readonly EvaluationRequest[], options: EvaluateOptions = {}): Promise<EvaluationOutcome[]> {
    if (options.signal?.aborted) {
      throw new EvaluatorError('cancelled', 'the evaluation was cancelled.', { cause: options.signal.reason });
    }
    if (batch.length === 0) return [];
    const stdout = await this.run(commandInput(batch, this.settings.names), options.signal);
    return parseCommandOutput(stdout, batch.length, this.settings.names);
  }

  /** Runs the program with `input` on stdin; resolves with its stdout when it exits with status 0. */
  private run(input: string, signal: AbortSignal | undefined): Promise<string> {
    const { argv, cwd, timeoutSeconds } = this.settings;
    const maxOutput = this.settings.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const grace = this.settings.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const shown = argv.join(' ');
    const groups = process.platform !== 'win32';

    return new Promise<string>((resolve, reject) => {
      const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: groups, windowsHide: true });
      const chunks: Buffer[] = [];
      let outputBytes = 0;
      let stderr = '';
      let settled = false;
      let closed = false;
      let escalation: NodeJS.Timeout | undefined;

      const stop = (): void => {
        if (child.pid === undefined) return;
        killTree(child, 'SIGTERM', groups);
        escalation ??= setTimeout(() => {
          if (!closed) killTree(child, 'SIGKILL', groups);
        }, grace);
      };
      const settle = (error: EvaluatorError | undefined, value?: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) {
          if (!closed) stop();
          reject(error);
        } else resolve(value ?? '');
      };
      const onAbort = (): void => settle(new EvaluatorError('cancelled', `the evaluation was cancelled; stopped \`${shown}\`.`, { cause: signal?.reason }));

      const timer = setTimeout(
        () =>
          settle(
            new EvaluatorError(
              'timeout',
              `the command \`${shown}\` timed out after ${timeoutSeconds} s and was stopped; raise evaluator.timeout_seconds or make it faster.`,
            ),
          ),
        timeoutSeconds * 1000,
      );
      signal?.addEventListener('abort', onAbort, { once: true });

      child.stdout?.on('data', (chunk: Buffer) => {
        outputBytes += chunk.length;
        if (outputBytes > maxOutput) {
          settle(
            new EvaluatorError(
              'protocol',
              `the command \`${shown}\` printed more than ${formatBytes(maxOutput)} on stdout and was stopped; print only the JSON result there and send logs to stderr.`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      // a program that exits without reading its input breaks the pipe; its exit status tells why
      child.stdin?.on('error', () => {});
      child.stdin?.end(input);

      child.on('error', (error: NodeJS.ErrnoException) => {
        const where = cwd ? ` in ${cwd}` : '';
        const hint =
          error.code === 'ENOENT'
            ? ` check evaluator.command: the program (or the working directory${where}) does not exist or is not on PATH.`
            : error.code === 'EACCES'
              ? ' check that the program file is executable.'
              : '';
        settle(new EvaluatorError('failed', `could not run \`${shown}\`${where}: ${error.message}.${hint}`, { cause: error }));
      });
      child.on('close', (code, exitSignal) => {
        closed = true;
        clearTimeout(escalation);
        if (code === 0) {
          settle(undefined, Buffer.concat(chunks).toString('utf8'));
          return;
        }
        const how = code !== null ? `exited with status ${code}` : `was killed by ${exitSignal}`;
        const tail = stderr.trim() ? `; the end of its stderr:\n${stderr.trimEnd()}` : ' and printed nothing on stderr';
        settle(new EvaluatorError('failed', `the command \`${shown}\` ${how}${tail}`));
      });
    });
  }
}

/** Signals the program and, where process groups exist, everything it started. */
function killTree(child: ChildProcess, signal: NodeJS.Signals, groups: boolean): void {
  if (child.pid === undefined) return;
  try {
    if (groups) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // ESRCH: the process group has already exited, which is what stopping it is for
  }
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
