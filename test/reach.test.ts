import test from 'node:test';
import assert from 'node:assert/strict';
import { achievement, expectedMaxShortfall, objectiveSpreads, reachDirection, reachPicks, ReachAcquisition } from '../src/engine/acquisition/reach.js';
import { Random } from '../src/engine/random.js';
import { expectedPositivePart } from '../src/engine/normal.js';

function close(actual: number, expected: number, relative: number, message?: string): void {
  assert.ok(Math.abs(actual - expected) <= relative * Math.abs(expected), `${message ?? ''} ${actual} vs ${expected}`);
}

test('the achievement scalarization is the scaled max-norm gap outside the box and minus the depth inside', () => {
  const ref = [1, 10];
  const scale = [2, 5];
  // (3 − 1)/2 = 1 and (10 − 10)/5 = 0: one unit of the first objective's spread outside
  assert.equal(achievement([3, 10], 0, ref, scale), 1);
  // (0 − 1)/2 = −0.5 and (5 − 10)/5 = −1: inside, half a spread deep along the worse objective
  assert.equal(achievement([0, 5], 0, ref, scale), -0.5);
  assert.equal(achievement([9, 9, 0, 5], 2, ref, scale), -0.5);
});

test('objective spreads run from the best observed value to the worse of the reference and the worst observed', () => {
  const Y = Float64Array.of(0, 4, 2, 1, 3, 3);
  assert.deepEqual(Array.from(objectiveSpreads(Y, 3, 2, [5, 2])), [5, 3]);
  assert.deepEqual(Array.from(objectiveSpreads(Float64Array.of(1, 1), 1, 2, [1, 1])), [1, 1]);
});

test('the batch takes the reach criterion for all picks with none inside, the later half with 1 to m inside, none beyond', () => {
  assert.equal(reachPicks(4, 0, 2), 4);
  assert.equal(reachPicks(4, 1, 2), 2);
  assert.equal(reachPicks(5, 2, 2), 2);
  assert.equal(reachPicks(1, 1, 3), 0);
  assert.equal(reachPicks(4, 3, 2), 0);
  assert.equal(reachPicks(4, 3, 3), 2);
  // the global strategy mixes until 3m points are inside
  assert.equal(reachPicks(4, 9, 3, 9), 2);
  assert.equal(reachPicks(4, 10, 3, 9), 0);
  assert.equal(reachPicks(4, 0, 3, 9), 4);
});

test('expected shortfall of a maximum of normals matches hand-computed and quadrature values', () => {
  // one normal: E[(a − U)^+] = σ h((a − μ)/σ)
  close(expectedMaxShortfall(3, [0], [1]), 3.000382154317048, 1e-7);
  close(expectedMaxShortfall(0.3, [1], [0.5]), 0.5 * expectedPositivePart(-1.4), 1e-7);
  // two standard normals, a = 0: ∫_0^∞ Q(t)² dt = 1/√(2π) − 1/(2√π) by parts
  close(expectedMaxShortfall(0, [0, 0], [1, 1]), 1 / Math.sqrt(2 * Math.PI) - 1 / (2 * Math.sqrt(Math.PI)), 1e-7);
  // three unequal normals (reference: 30-digit adaptive quadrature of ∫ Π Φ, mpmath)
  close(expectedMaxShortfall(1.5, [0.2, -0.4, 1.0], [0.3, 1.2, 0.05]), 0.4563794355797455, 1e-6);
  // no uncertainty: (a − max μ)^+
  close(expectedMaxShortfall(2, [0.5, 1.25], [1e-12, 1e-12]), 0.75, 1e-9);
  assert.equal(expectedMaxShortfall(1, [0.5, 1.25], [1e-12, 1e-12]), 0);
});

