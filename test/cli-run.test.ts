import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { runCampaignFile } from '../src/cli/run.js';
import { formatNumber, type CliIo } from '../src/cli/io.js';

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

  // the model report: its short reading at the end, and model.json beside the results
  const text = io.stdout.join('\n');
  assert.match(text, /Model check \(leave-one-out over the 16 most recent evaluations/);
  assert.match(text, /\n {2}f1 \(dimensionless\): R² -?\d\.\d{3}, ±1σ holds \d+ %, ±1\.96σ holds \d+ %, mean standardized error -?\d\.\d\d\n/);
  assert.match(text, /Parameter importance \(total Sobol index of the surrogate mean\):\n {2}f1: x1 /);
  const model = JSON.parse(readFileSync(join(out, 'model.json'), 'utf8'));
  assert.deepEqual(
    model.outputs.map((o: { name: string }) => o.name),
    ['f1', 'f2'],
  );
  assert.equal(model.outputs[0].predictions.length, 16);
  // ZDT1's f1 is x1 itself: the model predicts it well and finds x1 the parameter that matters
  assert.ok(model.outputs[0].r2 > 0.9, String(model.outputs[0].r2));
  const f1 = model.importance[0].parameters;
  assert.equal([...f1].sort((a: { total_sobol: number }, b: { total_sobol: number }) => b.total_sobol - a.total_sobol)[0].name, 'x1');
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
  assert.ok(
    io.stdout.some((line) => line.includes(`, ${feasible} feasible`)),
    io.stdout.join('\n'),
  );
  const header = readFileSync(join(out, 'results.csv'), 'utf8').split('\n')[0];
  assert.equal(header, 'id,iteration,is_pareto,x1,x2,x3,x4,f1,f2,slack,feasible');
});

test("kiln run on a noisy campaign prints the model's front, measured beside predicted ± sd, and both hypervolumes", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-run-'));
  const file = join(dir, 'noisy.json');
  const objective = (name: string, reference: number) => ({ name, direction: 'minimize', reference, noise: { sd: 0.05 } });
  const mdl = {
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [objective('f1', 1.1), objective('f2', 10)],
    optimizer: { budget: 10, batch_size: 2, initial_samples: 4, seed: 5 },
    evaluator: { type: 'builtin', name: 'zdt1', noise: 0.05, seed: 1 },
  };
  writeFileSync(file, JSON.stringify(mdl));
  const io = capture();
  const code = await runCampaignFile(file, { out: join(dir, 'out'), backend: 'wasm' }, io);
  assert.equal(code, 0, io.stderr.join('\n'));
  const results = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8'));
  assert.equal(results.noisy, true);
  const text = io.stdout.join('\n');
  assert.ok(text.includes(`Hypervolume ${formatNumber(results.hypervolume)} against reference`), text);
  assert.ok(text.includes(`the raw measurements' hypervolume is ${formatNumber(results.measured_hypervolume)}`), text);
  assert.match(text, /f1 measured\s+f1 predicted/);
  const first = results.pareto_front.sort((a: { objectives: { f1: number } }, b: { objectives: { f1: number } }) => a.objectives.f1 - b.objectives.f1)[0];
  assert.ok(text.includes(`${formatNumber(first.predicted.f1.mean)} ± ${formatNumber(first.predicted.f1.sd)}`), text);
  const header = readFileSync(join(dir, 'out', 'results.csv'), 'utf8').split('\n')[0];
  assert.equal(header, 'id,iteration,is_pareto,x1,x2,f1,f2,measurements,f1_predicted,f1_sd,f2_predicted,f2_sd');
});

