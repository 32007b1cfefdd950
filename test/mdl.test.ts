import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatIssue, mdlJsonSchemaText, parseMdl, validateMdl, type MdlIssue } from '../src/engine/mdl/index.js';
import { validateCommand } from '../src/cli/validate.js';

const campaignYaml = `# A cathode campaign
name: cathode screening
domain: battery
parameters:
  - name: li_frac
    type: continuous
    bounds: [0, 1]
  - name: ni_frac
    type: continuous
    bounds: [0.3, 0.9]
  - name: co_frac
    type: continuous
    bounds: [0, 1]
  - name: anneal_hours
    type: integer
    bounds: [1, 48]
    scale: log
  - name: dopant
    type: categorical
    values: [Al, Mg, Ti]
objectives:
  - name: capacity
    direction: maximize
    unit: mAh/g
  - name: cost
    direction: minimize
constraints:
  - expression: li_frac + ni_frac + co_frac == 1
    tolerance: 1e-4
optimizer:
  budget: 60
  batch_size: 4
  seed: 7
evaluator:
  type: external
`;

const campaignJson = JSON.stringify({
  name: 'cathode screening',
  domain: 'battery',
  parameters: [
    { name: 'li_frac', type: 'continuous', bounds: [0, 1] },
    { name: 'ni_frac', type: 'continuous', bounds: [0.3, 0.9] },
    { name: 'co_frac', type: 'continuous', bounds: [0, 1] },
    { name: 'anneal_hours', type: 'integer', bounds: [1, 48], scale: 'log' },
    { name: 'dopant', type: 'categorical', values: ['Al', 'Mg', 'Ti'] },
  ],
  objectives: [
    { name: 'capacity', direction: 'maximize', unit: 'mAh/g' },
    { name: 'cost', direction: 'minimize' },
  ],
  constraints: [{ expression: 'li_frac + ni_frac + co_frac == 1', tolerance: 0.0001 }],
  optimizer: { budget: 60, batch_size: 4, seed: 7 },
  evaluator: { type: 'external' },
});

const minimal = {
  parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
  objectives: [{ name: 'f', direction: 'minimize' }],
  optimizer: { budget: 20 },
};

function errorsOf(result: ReturnType<typeof validateMdl>): MdlIssue[] {
  assert.equal(result.ok, false, 'expected the document to be invalid');
  return result.ok ? [] : result.errors;
}

/** A copy of the minimal campaign with `change` applied. */
function variant(change: (doc: Record<string, any>) => void): Record<string, any> {
  const doc = structuredClone(minimal) as Record<string, any>;
  change(doc);
  return doc;
}

test('a YAML campaign and its JSON twin parse to the same MDL, with defaults filled in', () => {
  const fromYaml = parseMdl(campaignYaml);
  const fromJson = parseMdl(campaignJson);
  assert.ok(fromYaml.ok && fromJson.ok);
  assert.deepEqual(fromYaml.mdl, fromJson.mdl);
  assert.equal(fromYaml.mdl.parameters[0].type, 'continuous');
  assert.deepEqual(fromYaml.mdl.optimizer, {
    method: 'cma-es',
    strategy: 'auto',
    budget: 60,
    batch_size: 4,
    seed: 7,
    max_failed_iterations: 3,
    acquisition: 'auto',
  });
  const x = fromYaml.mdl.parameters[0];
  assert.ok(x.type === 'continuous' && x.scale === 'linear');
  assert.deepEqual(fromYaml.warnings, []);
});

test('the format is guessed from the first character and can be forced', () => {
  assert.ok(parseMdl(`  \n${campaignJson}`).ok);
  assert.ok(parseMdl(campaignJson, 'yaml').ok, 'JSON is valid YAML');
  const forcedJson = parseMdl(campaignYaml, 'json');
  assert.ok(!forcedJson.ok);
  assert.match(forcedJson.errors[0].message, /^invalid JSON/);
  assert.ok(parseMdl(`\uFEFF${campaignYaml}`).ok, 'a byte-order mark is ignored');
});

