import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../../route-context.ts';
import { registerFavicon } from './favicon.ts';

// The console's built pages (web/, built into web/dist by `npm install`: scripts/build-web.ts), served
// at /dashboard on the API's own port. Hashed assets are cached for a year; the page itself is revalidated
// on every load, so a new build is picked up at once. Any other /dashboard path answers the page too
// (the console routes in the browser). Nothing here touches the API routes. Assets are sent compressed as
// the build left them (brotli or gzip, by the client's Accept-Encoding).

export const WEB_DIST = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

// The console talks to its own origin only; it is never framed (clickjacking) and sends no referrer.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Punchcard console</title>
<p>The console is not built yet. <code>npm install</code> builds it (or run <code>npm run build:web</code>), then reload this page.</p>`;

export async function registerConsoleAssets(app: TypedApp): Promise<void> {
  let page: string | null = null;
  const sendPage = async (_request: unknown, reply: FastifyReply) => {
    page ??= await readFile(`${WEB_DIST}index.html`, 'utf8').catch(() => null);
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8');
    return page === null ? reply.code(503).send(NOT_BUILT) : reply.send(page);
  };
  const config = { auth: 'public' as const };
  const schema = { hide: true };

  await app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: `${WEB_DIST}assets`,
      prefix: '/dashboard/assets/',
      immutable: true,
      maxAge: '365d',
      index: false,
      // The build writes each asset's .br and .gz (scripts/build-web.ts): sent as they are to a client
      // that accepts them, so no asset is compressed per request. Every asset varies by Accept-Encoding.
      preCompressed: true,
      setHeaders: (response) => response.setHeader('Vary', 'Accept-Encoding'),
      schemaHide: true,
      // The folder may not exist before the first build; the plugin then logs a warning and serves nothing.
      decorateReply: false,
    });
  });
  registerFavicon(app);
  app.get('/', { config, schema }, async (_request, reply) => reply.redirect('/dashboard/'));
  app.get('/dashboard', { config, schema }, sendPage);
  app.get('/dashboard/*', { config, schema }, sendPage);
}
