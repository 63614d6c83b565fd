import { CampaignDetailPage } from '../pages/campaigns/detail.tsx';
import { CampaignsPage } from '../pages/campaigns/list.tsx';
import { NewCampaignPage } from '../pages/campaigns/new.tsx';
import { HomePage } from '../pages/home.tsx';
import { CustomerPage, CustomersPage } from '../pages/customers/customers.tsx';
import { RedemptionsPage } from '../pages/redemptions/list.tsx';
import { SettingsPage } from '../pages/settings/settings.tsx';
import { VoucherPage, VouchersPage } from '../pages/vouchers/list.tsx';

// The console's screens: where each lives and which API route it reads (the navigation shows a section
// only when the role may read it).

export interface Screen {
  path: string;
  element: React.ReactNode;
}

export const SCREENS: Screen[] = [
  { path: '/', element: <HomePage /> },
  { path: '/campaigns', element: <CampaignsPage /> },
  { path: '/campaigns/new', element: <NewCampaignPage /> },
  { path: '/campaigns/:campaignId', element: <CampaignDetailPage /> },
  { path: '/vouchers', element: <VouchersPage /> },
  { path: '/vouchers/:code', element: <VoucherPage /> },
  { path: '/customers', element: <CustomersPage /> },
  { path: '/customers/:customerId', element: <CustomerPage /> },
  { path: '/redemptions', element: <RedemptionsPage /> },
  { path: '/settings', element: <SettingsPage /> },
];

export const NAVIGATION: Array<{ to: string; label: string; route: string }> = [
  { to: '/', label: 'Home', route: '/v1/reports/daily' },
  { to: '/campaigns', label: 'Campaigns', route: '/v1/campaigns' },
  { to: '/vouchers', label: 'Vouchers', route: '/v1/vouchers' },
  { to: '/customers', label: 'Customers', route: '/v1/customers' },
  { to: '/redemptions', label: 'Redemptions', route: '/v1/redemptions' },
  { to: '/settings', label: 'Settings', route: '/management/v1/projects/:projectId' },
];
