import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { NAMED_SCHEMAS } from '../../api/components.ts';
import { PrecompressedBody } from './compression.ts';
import { exampleOf } from './openapi-examples.ts';
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
  // The named schemas the operations refer to, filled as the generator walks the routes.
  const components: Record<string, unknown> = {};
  // One example per named schema an operation takes or answers (components/examples).
  const examples: Record<string, unknown> = {};
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
          // The customer cockpit's JSON API: the token of the customer's cockpit link (after `#token=`).
          CockpitToken: { type: 'apiKey', in: 'header', name: 'X-Cockpit-Token' },
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
                : url.startsWith('/cockpit/v1')
                  ? [{ CockpitToken: [] }]
                  : [];
      // Cockpit routes are public to the key check (auth: 'public'); the link's token is checked by the routes.
      const keyless = route.config?.auth === 'public' && !url.startsWith('/cockpit/v1');
      const secured = keyless || area.length === 0 ? schema : { ...schema, security: area };
      // A GET that writes says so (src/http/plugins/auth.ts `writes`): a console session sends its CSRF token.
      const withSecurity = route.config?.writes === true ? { ...secured, 'x-punchcard-writes': true } : secured;
      return { schema: withComponentRefs(withSecurity, components), url };
    },
    // The generator marks every request body required; where an operation requires no members, the
    // leniency rule (./request-leniency.ts) takes a request without one, and the document says so.
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      openapiObject.components = { ...openapiObject.components, schemas: sortedByName(components) as Record<string, object>, responses: { Error: ERROR_RESPONSE } };
      for (const operations of Object.values(openapiObject.paths ?? {})) {
        for (const operation of Object.values(operations as Record<string, DocumentOperation>)) {
          const body = operation?.requestBody;
          if (body?.content?.['application/json'] && lenientBodyKind(resolved(body.content['application/json'].schema, components)) !== null) body.required = false;
          // The generator describes a body by its schema's description, which a `$ref` does not carry.
          const bodyDescription = (resolved(body?.content?.['application/json']?.schema, components) as { description?: unknown } | undefined)?.description;
          if (body && body.description === undefined && typeof bodyDescription === 'string') body.description = bodyDescription;
          // Every error answer has the one error body: one shared response instead of a copy per status.
          for (const [status, response] of Object.entries(operation?.responses ?? {})) {
            if (Number(status) >= 400 && isErrorResponse(response)) (operation.responses as Record<string, unknown>)[status] = { $ref: '#/components/responses/Error' };
          }
          addExamples(operation, components, examples);
          shortenSummary(operation);
        }
      }
      openapiObject.components.examples = sortedByName(examples) as Record<string, object>;
      return openapiObject;
    },
  });

  // Built and compressed once: the document only changes with the code.
  const openapiJson = new PrecompressedBody(() => JSON.stringify(app.swagger()));
  const docs = new PrecompressedBody(async () => docsPage(JSON.parse((await openapiJson.plain()).toString('utf8')) as OpenApiDocument));
  const initScript = new PrecompressedBody(() => INIT_SCRIPT);
  const redocBundle = new PrecompressedBody(async () => withoutRemoteLogo(await readFile(REDOC_BUNDLE, 'utf8')));
  // The plugin leaves these alone: they send their kept compressed bytes.
  const route = () => ({ schema: { hide: true }, config: { auth: 'public' as const }, compress: false as const });
  app.get('/openapi.json', route(), async (request, reply) => {
    reply.type('application/json; charset=utf-8').header('Cache-Control', 'public, max-age=300');
    return openapiJson.send(request, reply);
  });
  app.get('/docs', route(), async (request, reply) => {
    reply.type('text/html; charset=utf-8').header('Content-Security-Policy', DOCS_POLICY);
    return docs.send(request, reply);
  });
  app.get(INIT_PATH, route(), async (request, reply) => {
    reply.type('text/javascript; charset=utf-8');
    return initScript.send(request, reply);
  });
  app.get(REDOC_PATH, route(), async (request, reply) => {
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=86400');
    return redocBundle.send(request, reply);
  });
}

// ---- named schemas ----

