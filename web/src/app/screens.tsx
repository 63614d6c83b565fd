import { CampaignDetailPage } from '../pages/campaigns/detail.tsx';
import { CampaignEditPage } from '../pages/campaigns/edit.tsx';
import { CampaignsPage } from '../pages/campaigns/list.tsx';
import { NewCampaignPage } from '../pages/campaigns/new.tsx';
import { NewGiftCampaignPage, NewLoyaltyCampaignPage, NewReferralCampaignPage } from '../pages/campaigns/new-code-campaigns.tsx';
import { NewPromotionPage } from '../pages/campaigns/new-promotion.tsx';
import { ExportsPage } from '../pages/exports/exports.tsx';
import { HomePage } from '../pages/home.tsx';
import { CustomerPage, CustomersPage } from '../pages/customers/customers.tsx';
import { LoyaltyProgramsPage } from '../pages/loyalty/list.tsx';
import { LoyaltyProgramPage } from '../pages/loyalty/program.tsx';
import { OrderPage } from '../pages/orders/detail.tsx';
import { OrdersPage } from '../pages/orders/list.tsx';
import { CollectionPage, CollectionsPage } from '../pages/products/collections.tsx';
import { ProductPage } from '../pages/products/product.tsx';
import { ProductsPage } from '../pages/products/products.tsx';
import { ProjectsPage } from '../pages/projects/projects.tsx';
import { RedemptionsPage } from '../pages/redemptions/list.tsx';
import { AccountPage } from '../pages/settings/account.tsx';
import { SettingsPage } from '../pages/settings/settings.tsx';
import { ConsentsPage } from '../pages/consents/consents.tsx';
import { MetadataSchemaPage, NewMetadataSchemaPage } from '../pages/metadata-schemas/editor.tsx';
import { MetadataSchemasPage } from '../pages/metadata-schemas/list.tsx';
import { SegmentPage } from '../pages/segments/detail.tsx';
import { SegmentsPage } from '../pages/segments/list.tsx';
import { NewSegmentPage } from '../pages/segments/new.tsx';
import { BrandingPage } from '../pages/configure/branding.tsx';
import { ConfigurePage } from '../pages/configure/configure.tsx';
import { EditValidationRulePage, NewValidationRulePage } from '../pages/validation-rules/editor.tsx';
import { ValidationRulePage } from '../pages/validation-rules/detail.tsx';
import { ValidationRulesPage } from '../pages/validation-rules/list.tsx';
import { WebhooksPage } from '../pages/webhooks/webhooks.tsx';
import { VoucherPage, VouchersPage } from '../pages/vouchers/list.tsx';

// The console's screens: where each lives and which API route it reads (the navigation shows a section
// only when the role may read it). A screen with `needs` opens only for a role that may call that route;
// others get a short explanation (or, at the home page, the first section they may open).

export interface Screen {
  path: string;
  element: React.ReactNode;
  needs?: readonly ['GET' | 'POST' | 'PUT' | 'DELETE', string];
  /** What a session that may not open the screen is told, when "your role may not" would mislead. */
  refused?: string;
}

const CREATES_CAMPAIGN = ['POST', '/v1/campaigns'] as const;