test('a document with many problems lists all of them with paths, lines and columns', () => {
  const text = [
    'parameters:', //                     1
    '  - name: x1', //                    2
    '    type: continuous', //            3
    '    bounds: [5, 2]', //              4
    '    colour: red', //                 5
    '  - name: n', //                     6
    '    type: integr', //                7
    '    bounds: [1, 4]', //              8
    '  - name: x1', //                    9
    '    type: integer', //               10
    '    bounds: [0.5, 3]', //            11
    'objectives:', //                     12
    '  - name: f', //                     13
    '    direction: up', //               14
    'constraints:', //                    15
    '  - expression: x1 + (x2 * 3)) <= 1', // 16
    'optimizer:', //                      17
    '  budget: 10', //                    18
    '  batch_size: 12', //                19
  ].join('\n');
  const result = parseMdl(text);
  assert.ok(!result.ok);
  const found = result.errors.map((e) => [e.path, e.line, e.column]);
  assert.deepEqual(found, [
    ['parameters[0].bounds', 4, 5],
    ['parameters[0].colour', 5, 5],
    ['parameters[1].type', 7, 5],
    ['parameters[2].name', 9, 5],
    ['parameters[2].bounds', 11, 5],
    ['objectives[0].direction', 14, 5],
    ['constraints[0].expression', 16, 5],
    ['optimizer.batch_size', 19, 3],
  ]);
  const messages = Object.fromEntries(result.errors.map((e) => [e.path, e.message]));
  assert.equal(messages['parameters[0].bounds'], 'lower bound 5 must be below upper bound 2');
  assert.match(messages['parameters[0].colour'], /^unknown member "colour" \(allowed: name, type, bounds, scale, step, values, unit, description\)$/);
  assert.equal(messages['parameters[1].type'], 'type must be one of continuous, integer, categorical (got the text "integr")');
  assert.equal(messages['parameters[2].name'], 'duplicate parameter name "x1" (also parameters[0].name)');
  assert.equal(messages['parameters[2].bounds'], 'integer bounds must be whole numbers (got 0.5)');
  assert.equal(messages['objectives[0].direction'], 'must be one of maximize, minimize (got the text "up")');
  // "x1 + (x2 * 3)) <= 1": the 14th character is the unbalanced ")".
  assert.equal(messages['constraints[0].expression'], 'unexpected ")" at position 14');
  assert.equal(messages['optimizer.batch_size'], 'batch_size 12 must not exceed the budget of 10 evaluations');
  assert.equal(formatIssue(result.errors[0]), 'parameters[0].bounds (line 4, column 5): lower bound 5 must be below upper bound 2');
});

test('JSON documents also get line and column for schema errors', () => {
  const text =
    '{\n  "parameters": [{"name": "x", "type": "continuous", "bounds": [0, 1]}],\n  "objectives": [{"name": "f", "direction": "maximize"}],\n  "optimizer": {"budget": "ten"}\n}';
  const result = parseMdl(text);
  assert.ok(!result.ok);
  assert.deepEqual(result.errors, [{ path: 'optimizer.budget', message: 'expected a whole number, got the text "ten"', line: 4, column: 17 }]);
});

test('syntax errors point at the offending character', () => {
  const cases: [string, 'json' | 'yaml' | undefined, number, number, RegExp][] = [
    ['{"a": 1,}', undefined, 1, 9, /trailing comma/],
    ['{\n  "a": tru\n}', undefined, 2, 8, /expected a value/],
    ['{"a": 1', undefined, 1, 8, /expected "," or "}"/],
    ["{'a': 1}", undefined, 1, 2, /double quotes/],
    ['a: 1\nb: 2\na: 3\n', undefined, 3, 1, /"a" appears twice/],
    ['{"a": 1,\n "a": 2}', undefined, 2, 2, /^invalid JSON: the key "a" appears twice/],
    ['a: 1\n---\nb: 2\n', 'yaml', 2, 1, /several YAML documents/],
  ];
  for (const [text, format, line, column, pattern] of cases) {
    const result = parseMdl(text, format);
    assert.ok(!result.ok, text);
    assert.equal(result.errors[0].path, '');
    assert.equal(result.errors[0].line, line, text);
    assert.equal(result.errors[0].column, column, text);
    assert.match(result.errors[0].message, pattern);
  }
  for (const empty of ['', '   \n', '# only a comment\n']) {
    const result = parseMdl(empty);
    assert.ok(!result.ok);
    assert.equal(result.errors[0].message, 'the document is empty');
  }
});

