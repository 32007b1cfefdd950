/**
 * Finds where JSON text stops being valid, with a plain message. `JSON.parse` does the real
 * parsing; its error messages differ between Node versions and sometimes omit the position, so
 * this scanner runs only after it failed, to point the author at the offending character.
 */
export function findJsonError(text: string): { offset: number; message: string } | undefined {
  const scanner = new Scanner(text);
  try {
    scanner.skipSpace();
    scanner.value(0);
    scanner.skipSpace();
    if (scanner.offset < text.length) scanner.fail('unexpected text after the end of the document');
    return undefined;
  } catch (e) {
    if (e instanceof JsonFailure) return { offset: e.offset, message: e.message };
    throw e;
  }
}

class JsonFailure extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const maxDepth = 1000;
const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Scanner {
  offset = 0;

  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new JsonFailure(this.offset, message);
  }

  skipSpace(): void {
    while (this.offset < this.text.length && ' \t\n\r'.includes(this.text[this.offset])) this.offset++;
  }

  private found(): string {
    return this.offset >= this.text.length ? 'the end of the text' : JSON.stringify(this.text[this.offset]);
  }

  private expect(char: string, what: string): void {
    this.skipSpace();
    if (this.text[this.offset] !== char) this.fail(`expected ${what}, found ${this.found()}`);
    this.offset++;
  }

  value(depth: number): void {
    if (depth > maxDepth) this.fail(`the document nests more than ${maxDepth} levels deep`);
    this.skipSpace();
    const c = this.text[this.offset];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.offset)) {
        this.offset += word.length;
        return;
      }
    }
    numberPattern.lastIndex = this.offset;
    const number = numberPattern.exec(this.text);
    if (number) {
      this.offset += number[0].length;
      return;
    }
    if (c === "'") this.fail('strings must use double quotes in JSON');
    this.fail(`expected a value, found ${this.found()}`);
  }

  private object(depth: number): void {
    this.offset++;
    this.skipSpace();
    if (this.text[this.offset] === '}') {
      this.offset++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.offset] !== '"') {
        this.fail(
          this.text[this.offset] === '}' ? 'a trailing comma is not allowed before "}"' : `expected a member name in double quotes, found ${this.found()}`,
        );
      }
      this.string();
      this.expect(':', '":" after the member name');
      this.value(depth + 1);
      this.skipSpace();
      if (this.text[this.offset] === '}') {
        this.offset++;
        return;
      }
      this.expect(',', '"," or "}"');
    }
  }

  private array(depth: number): void {
    this.offset++;
    this.skipSpace();
    if (this.text[this.offset] === ']') {
      this.offset++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.offset] === ']') this.fail('a trailing comma is not allowed before "]"');
      this.value(depth + 1);
      this.skipSpace();
      if (this.text[this.offset] === ']') {
        this.offset++;
        return;
      }
      this.expect(',', '"," or "]"');
    }
  }

  private string(): void {
    const start = this.offset;
    this.offset++;
    while (this.offset < this.text.length) {
      const c = this.text[this.offset];
      if (c === '"') {
        this.offset++;
        return;
      }
      if (c === '\\') {
        const escape = this.text[this.offset + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.offset + 2, this.offset + 6))) {
            this.fail('a \\u escape needs four hexadecimal digits');
          }
          this.offset += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) this.fail('invalid escape sequence in a string');
        this.offset += 2;
        continue;
      }
      if (c < ' ') this.fail('control characters (such as line breaks) must be escaped inside strings');
      this.offset++;
    }
    this.offset = start;
    this.fail('this string is never closed with a double quote');
  }
}
