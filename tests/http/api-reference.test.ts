import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { makeAjv } from '../../src/api/checks.ts';
import { SUMMARY_MAX_CHARS } from '../../src/http/plugins/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// README "API reference": /openapi.json speaks to API users in plain words (no pointers to documents
// they cannot read), and /docs is Redoc served from Punchcard itself, with a summary that shows at once.
// The browser side is tests/browser/docs.test.ts.

const INTERNAL = /\b(seed|DECISIONS|ARCHITECTURE)\b|\breference \d|\b(platform|promotions|loyalty|vendor) reference\b/i;

describe('API reference', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('no summary or description of the OpenAPI document mentions an internal document', async () => {
    const res = await t.request('GET', '/openapi.json', { headers: {} });
    assert.equal(res.status, 200);
    const found: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}[${i}]`));
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if ((key === 'summary' || key === 'description' || key === 'title') && typeof value === 'string' && INTERNAL.test(value)) found.push(`${path}.${key}: ${value}`);
          walk(value, `${path}.${key}`);
        }
      }
    };
    walk(res.body, '');
    assert.deepEqual(found, []);
  });

  test('every operation has an example, and every example is valid against its schema and reads like real data', async () => {
    const res = await t.request('GET', '/openapi.json', { headers: {} });
    assert.equal(res.status, 200);
    type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { $ref?: string }> };
    type Operation = { parameters?: Array<{ name: string; in: string; schema?: unknown; example?: unknown }>; requestBody?: { content?: Record<string, Media> }; responses?: Record<string, { content?: Record<string, Media> }> };
    const doc = res.body as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown>; examples: Record<string, { value: unknown }> } };
    // The schemas as the server's validators hold them (src/api/checks.ts), the document's `$ref`s read from the document itself.
    const ajv = makeAjv({ coerceTypes: false, useDefaults: false, logger: false });
    const base = 'https://punchcard.invalid/openapi.json';
    ajv.addSchema({ $id: base, components: { schemas: doc.components.schemas } });
    const problems: string[] = [];
    const check = (where: string, schema: unknown, value: unknown): void => {
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${base}#/components/schemas/`)) as object);
      if (!validate(structuredClone(value))) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      const placeholders = JSON.stringify(value).match(/"string"/g);
      if (placeholders) problems.push(`${where}: a placeholder string`);
    };
    for (const [name, example] of Object.entries(doc.components.examples)) check(`components/examples/${name}`, { $ref: `#/components/schemas/${name}` }, example.value);
    const without: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const medias = [...Object.values(operation.requestBody?.content ?? {}), ...Object.values(operation.responses ?? {}).flatMap((response) => Object.values(response.content ?? {}))];
        let shown = false;
        for (const media of medias) {
          if (media.example !== undefined) check(`${method} ${path}`, media.schema, media.example);
          for (const { $ref } of Object.values(media.examples ?? {})) assert.ok($ref && doc.components.examples[$ref.replace('#/components/examples/', '')], `${method} ${path}: ${$ref} is declared`);
          shown ||= media.example !== undefined || media.examples !== undefined;
        }
        for (const parameter of operation.parameters ?? []) {
          if (parameter.example === undefined) continue;
          check(`${method} ${path} ${parameter.name}`, parameter.schema, parameter.example);
          shown = true;
        }
        // Only an operation that takes and answers nothing (signing out) has nothing to show.
        const takesOrAnswers = medias.length > 0 || (operation.parameters ?? []).some((parameter) => parameter.in === 'path');
        if (!shown && takesOrAnswers) without.push(`${method} ${path}`);
      }
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(without, [], 'operations without an example');
    // Drawn from the member names where the schema says no more (src/http/plugins/openapi-examples.ts).
    const customer = doc.components.examples.Customer?.value as Record<string, unknown>;
    assert.match(String(customer.id), /^cust_[0-9a-f]{20}$/);
    assert.match(String(customer.email), /^[^@\s]+@example\.com$/);
  });

  test('/docs shows a summary at once and loads Redoc from this server only', async () => {
    const page = await t.request('GET', '/docs', { headers: {} });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.text, /<h2>Authentication<\/h2>/);
    assert.match(page.text, /X-Management-Token/);
    assert.match(page.text, /href="#operation\/createCustomer"/, 'summary links lead into the reference');
    const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(scripts, ['/docs/redoc.standalone.js', '/docs/reference.js']);
    assert.doesNotMatch(page.text, /https?:\/\//, 'no other host');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);

    const bundle = await fetch(`${t.url}/docs/redoc.standalone.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await bundle.text()).length > 500_000, 'the Redoc bundle from node_modules');
    const init = await t.request('GET', '/docs/reference.js', { headers: {} });
    assert.match(init.text, /Redoc\.init\('\/openapi\.json'/);
  });

  test(`every operation summary fits the sidebar (at most ${SUMMARY_MAX_CHARS} characters); a longer text is the description`, async () => {
    const doc = (await t.request('GET', '/openapi.json', { headers: {} })).body as { paths: Record<string, Record<string, { summary?: string; description?: string }>> };
    const long: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        operations++;
        assert.ok(operation.summary, `${method} ${path} has a summary`);
        if (operation.summary.length > SUMMARY_MAX_CHARS) long.push(`${operation.summary.length} ${method} ${path}: ${operation.summary}`);
      }
    }
    assert.ok(operations > 200, `${operations} operations`);
    assert.deepEqual(long, []);
    // What a route said beyond the summary is kept, first in the description.
    const redeem = doc.paths['/v1/redemptions']?.post;
    assert.equal(redeem?.summary, 'Redeem redeemables in one transaction');
    assert.match(redeem?.description ?? '', /^Redeem redeemables in one transaction; a failure answers 400/);
    assert.equal(doc.paths['/v1/vouchers/{code}/redemption']?.post?.summary, 'Redeem one voucher (legacy)');
  });

  test('the QR code and barcode operations are documented as the images they answer', async () => {
    type Content = Record<string, { schema?: { type?: string; format?: string } }>;
    const doc = (await t.request('GET', '/openapi.json', { headers: {} })).body as { paths: Record<string, { get?: { responses: Record<string, { content?: Content }> } }> };
    for (const path of ['/v1/assets/qr/{assetId}', '/v1/assets/barcode/{assetId}']) {
      const content = doc.paths[path]?.get?.responses['200']?.content ?? {};
      assert.deepEqual(Object.keys(content).sort(), ['image/png', 'image/svg+xml'], path);
      assert.deepEqual({ type: content['image/png']?.schema?.type, format: content['image/png']?.schema?.format }, { type: 'string', format: 'binary' }, path);
      assert.equal(content['image/svg+xml']?.schema?.type, 'string');
    }
  });

  test('a favicon of our own for /docs and the console (SVG, and ICO at the path browsers try); the Redoc bundle asks no CDN for its logo', async () => {
    const docs = await t.request('GET', '/docs', { headers: {} });
    assert.match(docs.text, /<link rel="icon" type="image\/svg\+xml" href="\/favicon\.svg">/);
    const svg = await fetch(`${t.url}/favicon.svg`);
    assert.equal(svg.status, 200);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(await svg.text(), /^<svg xmlns='http:\/\/www\.w3\.org\/2000\/svg' viewBox='0 0 16 16'>.*<\/svg>$/);
    const ico = await fetch(`${t.url}/favicon.ico`);
    assert.equal(ico.status, 200);
    assert.equal(ico.headers.get('content-type'), 'image/x-icon');
    const bytes = Buffer.from(await ico.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image of 32×32 whose PNG starts right after the directory.
    assert.deepEqual([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4), bytes[6], bytes[7]], [0, 1, 1, 32, 32]);
    const offset = bytes.readUInt32LE(18);
    assert.equal(offset, 22);
    assert.equal(bytes.readUInt32LE(14), bytes.length - offset);
    assert.deepEqual([...bytes.subarray(offset, offset + 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

    const original = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    assert.ok(original.includes('https://cdn.redoc.ly/'), 'the installed Redoc links its logo from its CDN');
    const served = await (await fetch(`${t.url}/docs/redoc.standalone.js`)).text();
    assert.ok(!served.includes('https://cdn.'), 'the served bundle does not');
    assert.equal(served.length, original.length - 'https://cdn.redoc.ly/redoc/logo-mini.svg'.length + 'data:,'.length);
  });
});
