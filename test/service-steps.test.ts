import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { zdt1 } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * Parameters a lab can set, through a real server: a stepped parameter is proposed on its grid
 * and printed to its step's decimals in the candidates and the worklist (there with trailing zeros); the first batch is stored
 * in numeric id order (1, 2, ..., 10, 11, not text order) whatever order its results come in, and
 * parameter values come back in the MDL's definition order (jsonb stores keys in an order of its
 * own) in candidates, results, the CSV export and the campaign export.
 */
let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '1' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

interface Candidate {
  id: string;
  iteration: number;
  parameters: Record<string, number>;
}

/** The candidates of `iteration` once the job waits for their results. */
async function awaitingIteration(id: string, iteration: number): Promise<Candidate[]> {
  return eventually(
    async () => {
      const res = await api('GET', `/v1/campaigns/${id}/candidates`);
      const list = res.json.data as Candidate[];
      return res.json.meta.state === 'awaiting_results' && list.some((c) => c.iteration === iteration) ? list : undefined;
    },
    120_000,
    `the candidates of iteration ${iteration}`,
  );
}

const number = (evaluationId: string) => Number(evaluationId.split('_').at(-1));

test('stepped and listed parameters are proposed on their grid, in definition order, and the first batch is stored in numeric id order', async () => {
  const mdl = {
    parameters: [
      { name: 'temperature', type: 'continuous', bounds: [500, 1000], step: 5, unit: '°C' },
      { name: 'x', type: 'continuous', bounds: [0, 1], step: 0.01 },
      { name: 'ab', type: 'integer', bounds: [1, 9] },
      { name: 'pressure', type: 'continuous', bounds: [1, 10], values: [1, 2.5, 4, 10] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 10 },
    ],
    optimizer: { budget: 14, batch_size: 2, initial_samples: 12, seed: 5 },
  };
  const names = ['temperature', 'x', 'ab', 'pressure'];
  const created = await api('POST', '/v1/campaigns', { name: 'stepped', domain: 'benchmark', mdl });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  const design = await awaitingIteration(id, 1);
  assert.equal(design.length, 12);
  const numbers = design.map((c) => number(c.id));
  assert.deepEqual(numbers, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 'candidates listed in numeric order');
  for (const c of design) {
    assert.deepEqual(Object.keys(c.parameters), names, 'candidate parameters in definition order');
    const { temperature, x, ab, pressure } = c.parameters;
    assert.equal((temperature - 500) % 5, 0, `temperature ${temperature} is on its 5 °C grid`);
    assert.ok((String(x).split('.')[1]?.length ?? 0) <= 2, `x ${x} is printed to the step's two decimals`);
    assert.equal(Math.round(x * 100) / 100, x, `x ${x} is on its 0.01 grid`);
    assert.ok(Number.isInteger(ab));
    assert.ok([1, 2.5, 4, 10].includes(pressure), `pressure ${pressure} is one of the listed values`);
  }
  const settings = new Set(design.map((c) => JSON.stringify(c.parameters)));
  assert.equal(settings.size, design.length, 'no setting repeats in a batch after rounding');

  // the worklist: columns in definition order, values as proposed (on the grid, to the step's decimals)
  const worklist = (await api('GET', `/v1/campaigns/${id}/worklist`)).text
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/);
  assert.ok(worklist[0].startsWith('id,iteration,temperature (°C),x,ab,pressure,f1,f2'), worklist[0]);
  assert.deepEqual(
    worklist.slice(1).map((line) => line.split(',')[0]),
    design.map((c) => c.id),
    'worklist rows in numeric id order',
  );
  for (const [k, line] of worklist.slice(1).entries()) {
    const cells = line.split(',');
    const c = design[k];
    // each on its grid: a step of 0.01 with its two decimals (0.50), a listed value as listed
    assert.deepEqual(cells.slice(2, 6), [String(c.parameters.temperature), c.parameters.x.toFixed(2), String(c.parameters.ab), String(c.parameters.pressure)]);
  }

  // the results arrive in reverse, and in text order's worst case (10, 11, 12 before 2)
  const evaluations = [...design].reverse().map((c) => ({ id: c.id, objectives: zdt1(c.parameters.x, (c.parameters.temperature - 500) / 500) }));
  assert.equal((await api('POST', `/v1/campaigns/${id}/evaluations`, { evaluations })).status, 200);
  const next = await awaitingIteration(id, 2);
  for (const c of next) {
    assert.deepEqual(Object.keys(c.parameters), names);
    assert.equal((c.parameters.temperature - 500) % 5, 0, 'a model-guided pick is on the grid too');
    assert.equal(Math.round(c.parameters.x * 100) / 100, c.parameters.x);
  }
  const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  assert.deepEqual(
    results.evaluations.map((e: { id: string }) => number(e.id)),
    numbers,
    'stored in numeric id order',
  );
  for (const e of results.evaluations) assert.deepEqual(Object.keys(e.parameters), names, 'result parameters in definition order');
  const csv = (await api('GET', `/v1/campaigns/${id}/results?format=csv`)).text
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/);
  assert.deepEqual(
    csv.slice(1).map((line) => number(line.split(',')[0])),
    numbers,
    'the CSV export too',
  );
  const exported = (await api('GET', `/v1/campaigns/${id}/export`)).json;
  const document = exported.data ?? exported;
  for (const e of document.evaluations) assert.deepEqual(Object.keys(e.parameters), names, 'exported parameters in definition order');
  await api('POST', `/v1/campaigns/${id}/stop`);
});

