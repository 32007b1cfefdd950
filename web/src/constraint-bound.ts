/**
 * An outcome constraint as a person reads it: one measured quantity and its limit (`viscosity <= 10`,
 * or `10 >= viscosity`, read the same way). The plots draw the limit as a line; the model report
 * turns the constraint's slack back into the quantity. Other expressions (`a + b <= 10`) have no
 * single quantity and stay as they are written.
 */
export interface Bound {
  name: string;
  /** how the quantity compares with the limit, the quantity written first */
  comparison: '<=' | '>=' | '<' | '>';
  value: number;
  expression: string;
}

const FLIPPED = { '<=': '>=', '>=': '<=', '<': '>', '>': '<' } as const;
const NUMBER = String.raw`-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?`;
const DIRECT = new RegExp(String.raw`^\s*([A-Za-z_]\w*)\s*(<=|>=|<|>)\s*(${NUMBER})\s*$`, 'i');
const REVERSED = new RegExp(String.raw`^\s*(${NUMBER})\s*(<=|>=|<|>)\s*([A-Za-z_]\w*)\s*$`, 'i');

/** The quantity and limit of `name op number` (or `number op name`); null for any other expression. */
export function boundOf(expression: string): Bound | null {
  const direct = DIRECT.exec(expression);
  const reversed = direct ? null : REVERSED.exec(expression);
  const [name, comparison, value] = direct
    ? [direct[1], direct[2] as Bound['comparison'], Number(direct[3])]
    : reversed
      ? [reversed[3], FLIPPED[reversed[2] as Bound['comparison']], Number(reversed[1])]
      : [null, null, NaN];
  if (!name || !comparison || !Number.isFinite(value)) return null;
  return { name, comparison, value, expression: expression.trim() };
}

const SYMBOL = { '<=': '≤', '>=': '≥', '<': '<', '>': '>' } as const;

/** "viscosity ≤ 10 mPa·s". */
export function boundText(bound: Bound, unit?: string): string {
  return `${bound.name} ${SYMBOL[bound.comparison]} ${bound.value}${unit ? ` ${unit}` : ''}`;
}

/**
 * The quantity's value from the constraint's slack (how far inside the limit it lies, negative
 * outside): below a `<=` limit by the slack, above a `>=` limit by it.
 */
export function valueFromSlack(bound: Bound, slack: number): number {
  return bound.comparison === '<=' || bound.comparison === '<' ? bound.value - slack : bound.value + slack;
}
