import type { RouteContext, TypedApp } from '../../route-context.ts';
import { registerEarningRuleRoutes } from './earning-rules.ts';
import { registerRewardRoutes } from './rewards.ts';
import { registerTierRoutes } from './tiers.ts';

// What a loyalty program gives: earning rules, tiers, rewards and reward redemption.
export function registerLoyaltyIncentiveRoutes(app: TypedApp, ctx: RouteContext): void {
  registerEarningRuleRoutes(app, ctx);
  registerTierRoutes(app, ctx);
  registerRewardRoutes(app, ctx);
}
