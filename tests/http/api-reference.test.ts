import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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
});
