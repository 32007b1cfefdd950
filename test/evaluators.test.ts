import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { after } from 'node:test';
import { mdlSchema, type Mdl, type MdlInput } from '../src/engine/mdl/schema.js';
import { createBuiltinFunction } from '../src/engine/problems/builtin-function.js';
import { builtinEvaluatorIssues, builtinNames } from '../src/engine/problems/registry.js';
import { toUnitCube } from '../src/engine/problems/unit-cube.js';
import { BuiltinEvaluator } from '../src/evaluators/builtin.js';
import { CommandEvaluator, splitCommand } from '../src/evaluators/command.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { lineColumn, parseCommandOutput } from '../src/evaluators/command-protocol.js';
import { EvaluatorError } from '../src/evaluators/types.js';

const unit = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous' as const, bounds: [0, 1] as [number, number] }));
const minimize = (...names: string[]) => names.map((name) => ({ name, direction: 'minimize' as const }));

function mdl(input: Partial<MdlInput>): Mdl {
  return mdlSchema.parse({ parameters: unit(2), objectives: minimize('f1', 'f2'), optimizer: { budget: 10 }, ...input });
}

const membraneParameters: MdlInput['parameters'] = [
  { name: 'amine_monomer', type: 'categorical', values: ['MPD', 'PIP'] },
  { name: 'monomer_concentration', type: 'continuous', bounds: [0.5, 4] },
  { name: 'cure_temperature_c', type: 'continuous', bounds: [40, 120] },
  { name: 'active_layer_thickness_nm', type: 'continuous', bounds: [30, 300], scale: 'log' },
  { name: 'filler_loading', type: 'continuous', bounds: [0, 0.4] },
];
const membraneObjectives: MdlInput['objectives'] = [
  { name: 'water_permeance', direction: 'maximize' },
  { name: 'salt_rejection', direction: 'maximize' },
];

test('parameters map onto the unit cube by bounds, in log space for log scale, by index for categoricals', () => {
  const parameters = mdlSchema.parse({
    parameters: [
      { name: 'a', type: 'continuous', bounds: [2, 4] },
      { name: 'b', type: 'continuous', bounds: [1, 100], scale: 'log' },
      { name: 'c', type: 'integer', bounds: [0, 10] },
      { name: 'd', type: 'categorical', values: ['x', 'y', 'z'] },
      { name: 'e', type: 'categorical', values: [5] },
      { name: 'f', type: 'integer', bounds: [1, 16], scale: 'log' },
    ],
    objectives: minimize('f1'),
    optimizer: { budget: 1 },
  }).parameters;
  const x = toUnitCube(parameters, { a: 3, b: 10, c: 3, d: 'z', e: 5, f: 4 });
  const expected = [0.5, 0.5, 0.3, 1, 0, 0.5];
  expected.forEach((v, i) => assert.ok(Math.abs(x[i] - v) < 1e-15, `coordinate ${i}: ${x[i]} vs ${v}`));
  assert.equal(toUnitCube(parameters, { a: 2, b: 1, c: 0, d: 'y', e: 5, f: 1 })[3], 0.5);
  const base = { a: 3, b: 10, c: 3, d: 'z', e: 5, f: 4 };
  assert.throws(() => toUnitCube(parameters, { ...base, a: 4.5 }), /'a' is 4.5, outside its bounds \[2, 4\]/);
  assert.throws(() => toUnitCube(parameters, { ...base, d: 'w' }), /'d' is "w", which is not one of/);
  assert.throws(() => toUnitCube(parameters, { ...base, e: '5' }), /not one of/);
  assert.throws(() => toUnitCube(parameters, { ...base, a: 'three' }), /must be a finite number/);
  const { c: _, ...missing } = base;
  assert.throws(() => toUnitCube(parameters, missing), /'c' has no value/);
});

