/**
 * Tokenizer and recursive-descent parser for constraint expressions. The language is tiny on
 * purpose and nothing here ever reaches `eval` or `Function`: numbers, identifiers, + - * / ^,
 * parentheses, unary signs, six functions and exactly one top-level comparison.
 *
 *   constraint := sum comparison sum
 *   sum        := product (("+" | "-") product)*
 *   product    := unary (("*" | "/") unary)*
 *   unary      := ("-" | "+") unary | power
 *   power      := primary ("^" unary)?          (right associative; -x^2 = -(x^2), 2^-1 = 0.5)
 *   primary    := number | name | function "(" sum ("," sum)* ")" | "(" sum ")"
 *
 * Positions are 1-based character positions in the source string.
 */

export type Comparison = '<=' | '>=' | '<' | '>' | '==';

export const functionArity = {
  min: 'many',
  max: 'many',
  abs: 'one',
  sqrt: 'one',
  exp: 'one',
  log: 'one',
} as const;

export type FunctionName = keyof typeof functionArity;

export const functionNames = Object.keys(functionArity) as readonly FunctionName[];

export type ExpressionNode =
  | { kind: 'number'; value: number; position: number }
  | { kind: 'name'; name: string; position: number }
  | { kind: 'negate'; operand: ExpressionNode; position: number }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/' | '^'; left: ExpressionNode; right: ExpressionNode; position: number }
  | { kind: 'call'; fn: FunctionName; args: ExpressionNode[]; position: number };

export interface ParsedConstraint {
  left: ExpressionNode;
  comparison: Comparison;
  right: ExpressionNode;
}

export interface ExpressionError {
  position: number;
  message: string;
}

/** Nesting deeper than this is refused with a message instead of exhausting the call stack. */
export const maxNesting = 100;
/** Longer sources are refused before tokenizing. */
export const maxExpressionLength = 10_000;

type Token =
  | { kind: 'number'; text: string; value: number; position: number }
  | { kind: 'name'; text: string; position: number }
  | { kind: 'operator'; text: '+' | '-' | '*' | '/' | '^'; position: number }
  | { kind: 'comparison'; text: Comparison; position: number }
  | { kind: '(' | ')' | ','; text: string; position: number }
  | { kind: 'end'; text: ''; position: number };

class SyntaxFailure extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

function isFunctionName(name: string): name is FunctionName {
  return Object.prototype.hasOwnProperty.call(functionArity, name);
}

const numberPattern = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const namePattern = /[A-Za-z_][A-Za-z0-9_]*/y;
const numberTailPattern = /[A-Za-z0-9_.]+/y;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    const position = i + 1;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    numberPattern.lastIndex = i;
    const number = numberPattern.exec(source);
    if (number) {
      numberTailPattern.lastIndex = i + number[0].length;
      const tail = numberTailPattern.exec(source);
      if (tail) {
        const text = number[0] + tail[0];
        throw new SyntaxFailure(position, `malformed number "${text}" at position ${position}`);
      }
      const value = Number(number[0]);
      if (!Number.isFinite(value)) {
        throw new SyntaxFailure(position, `number ${number[0]} at position ${position} is too large`);
      }
      tokens.push({ kind: 'number', text: number[0], value, position });
      i += number[0].length;
      continue;
    }
    namePattern.lastIndex = i;
    const name = namePattern.exec(source);
    if (name) {
      tokens.push({ kind: 'name', text: name[0], position });
      i += name[0].length;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === '<=' || two === '>=' || two === '==') {
      tokens.push({ kind: 'comparison', text: two, position });
      i += 2;
      continue;
    }
    if (c === '<' || c === '>') {
      tokens.push({ kind: 'comparison', text: c, position });
      i++;
      continue;
    }
    if (two === '**') {
      throw new SyntaxFailure(position, `unexpected "**" at position ${position}: write "^" for powers`);
    }
    if (c === '+' || c === '-' || c === '*' || c === '/' || c === '^') {
      tokens.push({ kind: 'operator', text: c, position });
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, text: c, position });
      i++;
      continue;
    }
    throw new SyntaxFailure(position, unexpectedCharacter(source, i));
  }
  tokens.push({ kind: 'end', text: '', position: source.length + 1 });
  return tokens;
}

