import { elementBySymbol } from './elements.js';

/**
 * Chemical formulas: parsing into a composition, and the reduced formula in electronegativity order.
 *
 * Accepted: element symbols with integer or decimal counts (LiNi0.8Mn0.1Co0.1O2), nested groups
 * in parentheses or square brackets with a count ((CH3NH3)PbI3, Ca10(PO4)6(OH)2, [Cu(NH3)4]SO4),
 * and adducts such as hydrates joined by ·, •, ∙, ⋅, * or . with an optional leading coefficient
 * (CuSO4·5H2O, CaSO4·0.5H2O). Whitespace around the formula is ignored; inside it is an error.
 * Charges, isotopes and lowercase symbols are not formulas here.
 */

/** A formula that cannot be read; `position` is the 0-based index of the offending character. */
export class FormulaError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'FormulaError';
  }
}

/** element symbol → amount, in the order the elements first appear */
export type Composition = ReadonlyMap<string, number>;

const SEPARATORS = new Set(['·', '•', '∙', '⋅', '*', '.']);
const CLOSER: Record<string, string> = { '(': ')', '[': ']' };

// `.` is both the decimal point and the ASCII hydrate dot, so CuSO4.5H2O could read as O4.5. A
// dot between digits is a decimal point unless a count of H2O follows it and nothing more (up to
// the end, the next adduct or a closing bracket): that spelling is a hydrate nearly every time.
const ASCII_HYDRATE = /^\.\d+(?:\.\d+)?H2O(?:$|[·•∙⋅*.)\]])/;

// Amounts are products of decimals, so they are rounded to keep 0.1 × 3 equal to 0.3.
const AMOUNT_DIGITS = 1e9;

export function parseFormula(text: string): Composition {
  return new Parser(text).parse();
}

class Parser {
  private i: number;
  private readonly end: number;

  constructor(private readonly text: string) {
    this.i = text.length - text.trimStart().length;
    this.end = text.trimEnd().length;
  }

  parse(): Composition {
    if (this.i >= this.end) throw new FormulaError('is empty: expected a chemical formula such as LiFePO4 at position 0', 0);
    const total = new Map<string, number>();
    for (;;) {
      const coefficient = this.number(false) ?? 1;
      addInto(total, this.sequence(null), coefficient);
      if (this.i >= this.end) break;
      const c = this.text[this.i];
      if (c === ')' || c === ']')
        throw new FormulaError(`unexpected "${c}" at position ${this.i}: there is no "${c === ')' ? '(' : '['}" open to close`, this.i);
      if (!SEPARATORS.has(c)) throw this.unexpected('an element symbol, a count, "(", "[" or an adduct separator (· or *)');
      this.i++;
      if (this.i >= this.end) throw new FormulaError(`expected a formula after "${c}" at position ${this.i}, found the end of the formula`, this.i);
    }
    for (const [symbol, amount] of total) total.set(symbol, Math.round(amount * AMOUNT_DIGITS) / AMOUNT_DIGITS);
    return total;
  }

  /** Units up to the end, a separator, or `closer`; at least one. */
  private sequence(closer: { char: string; at: number } | null): Map<string, number> {
    const out = new Map<string, number>();
    while (this.i < this.end) {
      const c = this.text[this.i];
      if (c >= 'A' && c <= 'Z') {
        const at = this.i;
        this.i++;
        while (this.i < this.end && this.text[this.i] >= 'a' && this.text[this.i] <= 'z') this.i++;
        const symbol = this.text.slice(at, this.i);
        if (!elementBySymbol(symbol)) throw new FormulaError(`unknown element "${symbol}" at position ${at}`, at);
        addInto(out, new Map([[symbol, 1]]), this.count());
      } else if (c in CLOSER) {
        const at = this.i;
        this.i++;
        const inner = this.sequence({ char: CLOSER[c], at });
        this.i++;
        addInto(out, inner, this.count());
      } else if (c >= 'a' && c <= 'z') {
        throw new FormulaError(`"${c}" at position ${this.i} is lowercase: element symbols start with a capital letter, e.g. "Li" or "O"`, this.i);
      } else {
        break;
      }
    }
    if (out.size === 0) throw this.unexpected('an element symbol, "(" or "["');
    if (closer) this.close(closer);
    return out;
  }

