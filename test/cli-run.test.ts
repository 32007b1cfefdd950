import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { runCampaignFile } from '../src/cli/run.js';
import type { CliIo } from '../src/cli/io.js';

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, isTTY: false, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

test('kiln run executes an example campaign end to end and writes results.json and results.csv', async () => {
  const out = mkdtempSync(join(tmpdir(), 'kiln-run-'));
  const io = capture();
  const code = await runCampaignFile('examples/zdt1.yaml', { out, budget: 16, seed: 3, backend: 'wasm' }, io);
  assert.equal(code, 0, io.stderr.join('\n'));
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  for (const key of ['pareto_front', 'evaluations', 'hypervolume', 'convergence_history', 'reference_point']) {
    assert.ok(key in results, `results.json has ${key}`);
  }
  assert.equal(results.evaluations.length, 16);
  assert.equal(results.hypervolume, results.convergence_history.at(-1));
  assert.ok(results.pareto_front.length >= 1);
  assert.ok(results.pareto_front.every((r: { is_pareto: boolean }) => r.is_pareto));
  assert.equal(results.campaign.tensor_backend, 'wasm');

  const csv = Papa.parse<Record<string, string>>(readFileSync(join(out, 'results.csv'), 'utf8'), {
    header: true,
    skipEmptyLines: true,
  });
  assert.equal(csv.data.length, 16);
  assert.deepEqual(csv.meta.fields?.slice(0, 3), ['id', 'iteration', 'is_pareto']);
  const row = csv.data[0];
  const original = results.evaluations.find((e: { id: string }) => e.id === row.id);
  for (const [name, value] of Object.entries(original.objectives)) {
    assert.equal(Number(row[name]), value);
  }
  assert.ok(io.stdout.some((line) => line.includes('Pareto front')));
  assert.ok(io.stdout.some((line) => /^iteration 2: /.test(line)));
});

test('kiln run on an outcome-constrained campaign reports feasibility in the results and the summary', async () => {
  const out = mkdtempSync(join(tmpdir(), 'kiln-run-'));
  const io = capture();
  const code = await runCampaignFile('examples/c2-dtlz2.yaml', { out, budget: 20, seed: 2, backend: 'wasm' }, io);
  assert.equal(code, 0, io.stderr.join('\n'));
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  assert.equal(results.evaluations.length, 20);
  for (const e of results.evaluations) assert.equal(e.feasible, e.outcomes.slack >= 0, e.id);
  assert.ok(results.pareto_front.every((r: { feasible: boolean }) => r.feasible));
  const feasible = results.evaluations.filter((e: { feasible: boolean }) => e.feasible).length;
  assert.ok(io.stdout.some((line) => line.includes(`, ${feasible} feasible`)), io.stdout.join('\n'));
  const header = readFileSync(join(out, 'results.csv'), 'utf8').split('\n')[0];
  assert.equal(header, 'id,iteration,is_pareto,x1,x2,x3,x4,f1,f2,slack,feasible');
});

test('kiln run reports every MDL error with its location and exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-bad-'));
  const file = join(dir, 'bad.yaml');
  writeFileSync(
    file,
    ['parameters:', '  - {name: x, type: continuous, bounds: [2, 1]}', 'objectives: []', 'optimizer: {budget: 0}', ''].join('\n'),
  );
  const io = capture();
  const code = await runCampaignFile(file, { out: dir }, io);
  assert.equal(code, 1);
  const text = io.stderr.join('\n');
  assert.match(text, /parameters\[0\]\.bounds/);
  assert.match(text, /objectives/);
  assert.match(text, /optimizer\.budget/);
  assert.match(text, /line \d+/);
});

test('kiln run refuses a campaign without a local evaluator', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-ext-'));
  const file = join(dir, 'external.json');
  writeFileSync(
    file,
    JSON.stringify({
      parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
      objectives: [{ name: 'f', direction: 'minimize' }],
      optimizer: { budget: 5 },
    }),
  );
  const io = capture();
  assert.equal(await runCampaignFile(file, { out: dir }, io), 1);
  assert.match(io.stderr.join('\n'), /external|service/i);
});
