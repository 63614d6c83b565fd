import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, TEST_ORIGIN, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Each credential kind against: allowed, wrong secret, unknown id, missing, wrong scope, wrong origin,
// another project's resource, revoked and expired (DECISIONS 3).

interface Case {
  name: string;
  method: string;
  path: () => string;
  headers: () => Record<string, string>;
  json?: () => unknown;
  status: number;
  key?: string;
}

describe('authentication matrix', () => {
  let t: TestApp;
  let ownCustomerId = '';
  let otherCustomerId = '';
  let otherServer: KeyPairOut;
  let otherClient: KeyPairOut;
  let deletedServer: KeyPairOut;
  let token = '';
  let productsToken = '';
  let clientToken = '';
  let revokedToken = '';
  let expiredToken = '';
  let otherToken = '';

  const issue = async (scope: string, keys?: KeyPairOut) => {
    const res = await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(keys), form: { grant_type: 'client_credentials', scope } });
    assert.equal(res.status, 200, res.text);
    return res.body.access_token as string;
  };
  const newProject = async (name: string) => {
    const res = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name, case_sensitive_codes: false, timezone: 'UTC', currency: 'USD', client_trusted_domains: ['https://other.example.com'], client_create_customer_enabled: true },
    });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    t = await startTestApp();
    await t.allowClientActions();
    ownCustomerId = (await t.request('POST', '/v1/customers', { json: { source_id: 'own' } })).body.id;
    const other = await newProject('Other');
    otherServer = other.server_side_key;
    otherClient = other.client_side_key;
    otherCustomerId = (await t.request('POST', '/v1/customers', { headers: t.serverHeaders(otherServer), json: { source_id: 'theirs' } })).body.id;
    const doomed = await newProject('Doomed');
    deletedServer = doomed.server_side_key;
    assert.equal((await t.request('DELETE', `/management/v1/projects/${doomed.id}`, { headers: t.managementHeaders() })).status, 204);

    expiredToken = await issue('customers');
    t.clock.advance(901_000);
    token = await issue('customers');
    productsToken = await issue('products');
    clientToken = await issue('client_customers');
    otherToken = await issue('customers', otherServer);
    revokedToken = await issue('customers');
    assert.equal((await t.request('POST', '/v1/oauth/token/revoke', { form: { access_token: revokedToken } })).status, 204);
  });
  after(async () => t.close());

  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  const ownPath = () => `/v1/customers/${ownCustomerId}`;
  const clientCreate = (sourceId: string) => () => ({ source_id: sourceId });

  const cases: Case[] = [
    // Server-side key pair
    { name: 'server keys: allowed', method: 'GET', path: ownPath, headers: () => t.serverHeaders(), status: 200 },
    { name: 'server keys: wrong secret', method: 'GET', path: ownPath, headers: () => ({ 'X-App-Id': 'test-app-id-0001', 'X-App-Token': 'wrong-secret-000' }), status: 401, key: 'unauthorized' },
    { name: 'server keys: unknown id', method: 'GET', path: ownPath, headers: () => ({ 'X-App-Id': 'nobody-12345', 'X-App-Token': 'test-app-secret-0001' }), status: 401, key: 'unauthorized' },
    { name: 'server keys: missing', method: 'GET', path: ownPath, headers: () => ({}), status: 401, key: 'unauthorized' },
    { name: 'server keys: id only', method: 'GET', path: ownPath, headers: () => ({ 'X-App-Id': 'test-app-id-0001' }), status: 401, key: 'unauthorized' },
    { name: 'server keys: client key pair in server headers', method: 'GET', path: ownPath, headers: () => ({ 'X-App-Id': 'test-client-id-0001', 'X-App-Token': 'test-client-secret-0001' }), status: 401, key: 'unauthorized' },
    { name: "server keys: another project's customer", method: 'GET', path: () => `/v1/customers/${otherCustomerId}`, headers: () => t.serverHeaders(), status: 404, key: 'not_found' },
    { name: "server keys: another project's keys on our customer", method: 'GET', path: ownPath, headers: () => t.serverHeaders(otherServer), status: 404, key: 'not_found' },
    { name: "server keys: another project's keys cannot change our customer", method: 'PUT', path: ownPath, headers: () => t.serverHeaders(otherServer), json: () => ({ name: 'hijack' }), status: 404, key: 'not_found' },
    { name: 'server keys: deleted project', method: 'GET', path: () => '/v1/customers', headers: () => t.serverHeaders(deletedServer), status: 401, key: 'unauthorized' },
    { name: 'server keys on the client-side API', method: 'POST', path: () => '/client/v1/customers', headers: () => ({ ...t.serverHeaders(), origin: TEST_ORIGIN }), json: clientCreate('s1'), status: 401, key: 'unauthorized' },
    { name: 'server keys on the management API', method: 'GET', path: () => '/management/v1/projects', headers: () => t.serverHeaders(), status: 401, key: 'unauthorized' },
    // Client-side key pair
    { name: 'client keys: allowed', method: 'POST', path: () => '/client/v1/customers', headers: () => t.clientHeaders(), json: clientCreate('c-allowed'), status: 200 },
    { name: 'client keys: wrong secret', method: 'POST', path: () => '/client/v1/customers', headers: () => ({ ...t.clientHeaders(), 'X-Client-Token': 'wrong-secret-000' }), json: clientCreate('c2'), status: 401, key: 'unauthorized' },
    { name: 'client keys: missing', method: 'POST', path: () => '/client/v1/customers', headers: () => ({ origin: TEST_ORIGIN }), json: clientCreate('c3'), status: 401, key: 'unauthorized' },
    { name: 'client keys: wrong origin', method: 'POST', path: () => '/client/v1/customers', headers: () => t.clientHeaders(undefined, 'https://evil.example.com'), json: clientCreate('c4'), status: 403, key: 'forbidden' },
    { name: 'client keys: no origin', method: 'POST', path: () => '/client/v1/customers', headers: () => { const { origin: _o, ...rest } = t.clientHeaders(); return rest; }, json: clientCreate('c5'), status: 403, key: 'forbidden' },
    { name: "client keys: another project's origin list applies", method: 'POST', path: () => '/client/v1/customers', headers: () => t.clientHeaders(otherClient, TEST_ORIGIN), json: clientCreate('c6'), status: 403, key: 'forbidden' },
    { name: 'client keys on the server-side API', method: 'GET', path: ownPath, headers: () => ({ 'X-App-Id': 'test-client-id-0001', 'X-App-Token': 'test-client-secret-0001' }), status: 401, key: 'unauthorized' },
    // Bearer tokens
    { name: 'bearer: allowed', method: 'GET', path: ownPath, headers: () => bearer(token), status: 200 },
    { name: 'bearer: garbage token', method: 'GET', path: ownPath, headers: () => bearer('not-a-token'), status: 401, key: 'unauthorized' },
    { name: 'bearer: malformed header', method: 'GET', path: ownPath, headers: () => ({ authorization: 'Basic abc' }), status: 401, key: 'unauthorized' },
    { name: 'bearer: wrong scope', method: 'GET', path: ownPath, headers: () => bearer(productsToken), status: 403, key: 'missing_required_permission' },
    { name: 'bearer: server scope on the client-side API', method: 'POST', path: () => '/client/v1/customers', headers: () => bearer(token), json: clientCreate('b1'), status: 403, key: 'missing_required_permission' },
    { name: 'bearer: client scope on the client-side API', method: 'POST', path: () => '/client/v1/customers', headers: () => bearer(clientToken), json: clientCreate('b2'), status: 200 },
    { name: 'bearer: client scope on the server-side API', method: 'GET', path: ownPath, headers: () => bearer(clientToken), status: 403, key: 'missing_required_permission' },
    { name: "bearer: another project's token", method: 'GET', path: ownPath, headers: () => bearer(otherToken), status: 404, key: 'not_found' },
    { name: 'bearer: revoked', method: 'GET', path: ownPath, headers: () => bearer(revokedToken), status: 401, key: 'unauthorized' },
    { name: 'bearer: expired', method: 'GET', path: ownPath, headers: () => bearer(expiredToken), status: 401, key: 'unauthorized' },
    { name: 'bearer on the management API', method: 'GET', path: () => '/management/v1/projects', headers: () => bearer(token), status: 401, key: 'unauthorized' },
    // Management keys
    { name: 'management keys: allowed', method: 'GET', path: () => '/management/v1/projects', headers: () => t.managementHeaders(), status: 200 },
    { name: 'management keys: wrong secret', method: 'GET', path: () => '/management/v1/projects', headers: () => ({ ...t.managementHeaders(), 'X-Management-Token': 'wrong-secret-000' }), status: 401, key: 'unauthorized' },
    { name: 'management keys on the server-side API', method: 'GET', path: ownPath, headers: () => t.managementHeaders(), status: 401, key: 'unauthorized' },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const res = await t.request(c.method, c.path(), { headers: c.headers(), ...(c.json ? { json: c.json() } : {}) });
      assert.equal(res.status, c.status, `${c.method} ${c.path()} → ${res.status} ${res.text}`);
      if (c.key) {
        assert.equal(res.body.key, c.key);
        assert.equal(res.body.code, c.status);
        assert.equal(typeof res.body.request_id, 'string');
      }
    });
  }

  test("a failed attempt on another project's customer changed nothing", async () => {
    const own = await t.request('GET', ownPath());
    assert.equal(own.body.name, null);
  });

  test('client-side creation: only new customers, only where the project allows it', async () => {
    const existing = await t.request('POST', '/client/v1/customers', { headers: t.clientHeaders(), json: { source_id: 'own', name: 'Overwrite?' } });
    assert.equal(existing.status, 409);
    assert.equal(existing.body.key, 'duplicate_found');
    assert.equal(existing.body.name, undefined);
    assert.equal((await t.request('GET', ownPath())).body.name, null, 'the existing customer is untouched');

    const off = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Client off', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD', client_trusted_domains: [TEST_ORIGIN] },
    });
    const refused = await t.request('POST', '/client/v1/customers', { headers: t.clientHeaders(off.body.client_side_key), json: { source_id: 'x' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.key, 'forbidden');

    // The official client SDK drives the same call; the answer carries CORS headers for the page.
    // The SDK types the answer as confirmed-or-unconfirmed customer; Punchcard always answers a confirmed one.
    const created = (await t.clientSdk().createCustomer({ source_id: 'from-the-page', email: 'page@example.com' })) as {
      id: string;
      source_id: string;
      email: string;
    };
    assert.equal(created.source_id, 'from-the-page');
    assert.equal(created.email, 'page@example.com');
    const raw = await fetch(`${t.url}/client/v1/customers`, {
      method: 'POST',
      headers: { ...t.clientHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ source_id: 'cors-check' }),
    });
    assert.equal(raw.headers.get('access-control-allow-origin'), TEST_ORIGIN);

    const activity = await t.request('GET', `/v1/customers/${created.id}/activity`);
    assert.equal(activity.body.data[0].data.event_source.channel, 'CLIENT_API');
  });
});