test('a test problem reads MDL parameters in order on the unit cube and fills objectives in order', () => {
  // ZDT1 on bounds [-1, 1] and [10, 1000] (log): f1 = u1, f2 = g (1 - sqrt(u1 / g)), g = 1 + 9 u2
  const fn = createBuiltinFunction(
    mdl({
      parameters: [
        { name: 'p', type: 'continuous', bounds: [-1, 1] },
        { name: 'q', type: 'continuous', bounds: [10, 1000], scale: 'log' },
      ],
      objectives: minimize('first', 'second'),
      evaluator: { type: 'builtin', name: 'zdt1' },
    }),
  );
  const { objectives: out, outcomes } = fn({ p: 0, q: 100 });
  assert.deepEqual(Object.keys(out), ['first', 'second']);
  assert.deepEqual(outcomes, {});
  assert.ok(Math.abs(out.first - 0.5) < 1e-15);
  assert.ok(Math.abs(out.second - 5.5 * (1 - Math.sqrt(0.5 / 5.5))) < 1e-12);
});

test('builtinEvaluatorIssues reports each mismatch with a path', () => {
  const issues = (input: Partial<MdlInput>) => builtinEvaluatorIssues(mdl(input));
  assert.deepEqual(issues({}), []);
  assert.deepEqual(issues({ evaluator: { type: 'command', command: 'x' } }), []);
  assert.deepEqual(issues({ evaluator: { type: 'builtin', name: 'zdt1' } }), []);
  assert.deepEqual(issues({ parameters: unit(3), objectives: minimize('a', 'b', 'c'), evaluator: { type: 'builtin', name: 'DTLZ2' } }), []);

  const unknown = issues({ evaluator: { type: 'builtin', name: 'zdt9' } });
  assert.equal(unknown.length, 1);
  assert.equal(unknown[0].path, 'evaluator.name');
  assert.equal(unknown[0].message, `unknown builtin evaluator 'zdt9'; known: ${builtinNames().join(', ')}`);
  assert.match(unknown[0].message, /known: zdt1, zdt2, zdt3, dtlz1, dtlz2, .*, re21, .*, polymer-membrane$/);

  const count = issues({ objectives: minimize('a', 'b', 'c'), evaluator: { type: 'builtin', name: 'zdt1' } });
  assert.deepEqual(
    count.map((i) => i.path),
    ['objectives'],
  );
  assert.match(count[0].message, /zdt1 needs 2 objectives; the MDL declares 3/);
  assert.match(issues({ objectives: minimize('a'), evaluator: { type: 'builtin', name: 'dtlz1' } })[0].message, /at least 2 objectives/);

  const tooFew = issues({ parameters: unit(2), objectives: minimize('a', 'b', 'c'), evaluator: { type: 'builtin', name: 'dtlz2' } });
  assert.deepEqual(
    tooFew.map((i) => i.path),
    ['parameters'],
  );
  assert.match(tooFew[0].message, /needs at least 3 parameters .* declares 2/);
  assert.match(issues({ parameters: unit(3), evaluator: { type: 'builtin', name: 'branin-currin' } })[0].message, /exactly 2 parameters/);
  assert.match(issues({ parameters: unit(1), evaluator: { type: 'builtin', name: 'zdt2' } })[0].message, /at least 2 parameters/);

  // directions are the campaign's choice: a builtin problem only requires the objective counts to match
  const direction = issues({
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'maximize' },
    ],
    evaluator: { type: 'builtin', name: 'zdt1' },
  });
  assert.deepEqual(direction, []);

  const membrane = { parameters: membraneParameters, objectives: membraneObjectives, evaluator: { type: 'builtin' as const, name: 'water-membrane' } };
  assert.deepEqual(issues(membrane), []);
  // extra parameters are ignored, a subset of the outputs is fine
  assert.deepEqual(
    issues({ ...membrane, parameters: [...membraneParameters, { name: 'extra', type: 'continuous', bounds: [0, 1] }], objectives: [membraneObjectives[1]] }),
    [],
  );
  const missing = issues({ ...membrane, parameters: membraneParameters.filter((p) => p.name !== 'cure_temperature_c') });
  assert.deepEqual(
    missing.map((i) => i.path),
    ['parameters'],
  );
  assert.match(missing[0].message, /needs a parameter named 'cure_temperature_c' \(continuous in \[40, 120\] °C\)/);
  const output = issues({ ...membrane, objectives: [...membraneObjectives, { name: 'flux', direction: 'maximize' }] });
  assert.deepEqual(
    output.map((i) => i.path),
    ['objectives[2]'],
  );
  assert.match(output[0].message, /no output 'flux'; its outputs are water_permeance, salt_rejection/);
  assert.deepEqual(issues({ ...membrane, objectives: [{ name: 'water_permeance', direction: 'minimize' }] }), []);
  const wider = membraneParameters.map((p) => (p.name === 'cure_temperature_c' ? { ...p, bounds: [20, 120] as [number, number] } : p));
  assert.match(issues({ ...membrane, parameters: wider })[0].message, /bounds \[20, 120\] exceed the model's range \[40, 120\]/);
  const monomers = membraneParameters.map((p) => (p.name === 'amine_monomer' && p.type === 'categorical' ? { ...p, values: ['MPD', 'PEI'] } : p));
  assert.deepEqual(
    issues({ ...membrane, parameters: monomers }).map((i) => i.path),
    ['parameters[0]'],
  );
  const numeric = membraneParameters.map((p) => (p.name === 'filler_loading' ? { name: 'filler_loading', type: 'categorical' as const, values: [0, 0.1] } : p));
  assert.match(issues({ ...membrane, parameters: numeric })[0].message, /must be continuous in \[0, 0.4\] w\/v%, not categorical/);
});

