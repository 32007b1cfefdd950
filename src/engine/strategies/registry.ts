import { globalStrategy } from './global.js';
import { nsga2Strategy } from './nsga2/nsga2.js';
import { initialDesign, latinHypercubeSearch, randomSearch } from './space-filling.js';
import { trustRegionStrategy } from './trust-region/strategy.js';
import type { StrategyName } from './strategy-choice.js';
import type { Strategy } from './types.js';

const STRATEGIES: Record<StrategyName, Strategy> = {
  'initial-design': initialDesign,
  random: randomSearch,
  lhs: latinHypercubeSearch,
  global: globalStrategy,
  'trust-region': trustRegionStrategy,
  nsga2: nsga2Strategy,
};

export function strategyNamed(name: StrategyName): Strategy {
  return STRATEGIES[name];
}
