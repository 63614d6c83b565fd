import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { lenientBodyKind } from './request-leniency.ts';

// The OpenAPI document is generated from the route schemas (so it cannot describe a route that does not
// exist), served at /openapi.json, rendered at /docs (Redoc, below), and committed as openapi.json with a
// drift check.

export const OPENAPI_INFO = {
  title: 'Punchcard API',
  version: 'v2018-08-01',
  description:
    'Self-hostable promotion and loyalty engine whose REST API is wire-compatible with the Voucherify API v2018-08-01. ' +
    'Server-side calls use X-App-Id/X-App-Token or an OAuth bearer token; client-side calls use ' +
    'X-Client-Application-Id/X-Client-Token with a trusted origin; management calls use X-Management-Id/X-Management-Token.',
  license: { name: 'MIT', identifier: 'MIT' },
};

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      components: {
        securitySchemes: {
          'X-App-Id': { type: 'apiKey', in: 'header', name: 'X-App-Id' },
          'X-App-Token': { type: 'apiKey', in: 'header', name: 'X-App-Token' },
          'X-Client-Application-Id': { type: 'apiKey', in: 'header', name: 'X-Client-Application-Id' },
          'X-Client-Token': { type: 'apiKey', in: 'header', name: 'X-Client-Token' },
          'X-Management-Id': { type: 'apiKey', in: 'header', name: 'X-Management-Id' },
          'X-Management-Token': { type: 'apiKey', in: 'header', name: 'X-Management-Token' },
          'X-Service-OAuth': {
            type: 'oauth2',
            flows: { clientCredentials: { tokenUrl: '/v1/oauth/token', scopes: {} } },
          },
          // The console's session (POST /console/v1/session); changes also need the X-CSRF-Token header.
          ConsoleSession: { type: 'apiKey', in: 'cookie', name: 'punchcard_session' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const area: Array<Record<string, string[]>> = url.startsWith('/management/v1')
        ? [{ 'X-Management-Id': [], 'X-Management-Token': [] }, { ConsoleSession: [] }]
        : url.startsWith('/client/v1')
          ? [{ 'X-Client-Application-Id': [], 'X-Client-Token': [] }, { 'X-Service-OAuth': [] }]
          : url.startsWith('/v1/oauth')
            ? [{ 'X-App-Id': [], 'X-App-Token': [] }]
            : url.startsWith('/v1')
              ? [{ 'X-App-Id': [], 'X-App-Token': [] }, { 'X-Service-OAuth': [] }, { ConsoleSession: [] }]
              : url.startsWith('/console/v1')
                ? [{ ConsoleSession: [] }]
                : [];
      const withSecurity = route.config?.auth === 'public' || area.length === 0 ? schema : { ...schema, security: area };
      return { schema: withSecurity, url };
    },
    // The generator marks every request body required; where an operation requires no members, the
    // leniency rule (./request-leniency.ts) takes a request without one, and the document says so.
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      for (const operations of Object.values(openapiObject.paths ?? {})) {
        for (const operation of Object.values(operations as Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } }>)) {
          const body = operation?.requestBody;
          if (body?.content?.['application/json'] && lenientBodyKind(body.content['application/json'].schema) !== null) body.required = false;
        }
      }
      return openapiObject;
    },
  });

  // Built once: the document only changes with the code, and it is large (every schema inline).
  let document: string | null = null;
  const openapiJson = () => (document ??= JSON.stringify(app.swagger()));
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    reply.type('application/json; charset=utf-8').header('Cache-Control', 'public, max-age=300');
    return openapiJson();
  });

  let page: string | null = null;
  app.get('/docs', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    page ??= docsPage(JSON.parse(openapiJson()) as OpenApiDocument);
    reply.type('text/html; charset=utf-8').header('Content-Security-Policy', DOCS_POLICY);
    return page;
  });
  app.get(INIT_PATH, { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    reply.type('text/javascript; charset=utf-8');
    return INIT_SCRIPT;
  });
  app.get(REDOC_PATH, { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=86400');
    return createReadStream(REDOC_BUNDLE);
  });
}

