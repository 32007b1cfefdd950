import test from 'node:test';
import assert from 'node:assert/strict';
import { validateMdl } from '../src/engine/mdl/validate.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { runLocalCampaign } from '../src/jobs/local-runner.js';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';

await initTensorBackend('wasm');

/** Own evaluations (warm-start rows excluded) after which the hypervolume first reaches `target`. */
function evaluationsToReach(history: { evaluations: number; hypervolume: number }[], target: number): number {
  return history.find((h) => h.hypervolume >= target)?.evaluations ?? Infinity;
}

test('a warm-started campaign reaches a given hypervolume in fewer evaluations than a cold one', async (t) => {
  const checked = validateMdl(zdt1Mdl({ budget: 30, batch: 2, seed: 3 }));
  assert.ok(checked.ok);
  const mdl = checked.mdl;
  const evaluator = createEvaluator(mdl, { allowCommand: false });
  const track = () => {
    const history: { evaluations: number; hypervolume: number }[] = [];
    return {
      history,
      onIteration: (r: { evaluationsCompleted: number; hypervolume: number }) =>
        history.push({ evaluations: r.evaluationsCompleted, hypervolume: r.hypervolume }),
    };
  };

  const cold = track();
  await runLocalCampaign(mdl, evaluator, { onIteration: cold.onIteration });
  // the target: what the cold campaign has after two thirds of its budget
  const target = cold.history.find((h) => h.evaluations >= 20)!.hypervolume;

  // earlier measurements of the same system: a coarse grid, as a lab's past runs would be
  const warmStart = [];
  for (const x1 of [0.05, 0.3, 0.55, 0.8]) for (const x2 of [0.1, 0.4, 0.7]) warmStart.push({ parameters: { x1, x2 }, objectives: zdt1(x1, x2) });
  const warm = track();
  await runLocalCampaign(mdl, evaluator, { warmStart, onIteration: warm.onIteration });

  const coldNeeds = evaluationsToReach(cold.history, target);
  const warmNeeds = evaluationsToReach(warm.history, target);
  t.diagnostic(`hypervolume ${target.toFixed(4)} reached after ${warmNeeds} evaluations warm (12 rows given), ${coldNeeds} cold`);
  assert.ok(warmNeeds < coldNeeds, `warm start needs ${warmNeeds} evaluations, cold ${coldNeeds}, to reach hypervolume ${target}`);
  assert.ok(warm.history[0].evaluations === 2, 'the warm campaign skips the initial design: its first iteration is one batch');
});
