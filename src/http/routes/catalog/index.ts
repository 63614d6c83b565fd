import type { RouteContext, TypedApp } from '../../route-context.ts';
import { registerBinRoutes } from './bin.ts';
import { registerCategoryRoutes } from './categories.ts';
import { registerProductRoutes } from './products.ts';
import { registerSkuRoutes } from './skus.ts';

/** The catalog area: products, SKUs, categories and the bin. */
export function registerCatalogRoutes(app: TypedApp, ctx: RouteContext): void {
  registerProductRoutes(app, ctx);
  registerSkuRoutes(app, ctx);
  registerCategoryRoutes(app, ctx);
  registerBinRoutes(app, ctx);
}
