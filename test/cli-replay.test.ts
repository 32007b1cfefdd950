import test from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayResults } from '../src/cli/replay.js';
import { runCampaignFile } from '../src/cli/run.js';
import type { CliIo } from '../src/cli/io.js';

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, isTTY: false, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

interface ResultsJson {
  evaluations: Array<{ id: string; iteration: number; objectives: Record<string, number> }>;
  iterations: Array<{ iteration: number; receipt: { strategy: string; tensor_backend: string; engine_version: string } | null; evaluation_ids: string[] }>;
}

// One small run for every test: kiln run proposes on its engine pool (two threads here), replay inline.
const out = mkdtempSync(join(tmpdir(), 'kiln-replay-'));
const ran = capture();
const ranCode = await runCampaignFile('examples/zdt1.yaml', { out, budget: 24, seed: 7, backend: 'wasm' }, ran);

test('kiln run records a receipt per iteration and kiln replay finds every iteration identical', async () => {
  assert.equal(ranCode, 0, ran.stderr.join('\n'));
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsJson;
  assert.deepEqual(
    results.iterations.map((i) => i.iteration),
    [1, 2, 3, 4],
  );
  assert.deepEqual(
    results.iterations.map((i) => i.receipt?.strategy),
    ['initial-design', 'global', 'global', 'global'],
  );
  assert.ok(results.iterations.every((i) => i.receipt?.tensor_backend === 'wasm' && /^\d+\.\d+\.\d+/.test(i.receipt.engine_version)));
  assert.equal(results.iterations.flatMap((i) => i.evaluation_ids).length, 24);

  const io = capture();
  const code = await replayResults(out, {}, io);
  assert.equal(code, 0, [...io.stdout, ...io.stderr].join('\n'));
  const text = io.stdout.join('\n');
  for (const i of [1, 2, 3, 4]) assert.match(text, new RegExp(`Iteration ${i} \\([a-z-]+, [a-z +-]+\\): identical, \\d+ proposals`));
  assert.match(text, /All 4 iterations replayed identically\./);
  assert.match(text, /on the wasm tensor backend/);
});

test('kiln replay reports a tampered objective as a difference and exits 1', async () => {
  const tampered = mkdtempSync(join(tmpdir(), 'kiln-replay-tampered-'));
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsJson;
  const victim = results.evaluations.find((e) => e.iteration === 1)!;
  victim.objectives.f1 += 0.01;
  writeFileSync(join(tampered, 'results.json'), JSON.stringify(results));
  copyFileSync(join(out, 'checkpoint.json'), join(tampered, 'checkpoint.json'));

  const io = capture();
  const code = await replayResults(join(tampered, 'results.json'), {}, io);
  assert.equal(code, 1);
  const text = io.stdout.join('\n');
  assert.match(text, /Iteration 1 \(initial-design, none\): identical/, 'the design does not depend on the data');
  assert.match(text, /Iteration 2 \(global, [a-z +-]+\): DIFFERENT: the recorded evaluations before this iteration are not the data the surrogate saw/);
  assert.match(text, /\d of 4 proposals differ; first: eval_13 x\d recorded [\d.e-]+, replayed [\d.e-]+/);
  assert.match(text, /3 of 4 iterations differ from the record\./);

  // --iteration reports one iteration (the earlier ones are still replayed to reach it)
  const one = capture();
  assert.equal(await replayResults(join(tampered, 'results.json'), { iteration: 4 }, one), 1);
  assert.deepEqual(
    one.stdout.filter((l) => l.startsWith('Iteration')).map((l) => l.slice(0, 12)),
    ['Iteration 4 '],
  );
});

test('kiln replay says what it needs when the input cannot be replayed', async () => {
  const alone = mkdtempSync(join(tmpdir(), 'kiln-replay-alone-'));
  const file = join(alone, 'results.json');
  copyFileSync(join(out, 'results.json'), file);
  let io = capture();
  assert.equal(await replayResults(file, {}, io), 1);
  assert.match(io.stderr.join('\n'), /no campaign definition for .*results\.json: pass the campaign's MDL with --mdl/);

  // with --mdl, a results file on its own replays; the API's envelope is read too
  const results = JSON.parse(readFileSync(file, 'utf8')) as ResultsJson;
  writeFileSync(file, JSON.stringify({ data: results }));
  io = capture();
  assert.equal(await replayResults(file, { mdl: 'examples/zdt1.yaml', iteration: 2 }, io), 1, 'the file MDL has the budget of 100, not the 24 run');
  assert.match(io.stdout.join('\n'), /the campaign definition differs from the one that ran \(mdl_hash\)/);

  const old = join(alone, 'old');
  mkdirSync(old);
  const { iterations: _dropped, ...before } = results;
  writeFileSync(join(old, 'results.json'), JSON.stringify(before));
  copyFileSync(join(out, 'checkpoint.json'), join(old, 'checkpoint.json'));
  io = capture();
  assert.equal(await replayResults(old, {}, io), 1);
  assert.match(io.stderr.join('\n'), /not Kiln results with receipts: iterations: .*results from before receipts/);

  io = capture();
  assert.equal(await replayResults(out, { iteration: 9 }, io), 1);
  assert.match(io.stderr.join('\n'), /--iteration 9: the results record iterations 1 to 4/);
});
