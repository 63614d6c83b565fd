import '@mantine/core/styles.css';
import { createTheme, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { PreferencesPage } from './PreferencesPage.tsx';
import { WalletPage } from './WalletPage.tsx';

// The customer cockpit (README "Customer cockpit"): a second entry of the console's Vite build, served at
// /cockpit (the wallet) and /cockpit/preferences (the preference center). Two pages, no router: moving
// between them is a plain link that keeps the token in the fragment.

const theme = createTheme({ defaultRadius: 'md', fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' });

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: true, staleTime: 5_000 } },
});

const preferences = window.location.pathname.replace(/\/+$/, '').endsWith('/preferences');

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <QueryClientProvider client={queryClient}>{preferences ? <PreferencesPage /> : <WalletPage />}</QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
