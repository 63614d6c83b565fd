import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// One Vite project for the web pages the Punchcard server serves: the merchant console (index.html, at
// /dashboard) and the customer cockpit (cockpit.html, at /cockpit; both load their assets from
// /dashboard/assets/). `npm install` at the repository root builds it into web/dist
// (scripts/build-web.ts); the server serves that folder.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      input: {
        console: fileURLToPath(new URL('index.html', import.meta.url)),
        cockpit: fileURLToPath(new URL('cockpit.html', import.meta.url)),
      },
    },
  },
  server: {
    // `npm run dev` in web/: the console against a Punchcard server on :8080.
    proxy: { '/v1': 'http://127.0.0.1:8080', '/management': 'http://127.0.0.1:8080', '/console': 'http://127.0.0.1:8080' },
    fs: { allow: ['..'] },
  },
});