test('seeded noise is reproducible, independent of evaluation order, seed-dependent, and of the requested size', async () => {
  const noisy = (seed: number) => new BuiltinEvaluator(mdl({ parameters: unit(3), evaluator: { type: 'builtin', name: 'dtlz2', noise: 0.05, seed } }));
  const clean = new BuiltinEvaluator(mdl({ parameters: unit(3), evaluator: { type: 'builtin', name: 'dtlz2' } }));
  const batch = Array.from({ length: 400 }, (_, i) => ({ parameters: { x1: (i % 20) / 19, x2: Math.floor(i / 20) / 19, x3: 0.3 } }));
  const first = await noisy(1).evaluate(batch);
  const reversed = (await noisy(1).evaluate([...batch].reverse())).reverse();
  assert.deepEqual(reversed, first);
  const one = await noisy(1).evaluate([batch[123]]);
  assert.deepEqual(one[0], first[123]);
  const other = await noisy(2).evaluate(batch);
  assert.notDeepEqual(other, first);
  const exact = await clean.evaluate(batch);
  const ratios: number[] = [];
  first.forEach((o, i) => {
    assert.ok(o.ok && exact[i].ok);
    if (!o.ok || !exact[i].ok) return;
    for (const name of ['f1', 'f2']) {
      const base = (exact[i] as { objectives: Record<string, number> }).objectives[name];
      if (Math.abs(base) > 1e-6) ratios.push(o.objectives[name] / base - 1);
    }
  });
  const mean = ratios.reduce((s, r) => s + r, 0) / ratios.length;
  const sd = Math.sqrt(ratios.reduce((s, r) => s + (r - mean) ** 2, 0) / (ratios.length - 1));
  assert.ok(Math.abs(mean) < 0.01 && Math.abs(sd - 0.05) < 0.006, `noise mean ${mean}, sd ${sd}`);
});

test('the builtin evaluator keeps failing candidates as outcomes, in order', async () => {
  const evaluator = new BuiltinEvaluator(mdl({ evaluator: { type: 'builtin', name: 'zdt1' } }));
  assert.equal(evaluator.kind, 'builtin');
  const outcomes = await evaluator.evaluate([{ parameters: { x1: 0, x2: 0 } }, { parameters: { x1: 2, x2: 0 } }, { parameters: { x1: 1, x2: 0 } }]);
  assert.deepEqual(outcomes[0], { ok: true, objectives: { f1: 0, f2: 1 } });
  assert.deepEqual(outcomes[1], { ok: false, error: "parameter 'x1' is 2, outside its bounds [0, 1]." });
  assert.deepEqual(outcomes[2], { ok: true, objectives: { f1: 1, f2: 0 } });
  const simulator = new BuiltinEvaluator(
    mdl({ parameters: membraneParameters, objectives: membraneObjectives, evaluator: { type: 'builtin', name: 'water-membrane' } }),
  );
  const [bad] = await simulator.evaluate([{ parameters: { amine_monomer: 'MPD' } }]);
  assert.ok(!bad.ok && /needs parameter 'monomer_concentration'/.test(bad.error));
  const aborted = AbortSignal.abort();
  await assert.rejects(evaluator.evaluate([{ parameters: { x1: 0, x2: 0 } }], { signal: aborted }), { name: 'EvaluatorError', code: 'cancelled' });
});

