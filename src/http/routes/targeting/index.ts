import type { RouteContext, TypedApp } from '../../route-context.ts';
import { registerProductCollectionRoutes } from '../product-collections/product-collections.ts';
import { registerSegmentRoutes } from '../segments/segments.ts';
import { registerValidationRuleRoutes } from '../validation-rules/validation-rules.ts';

/** Who and what a promotion targets: validation rules and their assignments, customer segments, product collections. */
export function registerTargetingRoutes(app: TypedApp, ctx: RouteContext): void {
  registerValidationRuleRoutes(app, ctx);
  registerSegmentRoutes(app, ctx);
  registerProductCollectionRoutes(app, ctx);
}