// Each named schema of the contract (src/api/components.ts) is declared once under components/schemas
// and referred to with `$ref` from request bodies and responses. A schema is recognised by its content,
// so a `Type.Optional` copy of a named schema is the same component.
const COMPONENT_BY_CONTENT = new Map<string, string>();
for (const [name, schema] of NAMED_SCHEMAS) if (!COMPONENT_BY_CONTENT.has(JSON.stringify(schema))) COMPONENT_BY_CONTENT.set(JSON.stringify(schema), name);

const contentOf = new WeakMap<object, string>();
function componentNameOf(node: object): string | undefined {
  let text = contentOf.get(node);
  if (text === undefined) {
    text = JSON.stringify(node);
    contentOf.set(node, text);
  }
  return COMPONENT_BY_CONTENT.get(text);
}

/** A copy of `node` with every named schema in it replaced by a `$ref`, each named schema put into `components`. */
function liftNamed(node: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => liftNamed(item, components));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([member, schema]) => [member, liftNamed(schema, components)]))
        : liftNamed(value, components);
  }
  const name = componentNameOf(node);
  if (name === undefined) return out;
  components[name] ??= asOpenApi(out);
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * A named schema as the generator writes the schemas it inlines (@fastify/swagger's conversion, which
 * components do not go through): `const` as a one-value `enum`, `patternProperties` as
 * `additionalProperties`, `contentEncoding` as `format`, no `$id`/`$schema`/`definitions`.
 */
function asOpenApi(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asOpenApi);
  if (typeof node !== 'object' || node === null) return node;
  // Same member order as the generator's: converted members move to the end.
  const out: Record<string, unknown> = { ...node };
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id' || key === '$schema' || key === 'definitions') delete out[key];
    else if (key === 'const') {
      delete out.const;
      out.enum = [value];
    } else if (key === 'contentEncoding') {
      delete out.contentEncoding;
      if (value === 'binary') out.format = 'binary';
      else if (value === 'base64') out.format = 'byte';
    } else if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
      delete out.patternProperties;
      out.additionalProperties = asOpenApi(Object.values(value)[0]);
    } else if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([member, sub]) => [member, asOpenApi(sub)]));
    } else out[key] = asOpenApi(value);
  }
  return out;
}

/** A named body or response: its `$ref`, keeping its description, which the generator makes the response's. */
function liftTop(node: unknown, components: Record<string, unknown>): unknown {
  const lifted = liftNamed(node, components) as Record<string, unknown>;
  const description = (node as { description?: unknown } | null)?.description;
  return typeof lifted?.$ref === 'string' && typeof description === 'string' ? { ...lifted, description } : lifted;
}

/** The route schema with its body and responses referring to named schemas. */
function withComponentRefs<T extends { body?: unknown; response?: unknown }>(schema: T, components: Record<string, unknown>): T {
  const out = { ...schema };
  if (schema.body !== undefined) out.body = liftTop(schema.body, components);
  if (typeof schema.response === 'object' && schema.response !== null) {
    out.response = Object.fromEntries(Object.entries(schema.response).map(([status, response]) => [status, liftTop(response, components)]));
  }
  return out;
}

interface DocumentOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Array<{ in?: string; name?: string; schema?: unknown; example?: unknown }>;
  requestBody?: { required?: boolean; description?: string; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, unknown>;
}

const ERROR_REF = '#/components/schemas/Error';
const ERROR_RESPONSE = { description: 'Error: the standard body (code, key, message, details, request_id)', content: { 'application/json': { schema: { $ref: ERROR_REF } } } };

