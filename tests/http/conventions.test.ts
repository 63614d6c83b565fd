import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN, createFirstAdmin, signIn } from '../helpers/console.ts';

// HTTP conventions every route shares (ARCHITECTURE "HTTP conventions", DECISIONS 1, 2, 4, 5, 7).

const project = { name: 'Conventions', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' };

async function projectCount(t: TestApp): Promise<number> {
  const list = await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() });
  return list.body.total as number;
}

describe('HTTP conventions', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('every answer carries a request id, the same one as in an error body', async () => {
    const ok = await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() });
    assert.match(ok.headers.get('x-request-id') ?? '', /^v-[0-9a-f]{18}$/);
    const bad = await t.request('GET', '/management/v1/projects/nope', { headers: t.managementHeaders() });
    assert.equal(bad.body.request_id, bad.headers.get('x-request-id'));
    assert.notEqual(ok.headers.get('x-request-id'), bad.headers.get('x-request-id'));
  });

  test('malformed JSON is 400 malformed_json and changes nothing', async () => {
    const count = await projectCount(t);
    const res = await t.request('POST', '/management/v1/projects', {
      headers: { ...t.managementHeaders(), 'content-type': 'application/json' },
      body: '{"name": "x", ',
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 400);
    assert.equal(res.body.key, 'malformed_json');
    assert.equal(typeof res.body.request_id, 'string');
    assert.equal(await projectCount(t), count);
  });

  test('a wrong type names the offending property and changes nothing', async () => {
    const count = await projectCount(t);
    const res = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: { ...project, name: 42 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.key, 'invalid_payload');
    assert.equal(res.body.details, 'Property .name should be string');
    const nested = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { ...project, client_trusted_domains: ['https://ok.example.com', 7] },
    });
    assert.equal(nested.status, 400);
    assert.equal(nested.body.details, 'Property .client_trusted_domains[1] should be string');
    const notObject = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: [1, 2] });
    assert.equal(notObject.status, 400);
    assert.equal(notObject.body.details, 'Payload should be object');
    assert.equal(await projectCount(t), count);
  });

  test('a body over 10 MiB is 413 payload_too_large', async () => {
    const huge = JSON.stringify({ ...project, description: 'x'.repeat(10 * 1024 * 1024 + 10) });
    const res = await t.request('POST', '/management/v1/projects', {
      headers: { ...t.managementHeaders(), 'content-type': 'application/json' },
      body: huge,
    });
    assert.equal(res.status, 413);
    assert.equal(res.body.key, 'payload_too_large');
    assert.equal(res.body.code, 413);
  });

  test('an unsupported content type is 415', async () => {
    const res = await t.request('POST', '/management/v1/projects', {
      headers: { ...t.managementHeaders(), 'content-type': 'text/plain' },
      body: 'name=x',
    });
    assert.equal(res.status, 415);
    assert.equal(res.body.key, 'unsupported_media_type');
  });

  test('unknown routes are 404 and wrong methods 405, in the vendor body', async () => {
    const unknown = await t.request('GET', '/v1/nothing-here', { headers: t.serverHeaders() });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.key, 'not_found');
    const wrongMethod = await t.request('PATCH', '/management/v1/projects', { headers: t.managementHeaders() });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.body.code, 405);
    assert.equal(wrongMethod.body.key, 'method_not_allowed');
    assert.match(wrongMethod.headers.get('allow') ?? '', /GET/);
    assert.match(wrongMethod.headers.get('allow') ?? '', /POST/);
  });

  test('SDK quirks: trailing slashes, JSON content type on bodiless DELETE, unknown headers and query keys', async () => {
    const slash = await t.request('GET', '/management/v1/projects/', { headers: t.managementHeaders() });
    assert.equal(slash.status, 200);
    const extra = await t.request('GET', '/management/v1/projects?_=12345&whatever[a]=1', {
      headers: { ...t.managementHeaders(), 'X-Voucherify-Channel': 'Voucherify Documentation', 'X-Voucherify-API-Version': 'v2018-08-01' },
    });
    assert.equal(extra.status, 200);
    const created = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: { ...project, name: 'Bodiless delete' } });
    const deleted = await t.request('DELETE', `/management/v1/projects/${created.body.id}`, {
      headers: { ...t.managementHeaders(), 'content-type': 'application/json' },
    });
    assert.equal(deleted.status, 204);
  });

  test('rate limits are off by default and, when a project sets them, answer 429 with headers', async () => {
    const plain = await t.request('POST', '/v1/oauth/introspect', { headers: t.serverHeaders(), form: { access_token: 'x' } });
    assert.equal(plain.headers.get('x-rate-limit-limit'), null);

    const limited = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { ...project, name: 'Limited', limits: { api_calls: [{ value: 2, duration: 'PT1H' }] } },
    });
    const keys = limited.body.server_side_key;
    const call = () => t.request('POST', '/v1/oauth/introspect', { headers: t.serverHeaders(keys), form: { access_token: 'x' } });
    const first = await call();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-rate-limit-limit'), '2');
    assert.equal(first.headers.get('x-rate-limit-remaining'), '1');
    assert.match(first.headers.get('x-rate-limit-retry') ?? '', /^\d+$/);
    assert.equal((await call()).status, 200);
    const third = await call();
    assert.equal(third.status, 429);
    assert.equal(third.body.key, 'too_many_requests');
    assert.ok(Number(third.headers.get('retry-after')) >= 1);

    // Lifting the limit takes effect at once.
    const lifted = await t.request('PUT', `/management/v1/projects/${limited.body.id}`, { headers: t.managementHeaders(), json: { limits: null } });
    assert.equal(lifted.status, 200);
    assert.equal((await call()).status, 200);
  });

  test('NUL characters in paths, queries and bodies are 400, never a database error', async () => {
    const inPath = await t.request('GET', '/v1/customers/%00abc');
    assert.equal(inPath.status, 400);
    assert.equal(inPath.body.key, 'invalid_query_params');
    const inQuery = await t.request('GET', '/v1/customers?email=a%00b');
    assert.equal(inQuery.status, 400);
    const inBody = await t.request('POST', '/v1/customers', { json: { source_id: 'nul\u0000id' } });
    assert.equal(inBody.status, 400);
    assert.equal(inBody.body.key, 'invalid_payload');
    const nested = await t.request('POST', '/v1/customers', { json: { source_id: 'ok-nul', metadata: { deep: ['x\u0000'] } } });
    assert.equal(nested.status, 400);
  });

  test('a body nested 10,000 levels deep is 400 on every operation that takes JSON, before any handler runs', async () => {
    const doc = (await t.request('GET', '/openapi.json', { headers: {} })).body as { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };
    const levels = 10_000;
    const bodies = {
      'nested arrays': `${'['.repeat(levels)}${']'.repeat(levels)}`,
      'nested objects in a member': `{"metadata":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`,
      // Brackets inside strings are text, not nesting; the deep part follows them.
      'after bracket-filled strings': `{"name":"[[[{{{\\"]]]","x":${'['.repeat(levels)}${']'.repeat(levels)}}`,
    };
    // Console routes take a signed-in session (cookie and CSRF token).
    await createFirstAdmin(t);
    const session = await signIn(t, ADMIN.email, ADMIN.password);
    const consoleHeaders = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    const headersFor = (path: string): Record<string, string> =>
      path.startsWith('/management/')
        ? t.managementHeaders()
        : path.startsWith('/client/')
          ? t.clientHeaders()
          : path.startsWith('/console/')
            ? consoleHeaders
            : t.serverHeaders();
    let swept = 0;
    const failures: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation.requestBody?.content?.['application/json']) continue;
        swept++;
        const path = template.replace(/\{[^}]+\}/g, 'x_deep');
        for (const [name, body] of Object.entries(bodies)) {
          const res = await t.request(method.toUpperCase(), path, { headers: { ...headersFor(path), 'content-type': 'application/json' }, body });
          const standard =
            res.body?.code === 400 && res.body.key === 'invalid_payload' && typeof res.body.message === 'string' && typeof res.body.request_id === 'string' && /64 levels/.test(res.body.details);
          if (res.status !== 400 || !standard) failures.push(`${method.toUpperCase()} ${template} (${name}) → ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    assert.ok(swept > 80, `${swept} operations take a JSON body`);
    assert.deepEqual(failures, []);
  });

  test('a body at the nesting limit still reaches validation; query strings cannot nest deeper than the query parser allows', async () => {
    // 64 levels: the body parser lets it through and the schema names the first wrong member instead.
    const atLimit = await t.request('POST', '/v1/customers', { headers: { ...t.serverHeaders(), 'content-type': 'application/json' }, body: `{"name":${'['.repeat(63)}${']'.repeat(63)}}` });
    assert.equal(atLimit.status, 400);
    assert.equal(atLimit.body.details, 'Property .name should be string,null');
    const deepQuery = `filters${'[a]'.repeat(2_000)}=1`;
    for (const path of ['/v1/vouchers', '/v1/customers', '/v1/redemptions', '/v1/orders']) {
      const res = await t.request('GET', `${path}?${deepQuery}`);
      assert.ok(res.status < 500, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  });

  test('date-times are stored and answered in UTC with milliseconds, whatever offset was sent', async () => {
    const created = await t.request('POST', '/v1/campaigns', {
      json: {
        name: 'Offset dates',
        campaign_type: 'DISCOUNT_COUPONS',
        start_date: '2026-05-01T10:00:00+02:00',
        expiration_date: '2026-06-01T00:00:00Z',
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.start_date, '2026-05-01T08:00:00.000Z');
    assert.equal(created.body.expiration_date, '2026-06-01T00:00:00.000Z');
  });

  test('client-side preflight is answered for browsers', async () => {
    const res = await fetch(`${t.url}/client/v1/customers`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /X-Client-Token/);
  });

  test('health, readiness, metrics, OpenAPI and docs are served', async () => {
    const health = await t.request('GET', '/health', { headers: {} });
    assert.deepEqual(health.body, { status: 'ok' });
    const ready = await t.request('GET', '/ready', { headers: {} });
    assert.deepEqual(ready.body, { status: 'ready' });
    const metrics = await t.request('GET', '/metrics', { headers: {} });
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /punchcard_http_requests_total\{method="GET",route="\/management\/v1\/projects",status="200"\}/);
    const openapi = await t.request('GET', '/openapi.json', { headers: {} });
    assert.equal(openapi.body.openapi, '3.1.0');
    assert.ok(openapi.body.paths['/management/v1/projects']);
    assert.ok(openapi.body.paths['/v1/oauth/token']);
    const docs = await t.request('GET', '/docs', { headers: {} });
    assert.match(docs.headers.get('content-type') ?? '', /text\/html/);
    assert.match(docs.text, /openapi\.json/);
  });
});