test('a step that does not divide the range is refused with a message that says so', async () => {
  const mdl = {
    parameters: [{ name: 'temperature', type: 'continuous', bounds: [500, 1003], step: 5 }],
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    optimizer: { budget: 10 },
  };
  const res = await api('POST', '/v1/campaigns', { name: 'bad step', domain: 'benchmark', mdl });
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.error.code, 'VALIDATION_FAILED');
  assert.match(res.text, /does not divide/);
});

test('a step too fine to count and bounds whose span overflows are refused at creation, each naming its member, before any job runs', async () => {
  const objectives = [
    { name: 'f1', direction: 'minimize' },
    { name: 'f2', direction: 'minimize' },
  ];
  const cases: [unknown, string, RegExp][] = [
    // every proposal landed on the upper bound
    [
      { name: 'x', type: 'continuous', bounds: [0, 1], step: 5e-324 },
      'mdl.parameters[0].step',
      /step 5e-324 is finer than numbers can count across \[0, 1\] \(the smallest step that works here is 8\.9e-16\)/,
    ],
    // passed validation, then failed the job on a NaN
    [
      { name: 'x', type: 'continuous', bounds: [-1e308, 1e308], step: 1e300 },
      'mdl.parameters[0].bounds',
      /the range \[-1e\+308, 1e\+308\] is wider than a number can hold/,
    ],
    [{ name: 'x', type: 'continuous', bounds: [-1e308, 1e308] }, 'mdl.parameters[0].bounds', /overflows/],
  ];
  for (const [parameter, path, message] of cases) {
    const mdl = { parameters: [parameter, { name: 'y', type: 'continuous', bounds: [0, 1] }], objectives, optimizer: { budget: 10 } };
    const res = await api('POST', '/v1/campaigns', { name: 'bad numbers', domain: 'benchmark', mdl });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.error.code, 'VALIDATION_FAILED');
    assert.deepEqual(
      res.json.error.details.errors.map((e: { path: string }) => e.path),
      [path],
    );
    assert.match(res.json.error.details.errors[0].message, message);
  }
  const fine = await api('POST', '/v1/campaigns', {
    name: 'fine step',
    domain: 'benchmark',
    mdl: { parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1], step: 1e-12 }], objectives, optimizer: { budget: 10 } },
  });
  assert.equal(fine.status, 201, `a fine step numbers can count is fine: ${fine.text}`);
});