function unexpectedCharacter(source: string, i: number): string {
  const c = String.fromCodePoint(source.codePointAt(i) ?? 0);
  const at = `unexpected ${JSON.stringify(c)} at position ${i + 1}`;
  const next = source[i + 1];
  if (c === '=') {
    if (next === '<' || next === '>') return `${at}: write "${next}=" instead of "=${next}"`;
    return `${at}: write "==" for equality`;
  }
  if (c === '!' && next === '=') return `${at}: "!=" is not supported; use two inequalities instead`;
  if (c === '"' || c === "'" || c === '`') return `${at}: text in quotes is not allowed in expressions`;
  if (c === '[' || c === ']' || c === '{' || c === '}') return `${at}: use parentheses for grouping`;
  return at;
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'end of the expression' : JSON.stringify(token.text);
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parseConstraint(): ParsedConstraint {
    const left = this.sum();
    const token = this.peek();
    if (token.kind !== 'comparison') {
      if (token.kind === 'end') {
        throw new SyntaxFailure(token.position, 'no comparison found: a constraint needs exactly one of <=, >=, <, >, ==');
      }
      throw this.unexpected(token);
    }
    this.index++;
    const right = this.sum();
    const after = this.peek();
    if (after.kind === 'comparison') {
      throw new SyntaxFailure(
        after.position,
        `second comparison ${JSON.stringify(after.text)} at position ${after.position}: ` +
          'a constraint has exactly one comparison; write a range such as 0 <= x <= 1 as two constraints',
      );
    }
    if (after.kind !== 'end') throw this.unexpected(after);
    return { left, comparison: token.text, right };
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private enter(position: number): void {
    if (++this.depth > maxNesting) {
      const message = `the expression nests more than ${maxNesting} levels deep at position ${position}`;
      throw new SyntaxFailure(position, message);
    }
  }

  private unexpected(token: Token): SyntaxFailure {
    if (token.kind === 'end') {
      return new SyntaxFailure(token.position, `unexpected end of the expression at position ${token.position}: expected a number, a parameter name or "("`);
    }
    if (token.kind === 'comparison') {
      return new SyntaxFailure(
        token.position,
        `comparison ${JSON.stringify(token.text)} at position ${token.position} must be at the top level, ` + 'not inside parentheses or function arguments',
      );
    }
    return new SyntaxFailure(token.position, `unexpected ${describe(token)} at position ${token.position}`);
  }

  private sum(): ExpressionNode {
    let left = this.product();
    for (let t = this.peek(); t.kind === 'operator' && (t.text === '+' || t.text === '-'); t = this.peek()) {
      this.index++;
      left = { kind: 'binary', op: t.text, left, right: this.product(), position: t.position };
    }
    return left;
  }

  private product(): ExpressionNode {
    let left = this.unary();
    for (let t = this.peek(); t.kind === 'operator' && (t.text === '*' || t.text === '/'); t = this.peek()) {
      this.index++;
      left = { kind: 'binary', op: t.text, left, right: this.unary(), position: t.position };
    }
    return left;
  }

  private unary(): ExpressionNode {
    const t = this.peek();
    if (t.kind === 'operator' && (t.text === '-' || t.text === '+')) {
      this.index++;
      this.enter(t.position);
      const operand = this.unary();
      this.depth--;
      return t.text === '-' ? { kind: 'negate', operand, position: t.position } : operand;
    }
    return this.power();
  }

  private power(): ExpressionNode {
    const base = this.primary();
    const t = this.peek();
    if (t.kind !== 'operator' || t.text !== '^') return base;
    this.index++;
    this.enter(t.position);
    const exponent = this.unary();
    this.depth--;
    return { kind: 'binary', op: '^', left: base, right: exponent, position: t.position };
  }

  private primary(): ExpressionNode {
    const t = this.peek();
    if (t.kind === 'number') {
      this.index++;
      return { kind: 'number', value: t.value, position: t.position };
    }
    if (t.kind === '(') {
      this.index++;
      this.enter(t.position);
      const inner = this.sum();
      this.close(t);
      this.depth--;
      return inner;
    }
    if (t.kind === 'name') {
      this.index++;
      const isCall = this.peek().kind === '(';
      if (!isFunctionName(t.text)) {
        if (isCall) {
          throw new SyntaxFailure(t.position, `unknown function "${t.text}" at position ${t.position} (functions: ${functionNames.join(', ')})`);
        }
        return { kind: 'name', name: t.text, position: t.position };
      }
      if (!isCall) {
        const message = `"${t.text}" at position ${t.position} is a function; write ${t.text}(...)`;
        throw new SyntaxFailure(t.position, message);
      }
      return this.call(t.text, t.position);
    }
    throw this.unexpected(t);
  }

  private call(fn: FunctionName, position: number): ExpressionNode {
    const open = this.peek();
    this.index++;
    this.enter(open.position);
    const args = [this.sum()];
    while (this.peek().kind === ',') {
      this.index++;
      args.push(this.sum());
    }
    this.close(open);
    this.depth--;
    if (functionArity[fn] === 'one' && args.length !== 1) {
      const message = `${fn}() at position ${position} takes exactly one argument, not ${args.length}`;
      throw new SyntaxFailure(position, message);
    }
    if (functionArity[fn] === 'many' && args.length < 2) {
      throw new SyntaxFailure(position, `${fn}() at position ${position} needs at least two arguments`);
    }
    return { kind: 'call', fn, args, position };
  }

  private close(open: Token): void {
    const t = this.peek();
    if (t.kind === ')') {
      this.index++;
      return;
    }
    if (t.kind === 'end') {
      throw new SyntaxFailure(t.position, `missing ")" for the "(" at position ${open.position}`);
    }
    throw this.unexpected(t);
  }
}

/** Parses `source` into a constraint tree, or reports the first syntax error with its position. */
export function parseConstraint(source: string): { ok: true; constraint: ParsedConstraint } | { ok: false; error: ExpressionError } {
  try {
    if (source.length > maxExpressionLength) {
      throw new SyntaxFailure(1, `the expression is longer than ${maxExpressionLength} characters`);
    }
    return { ok: true, constraint: new Parser(tokenize(source)).parseConstraint() };
  } catch (e) {
    if (e instanceof SyntaxFailure) return { ok: false, error: { position: e.position, message: e.message } };
    throw e;
  }
}
