/**
 * The strategies' names and the campaign's choice among them: plain types the campaign state
 * stores, kept apart from the strategies' context so that the state's types (which the dashboard
 * reads through the API contract) import nothing that computes.
 */
export type StrategyName = 'initial-design' | 'random' | 'lhs' | 'global' | 'trust-region' | 'nsga2';

/** The strategy that proposes after the initial design, and why; fixed for the whole campaign. */
export interface StrategyChoice {
  name: Exclude<StrategyName, 'initial-design'>;
  reason: string;
}
