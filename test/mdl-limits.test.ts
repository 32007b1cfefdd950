import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { compileConstraint } from '../src/engine/mdl/expression.js';
import { mdlLimits, validateMdl } from '../src/engine/mdl/index.js';
import { feasibleSampleCount, feasibleSamples, fewestFeasibleSamples } from '../src/engine/mdl/preflight.js';
import { createApiKey } from '../src/service/api-keys.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { client, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/*
 * Validating an MDL document has a bounded cost, and no document, however large, holds the event
 * loop that serves every other organization.
 */

/** `count` parameters x0… and `constraints` sums of about `characters` characters each. */
function wideMdl(count: number, constraints: number, characters = 1990) {
  const parameters = Array.from({ length: count }, (_, i) => ({ name: `x${i}`, type: 'continuous', bounds: [0, 1] }));
  const expressions = Array.from({ length: constraints }, (_, c) => {
    const terms: string[] = [];
    for (let i = 0; terms.join(' + ').length < characters - 30; i++) terms.push(`0.5*x${(c * 7 + i) % count}`);
    return { expression: `${terms.join(' + ')} <= 1000` };
  });
  return {
    name: 'wide',
    domain: 'benchmark',
    parameters,
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    constraints: expressions,
    optimizer: { method: 'cma-es', budget: 40, batch_size: 4 },
    evaluator: { type: 'builtin', name: 'zdt1' },
  };
}

describe('the cost of validating one document', () => {
  test('a sum of 300 terms compiles to its exact linear form', () => {
    const terms = Array.from({ length: 300 }, (_, i) => `${i + 1}*x${i % 100}`);
    const compiled = compileConstraint(
      `${terms.join(' + ')} - x0 <= 7`,
      Array.from({ length: 100 }, (_, i) => `x${i}`),
    );
    assert.ok(compiled.ok);
    const linear = compiled.constraint.linear!;
    // x_k appears as terms k+1, k+101 and k+201: coefficient 3k + 303, less 1 for x0
    for (let k = 0; k < 100; k++) assert.equal(linear.coefficients[`x${k}`], 3 * k + 303 - (k === 0 ? 1 : 0), `x${k}`);
    assert.equal(linear.constant, -7);
    assert.equal(compiled.constraint.names.length, 100);
    assert.equal(compiled.constraint.names[0], 'x0');
  });

  test('pre-flight samples fewer points as the constraint text grows, within fixed bounds', () => {
    assert.equal(feasibleSampleCount(100, 10), feasibleSamples, 'an ordinary document keeps every point');
    assert.equal(feasibleSampleCount(50_000, 1000), Math.floor(16_000_000 / 60_000));
    assert.equal(feasibleSampleCount(10_000_000, 1000), fewestFeasibleSamples);
  });

  test('constraint text over the limit is one error that names the limit, found without compiling', () => {
    const result = validateMdl(wideMdl(1000, 200));
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    const error = result.errors.find((e) => e.path === 'constraints');
    assert.ok(error, JSON.stringify(result.errors.slice(0, 3)));
    assert.match(error.message, /at most 50,000 are allowed in one document \(limit: constraint text\)/);
  });

  test('a document at the limits validates, with its feasible share estimated', () => {
    const result = validateMdl(wideMdl(1000, Math.floor(mdlLimits.constraintCharacters / 2000)));
    assert.ok(result.ok, JSON.stringify(!result.ok && result.errors.slice(0, 3)));
  });
});

describe('no document blocks the API', () => {
  let postgres: TestPostgres;
  let kiln: TestKiln;
  let builder: ReturnType<typeof client>;
  let other: ReturnType<typeof client>;

  before(async () => {
    postgres = await TestPostgres.start();
    kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
    await ensureOrganization(kiln.runtime.db, { id: 'org_builder', name: 'builder', plan: 'enterprise' });
    await ensureOrganization(kiln.runtime.db, { id: 'org_other', name: 'other', plan: 'enterprise' });
    builder = client(kiln.base, (await createApiKey(kiln.runtime.db, { organizationId: 'org_builder', name: 'b', scopes: ['admin'] })).key);
    other = client(kiln.base, (await createApiKey(kiln.runtime.db, { organizationId: 'org_other', name: 'o', scopes: ['admin'] })).key);
  });

  after(async () => {
    await kiln?.stop();
    await postgres?.stop();
  });

  test('over the size limit: 413 naming the limit; constraint text over its limit: 422 at constraints', async () => {
    const huge = wideMdl(1000, 20);
    (huge as Record<string, unknown>).description = 'x'.repeat(9000);
    huge.parameters.forEach((p) => Object.assign(p, { description: 'd'.repeat(600) }));
    const tooLarge = await builder('POST', '/v1/campaigns', { mdl: huge });
    assert.equal(tooLarge.status, 413, tooLarge.text);
    assert.equal(tooLarge.json.error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(tooLarge.json.error.details.limit, mdlLimits.documentBytes);
    assert.match(tooLarge.json.error.message, /limit: MDL document size/);

    const long = await builder('POST', '/v1/templates', { name: 'too long', mdl: wideMdl(1000, 200) });
    assert.equal(long.status, 422, long.text);
    assert.ok(
      long.json.error.details.errors.some((e: { path: string; message: string }) => e.path === 'mdl.constraints' && /limit: constraint text/.test(e.message)),
      long.text,
    );
  });

  test("while 4 maximal documents are checked, another organization's GET p99 stays under 200 ms", async () => {
    const maximal = wideMdl(1000, Math.floor(mdlLimits.constraintCharacters / 2000));
    const refused = wideMdl(1000, 200);
    const columns = [...maximal.parameters.map((p) => p.name), 'f1', 'f2'];
    const csv = `${columns.join(',')}\n${columns.map(() => '0.5').join(',')}\n`;

    /** One storm of maximal documents; the other organization's GET latencies meanwhile, in ms. */
    const storm = async (round: number): Promise<number[]> => {
      const form = new FormData();
      form.set('mdl', JSON.stringify(maximal));
      form.set('file', new Blob([csv], { type: 'text/csv' }), 'rows.csv');
      form.set('name', `rows ${round}`);
      let settled = 0;
      const requests = [
        builder('POST', '/v1/campaigns', { mdl: maximal }),
        builder('POST', '/v1/templates', { name: `maximal ${round}`, mdl: maximal }),
        builder('POST', '/v1/campaigns', { mdl: refused }),
        builder('POST', '/v1/datasets', form),
      ].map((request) => request.finally(() => settled++));
      const latencies: number[] = [];
      while (settled < requests.length || latencies.length < 20) {
        const start = performance.now();
        const res = await other('GET', '/v1/campaigns');
        latencies.push(performance.now() - start);
        assert.equal(res.status, 200);
      }
      const answers = await Promise.all(requests);
      assert.deepEqual(
        answers.map((a) => a.status),
        [201, 201, 422, 201],
        answers.map((a) => a.text.slice(0, 300)).join('\n'),
      );
      return latencies.sort((a, b) => a - b);
    };

    // A blocked loop stalls every round by seconds; a machine busy with other test files can slow
    // one round past the bound, so a round under it is enough (each round is reported).
    const rounds: string[] = [];
    let p99 = Infinity;
    for (let round = 1; round <= 3 && p99 >= 200; round++) {
      const latencies = await storm(round);
      p99 = latencies[Math.ceil(0.99 * latencies.length) - 1];
      rounds.push(`round ${round}: p99 ${p99.toFixed(1)} ms over ${latencies.length} requests`);
    }
    console.log(rounds.join('; '));
    assert.ok(p99 < 200, rounds.join('; '));
  });
});
