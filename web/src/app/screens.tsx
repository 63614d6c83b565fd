import { CampaignDetailPage } from '../pages/campaigns/detail.tsx';
import { CampaignsPage } from '../pages/campaigns/list.tsx';
import { NewCampaignPage } from '../pages/campaigns/new.tsx';
import { NewGiftCampaignPage, NewLoyaltyCampaignPage, NewReferralCampaignPage } from '../pages/campaigns/new-code-campaigns.tsx';
import { NewPromotionPage } from '../pages/campaigns/new-promotion.tsx';
import { ExportsPage } from '../pages/exports/exports.tsx';
import { HomePage } from '../pages/home.tsx';
import { CustomerPage, CustomersPage } from '../pages/customers/customers.tsx';
import { LoyaltyProgramsPage } from '../pages/loyalty/list.tsx';
import { LoyaltyProgramPage } from '../pages/loyalty/program.tsx';
import { RedemptionsPage } from '../pages/redemptions/list.tsx';
import { SettingsPage } from '../pages/settings/settings.tsx';
import { WebhooksPage } from '../pages/webhooks/webhooks.tsx';
import { VoucherPage, VouchersPage } from '../pages/vouchers/list.tsx';

// The console's screens: where each lives and which API route it reads (the navigation shows a section
// only when the role may read it). A screen with `needs` opens only for a role that may call that route;
// others get a short explanation (or, at the home page, the first section they may open).

export interface Screen {
  path: string;
  element: React.ReactNode;
  needs?: readonly ['GET' | 'POST', string];
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
  { path: '/vouchers', element: <VouchersPage /> },
  { path: '/vouchers/:code', element: <VoucherPage /> },
  { path: '/customers', element: <CustomersPage /> },
  { path: '/customers/:customerId', element: <CustomerPage /> },
  { path: '/redemptions', element: <RedemptionsPage /> },
  { path: '/loyalty', element: <LoyaltyProgramsPage /> },
  { path: '/loyalty/:campaignId', element: <LoyaltyProgramPage /> },
  { path: '/exports', element: <ExportsPage />, needs: ['GET', '/v1/exports'] },
  { path: '/webhooks', element: <WebhooksPage />, needs: ['GET', '/management/v1/projects/:projectId/webhooks'] },
  { path: '/settings', element: <SettingsPage />, needs: ['GET', '/management/v1/projects/:projectId'] },
];

export const NAVIGATION: Array<{ to: string; label: string; route: string }> = [
  { to: '/', label: 'Home', route: '/v1/reports/daily' },
  { to: '/campaigns', label: 'Campaigns', route: '/v1/campaigns' },
  { to: '/vouchers', label: 'Vouchers', route: '/v1/vouchers' },
  { to: '/customers', label: 'Customers', route: '/v1/customers' },
  { to: '/redemptions', label: 'Redemptions', route: '/v1/redemptions' },
  { to: '/loyalty', label: 'Loyalty', route: '/v1/loyalties' },
  { to: '/exports', label: 'Exports', route: '/v1/exports' },
  { to: '/webhooks', label: 'Webhooks', route: '/management/v1/projects/:projectId/webhooks' },
  { to: '/settings', label: 'Settings', route: '/management/v1/projects/:projectId' },
];
