import type { ResultStatus } from './api.js';

/**
 * How a campaign's evaluations stand, by state, for its header: "(26 measured, 2 partial, 1 failed,
 * 1 abandoned)", or nothing while every one is measured. Warm-start rows (iteration 0) are not
 * evaluations of the campaign's budget and are left out, as in the count beside it.
 */
export function stateCounts(rows: readonly { iteration: number; status: ResultStatus }[]): string {
  const counts: Record<ResultStatus, number> = { measured: 0, partial: 0, failed: 0, abandoned: 0 };
  for (const r of rows) if (r.iteration > 0) counts[r.status] += 1;
  if (counts.partial + counts.failed + counts.abandoned === 0) return '';
  const parts = (Object.keys(counts) as ResultStatus[]).filter((s) => s === 'measured' || counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  return ` (${parts.join(', ')})`;
}