test("kiln run short of the reference box prints each iteration's closest evaluation and how far it misses each reference", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-run-'));
  const file = join(dir, 'far.json');
  // ZDT1 with f1 < 0.05 has f2 > 0.77: nothing dominates (0.05, 0.05)
  const mdl = {
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 0.05 },
      { name: 'f2', direction: 'minimize', reference: 0.05 },
    ],
    optimizer: { budget: 8, batch_size: 2, initial_samples: 4, seed: 5 },
    evaluator: { type: 'builtin', name: 'zdt1' },
  };
  writeFileSync(file, JSON.stringify(mdl));
  const io = capture();
  const code = await runCampaignFile(file, { out: join(dir, 'out'), backend: 'wasm' }, io);
  assert.equal(code, 0, io.stderr.join('\n'));
  const results = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8'));
  assert.equal(results.hypervolume, 0);
  const lines = io.stdout.filter((line) => /^iteration \d+: /.test(line));
  assert.equal(lines.length, 3);
  for (const line of lines) {
    const m = /hypervolume 0 \(reference not reached: closest (eval_\w+) misses f1 by ([\d.e+-]+), f2 by ([\d.e+-]+)\)/.exec(line);
    assert.ok(m, line);
    const closest = results.evaluations.find((e: { id: string }) => e.id === m[1]);
    assert.ok(closest, `${m[1]} is one of the run's evaluations`);
    // the printed gaps are the named evaluation's, to the 3 digits printed
    assert.equal(Number(m[2]), Number(Math.max(0, closest.objectives.f1 - 0.05).toPrecision(3)));
    assert.equal(Number(m[3]), Number(Math.max(0, closest.objectives.f2 - 0.05).toPrecision(3)));
  }
});

test('kiln run reports every MDL error with its location and exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-bad-'));
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, ['parameters:', '  - {name: x, type: continuous, bounds: [2, 1]}', 'objectives: []', 'optimizer: {budget: 0}', ''].join('\n'));
  const io = capture();
  const code = await runCampaignFile(file, { out: dir }, io);
  assert.equal(code, 1);
  const text = io.stderr.join('\n');
  assert.match(text, /parameters\[0\]\.bounds/);
  assert.match(text, /objectives/);
  assert.match(text, /optimizer\.budget/);
  assert.match(text, /bad\.yaml:2:\d+: parameters\[0\]\.bounds: /, 'file:line:column: path: message');
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

test('kiln run loses nothing: a batch that fails as a whole fails its candidates and the run carries on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-flaky-'));
  // a program that crashes on its second call (a state file counts the calls), then works
  writeFileSync(
    join(dir, 'flaky.mjs'),
    [
      "import { existsSync, readFileSync, writeFileSync } from 'node:fs';",
      "const calls = existsSync('calls') ? Number(readFileSync('calls', 'utf8')) + 1 : 1;",
      "writeFileSync('calls', String(calls));",
      "if (calls === 2) { console.error('segmentation fault (simulated)'); process.exit(139); }",
      "let input = ''; process.stdin.on('data', (c) => (input += c)).on('end', () => {",
      '  const { candidates } = JSON.parse(input);',
      '  console.log(JSON.stringify({ results: candidates.map(({ parameters: p }) => ({ objectives: { f1: p.x, f2: (1 - p.x) ** 2 + p.y } })) }));',
      '});',
    ].join('\n'),
  );
  const file = join(dir, 'flaky.yaml');
  writeFileSync(
    file,
    [
      'parameters: [{name: x, type: continuous, bounds: [0, 1]}, {name: y, type: continuous, bounds: [0, 1]}]',
      'objectives: [{name: f1, direction: minimize, reference: 1.1}, {name: f2, direction: minimize, reference: 2.1}]',
      'optimizer: {budget: 12, batch_size: 2, initial_samples: 4, seed: 3}',
      `evaluator: {type: command, command: '${process.execPath} flaky.mjs', timeout_seconds: 30}`,
      '',
    ].join('\n'),
  );
  const out = join(dir, 'out');
  const io = capture();
  assert.equal(await runCampaignFile(file, { out, backend: 'wasm' }, io), 0, io.stderr.join('\n'));
  assert.match(io.stderr.join('\n'), /the whole batch of iteration 2 failed, its candidates count as failed: .*139/);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  assert.equal(results.campaign.status, 'completed');
  assert.equal(results.failed_evaluations.length, 2);
  assert.ok(results.failed_evaluations.every((e: { iteration: number; error: string }) => e.iteration === 2 && /whole batch failed/.test(e.error)));
  assert.equal(results.evaluations.length, 10);
});

