import test from 'node:test';
import assert from 'node:assert/strict';
import { campaignResults } from '../src/engine/campaign/results.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState } from '../src/engine/campaign/types.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { GLOBAL_PICKS, globalPickCount } from '../src/engine/strategies/trust-region/global-pick.js';
import { boxDistance, isInsideBox, type TrustRegionMemory } from '../src/engine/strategies/trust-region/regions.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

test('a global pick takes one place of a lone region whose model covers every observation, and only then', () => {
  assert.equal(GLOBAL_PICKS, 1);
  // one region, its model on all 90 rows, no outcome constraint, four places free
  assert.equal(globalPickCount(1, 90, 90, 0, 4), 1);
  assert.equal(globalPickCount(1, 90, 90, 0, 2), 1);
  // the region's own draws keep at least one place
  assert.equal(globalPickCount(1, 90, 90, 0, 1), 0);
  // several regions (batches of more than 4), a local model (200 of 300 rows), outcome constraints
  assert.equal(globalPickCount(3, 90, 90, 0, 10), 0);
  assert.equal(globalPickCount(1, 200, 300, 0, 4), 0);
  assert.equal(globalPickCount(1, 90, 90, 2, 4), 0);
});

test("a lone region's picks stay in its box and the batch's last pick searches the whole space (ZDT1, 30 inputs)", async () => {
  const d = 30;
  const mdl = mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 1.1 },
    ],
    optimizer: { budget: 42, batch_size: 4, initial_samples: 10, seed: 5, strategy: 'trust-region' },
  });
  const zdt1 = testProblem('zdt1')!;
  const x = (p: Record<string, number | string>) => Float64Array.from({ length: d }, (_, i) => Number(p[`x${i + 1}`]));
  let state: CampaignState = initialState(mdl);
  let outside = 0;
  let batches = 0;
  while (state.status === 'running') {
    const next = await step(mdl, state);
    if (next.proposals.length === 0) break;
    const memory = next.state.strategies?.['trust-region'] as TrustRegionMemory | undefined;
    if (memory) {
      batches++;
      assert.equal(next.proposals.length, 4);
      assert.match(next.state.receipt!.acquisition, / \+ global (ehvi|reach|ehvi \+ reach)$/);
      // the global pick is judged with the region's own picks
      assert.deepEqual(memory.lastBatch?.regions, [0, 0, 0, 0]);
      const region = memory.regions[0];
      const center = x(next.state.evaluations.find((e) => e.id === region.center)!.parameters);
      const [first, second, third, last] = next.proposals.map((p) => boxDistance(x(p.parameters), center, region));
      for (const distance of [first, second, third]) assert.ok(isInsideBox(distance), `a region pick at ${distance} half-widths`);
      if (!isInsideBox(last)) outside++;
    }
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => {
        const f = zdt1.evaluate(x(p.parameters), 2);
        return { id: p.id, objectives: { f1: f[0], f2: f[1] } };
      }),
    ).state;
  }
  assert.equal(batches, 8);
  assert.ok(outside >= 1, 'some global pick left the region');
  assert.equal(state.evaluations.length, 42);
});

test("in a noisy campaign a lone region's global pick improves on the measured front (EHVI), as its own picks do", async () => {
  const d = 24;
  const mdl = mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1, noise: true },
      { name: 'f2', direction: 'minimize', reference: 10, noise: true },
    ],
    optimizer: { budget: 26, batch_size: 4, initial_samples: 10, seed: 3, strategy: 'trust-region' },
  });
  const zdt1 = testProblem('zdt1')!;
  const random = new Random(17);
  let state: CampaignState = initialState(mdl);
  const labels: string[] = [];
  while (state.status === 'running') {
    const next = await step(mdl, state);
    if (next.proposals.length === 0) break;
    if (next.state.strategies?.['trust-region']) labels.push(next.state.receipt!.acquisition);
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => {
        const f = zdt1.evaluate(
          Float64Array.from({ length: d }, (_, i) => Number(p.parameters[`x${i + 1}`])),
          2,
        );
        return { id: p.id, objectives: { f1: f[0] + 0.02 * random.normal(), f2: f[1] + 0.2 * random.normal() } };
      }),
    ).state;
  }
  assert.equal(labels.length, 4);
  for (const label of labels) assert.match(label, / \+ global (ehvi|reach|ehvi \+ reach)$/, label);
  assert.equal(campaignResults(mdl, state).noisy, true, 'the campaign is noisy: the global strategy would take noisy EHVI here');
});
