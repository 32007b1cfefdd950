import { NOISE_FLOOR, type SerializedHyperparameters } from '../gp/priors.js';
import type { Mdl, ParameterValue } from '../mdl/schema.js';
import { paretoMask } from '../pareto.js';
import { designKey, noiseReason } from './noisy-front.js';
import type { CompiledCampaign } from '../strategies/types.js';
import type { CampaignState, EvaluationRecord } from './types.js';

/**
 * One repeated measurement, to learn whether measurements are noisy. Without replicates, noise of
 * a few percent of an objective's spread and a function that is rough at the spacing of the data
 * fit the same GP noise (noisy DTLZ2 at sd 0.05 fits 0.005–0.013 of the objective's variance;
 * the exact WFG4 and DTLZ1 reach 0.016), so the fitted noise alone cannot tell them apart. A
 * second measurement of one design can: an exact measurement repeats itself, and two that
 * disagree make the campaign noisy (noisy-front.ts), so from then on it reports the model's front.
 *
 * Fitted noise variance, in units of the objective's variance, from which a campaign not yet
 * known to be noisy spends one evaluation on that check: ten times the fit's floor. Smooth exact
 * functions fall to the floor as data accumulates.
 */
export const PROBE_NOISE_VARIANCE = 10 * NOISE_FLOOR;

/**
 * The parameter values to measure again in this batch, or null for none. A probe is due once per
 * campaign: while no design has been measured (or asked for) twice, the campaign is not noisy by
 * any rule, and some objective not declared `noise: false` fits noise of PROBE_NOISE_VARIANCE or
 * more. A builtin evaluator is a function of the candidate (its noise too), so it is never
 * probed. The design is the measured front's closest to the reference point, by the step's reach
 * frame (acquisition/reach-frame.ts: the achievement scalarization in the frame's scale, over its
 * feasible rows): the one a user would build first, whose value a lucky draw would most mislead.
 *
 * campaign: the step's compiled campaign; hyperparameters: the fit that chose this batch, one per objective.
 */
export function noiseProbe(
  mdl: Mdl,
  campaign: CompiledCampaign,
  state: Readonly<CampaignState>,
  hyperparameters: readonly SerializedHyperparameters[] | null | undefined,
): Record<string, ParameterValue> | null {
  if (mdl.evaluator?.type === 'builtin' || !hyperparameters || hyperparameters.length !== mdl.objectives.length) return null;
  const judged = mdl.objectives.map((o, j) => (o.noise === undefined ? j : -1)).filter((j) => j >= 0);
  if (!judged.some((j) => hyperparameters[j].noise >= PROBE_NOISE_VARIANCE)) return null;
  if (noiseReason(mdl, hyperparameters, state.evaluations) !== null || measuredTwice(mdl, state)) return null;
  const frame = campaign.reach;
  if (!frame || frame.feasibleRows.length === 0) return null;
  const { m } = frame;
  const rows = frame.feasibleRows;
  const Y = new Float64Array(rows.length * m);
  rows.forEach((r, k) => Y.set(frame.Y.subarray(r * m, (r + 1) * m), k * m));
  const front = paretoMask(Y, rows.length, m);
  let chosen = -1;
  let lowest = Infinity;
  rows.forEach((r, k) => {
    if (front[k] !== 1) return;
    const value = frame.achievementOf(r);
    if (value < lowest) [lowest, chosen] = [value, r];
  });
  const id = campaign.observations.ids[chosen];
  const evaluation = state.evaluations.find((e) => e.id === id);
  return evaluation ? { ...evaluation.parameters } : null;
}

/**
 * Whether some parameter values were measured, or are pending, more than once. Every model-guided
 * step asks, so rows are keyed in full only when their first parameter's value repeats (as
 * noisy-front.ts does): full keys of thousands of 200-parameter rows would cost a tenth of a step.
 */
function measuredTwice(mdl: Mdl, state: Readonly<CampaignState>): boolean {
  const lead = mdl.parameters[0].name;
  const first = new Map<unknown, Pick<EvaluationRecord, 'parameters'>>();
  const keys = new Set<string>();
  for (const row of [...state.evaluations, ...state.pending]) {
    const earlier = first.get(row.parameters[lead]);
    if (!earlier) {
      first.set(row.parameters[lead], row);
      continue;
    }
    keys.add(designKey(mdl, earlier));
    const key = designKey(mdl, row);
    if (keys.has(key)) return true;
    keys.add(key);
  }
  return false;
}
