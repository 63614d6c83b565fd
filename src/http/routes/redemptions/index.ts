import type { RouteContext, TypedApp } from '../../route-context.ts';
import { registerLegacyRoutes } from './legacy.ts';
import { registerRedemptionRecordRoutes } from './records.ts';
import { registerStackableRoutes } from './stackable.ts';
import { registerStackingRulesRoutes } from './stacking-rules.ts';

/** Validation, redemption, redemption records and rollbacks, sessions, qualifications, stacking rules. */
export function registerRedemptionRoutes(app: TypedApp, ctx: RouteContext): void {
  registerStackableRoutes(app, ctx);
  registerRedemptionRecordRoutes(app, ctx);
  registerStackingRulesRoutes(app, ctx);
  registerLegacyRoutes(app, ctx);
}