function isErrorResponse(response: unknown): boolean {
  const content = (response as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content;
  return content !== undefined && Object.keys(content).length === 1 && content['application/json']?.schema?.$ref === ERROR_REF;
}

/** The schema a `$ref` to a named schema stands for (other schemas as they are). */
function resolved(schema: unknown, components: Record<string, unknown>): unknown {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === 'string' && ref.startsWith('#/components/schemas/') ? components[ref.slice('#/components/schemas/'.length)] : schema;
}

// ---- summaries ----

/**
 * The longest summary: Redoc's sidebar and the summary list of /docs show each operation's summary on a
 * line or two, which a reader scans. A route's summary may say more (what is refused, which async action
 * it starts); the document then keeps its first clause as the summary and the whole text as the first
 * paragraph of the description.
 */
export const SUMMARY_MAX_CHARS = 70;

function shortenSummary(operation: DocumentOperation): void {
  const full = operation.summary;
  if (full === undefined || full.length <= SUMMARY_MAX_CHARS) return;
  const head = firstClause(full);
  if (head === null) throw new Error(`${operation.operationId ?? 'an operation'}: summary longer than ${SUMMARY_MAX_CHARS} characters without a first clause that fits: "${full}"`);
  // Old-style operations keep the word in the sidebar.
  const legacy = /\(legacy\b/.test(full) && !head.includes('legacy') && head.length + ' (legacy)'.length <= SUMMARY_MAX_CHARS;
  operation.summary = legacy ? `${head} (legacy)` : head;
  operation.description = operation.description === undefined ? `${full}.` : `${full}.\n\n${operation.description}`;
}

/** The text up to the first clause break (`; `, ` (`, `: `, ` — `, `, `) that leaves a summary of a few words that fits. */
function firstClause(text: string): string | null {
  for (const match of text.matchAll(/; | \(|: | — |, /g)) {
    const head = text.slice(0, match.index);
    // "Punchcard extension: …" marks operations the vendor does not have; the clause is what follows.
    if (head === 'Punchcard extension') continue;
    if (head.length >= 12 && head.length <= SUMMARY_MAX_CHARS) return head;
    if (head.length > SUMMARY_MAX_CHARS) return null;
  }
  return null;
}

// ---- examples ----

// Every operation shows an example of what it answers (and of the body it takes), drawn from the schema
// (./openapi-examples.ts). An example of a named schema is declared once under components/examples.

type MediaObject = { schema?: unknown; example?: unknown; examples?: Record<string, unknown> };

/** Sets the media object's example: a reference to the named schema's example, or one drawn inline. */
function setExample(media: MediaObject, components: Record<string, unknown>, examples: Record<string, unknown>): void {
  const ref = (media.schema as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    examples[name] ??= { summary: name, value: exampleOf(media.schema, components) };
    media.examples = { [name]: { $ref: `#/components/examples/${name}` } };
  } else {
    media.example = exampleOf(media.schema, components);
  }
}

function addExamples(operation: DocumentOperation, components: Record<string, unknown>, examples: Record<string, unknown>): void {
  let shown = false;
  // The JSON body, or the one other kind an operation takes (the OAuth form).
  const content = operation.requestBody?.content ?? {};
  const body = (content['application/json'] ?? Object.values(content)[0]) as MediaObject | undefined;
  if (body?.schema) {
    setExample(body, components, examples);
    shown = true;
  }
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    const media = (response as { content?: Record<string, MediaObject> }).content?.['application/json'];
    if (media?.schema) {
      setExample(media, components, examples);
      shown = true;
    }
  }
  // An operation that takes and answers no JSON (a delete answering 204) shows example path values.
  if (!shown) for (const parameter of operation.parameters ?? []) if (parameter.in === 'path') parameter.example = exampleOf(parameter.schema, components, parameter.name);
}

function sortedByName(components: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
}

// The API reference at /docs is Redoc (README "API reference"): a maintained renderer, served from our
// own node_modules so the page works offline and behind firewalls (no CDN). Redoc needs a moment to lay
// out a document of this size, so the page first shows a summary drawn here from the same document — the
// API, how to authenticate, every operation by area with a link into the reference — and Redoc replaces
// it when ready.
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
const REDOC_PATH = '/docs/redoc.standalone.js';

// Redoc's sidebar footer shows a logo from Redocly's CDN, which the page's policy blocks (a console error
// on every visit) and no option turns off. The bundle is served with that address replaced by an empty
// image, which Redoc's own error handling then hides: no request leaves, nothing is blocked. The link
// text "API docs by Redocly" stays.
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

export function withoutRemoteLogo(bundle: string): string {
  return bundle.replaceAll(REDOC_REMOTE_LOGO, 'data:,');
}
const INIT_PATH = '/docs/reference.js';

// The page and Redoc load nothing from elsewhere. Redoc styles with inline styles and searches in a worker.
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
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
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
