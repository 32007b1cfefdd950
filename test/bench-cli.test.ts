import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import test from 'node:test';
import { suite } from '../bench/suite.js';

/** `npm run bench -- ARGS` as npm runs it after the build: the compiled runner, from the package root. */
function bench(...args: string[]) {
  const run = spawnSync(process.execPath, ['dist/bench/run.js', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

test('npm run bench -- suite --help prints the options and runs nothing', () => {
  const { status, out, err } = bench('suite', '--help');
  assert.equal(status, 0, err);
  for (const option of suite.options ?? []) assert.ok(out.includes(option.flag), `${option.flag} in\n${out}`);
  assert.match(out, /--backend=NAME +the tensor backend/);
  assert.doesNotMatch(out, /== suite|\[1\//, 'no run started');
});

test('an unknown option stops the run with the list of options; --backend=NAME is every suite’s', () => {
  const unknown = bench('suite', '--quick', '--famly=zdt');
  assert.equal(unknown.status, 2);
  assert.match(unknown.err, /^Unknown option --famly=zdt for suite\. The options:/);
  assert.match(unknown.err, /--family=zdt,dtlz +families/);
  assert.match(unknown.err, /--backend=NAME/);
  assert.doesNotMatch(unknown.out, /== suite/);
  // a switch a suite does not read is refused too, not ignored
  assert.match(bench('hypervolume', '--quick').err, /^Unknown option --quick for hypervolume\./);
  // accepted options go on to the run: here it stops at once at the backend's own check, before any suite
  const accepted = bench('campaign-reach', '--quick', '--backend=nonsense');
  assert.notEqual(accepted.status, 0);
  assert.doesNotMatch(accepted.err, /Unknown option/);
  assert.match(accepted.err, /--backend \(or KILN_TENSOR_BACKEND\) must be one of/);
});
