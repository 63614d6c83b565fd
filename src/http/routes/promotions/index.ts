import type { RouteContext, TypedApp } from '../../route-context.ts';
import { registerPromotionStackRoutes } from './stacks.ts';
import { registerPromotionTierRoutes } from './tiers.ts';

/** Promotion tiers (server and client side) and promotion stacks. */
export function registerPromotionRoutes(app: TypedApp, ctx: RouteContext): void {
  registerPromotionTierRoutes(app, ctx);
  registerPromotionStackRoutes(app, ctx);
}
