import { CampaignDetailPage } from '../pages/campaigns/detail.tsx';
import { CampaignsPage } from '../pages/campaigns/list.tsx';
import { NewCampaignPage } from '../pages/campaigns/new.tsx';
import { HomePage } from '../pages/home.tsx';
import { RedemptionsPage } from '../pages/redemptions/list.tsx';

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
  { path: '/redemptions', element: <RedemptionsPage /> },
];

export const NAVIGATION: Array<{ to: string; label: string; route: string }> = [
  { to: '/', label: 'Home', route: '/v1/reports/daily' },
  { to: '/campaigns', label: 'Campaigns', route: '/v1/campaigns' },
  { to: '/redemptions', label: 'Redemptions', route: '/v1/redemptions' },
];