test('createEvaluator builds builtin and command evaluators and refuses the rest with actionable errors', () => {
  assert.equal(createEvaluator(mdl({ evaluator: { type: 'builtin', name: 'zdt1' } }), { allowCommand: false }).kind, 'builtin');
  assert.throws(() => createEvaluator(mdl({ evaluator: { type: 'builtin', name: 'zdt9' } }), { allowCommand: false }), {
    name: 'EvaluatorError',
    code: 'invalid',
    message: /evaluator.name: unknown builtin evaluator 'zdt9'/,
  });
  const command = mdl({ evaluator: { type: 'command', command: 'python3 sim.py --fast' } });
  assert.throws(() => createEvaluator(command, { allowCommand: false }), {
    code: 'refused',
    message: /would run `python3 sim.py --fast` .* An administrator must enable them/,
  });
  assert.equal(createEvaluator(command, { allowCommand: true }).kind, 'command');
  assert.throws(() => createEvaluator(mdl({ evaluator: { type: 'http', url: 'https://lab.example/eval' } }), { allowCommand: true }), {
    code: 'unsupported',
    message: /http evaluators run inside the Kiln service/,
  });
  assert.throws(() => createEvaluator(mdl({}), { allowCommand: true }), { code: 'unsupported', message: /external evaluator/ });
  assert.deepEqual(splitCommand('  python3   sim.py\t--fast '), ['python3', 'sim.py', '--fast']);
  assert.deepEqual(splitCommand(['my program', 'a b']), ['my program', 'a b']);
});

test('protocol errors point at the line and column of broken JSON', () => {
  assert.deepEqual(lineColumn('ab\ncd\nef', 7), { line: 3, column: 2 });
  const cases: [string, RegExp][] = [
    ['hello', /line 1, column 1:/],
    ['{"results": [\n  {"objectives": {"f1": 1,}}\n]}', /line 2, column 27:/],
    ['{"results": []} trailing', /line 1, column 17:/],
    ['[{"f1": tru}]', /line 1, column 9:/],
  ];
  for (const [text, where] of cases) {
    assert.throws(() => parseCommandOutput(text, 1, { objectives: ['f1'], outcomes: [] }), { code: 'protocol', message: where }, text);
  }
});

