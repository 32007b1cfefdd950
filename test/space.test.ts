import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateMdl } from '../src/engine/mdl/index.js';
import { SearchSpace } from '../src/engine/space.js';

function space(parameters: unknown[], constraints: unknown[] = []): SearchSpace {
  const result = validateMdl({
    parameters,
    constraints,
    objectives: [{ name: 'f', direction: 'maximize' }],
    optimizer: { budget: 50 },
  });
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return new SearchSpace(result.mdl);
}

const close = (actual: number, expected: number, tolerance = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} should be within ${tolerance} of ${expected}`);

const mixed = space([
  { name: 'temperature', type: 'continuous', bounds: [300, 700] },
  { name: 'concentration', type: 'continuous', bounds: [0.01, 100], scale: 'log' },
  { name: 'layers', type: 'integer', bounds: [0, 10] },
  { name: 'hours', type: 'integer', bounds: [1, 1000], scale: 'log' },
  { name: 'solvent', type: 'categorical', values: ['water', 'ethanol', 'toluene'] },
  { name: 'grade', type: 'categorical', values: [1, 2] },
]);

test('the encoded dimension counts one coordinate per numeric parameter and one per categorical value', () => {
  assert.equal(mixed.dimension, 4 + 3 + 2);
  assert.deepEqual(
    mixed.layout.map((l) => [l.parameter.name, l.offset, l.width]),
    [
      ['temperature', 0, 1],
      ['concentration', 1, 1],
      ['layers', 2, 1],
      ['hours', 3, 1],
      ['solvent', 4, 3],
      ['grade', 7, 2],
    ],
  );
});

test('encode maps each parameter type onto the unit cube by hand-computed values', () => {
  const u = mixed.encode({ temperature: 400, concentration: 1, layers: 7, hours: 10, solvent: 'toluene', grade: 1 });
  close(u[0], 0.25); // (400 - 300) / 400
  close(u[1], 0.5); // ln(1/0.01) / ln(100/0.01) = 2/4 decades
  close(u[2], 0.7);
  close(u[3], 1 / 3); // one decade of three
  assert.deepEqual([...u.subarray(4)], [0, 0, 1, 1, 0]);
  assert.deepEqual(
    [...mixed.encode({ temperature: 400, concentration: 1, layers: 7, hours: 10, solvent: 'water', grade: '2' }).subarray(4)],
    [1, 0, 0, 0, 1],
    'a category given as text matches its number',
  );
});

test('decode inverts encode and round-trips values of every type', () => {
  const values = { temperature: 512.5, concentration: 0.37, layers: 3, hours: 250, solvent: 'ethanol', grade: 2 };
  const back = mixed.decode(mixed.encode(values));
  close(back.temperature as number, 512.5, 1e-9);
  close(back.concentration as number, 0.37, 1e-12);
  assert.equal(back.layers, 3);
  assert.equal(back.hours, 250);
  assert.equal(back.solvent, 'ethanol');
  assert.equal(back.grade, 2);
});

test('decode clamps, rounds integers in value space and takes the first argmax', () => {
  const at = (coords: number[]) => mixed.decode(coords);
  const v = at([-0.5, 1.5, 0.34, 0.5, 0.2, 0.9, 0.1, 0.5, 0.5]);
  assert.equal(v.temperature, 300);
  assert.equal(v.concentration, 100);
  assert.equal(v.layers, 3); // 3.4 rounds down
  assert.equal(v.hours, 32); // exp(0.5 ln 1000) = 31.62 rounds to 32
  assert.equal(v.solvent, 'ethanol');
  assert.equal(v.grade, 1, 'ties go to the first value');
  assert.equal(at([1, 0, 0.36, 0, 0, 0, 0, 0, 0]).layers, 4); // 3.6 rounds up
  assert.equal(at([1, 0, 0, 1, 0, 0, 0, 0, 0]).temperature, 700);
  assert.equal(at([1, 0, 0, 1, 0, 0, 0, 0, 0]).hours, 1000);
});

test('snap is encode(decode(u)) and idempotent', () => {
  let seed = 99;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let k = 0; k < 200; k++) {
    const u = Array.from({ length: mixed.dimension }, () => next() * 1.4 - 0.2);
    const snapped = mixed.snap(u);
    assert.deepEqual(mixed.snap(snapped), snapped);
    const roundTrip = mixed.encode(mixed.decode(u));
    for (let i = 0; i < mixed.dimension; i++) close(snapped[i], roundTrip[i], 1e-12);
    assert.deepEqual([...snapped.subarray(2)], [...roundTrip.subarray(2)], 'integer and categorical blocks match exactly');
    assert.deepEqual(mixed.decode(snapped), mixed.decode(u));
  }
  close(mixed.snap([0, 0, 0.34, 0, 1, 0, 0, 1, 0])[2], 0.3);
});

test('bad inputs raise errors that say what is wrong', () => {
  assert.throws(() => mixed.decode([0.5]), /expected a point with 9 coordinates/);
  assert.throws(() => mixed.decode([NaN, 0, 0, 0, 0, 0, 0, 0, 0]), /coordinate 0 of the point is NaN/);
  const good = { temperature: 400, concentration: 1, layers: 7, hours: 10, solvent: 'water', grade: 1 };
  assert.throws(() => mixed.encode({ ...good, solvent: 'acetone' }), /"solvent" must be one of "water", "ethanol", "toluene", got "acetone"/);
  assert.throws(() => mixed.encode({ ...good, temperature: 'hot' }), /"temperature" needs a finite number/);
  assert.throws(() => mixed.encode({ ...good, concentration: 0 }), /log scale and needs a positive value/);
  const { layers: _omitted, ...missing } = good;
  assert.throws(() => mixed.encode(missing), /"layers" needs a finite number, got undefined/);
});

test('feasibility is judged on decoded values', () => {
  const s = space(
    [
      { name: 'x', type: 'continuous', bounds: [0, 4] },
      { name: 'n', type: 'integer', bounds: [0, 4] },
      { name: 'mode', type: 'categorical', values: ['a', 'b'] },
    ],
    [{ expression: 'x + n <= 5' }, { expression: 'x >= 1' }],
  );
  assert.equal(s.violation({ x: 2, n: 3, mode: 'a' }), 0);
  assert.ok(s.isFeasible({ x: 2, n: 3, mode: 'a' }));
  assert.equal(s.violation({ x: 3, n: 4, mode: 'b' }), 2);
  assert.equal(s.violation({ x: 0.5, n: 0, mode: 'b' }), 0.5);
  assert.equal(s.violation({ x: 0, n: 6, mode: 'b' }), 2);
  assert.ok(!s.isFeasible({ x: 0, n: 6, mode: 'b' }));
  // u = (0.5, 0.9): x = 2, n = round(3.6) = 4, so x + n = 6 > 5.
  assert.equal(s.violationAt([0.5, 0.9, 1, 0]), 1);
});

const composition = space(
  [
    { name: 'li_frac', type: 'continuous', bounds: [0, 1] },
    { name: 'ni_frac', type: 'continuous', bounds: [0.3, 0.9] },
    { name: 'co_frac', type: 'continuous', bounds: [0, 1] },
    { name: 'temperature', type: 'continuous', bounds: [600, 1000] },
  ],
  [{ expression: 'li_frac + ni_frac + co_frac == 1' }],
);

test('repair projects onto a composition equality, matching hand-computed projections', () => {
  // (0.5, 0.5, 0.5) is 0.5 too heavy: each component gives up 1/6.
  const u1 = composition.encode({ li_frac: 0.5, ni_frac: 0.5, co_frac: 0.5, temperature: 800 });
  const v1 = composition.decode(composition.repair(u1));
  close(v1.li_frac as number, 1 / 3, 1e-9);
  close(v1.ni_frac as number, 1 / 3, 1e-9);
  close(v1.co_frac as number, 1 / 3, 1e-9);
  close(v1.temperature as number, 800, 1e-9);
  // (1, 0.9, 1): ni_frac would fall below 0.3, so it stops there and the others share the rest.
  const u2 = composition.encode({ li_frac: 1, ni_frac: 0.9, co_frac: 1, temperature: 600 });
  const v2 = composition.decode(composition.repair(u2));
  close(v2.li_frac as number, 0.35, 1e-9);
  close(v2.ni_frac as number, 0.3, 1e-9);
  close(v2.co_frac as number, 0.35, 1e-9);
});

test('repair lands every random point on the composition, inside the bounds', () => {
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let k = 0; k < 300; k++) {
    const u = Array.from({ length: 4 }, next);
    const repaired = composition.repair(u);
    const v = composition.decode(repaired);
    const sum = (v.li_frac as number) + (v.ni_frac as number) + (v.co_frac as number);
    assert.ok(Math.abs(sum - 1) <= 1e-9, `sum ${sum}`);
    assert.ok((v.ni_frac as number) >= 0.3 && (v.ni_frac as number) <= 0.9);
    assert.equal(composition.violation(v), 0);
    assert.deepEqual(composition.snap(repaired), repaired, 'repaired points are snapped');
    close(v.temperature as number, 600 + 400 * u[3], 1e-9);
  }
  const feasible = composition.encode({ li_frac: 0.2, ni_frac: 0.5, co_frac: 0.3, temperature: 700 });
  const kept = composition.repair(feasible);
  for (let i = 0; i < 4; i++) close(kept[i], feasible[i], 1e-12);
});

test('repair handles inequalities, integers and leaves nonlinear constraints alone', () => {
  const half = space(
    [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'y', type: 'continuous', bounds: [0, 1] },
    ],
    [{ expression: 'x + y <= 1' }],
  );
  const v = half.decode(half.repair([0.9, 0.9]));
  close(v.x as number, 0.5, 1e-9);
  close(v.y as number, 0.5, 1e-9);
  assert.equal(half.violation(v), 0);

  const strict = space([{ name: 'x', type: 'continuous', bounds: [0, 2] }], [{ expression: '2 * x > 3' }]);
  const s = strict.decode(strict.repair([0.25]));
  close(s.x as number, 1.5, 1e-6);
  assert.equal(strict.violation(s), 0);

  const withInteger = space(
    [
      { name: 'n', type: 'integer', bounds: [0, 10] },
      { name: 'x', type: 'continuous', bounds: [0, 1] },
    ],
    [{ expression: 'n + x == 5.5' }],
  );
  // (5, 0.9) projects to (4.8, 0.7); n rounds to 5 and x, projected again with n held, is 0.5.
  const w = withInteger.decode(withInteger.repair(withInteger.encode({ n: 5, x: 0.9 })));
  assert.equal(w.n, 5);
  close(w.x as number, 0.5, 1e-9);

  const curved = space(
    [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'y', type: 'continuous', bounds: [0, 1] },
    ],
    [{ expression: 'x * y >= 0.5' }],
  );
  assert.deepEqual([...curved.repair([0.1, 0.2])], [0.1, 0.2]);
});