test('a mis-indented YAML line gets one plain message at that line', () => {
  const deeper = ['parameters:', '  - name: x', '    type: continuous', '     bounds: [0, 1]', 'optimizer:', '  budget: 5'];
  const shallower = ['optimizer:', '  budget: 5', ' batch_size: 1'];
  for (const [lines, line, column] of [
    [deeper, 4, 6],
    [shallower, 3, 2],
  ] as const) {
    const result = parseMdl(lines.join('\n'));
    assert.ok(!result.ok);
    assert.deepEqual(result.errors, [
      {
        path: '',
        message:
          'invalid YAML: this line is indented inconsistently with the lines above it; ' +
          'start it in the same column as the other members of its mapping (indent with spaces, not tabs)',
        line,
        column,
      },
    ]);
  }
});

test('YAML alias bombs are refused', () => {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 12; i++) {
    const prev = String.fromCharCode(96 + i);
    const next = String.fromCharCode(97 + i);
    lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(', ')}]`);
  }
  const result = parseMdl(lines.join('\n'));
  assert.ok(!result.ok);
  assert.match(result.errors[0].message, /^invalid YAML: .*alias/i);
});

test('structural problems are rewritten into plain sentences', () => {
  const cases: [Record<string, any>, string, string][] = [
    [variant((d) => delete d.parameters[0].type), 'parameters[0].type', 'type is required: one of continuous, integer, categorical'],
    [variant((d) => delete d.optimizer.budget), 'optimizer.budget', 'budget is required (a whole number)'],
    [variant((d) => (d.optimizer.budget = 2.5)), 'optimizer.budget', 'expected a whole number, got 2.5'],
    [
      variant((d) => (d.optimizer.metod = 'lhs')),
      'optimizer.metod',
      'unknown member "metod" (did you mean "method"? allowed: method, strategy, budget, batch_size, batch_deadline_hours, seed, initial_samples, max_failed_iterations, replicates, acquisition, stagnation)',
    ],
    [variant((d) => (d.parameters[0].bounds = [0])), 'parameters[0].bounds', 'bounds must be a list of two numbers [lower, upper]'],
    [
      variant((d) => (d.parameters[0].name = '2theta')),
      'parameters[0].name',
      '"2theta" is not a valid name: it must start with a letter or underscore and contain only letters, digits and underscores',
    ],
    [variant((d) => (d.objectives = [])), 'objectives', 'needs at least one item'],
    [
      variant((d) => (d.evaluator = { type: 'http', url: 'ftp://example.org' })),
      'evaluator.url',
      'must be an http:// or https:// URL (got "ftp://example.org")',
    ],
    [variant((d) => (d.evaluator = { type: 'grpc' })), 'evaluator.type', 'type must be one of builtin, http, external, command (got the text "grpc")'],
    [variant((d) => (d.evaluator = { type: 'command', command: '' })), 'evaluator.command', 'must not be empty'],
    [
      variant((d) => (d.parameters[0] = { name: 'c', type: 'categorical', values: ['a', true] })),
      'parameters[0].values[1]',
      'expected text or a number, got true',
    ],
    [variant((d) => (d.constraints = [{ expression: 'x <= 1', tolerance: 0 }])), 'constraints[0].tolerance', 'must be greater than 0 (got 0)'],
    [variant((d) => (d.optimizer.stagnation = { window: 0 })), 'optimizer.stagnation.window', 'must be at least 1 (got 0)'],
    [variant((d) => (d.parameters = 'x')), 'parameters', 'expected a list, got the text "x"'],
  ];
  for (const [doc, path, message] of cases) {
    const errors = errorsOf(validateMdl(doc));
    assert.deepEqual(errors, [{ path, message }], `${path}: ${message}`);
  }
  assert.deepEqual(errorsOf(validateMdl(null)), [{ path: '', message: 'expected an object with named members, got null (an empty value)' }]);
});

test('each semantic rule is enforced', () => {
  const two = (extra: Record<string, unknown>) => variant((d) => d.parameters.push({ name: 'y', type: 'continuous', bounds: [0, 1], ...extra }));
  const cases: [Record<string, any>, string, string][] = [
    [
      variant((d) => d.parameters.push({ name: 'x', type: 'integer', bounds: [0, 3] })),
      'parameters[1].name',
      'duplicate parameter name "x" (also parameters[0].name)',
    ],
    [variant((d) => d.objectives.push({ name: 'f', direction: 'maximize' })), 'objectives[1].name', 'duplicate objective name "f" (also objectives[0].name)'],
    [
      variant((d) => (d.objectives[0].name = 'x')),
      'objectives[0].name',
      '"x" is already the name of a parameter; objectives and parameters need different names',
    ],
    [
      variant((d) => (d.parameters[0] = { name: 'n', type: 'integer', bounds: [0, 2.5] })),
      'parameters[0].bounds',
      'integer bounds must be whole numbers (got 2.5)',
    ],
    [
      variant((d) => Object.assign(d.parameters[0], { scale: 'log', bounds: [0, 10] })),
      'parameters[0].bounds',
      'log scale needs a positive lower bound (got 0)',
    ],
    [
      variant((d) => (d.parameters[0] = { name: 's', type: 'categorical', values: ['a', 'b', 'a'] })),
      'parameters[0].values[2]',
      'duplicate value "a" (same as values[0]); values must be distinct',
    ],
    [
      variant((d) => (d.parameters[0] = { name: 's', type: 'categorical', values: [1, '1'] })),
      'parameters[0].values[1]',
      'duplicate value "1" (same as values[0]); values must be distinct',
    ],
    [variant((d) => (d.optimizer.batch_size = 21)), 'optimizer.batch_size', 'batch_size 21 must not exceed the budget of 20 evaluations'],
    [
      variant((d) => (d.parameters[0].name = 'sqrt')),
      'parameters[0].name',
      'parameter name "sqrt" is reserved for the function sqrt() in constraint expressions; choose another name',
    ],
    [variant((d) => (d.parameters[0].name = '__proto__')), 'parameters[0].name', 'parameter name "__proto__" is reserved; choose another name'],
    [two({}), '', ''],
    [variant((d) => (d.constraints = [{ expression: 'x + y <= 1' }])), 'constraints[0].expression', 'unknown parameter "y" at position 5 (parameters: x)'],
    [
      variant((d) => (d.constraints = [{ expression: 'x <= 1 <= 2' }])),
      'constraints[0].expression',
      'second comparison "<=" at position 8: a constraint has exactly one comparison; write a range such as 0 <= x <= 1 as two constraints',
    ],
    [
      variant((d) => (d.constraints = [{ expression: 'x + 1' }])),
      'constraints[0].expression',
      'no comparison found: a constraint needs exactly one of <=, >=, <, >, ==',
    ],
    [variant((d) => (d.constraints = [{ expression: '1 <= 2' }])), 'constraints[0].expression', 'the constraint does not mention any parameter'],
    [
      variant((d) => {
        d.parameters.push({ name: 'solvent', type: 'categorical', values: ['water', 'ethanol'] });
        d.constraints = [{ expression: 'x * 2 + solvent <= 1' }];
      }),
      'constraints[0].expression',
      'parameter "solvent" at position 9 is categorical and cannot appear in a constraint; only continuous and integer parameters can',
    ],
  ];
  for (const [doc, path, message] of cases) {
    if (path === '') {
      assert.ok(validateMdl(doc).ok, 'a second, distinct parameter is fine');
      continue;
    }
    assert.deepEqual(errorsOf(validateMdl(doc)), [{ path, message }], `${path}: ${message}`);
  }
});

test('structural and semantic errors are reported together', () => {
  const doc = variant((d) => {
    d.parameters[0].bounds = [3, 1];
    d.parameters.push({ name: 'x', type: 'continuous', bounds: [0, 1], extra: true });
    d.optimizer.budget = 'many';
  });
  const paths = errorsOf(validateMdl(doc))
    .map((e) => e.path)
    .sort();
  assert.deepEqual(paths, ['optimizer.budget', 'parameters[0].bounds', 'parameters[1].extra', 'parameters[1].name']);
});

test('warnings do not make a document invalid', () => {
  const doc = variant((d) => {
    d.parameters.push({ name: 's', type: 'categorical', values: ['only'] });
    d.constraints = [{ expression: 'x <= 0.5', tolerance: 0.1 }];
    d.evaluator = { type: 'command', command: ['python', 'sim.py'] };
    d.optimizer.initial_samples = 20;
  });
  const result = validateMdl(doc);
  assert.ok(result.ok);
  assert.deepEqual(
    result.warnings.map((w) => w.path),
    // the rules' own warnings, then pre-flight's (a fixed parameter, a budget spent on the design)
    ['constraints[0].tolerance', 'evaluator.type', 'parameters[1].values', 'optimizer.initial_samples'],
  );
  assert.equal(result.warnings[0].message, 'tolerance only applies to == constraints; it is ignored for "<="');
});

function packageRoot(): string {
  let root = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(root, 'package.json'))) root = dirname(root);
  return root;
}

test('the campaigns in docs/mdl.md are valid and its validate example shows the real output', async () => {
  const doc = readFileSync(join(packageRoot(), 'docs', 'mdl.md'), 'utf8');
  const examples = [...doc.matchAll(/<!-- campaign -->\n```(json|yaml)\n([\s\S]*?)```/g)];
  assert.equal(examples.length, 2);
  for (const [, format, text] of examples) {
    const result = parseMdl(text, format as 'json' | 'yaml');
    assert.ok(result.ok, `${format} example: ${result.ok ? '' : result.errors.map(formatIssue).join('; ')}`);
    assert.deepEqual(result.warnings, []);
  }
  const shown = /For this file:\n\n```yaml\n([\s\S]*?)```\n\n```text\n\$ kiln validate campaign.yaml\n([\s\S]*?)```/.exec(doc);
  assert.ok(shown, 'the validate example is in docs/mdl.md');
  const dir = mkdtempSync(join(tmpdir(), 'kiln-docs-'));
  try {
    const file = join(dir, 'campaign.yaml');
    writeFileSync(file, shown[1]);
    const lines: string[] = [];
    const record = (t: string) => lines.push(t.split(file).join('campaign.yaml'));
    const previous = process.exitCode;
    try {
      await validateCommand({ out: record, err: record }).parseAsync([file], { from: 'user' });
    } finally {
      process.exitCode = previous;
    }
    assert.deepEqual(lines, shown[2].trimEnd().split('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the committed JSON Schema equals a fresh generation and has the draft 2020-12 shape', () => {
  const root = packageRoot();
  const committed = readFileSync(join(root, 'docs', 'mdl.schema.json'), 'utf8');
  assert.equal(committed, mdlJsonSchemaText(), 'run `npm run schema` to regenerate docs/mdl.schema.json');
  const schema = JSON.parse(committed);
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(schema.type, 'object');
  assert.deepEqual(schema.required, ['parameters', 'objectives', 'optimizer']);
  assert.equal(schema.additionalProperties, false);
  assert.equal(schema.properties.parameters.type, 'array');
  const kinds = schema.properties.parameters.items.oneOf.map((o: any) => o.properties.type.const);
  assert.deepEqual(kinds, ['continuous', 'integer', 'categorical']);
  assert.equal(schema.properties.optimizer.properties.batch_size.default, 1);
});

test('kiln validate prints a summary, or every error with file:line:column, and sets the exit code', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-validate-'));
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    const good = join(dir, 'campaign.yaml');
    writeFileSync(good, campaignYaml);
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    await validateCommand(io).parseAsync([good], { from: 'user' });
    assert.deepEqual(err, []);
    assert.equal(
      out[0],
      `${good} is valid: 5 parameters (3 continuous, 1 integer, 1 categorical), 2 objectives, 1 constraint, ` +
        'budget 60 in batches of 4, cma-es optimizer, external evaluator',
    );
    assert.equal(process.exitCode, undefined);

    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, campaignYaml.replace('bounds: [0.3, 0.9]', 'bounds: [0.9, 0.3]').replace('budget: 60', 'budget: 2'));
    out.length = 0;
    await validateCommand(io).parseAsync([bad], { from: 'user' });
    assert.equal(process.exitCode, 1);
    assert.deepEqual(out, []);
    assert.deepEqual(err, [
      `${bad}:10:5: parameters[1].bounds: lower bound 0.9 must be below upper bound 0.3`,
      `${bad}:32:3: optimizer.batch_size: batch_size 4 must not exceed the budget of 2 evaluations`,
      `${bad} is not valid: 2 problems`,
    ]);
  } finally {
    process.exitCode = previous;
    rmSync(dir, { recursive: true, force: true });
  }
});