test('kiln run with an evaluator that always fails ends failed with exit code 1 and says no evaluation succeeded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-broken-'));
  writeFileSync(join(dir, 'broken.mjs'), "console.error('licence server unreachable'); process.exit(2);\n");
  const file = join(dir, 'broken.yaml');
  writeFileSync(
    file,
    [
      'parameters: [{name: x, type: continuous, bounds: [0, 1]}, {name: y, type: continuous, bounds: [0, 1]}]',
      'objectives: [{name: f1, direction: minimize, reference: 1.1}, {name: f2, direction: minimize, reference: 2.1}]',
      // a budget too small for max_failed_iterations (3) to stop it
      'optimizer: {budget: 6, batch_size: 2, initial_samples: 4, seed: 3}',
      `evaluator: {type: command, command: '${process.execPath} broken.mjs', timeout_seconds: 30}`,
      '',
    ].join('\n'),
  );
  const out = join(dir, 'out');
  const io = capture();
  assert.equal(await runCampaignFile(file, { out, backend: 'wasm' }, io), 1, io.stdout.join('\n'));
  const said = io.stdout.join('\n');
  assert.match(said, /Finished: failed \(error\)/);
  assert.match(said, /no evaluation succeeded \(6 failed\); the last error: [\s\S]*licence server unreachable/);
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  assert.equal(results.campaign.status, 'failed');
  assert.equal(results.failed_evaluations.length, 6);
});

test('kiln run --resume continues an interrupted run from its checkpoint and ends where an uninterrupted run ends', async () => {
  const whole = mkdtempSync(join(tmpdir(), 'kiln-whole-'));
  assert.equal(await runCampaignFile('examples/zdt1.yaml', { out: whole, budget: 16, seed: 9, backend: 'wasm' }, capture()), 0);
  const reference = JSON.parse(readFileSync(join(whole, 'results.json'), 'utf8'));

  const out = mkdtempSync(join(tmpdir(), 'kiln-interrupted-'));
  const controller = new AbortController();
  const io = capture();
  const interrupting = {
    ...io,
    out: (line: string) => {
      io.out(line);
      if (/^iteration 2: /.test(line)) controller.abort();
    },
  };
  assert.equal(await runCampaignFile('examples/zdt1.yaml', { out, budget: 16, seed: 9, backend: 'wasm', signal: controller.signal }, interrupting), 130);
  assert.ok(io.stdout.some((line) => line.includes(`Continue with: kiln run --resume ${out}`)));
  const partial = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  assert.equal(partial.campaign.status, 'running');
  assert.equal(partial.campaign.iterations, 2, 'results are written after every iteration');

  const resumed = capture();
  assert.equal(await runCampaignFile(undefined, { out: 'ignored', resume: out, backend: 'wasm' }, resumed), 0, resumed.stderr.join('\n'));
  assert.ok(resumed.stdout.some((line) => /^Resuming after iteration 2 /.test(line)));
  const final = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  const shape = (r: { evaluations: { id: string; parameters: unknown; objectives: unknown }[] }) =>
    r.evaluations.map((e) => [e.id, e.parameters, e.objectives]);
  assert.deepEqual(shape(final), shape(reference), 'the same evaluations as the uninterrupted run');
  assert.equal(final.hypervolume, reference.hypervolume);

  const nothing = capture();
  assert.equal(await runCampaignFile(undefined, { out: 'x', resume: mkdtempSync(join(tmpdir(), 'kiln-empty-')) }, nothing), 1);
  assert.match(nothing.stderr.join('\n'), /cannot resume: .* holds no checkpoint\.json: resume from the --out folder of an earlier kiln run/);
});
