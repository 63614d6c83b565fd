import type { RouteContext, TypedApp } from '../../app.ts';
import { registerCatalogRoutes } from './catalog/index.ts';
import { registerCustomerRoutes } from './customers/customers.ts';
import { registerProjectRoutes } from './management/projects.ts';
import { registerOauthRoutes } from './oauth/oauth.ts';

export async function registerRoutes(app: TypedApp, ctx: RouteContext): Promise<void> {
  registerProjectRoutes(app, ctx);
  registerOauthRoutes(app, ctx);
  registerCatalogRoutes(app, ctx);
  registerCustomerRoutes(app, ctx);
}
