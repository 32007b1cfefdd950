import { setTimeout as sleep } from 'node:timers/promises';
import { AttemptFailure, postCancelled } from './http-pinned-post.js';
import { EvaluatorError } from './types.js';

export interface RetryPolicy {
  /** Further attempts after a retryable failure. */
  retries: number;
  /** Wait before the first retry, doubled for each further one. */
  backoffMs: number;
}

/** Share of each backoff added at random, so that evaluators failing together do not retry in step. */
const JITTER = 0.2;

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are spent, with exponential
 * backoff between attempts. The last AttemptFailure becomes an EvaluatorError (code 'timeout' when
 * it ran out of time, else 'failed') naming the POST to `shown` and the attempts made; other errors
 * pass through. Aborting `signal` while waiting rejects with the cancellation.
 */
export async function withRetries(attempt: () => Promise<string>, policy: RetryPolicy, shown: string, signal: AbortSignal | undefined): Promise<string> {
  const attempts = 1 + policy.retries;
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof AttemptFailure)) throw error;
      if (!error.retryable || tried >= attempts) {
        throw new EvaluatorError(
          error.timedOut ? 'timeout' : 'failed',
          `the http evaluator's POST to ${shown} failed after ${tried} attempt${tried === 1 ? '' : 's'}; the last: ${error.message}`,
        );
      }
    }
    const wait = policy.backoffMs * 2 ** (tried - 1);
    try {
      await sleep(wait + Math.random() * wait * JITTER, undefined, { signal });
    } catch {
      throw postCancelled(shown, signal);
    }
  }
}
