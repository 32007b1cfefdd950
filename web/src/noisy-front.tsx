import type { ResultRow, Results } from './api.js';
import { formatNumber, labelOf } from './format.js';

interface Named {
  name: string;
  unit?: string;
}

/**
 * A noisy campaign's front: the designs the model ranks non-dominated, each once with its number
 * of measurements, the mean of what was measured and the model's prediction ± sd. The prediction
 * is what the front and the headline hypervolume are judged by; a lucky measurement is not.
 */
export function NoisyFront({ results, parameters, objectives }: { results: Results; parameters: Named[]; objectives: Named[] }) {
  if (!results.noisy) return null;
  const rows: ResultRow[] = results.pareto_front;
  return (
    <section>
      <h2>Model's front</h2>
      <p class="muted" data-testid="noise-reason">
        The measurements are noisy ({results.noise_reason}), so the front and the hypervolume are the model's predictions at the evaluated designs. The raw
        measurements' hypervolume is <span data-testid="measured-hypervolume">{formatNumber(results.measured_hypervolume)}</span>.
      </p>
      <div class="scroll table-scroll" tabIndex={0} aria-label="The model's front, scrolls sideways">
        <table data-testid="noisy-front" class="sticky-first">
          <thead>
            <tr>
              <th scope="col">design</th>
              <th scope="col">measurements</th>
              {parameters.map((p) => (
                <th scope="col">{labelOf(p.name, p.unit)}</th>
              ))}
              {objectives.map((o) => (
                <th scope="col">{labelOf(o.name, o.unit)} measured</th>
              ))}
              {objectives.map((o) => (
                <th scope="col">{labelOf(o.name, o.unit)} predicted ± sd</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                <td>{r.design_id ?? r.id}</td>
                <td>{r.measurements ?? 1}</td>
                {parameters.map((p) => (
                  <td>{typeof r.parameters[p.name] === 'number' ? formatNumber(r.parameters[p.name] as number) : r.parameters[p.name]}</td>
                ))}
                {objectives.map((o) => (
                  <td>{formatNumber(r.objectives[o.name])}</td>
                ))}
                {objectives.map((o) => (
                  <td>
                    {formatNumber(r.predicted?.[o.name]?.mean)} ± {formatNumber(r.predicted?.[o.name]?.sd)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
