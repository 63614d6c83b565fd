import { HomePage } from '../pages/home.tsx';

// The console's screens: where each lives and which API route it reads (the navigation shows a section
// only when the role may read it).

export interface Screen {
  path: string;
  element: React.ReactNode;
}

export const SCREENS: Screen[] = [{ path: '/', element: <HomePage /> }];

export const NAVIGATION: Array<{ to: string; label: string; route: string }> = [{ to: '/', label: 'Home', route: '/v1/reports/daily' }];
