import type { Campaign, IterationSummary, Results } from './contract.js';

/**
 * The campaign and its results after one stored iteration, from the iteration's `job.progress`
 * summary instead of a re-read: its new rows appended (rows already held are not repeated), the
 * rows it pushed off the Pareto front unmarked, its hypervolume added to the history. Null when the
 * summary cannot be applied (it carries no rows, or an iteration was missed): then re-read.
 */
export function applyIteration(campaign: Campaign, results: Results, summary: IterationSummary): { campaign: Campaign; results: Results } | null {
  // the history has one hypervolume per stored iteration, so its length says which the results hold
  const held = results.convergence_history.length;
  const figures = summary.iteration > campaign.current_iteration ? figuresOf(campaign, summary) : campaign;
  if (summary.iteration <= held) return { campaign: figures, results };
  if (summary.iteration !== held + 1 || !summary.evaluations) return null;
  const rows = new Set(results.evaluations.map((r) => r.id));
  const left = new Set(summary.left_pareto_front ?? []);
  const evaluations = [
    ...results.evaluations.map((r) => (left.has(r.id) ? { ...r, is_pareto: false } : r)),
    ...summary.evaluations.filter((r) => !rows.has(r.id)),
  ];
  const failedHeld = new Set((results.failed_evaluations ?? []).map((f) => f.id));
  // present only while the hypervolume is 0: an iteration without it has entered the box
  const { reference_distance: _before, ...rest } = results;
  return {
    campaign: figures,
    results: {
      ...rest,
      ...(summary.reference_distance ? { reference_distance: summary.reference_distance } : {}),
      evaluations,
      pareto_front: evaluations.filter((r) => r.is_pareto),
      hypervolume: summary.hypervolume,
      convergence_history: [...results.convergence_history, summary.hypervolume],
      failed_evaluations: [...(results.failed_evaluations ?? []), ...(summary.failed_evaluations ?? []).filter((f) => !failedHeld.has(f.id))],
    },
  };
}

function figuresOf(campaign: Campaign, summary: IterationSummary): Campaign {
  return {
    ...campaign,
    current_iteration: summary.iteration,
    evaluations_completed: summary.evaluations_completed,
    hypervolume: summary.hypervolume,
    pareto_size: summary.pareto_size,
    best_objectives: summary.best_objectives,
  };
}