const dir = mkdtempSync(join(tmpdir(), 'kiln-command-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a Node program that reads the request from stdin, then runs `body` with it as `request`. */
function script(name: string, body: string): string {
  writeFileSync(
    join(dir, name),
    `let input = '';\nprocess.stdin.on('data', (c) => (input += c));\nprocess.stdin.on('end', async () => {\n  const request = JSON.parse(input);\n${body}\n});\n`,
  );
  return name;
}

function commandEvaluator(file: string, settings: { timeoutSeconds?: number; maxOutputBytes?: number; killGraceMs?: number } = {}) {
  return new CommandEvaluator({
    argv: [process.execPath, file],
    names: { objectives: ['f1', 'f2'], outcomes: [] },
    timeoutSeconds: settings.timeoutSeconds ?? 20,
    cwd: dir,
    ...settings,
  });
}

const batch = [{ parameters: { x: 1, solvent: 'water' } }, { parameters: { x: -1, solvent: 'ethanol' } }, { parameters: { x: 3, solvent: 'water' } }];

test('the protocol forgives what real programs print: error null, NaN and Infinity tokens, an objective named error', () => {
  const names = { objectives: ['f1', 'f2'], outcomes: [] };
  // Python prints None as null beside the values: success
  assert.deepEqual(
    parseCommandOutput('{"results": [{"objectives": {"f1": 1, "f2": 2}, "error": null}, {"objectives": {"f1": 3, "f2": 4}, "error": false}]}', 2, names),
    [
      { ok: true, objectives: { f1: 1, f2: 2 } },
      { ok: true, objectives: { f1: 3, f2: 4 } },
    ],
  );
  // json.dump's NaN and Infinity fail their candidate only, naming the objective; a "NaN" inside a string stays text
  const [nan, infinite, fine, failed] = parseCommandOutput(
    '[{"f1": NaN, "f2": 1}, {"f1": 2, "f2": -Infinity}, {"f1": 0.5, "f2": 0.25}, {"error": "got NaN from \\"Infinity\\" solver"}]',
    4,
    names,
  );
  assert.deepEqual(nan, { ok: false, error: 'objective \'f1\' of result 0 is "NaN", not a finite number.' });
  assert.deepEqual(infinite, { ok: false, error: 'objective \'f2\' of result 1 is "-Infinity", not a finite number.' });
  assert.deepEqual(fine, { ok: true, objectives: { f1: 0.5, f2: 0.25 } });
  assert.deepEqual(failed, { ok: false, error: 'the command reported: got NaN from "Infinity" solver' });
  // an objective named error: a value in the bare form, the protocol word only beside "objectives"
  const errorNamed = { objectives: ['error', 'f2'], outcomes: [] };
  assert.deepEqual(parseCommandOutput('[{"error": 3.5, "f2": 1}]', 1, errorNamed), [{ ok: true, objectives: { error: 3.5, f2: 1 } }]);
  assert.deepEqual(parseCommandOutput('{"results": [{"objectives": {"error": 3.5, "f2": 1}, "error": "diverged"}]}', 1, errorNamed), [
    { ok: false, error: 'the command reported: diverged' },
  ]);
});

test('command evaluator: a program that follows the protocol, in object and bare-array form', async () => {
  const ok = script(
    'ok.mjs',
    `  const results = request.candidates.map(({ parameters: p }) =>
    p.x < 0 ? { error: 'x must be non-negative' } : { objectives: { f1: p.x + 1, f2: p.x * 2, echo: request.objectives.join('+') + ':' + p.solvent } });
  console.error('evaluated', results.length);
  process.stdout.write(JSON.stringify({ results }));`,
  );
  const outcomes = await commandEvaluator(ok).evaluate(batch);
  assert.deepEqual(outcomes, [
    { ok: true, objectives: { f1: 2, f2: 2 } },
    { ok: false, error: 'the command reported: x must be non-negative' },
    { ok: true, objectives: { f1: 4, f2: 6 } },
  ]);
  const echo = script(
    'echo.mjs',
    `  process.stdout.write(JSON.stringify(request.candidates.map((c, i) => ({ f1: i, f2: c.parameters.x, names: request.objectives }))));`,
  );
  assert.deepEqual(await commandEvaluator(echo).evaluate(batch), [
    { ok: true, objectives: { f1: 0, f2: 1 } },
    { ok: true, objectives: { f1: 1, f2: -1 } },
    { ok: true, objectives: { f1: 2, f2: 3 } },
  ]);
  const missing = script(
    'missing.mjs',
    `  process.stdout.write(JSON.stringify({ results: [{ objectives: { f1: 1 } }, { objectives: { f1: 1, f2: 'high' } }, null] }));`,
  );
  const partial = await commandEvaluator(missing).evaluate(batch);
  assert.deepEqual(partial, [
    { ok: false, error: "result 0 lacks objective 'f2' (expected f1, f2)." },
    { ok: false, error: `objective 'f2' of result 1 is "high", not a finite number.` },
    { ok: false, error: 'result 2 is null, not an object of objective values.' },
  ]);
  assert.deepEqual(await commandEvaluator(ok).evaluate([]), []);
});

test('command evaluator: whole-batch failures reject with actionable messages', async () => {
  const crash = script('crash.mjs', `  console.error('loading model...');\n  console.error('FATAL: licence file not found');\n  process.exit(3);`);
  await assert.rejects(commandEvaluator(crash).evaluate(batch), {
    name: 'EvaluatorError',
    code: 'failed',
    message: /exited with status 3; the end of its stderr:\nloading model...\nFATAL: licence file not found$/,
  });
  const garbage = script('garbage.mjs', `  process.stdout.write('Loading...\\n{"results": [}');`);
  await assert.rejects(commandEvaluator(garbage).evaluate(batch), {
    code: 'protocol',
    message: /not valid JSON \(line 1, column 1: .*\); the output begins "Loading...\\n\{\\"results\\": \[\}". Print only the JSON/,
  });
  const late = script('late.mjs', `  process.stdout.write('{"results":\\n  [1, }');`);
  await assert.rejects(commandEvaluator(late).evaluate(batch), { code: 'protocol', message: /line 2, column 7/ });
  const short = script('short.mjs', `  process.stdout.write(JSON.stringify({ results: [{ objectives: { f1: 1, f2: 2 } }] }));`);
  await assert.rejects(commandEvaluator(short).evaluate(batch), { code: 'protocol', message: /returned 1 result for 3 candidates/ });
  const shape = script('shape.mjs', `  process.stdout.write(JSON.stringify({ values: [] }));`);
  await assert.rejects(commandEvaluator(shape).evaluate(batch), { code: 'protocol', message: /must be \{"results": \[\.\.\.\]\} or a JSON array/ });
  const silent = script('silent.mjs', '');
  await assert.rejects(commandEvaluator(silent).evaluate(batch), { code: 'protocol', message: /printed nothing on stdout/ });
  const loud = script('loud.mjs', `  process.stdout.write('x'.repeat(5000));`);
  await assert.rejects(commandEvaluator(loud, { maxOutputBytes: 1000 }).evaluate(batch), { code: 'protocol', message: /more than 1000 bytes on stdout/ });
  await assert.rejects(
    new CommandEvaluator({ argv: [join(dir, 'no-such-program')], names: { objectives: ['f1'], outcomes: [] }, timeoutSeconds: 5 }).evaluate(batch),
    {
      code: 'failed',
      message: /could not run .*no-such-program.*ENOENT/,
    },
  );
});

/** Whether a process is still running; a zombie waiting for a parent to reap it has stopped running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (name) state ..."; Z is a zombie
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return true;
  }
}

test('command evaluator: a timeout stops the program and everything it started', async () => {
  const hang = script(
    'hang.mjs',
    `  const { spawn } = await import('node:child_process');
  const { writeFileSync } = await import('node:fs');
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  writeFileSync('grandchild.pid', String(child.pid));
  process.on('SIGTERM', () => {});
  setInterval(() => {}, 1000);`,
  );
  const started = Date.now();
  await assert.rejects(commandEvaluator(hang, { timeoutSeconds: 1, killGraceMs: 200 }).evaluate(batch), {
    code: 'timeout',
    message: /timed out after 1 s/,
  });
  assert.ok(Date.now() - started < 5000);
  const grandchild = Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));
  for (let i = 0; i < 50 && alive(grandchild); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(!alive(grandchild), 'the program the evaluator started is still running');

  const sleeper = script('sleeper.mjs', '  setInterval(() => {}, 1000);');
  const quick = Date.now();
  await assert.rejects(commandEvaluator(sleeper, { timeoutSeconds: 0.5 }).evaluate(batch), { code: 'timeout', message: /timed out after 0.5 s/ });
  assert.ok(Date.now() - quick < 4000);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  await assert.rejects(commandEvaluator(sleeper).evaluate(batch, { signal: controller.signal }), { code: 'cancelled' });
});

test('EvaluatorError carries its code and cause', () => {
  const cause = new Error('inner');
  const error = new EvaluatorError('failed', 'outer', { cause });
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'EvaluatorError');
  assert.equal(error.code, 'failed');
  assert.equal(error.cause, cause);
});
