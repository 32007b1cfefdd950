import type { KilnEvent } from '../events.js';
import type { Executor } from './db.js';

/** Live events for the API nodes' WebSocket hubs. */
export const EVENTS_CHANNEL = 'kiln_events';
/** A job became claimable: wakes idle supervisors. */
export const JOBS_CHANNEL = 'kiln_jobs';

/** A credential was revoked or changed: API nodes check their open WebSockets' credentials again. */
export const CREDENTIALS_CHANNEL = 'kiln_credentials';

/** Postgres refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PAYLOAD = 7900;

export async function publishEvent(db: Executor, event: KilnEvent): Promise<void> {
  let payload = JSON.stringify(event);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
    // Only log messages grow without bound; the full text stays in job_logs.
    const data = event.data as { message?: string };
    const shortened = { ...event, data: { ...data, message: `${String(data.message ?? '').slice(0, 2000)}… (truncated; see the job's logs)` } };
    payload = JSON.stringify(shortened);
  }
  await db.raw('select pg_notify(?, ?)', [EVENTS_CHANNEL, payload]);
}

export async function announceJobs(db: Executor): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [JOBS_CHANNEL, '']);
}

export async function announceCredentialChange(db: Executor): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [CREDENTIALS_CHANNEL, '']);
}
