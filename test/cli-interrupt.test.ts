import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Ctrl-C in `kiln run`, as a person does it: SIGINT to the real process. The first one lets the
 * batch in flight finish and be saved; a second one cancels it. Either way the run resumes.
 */
function slowCampaign(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-sigint-'));
  // each call marks its start (calls-N), takes 1.5 s, then answers
  writeFileSync(
    join(dir, 'slow.mjs'),
    [
      "import { existsSync, readFileSync, writeFileSync } from 'node:fs';",
      "const calls = existsSync('calls') ? Number(readFileSync('calls', 'utf8')) + 1 : 1;",
      "writeFileSync('calls', String(calls));",
      "let input = ''; process.stdin.on('data', (c) => (input += c)).on('end', () => setTimeout(() => {",
      '  const { candidates } = JSON.parse(input);',
      '  console.log(JSON.stringify({ results: candidates.map(({ parameters: p }) => ({ objectives: { f1: p.x, f2: (1 - p.x) ** 2 + p.y } })) }));',
      '}, 1500));',
    ].join('\n'),
  );
  const file = join(dir, 'slow.yaml');
  writeFileSync(
    file,
    [
      'parameters: [{name: x, type: continuous, bounds: [0, 1]}, {name: y, type: continuous, bounds: [0, 1]}]',
      'objectives: [{name: f1, direction: minimize, reference: 1.1}, {name: f2, direction: minimize, reference: 2.1}]',
      'optimizer: {budget: 40, batch_size: 2, initial_samples: 4, seed: 3}',
      `evaluator: {type: command, command: '${process.execPath} slow.mjs', timeout_seconds: 30}`,
      '',
    ].join('\n'),
  );
  return { dir, file };
}

async function interrupted(presses: number): Promise<{ code: number | null; stderr: string; stdout: string; out: string }> {
  const { dir, file } = slowCampaign();
  const out = join(dir, 'out');
  const child = spawn(process.execPath, ['bin/kiln.js', 'run', file, '--out', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KILN_TENSOR_BACKEND: 'wasm' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += String(c)));
  child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  // the second batch (iteration 2) is in flight once the evaluator has been called twice
  const calls = join(dir, 'calls');
  const deadline = Date.now() + 60_000;
  while (!(existsSync(calls) && readFileSync(calls, 'utf8') === '2')) {
    assert.ok(Date.now() < deadline, `the second batch never started: ${stdout} ${stderr}`);
    await sleep(50);
  }
  for (let k = 0; k < presses; k++) {
    child.kill('SIGINT');
    await sleep(200);
  }
  return { code: await exited, stderr, stdout, out };
}

test('the first Ctrl-C finishes the batch in flight, saves it and stops, resumable', async () => {
  const { code, stderr, stdout, out } = await interrupted(1);
  assert.equal(code, 130, stderr);
  assert.match(stderr, /stopping after the batch in flight is evaluated and saved; press Ctrl-C again to abort it now/);
  assert.match(stdout, /Interrupted after iteration 2; .*kiln run --resume/);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  assert.equal(results.evaluations.length, 6, 'the initial design of 4 and the batch that was in flight');
  assert.equal(results.failed_evaluations.length, 0);
});

test('a second Ctrl-C cancels the batch in flight; the run stops after the last completed iteration, resumable', async () => {
  const { code, stderr, stdout, out } = await interrupted(2);
  assert.equal(code, 130, stderr);
  assert.match(stdout, /Interrupted after iteration 1; .*kiln run --resume/);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  assert.equal(results.evaluations.length, 4, 'only the initial design');
  assert.equal(results.failed_evaluations.length, 0, 'the cancelled batch is not counted as failed');
});
