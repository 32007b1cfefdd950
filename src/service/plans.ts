/** Plan limits: requests per minute and hour, concurrent campaigns, dataset size and rows. */
export type Plan = 'free' | 'pro' | 'enterprise';

export interface PlanLimits {
  requestsPerMinute: number;
  requestsPerHour: number;
  /** null: unlimited */
  concurrentCampaigns: number | null;
  datasetBytes: number;
  datasetRows: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { requestsPerMinute: 60, requestsPerHour: 1_000, concurrentCampaigns: 2, datasetBytes: 10 * 1024 ** 2, datasetRows: 10_000 },
  pro: { requestsPerMinute: 300, requestsPerHour: 10_000, concurrentCampaigns: 10, datasetBytes: 100 * 1024 ** 2, datasetRows: 100_000 },
  enterprise: { requestsPerMinute: 1_000, requestsPerHour: 50_000, concurrentCampaigns: null, datasetBytes: 1024 ** 3, datasetRows: 1_000_000 },
};

export function planLimits(plan: string): PlanLimits {
  return PLAN_LIMITS[(plan in PLAN_LIMITS ? plan : 'free') as Plan];
}
