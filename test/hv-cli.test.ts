import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hvCommand, paretoCommand } from '../src/cli/hv.js';

const dir = mkdtempSync(join(tmpdir(), 'kiln-hv-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** Runs a command on `args` and returns what it wrote and the exit code it set. */
async function run(
  make: typeof hvCommand,
  args: string[],
): Promise<{ out: string[]; err: string[]; exitCode: number | string | undefined }> {
  const out: string[] = [];
  const err: string[] = [];
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await make({ out: (t) => out.push(t), err: (t) => err.push(t) }).parseAsync(args, { from: 'user' });
    return { out, err, exitCode: process.exitCode };
  } finally {
    process.exitCode = before;
  }
}

test('kiln hv prints the exact hypervolume with 17 significant digits', async () => {
  const path = file('l.json', { points: [[0, 1], [1, 0], [1.5, 1.5]], ref: [2, 2] });
  const { out, err, exitCode } = await run(hvCommand, [path]);
  assert.deepEqual(out, ['3.0000000000000000']);
  assert.deepEqual(err, []);
  assert.equal(exitCode, undefined);
  const cube = file('c.json', { points: [[0, 1, 1], [1, 0, 1], [1, 1, 0]], ref: [2, 2, 2] });
  assert.deepEqual((await run(hvCommand, [cube])).out, ['4.0000000000000000']);
  const empty = file('e.json', { points: [], ref: [1, 1] });
  assert.deepEqual((await run(hvCommand, [empty])).out, ['0.0000000000000000']);
});

test('kiln hv --repeat also prints the median seconds per call', async () => {
  const path = file('r.json', { points: [[0.25, 0.5]], ref: [1, 1] });
  const { out, exitCode } = await run(hvCommand, [path, '--repeat', '5']);
  assert.equal(exitCode, undefined);
  assert.equal(out[0], '0.37500000000000000');
  assert.match(out[1], /^median \d\.\d{3}e[-+]\d+ s per call over 5 calls$/);
});

test('kiln pareto prints the non-dominated rows in input order', async () => {
  const path = file('p.json', { points: [[2, 2], [1, 3], [2, 2], [3, 1], [3, 3], [1, 3]] });
  const { out, exitCode } = await run(paretoCommand, [path]);
  assert.equal(exitCode, undefined);
  assert.deepEqual(JSON.parse(out.join('')), { points: [[2, 2], [1, 3], [2, 2], [3, 1], [1, 3]] });
  const empty = file('pe.json', { points: [] });
  assert.deepEqual(JSON.parse((await run(paretoCommand, [empty])).out.join('')), { points: [] });
});

test('bad input prints one sentence on stderr and sets exit code 2', async () => {
  const cases: [typeof hvCommand, string[], RegExp][] = [
    [hvCommand, [join(dir, 'missing.json')], /cannot read .*missing\.json: there is no such file\./],
    [hvCommand, [file('bad.json', '{"points": [[1, 2]')], /is not valid JSON/],
    [hvCommand, [file('ragged.json', { points: [[1, 2], [1]], ref: [3, 3] })], /points\[1\] has 1 values but points\[0\] has 2/],
    [hvCommand, [file('refLen.json', { points: [[1, 2]], ref: [3] })], /"ref" has 1 values but the points have 2 objectives/],
    [hvCommand, [file('noRef.json', { points: [[1, 2]] })], /has no "ref"/],
    [hvCommand, [file('nan.json', { points: [[1, 'x']], ref: [3, 3] })], /points\[0\]\[1\] is "x", not a number/],
    [hvCommand, [file('refNull.json', { points: [[1, 2]], ref: [3, null] })], /ref\[1\] is null, not a number/],
    [hvCommand, [file('array.json', [[1, 2]])], /must hold a JSON object/],
    [hvCommand, [file('ok.json', { points: [[1, 2]], ref: [3, 3] }), '--repeat', 'many'], /--repeat must be a positive whole number/],
    [paretoCommand, [file('noPoints.json', { ref: [1] })], /"points" must be an array of rows of numbers/],
    [paretoCommand, [file('row.json', { points: [3, 4] })], /points\[0\] must be an array of numbers/],
  ];
  for (const [make, args, message] of cases) {
    const { out, err, exitCode } = await run(make, args);
    assert.equal(exitCode, 2, `${args.join(' ')}: exit code`);
    assert.deepEqual(out, [], `${args.join(' ')}: no output`);
    assert.equal(err.length, 1, `${args.join(' ')}: one message`);
    assert.match(err[0], message);
  }
});