  private close(closer: { char: string; at: number }): void {
    const open = this.text[closer.at];
    if (this.i >= this.end) {
      throw new FormulaError(`"${open}" at position ${closer.at} is never closed: expected "${closer.char}" before the end of the formula`, closer.at);
    }
    if (this.text[this.i] !== closer.char) throw this.unexpected(`"${closer.char}" to close the "${open}" at position ${closer.at}`);
  }

  /** The count after an element or group: 1 when absent. */
  private count(): number {
    return this.number(true) ?? 1;
  }

  /** Digits with an optional decimal part; undefined when none are here. */
  private number(subscript: boolean): number | undefined {
    const at = this.i;
    while (this.i < this.end && isDigit(this.text[this.i])) this.i++;
    if (this.i === at) return undefined;
    const decimal = this.text[this.i] === '.' && isDigit(this.text[this.i + 1] ?? '');
    if (decimal && !(subscript && ASCII_HYDRATE.test(this.text.slice(this.i, this.end)))) {
      this.i++;
      while (this.i < this.end && isDigit(this.text[this.i])) this.i++;
    }
    const value = Number(this.text.slice(at, this.i));
    if (value === 0) throw new FormulaError(`the ${subscript ? 'count' : 'coefficient'} at position ${at} is zero: it must be positive`, at);
    return value;
  }

  private unexpected(expected: string): FormulaError {
    if (this.i >= this.end) return new FormulaError(`expected ${expected} at position ${this.i}, found the end of the formula`, this.i);
    const c = this.text[this.i];
    const found = /\s/.test(c) ? 'whitespace' : `"${c}"`;
    return new FormulaError(`unexpected ${found} at position ${this.i}: expected ${expected}`, this.i);
  }
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function addInto(target: Map<string, number>, part: Composition, factor: number): void {
  for (const [symbol, amount] of part) target.set(symbol, (target.get(symbol) ?? 0) + amount * factor);
}

/** Hill order: C first and H second when there is carbon, everything else (and H without C) alphabetical. */
export function hillOrder(symbols: Iterable<string>): string[] {
  const sorted = [...symbols].sort();
  if (!sorted.includes('C')) return sorted;
  const rest = sorted.filter((s) => s !== 'C' && s !== 'H');
  return ['C', ...(sorted.includes('H') ? ['H'] : []), ...rest];
}

/**
 * The composition divided by the greatest common divisor of its amounts when they are all whole
 * numbers (C6H12O6 → CH2O, O2 → O); a composition with fractional amounts is kept as it is.
 */
export function reduceComposition(composition: Composition): Composition {
  const amounts = [...composition.values()];
  if (!amounts.every(Number.isInteger)) return composition;
  const divisor = amounts.reduce(gcd);
  return new Map([...composition].map(([symbol, amount]) => [symbol, amount / divisor]));
}

/**
 * Element order of a written formula the way materials scientists, the Materials Project and
 * pymatgen write it: by Pauling electronegativity, lowest first (LiFePO4, Fe2O3, NaCl), ties by
 * symbol, elements without a value last.
 */
export function electronegativityOrder(symbols: Iterable<string>): string[] {
  const x = (s: string) => elementBySymbol(s)?.electronegativity ?? Infinity;
  return [...symbols].sort((a, b) => x(a) - x(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The composition written out in electronegativity order, counts of 1 omitted. */
export function formatFormula(composition: Composition): string {
  return electronegativityOrder(composition.keys())
    .map((symbol) => {
      const amount = composition.get(symbol) as number;
      return amount === 1 ? symbol : `${symbol}${amount}`;
    })
    .join('');
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
