import type { RouteContext, TypedApp } from '../../app.ts';
import { registerAsyncActionRoutes } from './async-actions/async-actions.ts';
import { registerCampaignRoutes } from './campaigns/campaigns.ts';
import { registerLoyaltyCampaignRoutes } from './campaigns/loyalties.ts';
import { registerCatalogRoutes } from './catalog/index.ts';
import { registerCustomerRoutes } from './customers/customers.ts';
import { registerProjectRoutes } from './management/projects.ts';
import { registerOauthRoutes } from './oauth/oauth.ts';
import { registerOrderRoutes } from './orders/orders.ts';

export async function registerRoutes(app: TypedApp, ctx: RouteContext): Promise<void> {
  registerProjectRoutes(app, ctx);
  registerOauthRoutes(app, ctx);
  registerCatalogRoutes(app, ctx);
  registerCustomerRoutes(app, ctx);
  registerOrderRoutes(app, ctx);
  registerCampaignRoutes(app, ctx);
  registerLoyaltyCampaignRoutes(app, ctx);
  registerAsyncActionRoutes(app, ctx);
}
