import type { Results } from './api.js';
import { hypervolumeUnit, withUnit } from './format.js';

interface Objective {
  name: string;
  unit?: string;
  direction: string;
  reference?: number;
}

/**
 * What the hypervolume beside it means, where it is shown: the region of objective space the
 * feasible Pareto front dominates up to the reference point (each objective's value here, given in
 * the MDL or inferred from the first results), its unit (the product of the objectives' units),
 * and why it can fall between rounds: a noisy campaign's is the model's, which moves with every
 * measurement; a correction can lower it too.
 */
export function HypervolumeExplained({ objectives, results }: { objectives: Objective[]; results: Pick<Results, 'reference_point' | 'noisy'> }) {
  const unit = hypervolumeUnit(objectives);
  const reference = results.reference_point;
  return (
    <details class="explained" data-testid="hypervolume-explained">
      <summary>What the hypervolume measures{unit ? ` (in ${unit})` : ''}</summary>
      <p>
        The size of the region of objective space that the feasible Pareto front dominates, bounded by the reference point
        {reference ? ': ' : ' '}
        {reference
          ? objectives
              .map(
                (o) =>
                  `${o.name} ${withUnit(reference[o.name], o.unit)} (${o.reference !== undefined ? 'given' : 'inferred'}; only values ${o.direction === 'maximize' ? 'above' : 'below'} it count)`,
              )
              .join(', ')
          : '(set once the first results arrive)'}
        . A new measurement that improves the front adds to it; one that misses the reference point in any objective adds nothing, so the hypervolume is 0 until
        a point beats the reference in every objective.
      </p>
      <p>
        Its unit is the product of the objectives' units{unit ? `: ${unit}` : ' (they have none here)'}. A reference value not given in the MDL is inferred once
        from the first results (the worst value plus 10 % of the range) and then kept, so the hypervolumes of different rounds compare.
      </p>
      <p data-testid="hypervolume-falls">
        {results.noisy
          ? "This campaign's measurements are noisy, so the hypervolume is computed from the model's predictions of its front designs, not from the raw measurements. Each new measurement moves those predictions: a design that looked good on a lucky measurement is predicted worse once more data come, and the hypervolume can fall between rounds. That is the estimate getting more honest, not the campaign getting worse."
          : 'It never falls as measurements are added. It can fall when a correction lowers a value, and if the measurements turn out to be noisy (repeats that disagree), it is then computed from the model’s predictions, which move with every measurement and can fall between rounds.'}
      </p>
    </details>
  );
}
