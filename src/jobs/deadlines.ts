import type { Proposal } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { logJob } from '../lifecycle/transitions.js';
import type { Transaction } from '../store/db.js';
import { insertPostedResult, receivedCandidateIds } from '../store/external-results.js';
import { keepBatchDeadlines, type JobRow, type Lease } from '../store/jobs.js';

/**
 * `optimizer.batch_deadline_hours` of an external campaign. Each pending batch gets its deadline
 * the first time its job sees it (when it is proposed, or when a new job takes the campaign up:
 * a retried or restarted campaign's batches start their clock again). The candidates of a batch
 * past its deadline that still have no result are abandoned (never measured: they count against
 * the budget like any abandoned candidate and teach the failure model nothing), so the iteration
 * completes with the results that came and the campaign goes on with a new batch. A result that
 * arrives late corrects its candidate (PUT), and the model uses it from then on. The caller holds
 * the campaign row and the job's lease. Returns the candidates abandoned.
 */
export async function abandonOverdue(trx: Transaction, job: JobRow, lease: Lease, mdl: Mdl, pending: readonly Proposal[]): Promise<number> {
  const hours = mdl.optimizer.batch_deadline_hours;
  if (hours === undefined) return 0;
  const overdue = new Set(await keepBatchDeadlines(trx, lease, [...new Set(pending.map((p) => p.iteration))], hours));
  if (overdue.size === 0) return 0;
  const received = new Set(await receivedCandidateIds(trx, job.campaign_id));
  const late = pending.filter((p) => overdue.has(p.iteration) && !received.has(p.id));
  const reason = `no result within optimizer.batch_deadline_hours (${hours} h)`;
  for (const p of late) {
    await insertPostedResult(trx, {
      campaign_id: job.campaign_id,
      candidate_id: p.id,
      organization_id: job.organization_id,
      objectives: null,
      outcomes: null,
      error: reason,
      abandoned: true,
      parameters: null,
    });
  }
  if (late.length > 0) {
    const iterations = [...overdue].sort((a, b) => a - b).join(', ');
    await logJob(
      trx,
      job,
      'warning',
      `Iteration ${iterations} is past its deadline: ${late.length} candidates without a result are abandoned (${reason}) and the campaign goes on. ` +
        `A late result can still correct its candidate with PUT /v1/campaigns/${job.campaign_id}/evaluations/{id}.`,
    );
  }
  return late.length;
}
