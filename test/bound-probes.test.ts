import test from 'node:test';
import assert from 'node:assert/strict';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { SearchSpace } from '../src/engine/space.js';
import { BOUND_TOLERANCE, boundProbe, boundProbes } from '../src/engine/strategies/bound-probes.js';
import type { Observations } from '../src/engine/strategies/types.js';

function space(constraints: string[] = []): SearchSpace {
  return new SearchSpace(
    mdlSchema.parse({
      parameters: [
        { name: 'a', type: 'continuous', bounds: [0, 1] },
        { name: 'b', type: 'continuous', bounds: [10, 20] },
        { name: 'layers', type: 'integer', bounds: [1, 6] },
        { name: 'solvent', type: 'categorical', values: ['water', 'ethanol'] },
      ],
      constraints: constraints.map((expression) => ({ expression })),
      objectives: [{ name: 'f', direction: 'minimize' }],
      optimizer: { budget: 20 },
    }),
  );
}

function observations(X: number[][]): Observations {
  const d = X[0].length;
  return {
    d,
    m: 1,
    n: X.length,
    X: Float64Array.from(X.flat()),
    Y: Float64Array.from(X, (_, i) => i),
    ids: X.map((_, i) => `e${i}`),
    iterations: new Int32Array(X.length),
    c: 0,
    C: new Float64Array(0),
    feasible: new Uint8Array(X.length).fill(1),
    failed: [],
    ref: [10],
    noisy: false,
  };
}

test('a probe moves the continuous coordinates near a bound onto it, and nothing else', () => {
  const s = space();
  // a = 0.004 (near 0), b at 0.995 of its range (near 20), layers at its lowest, solvent one-hot
  const x = Float64Array.of(0.004, 0.995, 0, 1, 0);
  const probe = boundProbe(s, x)!;
  assert.deepEqual(Array.from(probe), [0, 1, 0, 1, 0]);
  assert.deepEqual(s.decode(probe), { a: 0, b: 20, layers: 1, solvent: 'water' });
  // nothing within the tolerance, or already on the bound: no probe
  assert.equal(boundProbe(s, Float64Array.of(0.5, 0, 0.4, 0, 1)), null);
  assert.equal(boundProbe(s, Float64Array.of(BOUND_TOLERANCE + 1e-9, 0.5, 0.2, 1, 0)), null);
  // a wider tolerance per coordinate (a trust region's half-widths) reaches further
  assert.deepEqual(Array.from(boundProbe(s, Float64Array.of(0.2, 0.5, 0.2, 1, 0), [0.25, 0.1, 0, 0, 0])!), [0, 0.5, 0.2, 1, 0]);
});

test('a probe that breaks a nonlinear parameter constraint is not proposed', () => {
  const s = space(['a * (b - 10) >= 0.001']);
  // a onto 0 makes a (b − 10) = 0; b onto 20 alone keeps it
  assert.equal(boundProbe(s, Float64Array.of(0.005, 0.5, 0.2, 1, 0)), null);
  assert.deepEqual(Array.from(boundProbe(s, Float64Array.of(0.05, 0.995, 0.2, 1, 0))!), [0.05, 1, 0.2, 1, 0]);
});

test('probes are distinct from evaluated and pending points, from each other, and at most as many as asked', () => {
  const s = space();
  const o = observations([
    [0.003, 0.5, 0.2, 1, 0],
    [0, 0.5, 0.2, 1, 0], // row 0's probe, evaluated already
    [0.002, 0.7, 0.2, 1, 0],
    [0.001, 0.7, 0.2, 1, 0], // the same probe as row 2
    [0.5, 0.998, 0.2, 1, 0],
  ]);
  const probes = boundProbes(s, o, [0, 2, 3, 4], 5);
  assert.deepEqual(
    probes.map((p) => [p.row, Array.from(p.point)]),
    [
      [2, [0, 0.7, 0.2, 1, 0]],
      [4, [0.5, 1, 0.2, 1, 0]],
    ],
  );
  assert.equal(boundProbes(s, o, [0, 2, 3, 4], 1).length, 1);
  assert.deepEqual(
    boundProbes(s, { ...o, pending: [Float64Array.of(0, 0.7, 0.2, 1, 0)] }, [2, 4], 5).map((p) => p.row),
    [4],
  );
});