test('far below the best value the expected shortfall stays positive and close to the exact tail', () => {
  // exact values by 30-digit quadrature (mpmath); a plain sample average would round these to 0
  close(expectedMaxShortfall(-10, [0, 0], [1, 1]), 2.860440742053315e-48, 0.05);
  close(expectedMaxShortfall(-6, [0, 1], [0.5, 2]), 1.574399713681083e-38, 0.05);
  // still ordered: closer to the best value is better
  assert.ok(expectedMaxShortfall(-6, [0, 1], [0.5, 2]) < expectedMaxShortfall(-5.5, [0, 1], [0.5, 2]));
});

test('the reach acquisition is the expected improvement of the scalarization over the best observed point', () => {
  // observed (3, 2) and (2, 4) against the reference (1, 1), spreads (2, 3): s = max(1, 1/3) = 1 and max(0.5, 1) = 1
  const front = Float64Array.of(3, 2, 2, 4);
  const ref = [1, 1];
  const scale = [2, 3];
  const reach = new ReachAcquisition(front, 2, 2, ref, scale);
  assert.equal(reach.best, 1);
  // certain candidates: inside at (0, 0.4) has s = max(−0.5, −0.2) = −0.2, an improvement of 1.2; (4, 0) has s = 1.5, none
  const mean = Float64Array.of(0, 0.4, 4, 0);
  const values = reach.evaluate(mean, new Float64Array(4), 2);
  close(values[0], 1.2, 1e-9);
  assert.equal(values[1], 0);
  // uncertain candidate: U = ((μ − r)/scale, σ/scale) = (N(1, 0.5²), N(0, 1)), E[(1 − max U)^+] by quadrature (mpmath)
  const uncertain = reach.evaluate(Float64Array.of(3, 1), Float64Array.of(1, 3), 1)[0];
  close(uncertain, expectedMaxShortfall(1, [1, 0], [0.5, 1]), 1e-12);
  close(uncertain, 0.1491040536053009, 1e-7);
});

test('a reach direction is the diagonal when asked, else a random direction of mean 1 that gives every objective at least its floor', () => {
  const random = new Random(7);
  assert.deepEqual(Array.from(reachDirection(true, 3, random)), [1, 1, 1]);
  const spread = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const w = reachDirection(false, 3, random);
    close(
      w.reduce((a, b) => a + b, 0),
      3,
      1e-12,
    );
    // w_j = m·(0.2/m + 0.8·u_j) ≥ 0.2
    for (const v of w) assert.ok(v >= 0.2 - 1e-12 && v <= 2.6 + 1e-12, `weight ${v}`);
    spread.add(w.indexOf(Math.max(...w)).toString());
  }
  assert.equal(spread.size, 3, 'each objective leads some directions');
});

test('a directed reach pick prefers the part of the box its direction aims at over the diagonal', () => {
  // one point observed outside the box (1.5, 1.5), reference (1, 1), unit spreads; two certain candidates
  // inside: an end (0.9, 0) and the middle (0.6, 0.6)
  const front = Float64Array.of(1.5, 1.5);
  const ref = [1, 1];
  const candidates = Float64Array.of(0.9, 0, 0.6, 0.6);
  const none = new Float64Array(4);
  // along the diagonal: s(end) = max(−0.1, −1) = −0.1, s(middle) = −0.4, so the middle improves more
  const diagonal = new ReachAcquisition(front, 1, 2, ref, [1, 1]).evaluate(candidates, none, 2);
  close(diagonal[0], 0.6, 1e-9);
  close(diagonal[1], 0.9, 1e-9);
  // aimed at objective 2 with w = (0.28, 1.72): s(end) = max(−0.1/0.28, −1/1.72) = −0.357, s(middle) = max(−1.43, −0.233) = −0.233
  const w = [0.28, 1.72];
  const aimed = new ReachAcquisition(front, 1, 2, ref, w).evaluate(candidates, none, 2);
  assert.ok(aimed[0] > aimed[1], `end ${aimed[0]} vs middle ${aimed[1]}`);
  close(aimed[0], 0.5 / 0.28 + 0.1 / 0.28, 1e-9);
});
