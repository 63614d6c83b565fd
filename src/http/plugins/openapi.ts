import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

// The OpenAPI document is generated from the route schemas (so it cannot describe a route that does not
// exist), served at /openapi.json, rendered at /docs, and committed as openapi.json with a drift check.

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
  });

  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  app.get('/docs', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    return DOCS_PAGE;
  });
}

// A self-contained page that renders /openapi.json: no external assets, so it works offline.
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Punchcard API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f7f9}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}
main{max-width:1100px;margin:0 auto;padding:20px}
h2{margin:28px 0 8px;font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px}
details{background:#fff;border:1px solid #e1e3e8;border-radius:6px;margin:6px 0}
summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:center}
.m{font:600 12px monospace;padding:2px 8px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.GET{background:#2f7ed8}.POST{background:#3a9d5d}.PUT{background:#c7841a}.DELETE{background:#c9463d}.PATCH{background:#7a55c7}
code.p{font-size:14px}.s{color:#666}
.body{padding:4px 14px 12px}pre{background:#f2f3f6;padding:10px;overflow:auto;border-radius:4px;font-size:12px}
table{border-collapse:collapse}td,th{border-bottom:1px solid #eee;padding:3px 10px 3px 0;text-align:left;vertical-align:top}
</style></head><body>
<header><h1>Punchcard API</h1><div id="desc"></div></header>
<main id="ops">Loading /openapi.json…</main>
<script>
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
fetch('/openapi.json').then((r) => r.json()).then((doc) => {
  document.getElementById('desc').textContent = doc.info.description || '';
  const groups = {};
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || 'other';
      (groups[tag] = groups[tag] || []).push({ path, method: method.toUpperCase(), op });
    }
  }
  const html = [];
  for (const tag of Object.keys(groups).sort()) {
    html.push('<h2>' + esc(tag) + '</h2>');
    for (const { path, method, op } of groups[tag]) {
      const params = (op.parameters || []).map((p) => '<tr><td><code>' + esc(p.name) + '</code></td><td>' + esc(p.in) + '</td><td>' + (p.required ? 'required' : '') + '</td><td><code>' + esc(JSON.stringify(p.schema)) + '</code></td></tr>').join('');
      const body = op.requestBody ? '<h4>Request body</h4><pre>' + esc(JSON.stringify(op.requestBody.content, null, 2)) + '</pre>' : '';
      const responses = Object.entries(op.responses || {}).map(([code, r]) => '<h4>' + esc(code) + ' ' + esc(r.description) + '</h4>' + (r.content ? '<pre>' + esc(JSON.stringify(r.content, null, 2)) + '</pre>' : '')).join('');
      html.push('<details><summary><span class="m ' + method + '">' + method + '</span><code class="p">' + esc(path) + '</code><span class="s">' + esc(op.summary) + '</span></summary><div class="body">' + (op.description ? '<p>' + esc(op.description) + '</p>' : '') + (params ? '<h4>Parameters</h4><table>' + params + '</table>' : '') + body + responses + '</div></details>');
    }
  }
  document.getElementById('ops').innerHTML = html.join('');
});
</script></body></html>`;