// The API reference at /docs is Redoc (README "API reference"): a maintained renderer, served from our
// own node_modules so the page works offline and behind firewalls (no CDN). Redoc needs a moment to lay
// out a document of this size, so the page first shows a summary drawn here from the same document — the
// API, how to authenticate, every operation by area with a link into the reference — and Redoc replaces
// it when ready.
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
const REDOC_PATH = '/docs/redoc.standalone.js';
const INIT_PATH = '/docs/reference.js';

// The page and Redoc load nothing from elsewhere; Redoc's footer logo, which it links from its CDN, is
// blocked by this policy (Redoc then hides it). Redoc styles with inline styles and searches in a worker.
const DOCS_POLICY = [
  "default-src 'self'",
  "script-src 'self' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
].join('; ');

interface OpenApiDocument {
  info: { title: string; description?: string; version: string };
  paths: Record<string, Record<string, { summary?: string; tags?: string[]; operationId?: string }>>;
  components?: { securitySchemes?: Record<string, { type: string; in?: string; name?: string }> };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const REDOC_OPTIONS = {
  // Search across operations and schemas (Redoc's own index).
  disableSearch: false,
  expandResponses: '200',
  jsonSampleExpandLevel: 3,
  hideHostname: false,
  sortTagsAlphabetically: true,
  theme: { colors: { primary: { main: '#1d4ed8' } }, typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } },
};

// Redoc lays out in a hidden element and takes the summary's place once it is ready.
const INIT_SCRIPT = `Redoc.init('/openapi.json', ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'), function (error) {
  if (error) { document.getElementById('loading').textContent = 'The full reference could not be loaded: ' + error.message; return; }
  document.getElementById('summary').remove();
  document.getElementById('redoc').hidden = false;
});
`;

function docsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, Array<{ method: string; path: string; summary: string; operationId: string | undefined }>>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] ?? 'Other';
      const list = byTag.get(tag) ?? [];
      list.push({ method: method.toUpperCase(), path, summary: op.summary ?? '', operationId: op.operationId });
      byTag.set(tag, list);
    }
  }
  const schemes = Object.entries(doc.components?.securitySchemes ?? {})
    .map(([name, scheme]) => `<li><code>${escapeHtml(name)}</code> — ${escapeHtml(scheme.type === 'apiKey' ? `header ${scheme.name ?? name}` : scheme.type)}</li>`)
    .join('');
  const areas = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([tag, ops]) =>
        `<section><h2>${escapeHtml(tag)}</h2><ul>${ops
          .map((op) => {
            const anchor = op.operationId ? `#operation/${encodeURIComponent(op.operationId)}` : '#';
            return `<li><a href="${anchor}"><b class="m ${op.method}">${op.method}</b> <code>${escapeHtml(op.path)}</code></a> ${escapeHtml(op.summary)}</li>`;
          })
          .join('')}</ul></section>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1d2330}
#summary{max-width:1100px;margin:0 auto;padding:24px}
#summary h1{font-size:26px;margin:0 0 8px}#summary h2{font-size:17px;margin:22px 0 6px;border-bottom:1px solid #e4e6eb}
#summary ul{margin:0;padding-left:18px}#summary .m{font:600 11px monospace;padding:1px 6px;border-radius:3px;color:#fff}
.GET{background:#2f7ed8}.POST{background:#3a9d5d}.PUT{background:#c7841a}.DELETE{background:#c9463d}.PATCH{background:#7a55c7}
#loading{background:#eef2ff;padding:8px 12px;border-radius:6px}
</style></head><body>
<div id="redoc" hidden></div>
<div id="summary">
<h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
<p>${escapeHtml(doc.info.description ?? '')}</p>
<p id="loading">Loading the full reference (search, request and response examples)… The document itself is at <a href="/openapi.json">/openapi.json</a>.</p>
<h2>Authentication</h2><ul>${schemes}</ul>
${areas}
</div>
<script src="${REDOC_PATH}"></script>
<script src="${INIT_PATH}"></script>
</body></html>`;
}