export const SCREENS: Screen[] = [
  { path: '/', element: <HomePage />, needs: ['GET', '/v1/reports/daily'] },
  { path: '/campaigns', element: <CampaignsPage /> },
  { path: '/campaigns/new', element: <NewCampaignPage />, needs: CREATES_CAMPAIGN },
  { path: '/campaigns/new/promotion', element: <NewPromotionPage />, needs: CREATES_CAMPAIGN },
  { path: '/campaigns/new/gift', element: <NewGiftCampaignPage />, needs: CREATES_CAMPAIGN },
  { path: '/campaigns/new/loyalty', element: <NewLoyaltyCampaignPage />, needs: CREATES_CAMPAIGN },
  { path: '/campaigns/new/referral', element: <NewReferralCampaignPage />, needs: CREATES_CAMPAIGN },
  { path: '/campaigns/:campaignId', element: <CampaignDetailPage /> },
  { path: '/campaigns/:campaignId/edit', element: <CampaignEditPage />, needs: ['PUT', '/v1/campaigns/:campaignId'] },
  { path: '/vouchers', element: <VouchersPage /> },
  { path: '/vouchers/:code', element: <VoucherPage /> },
  { path: '/customers', element: <CustomersPage /> },
  { path: '/customers/:customerId', element: <CustomerPage /> },
  { path: '/redemptions', element: <RedemptionsPage /> },
  { path: '/orders', element: <OrdersPage /> },
  { path: '/orders/:orderId', element: <OrderPage /> },
  { path: '/products', element: <ProductsPage /> },
  { path: '/products/collections', element: <CollectionsPage /> },
  { path: '/products/collections/:collectionId', element: <CollectionPage /> },
  { path: '/products/:productId', element: <ProductPage /> },
  { path: '/loyalty', element: <LoyaltyProgramsPage /> },
  { path: '/loyalty/:campaignId', element: <LoyaltyProgramPage /> },
  { path: '/validation-rules', element: <ValidationRulesPage />, needs: ['GET', '/v1/validation-rules'] },
  { path: '/validation-rules/new', element: <NewValidationRulePage />, needs: ['POST', '/v1/validation-rules'] },
  { path: '/validation-rules/:ruleId', element: <ValidationRulePage />, needs: ['GET', '/v1/validation-rules'] },
  { path: '/validation-rules/:ruleId/edit', element: <EditValidationRulePage />, needs: ['GET', '/v1/validation-rules'] },
  { path: '/segments', element: <SegmentsPage />, needs: ['GET', '/v1/segments'] },
  { path: '/segments/new', element: <NewSegmentPage />, needs: ['POST', '/v1/segments'] },
  { path: '/segments/:segmentId', element: <SegmentPage />, needs: ['GET', '/v1/segments'] },
  { path: '/metadata-schemas', element: <MetadataSchemasPage />, needs: ['GET', '/management/v1/projects/:projectId/metadata-schemas'] },
  { path: '/metadata-schemas/new', element: <NewMetadataSchemaPage />, needs: ['POST', '/management/v1/projects/:projectId/metadata-schemas'] },
  { path: '/metadata-schemas/:schemaId', element: <MetadataSchemaPage />, needs: ['GET', '/management/v1/projects/:projectId/metadata-schemas'] },
  { path: '/consents', element: <ConsentsPage />, needs: ['GET', '/management/v1/projects/:projectId/consents'] },
  { path: '/configure', element: <ConfigurePage />, needs: ['GET', '/v1/segments'] },
  { path: '/configure/branding', element: <BrandingPage />, needs: ['GET', '/management/v1/projects/:projectId/branding'] },
  { path: '/exports', element: <ExportsPage />, needs: ['GET', '/v1/exports'] },
  { path: '/webhooks', element: <WebhooksPage />, needs: ['GET', '/management/v1/projects/:projectId/webhooks'] },
  { path: '/settings', element: <SettingsPage />, needs: ['GET', '/management/v1/projects/:projectId'] },
  // The organisation's projects: for its owner only (the one console user the server lets list them).
  { path: '/projects', element: <ProjectsPage />, needs: ['GET', '/management/v1/projects'], refused: "Only the organisation's owner manages its projects from the console." },
  // Every role has an account (the header's account menu leads here).
  { path: '/account', element: <AccountPage /> },
];

export const NAVIGATION: Array<{ to: string; label: string; route: string }> = [
  { to: '/', label: 'Home', route: '/v1/reports/daily' },
  { to: '/campaigns', label: 'Campaigns', route: '/v1/campaigns' },
  { to: '/vouchers', label: 'Vouchers', route: '/v1/vouchers' },
  { to: '/customers', label: 'Customers', route: '/v1/customers' },
  { to: '/redemptions', label: 'Redemptions', route: '/v1/redemptions' },
  { to: '/orders', label: 'Orders', route: '/v1/orders' },
  { to: '/products', label: 'Products', route: '/v1/products' },
  { to: '/loyalty', label: 'Loyalty', route: '/v1/loyalties' },
  { to: '/validation-rules', label: 'Rules', route: '/v1/validation-rules' },
  { to: '/configure', label: 'Setup', route: '/v1/segments' },
  { to: '/exports', label: 'Exports', route: '/v1/exports' },
  { to: '/webhooks', label: 'Webhooks', route: '/management/v1/projects/:projectId/webhooks' },
  { to: '/settings', label: 'Settings', route: '/management/v1/projects/:projectId' },
  { to: '/projects', label: 'Projects', route: '/management/v1/projects' },
];
