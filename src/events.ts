/**
 * The live events of decisions.md "Events". Workers publish them through Postgres NOTIFY in the
 * same transaction as the change they describe, so an event is seen only once its change is
 * committed, by every API node, whichever host ran the job.
 */
export type KilnEventType = 'job.status' | 'job.progress' | 'job.log' | 'campaign.status';

export interface KilnEvent {
  type: KilnEventType;
  job_id: string | null;
  campaign_id: string;
  /** routing only: the hub delivers to subscribers of this organization and strips the field */
  organization_id: string;
  data: unknown;
  timestamp: string;
}
