/** Where a CLI command writes; tests pass their own to capture output. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** true when stdout is an interactive terminal (progress bars instead of plain lines) */
  isTTY: boolean;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
  isTTY: Boolean(process.stdout.isTTY),
};

/** Renders rows as an aligned plain-text table. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A number for people: 6 significant digits, exponent only when needed. */
export function formatNumber(value: number | string): string {
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return String(value);
  const a = Math.abs(value);
  return a !== 0 && (a < 1e-4 || a >= 1e7) ? value.toExponential(4) : String(Number(value.toPrecision(6)));
}
