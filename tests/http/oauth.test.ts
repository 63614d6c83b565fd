import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// OAuth 2.0 tokens: seed 4.2, 4.3, part 5; DECISIONS 3 and 8.

describe('OAuth tokens', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const issue = (scope: string, headers = t.serverHeaders()) =>
    t.request('POST', '/v1/oauth/token', { headers, form: { grant_type: 'client_credentials', scope } });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  test('issues a token record as seed 2.13 describes', async () => {
    const res = await issue('customers products');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'client_id', 'expires_at', 'expires_in', 'scope', 'token_type']);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.scope, 'customers products');
    assert.equal(res.body.expires_in, 900);
    assert.equal(res.body.client_id, t.serverHeaders()['X-App-Id']);
    const issuedAt = Math.floor(t.clock.now().getTime() / 1000);
    assert.ok(Math.abs(res.body.expires_at - (issuedAt + 900)) <= 1);
    assert.ok(res.body.access_token.length >= 32);
  });

  test('a token opens exactly the path prefixes of its scopes', async () => {
    const { body } = await issue('customers');
    const customers = await t.request('GET', '/v1/customers', { headers: bearer(body.access_token) });
    assert.equal(customers.status, 200);
    const one = await t.request('GET', '/v1/customers/cust_missing', { headers: bearer(body.access_token) });
    assert.equal(one.status, 404, 'inside the prefix, the route answers normally');
    const products = await t.request('GET', '/v1/products', { headers: bearer(body.access_token) });
    assert.equal(products.status, 403);
    assert.equal(products.body.key, 'missing_required_permission');
    const client = await t.request('GET', '/client/v1/customers', { headers: bearer(body.access_token) });
    assert.ok(client.status === 403 || client.status === 404 || client.status === 405);

    const api = await issue('api');
    assert.equal((await t.request('GET', '/v1/products', { headers: bearer(api.body.access_token) })).status, 200);
    assert.equal((await t.request('GET', '/v1/categories', { headers: bearer(api.body.access_token) })).status, 200);
  });

  test('the SDK-style request with a token works for writes too', async () => {
    const { body } = await issue('customers');
    const created = await t.request('POST', '/v1/customers', { headers: bearer(body.access_token), json: { source_id: 'oauth-customer', name: 'Via token' } });
    assert.equal(created.status, 200);
    assert.equal(created.body.source_id, 'oauth-customer');
  });

  test('scopes are separated by spaces; commas and unknown names are invalid_scope', async () => {
    const commas = await issue('vouchers,campaigns');
    assert.equal(commas.status, 400);
    assert.equal(commas.body.key, 'invalid_scope');
    assert.equal(commas.body.message, 'Invalid scope: vouchers,campaigns');
    const unknown = await issue('customers wallets');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.key, 'invalid_scope');
    assert.match(unknown.body.message, /wallets/);
    const empty = await issue(' ');
    assert.equal(empty.status, 400);
    assert.equal(empty.body.key, 'invalid_scope');
  });

  test('grant_type must be client_credentials; missing fields are missing_parameters', async () => {
    const wrong = await t.request('POST', '/v1/oauth/token', { form: { grant_type: 'password', scope: 'api' } });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.key, 'invalid_grant_type');
    const missingGrant = await t.request('POST', '/v1/oauth/token', { form: { scope: 'api' } });
    assert.equal(missingGrant.status, 400);
    assert.equal(missingGrant.body.key, 'missing_parameters');
    const missingScope = await t.request('POST', '/v1/oauth/token', { form: { grant_type: 'client_credentials' } });
    assert.equal(missingScope.body.key, 'missing_parameters');
    const noBody = await t.request('POST', '/v1/oauth/token', {});
    assert.equal(noBody.status, 400);
  });

  test('token endpoints take the server key pair only', async () => {
    const { body } = await issue('api');
    const withToken = await t.request('POST', '/v1/oauth/token', {
      headers: bearer(body.access_token),
      form: { grant_type: 'client_credentials', scope: 'api' },
    });
    assert.equal(withToken.status, 401);
    const withClientKeys = await t.request('POST', '/v1/oauth/token', {
      headers: t.clientHeaders(),
      form: { grant_type: 'client_credentials', scope: 'api' },
    });
    assert.equal(withClientKeys.status, 401);
  });

  test('revocation stops a token at once; unknown or repeated revocation is 404', async () => {
    const { body } = await issue('customers');
    assert.equal((await t.request('GET', '/v1/customers', { headers: bearer(body.access_token) })).status, 200);
    const revoked = await t.request('POST', '/v1/oauth/token/revoke', { form: { access_token: body.access_token } });
    assert.equal(revoked.status, 204);
    assert.equal(revoked.text, '');
    const after = await t.request('GET', '/v1/customers', { headers: bearer(body.access_token) });
    assert.equal(after.status, 401);
    assert.equal(after.body.key, 'unauthorized');
    const again = await t.request('POST', '/v1/oauth/token/revoke', { form: { access_token: body.access_token } });
    assert.equal(again.status, 404);
    const unknown = await t.request('POST', '/v1/oauth/token/revoke', { form: { access_token: 'no-such-token' } });
    assert.equal(unknown.status, 404);
    const missing = await t.request('POST', '/v1/oauth/token/revoke', { form: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.key, 'missing_parameters');
  });

  test('tokens expire with the clock', async () => {
    const { body } = await issue('customers');
    t.clock.advance(899_000);
    assert.equal((await t.request('GET', '/v1/customers', { headers: bearer(body.access_token) })).status, 200);
    t.clock.advance(2_000);
    const expired = await t.request('GET', '/v1/customers', { headers: bearer(body.access_token) });
    assert.equal(expired.status, 401);
    const introspected = await t.request('POST', '/v1/oauth/introspect', { form: { access_token: body.access_token } });
    assert.deepEqual(introspected.body, { active: false });
  });

  test('introspection reports active tokens with their remaining life', async () => {
    const { body } = await issue('customers products');
    t.clock.advance(100_000);
    const res = await t.request('POST', '/v1/oauth/introspect', { form: { access_token: body.access_token } });
    assert.equal(res.status, 200);
    assert.equal(res.body.active, true);
    assert.equal(res.body.scope, 'customers products');
    assert.ok(res.body.expires_in <= 800 && res.body.expires_in >= 798, String(res.body.expires_in));
    assert.equal(res.body.expires_at, body.expires_at);
    const unknown = await t.request('POST', '/v1/oauth/introspect', { form: { access_token: 'nope' } });
    assert.deepEqual(unknown.body, { active: false });
    const missing = await t.request('POST', '/v1/oauth/introspect', { form: {} });
    assert.equal(missing.body.key, 'missing_parameters');
  });

  test("another project's keys can neither use, inspect nor revoke a token", async () => {
    const other = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const otherKeys = t.serverHeaders(other.body.server_side_key);
    const { body } = await issue('customers');
    const inspect = await t.request('POST', '/v1/oauth/introspect', { headers: otherKeys, form: { access_token: body.access_token } });
    assert.deepEqual(inspect.body, { active: false });
    const revoke = await t.request('POST', '/v1/oauth/token/revoke', { headers: otherKeys, form: { access_token: body.access_token } });
    assert.equal(revoke.status, 404);
    assert.equal((await t.request('GET', '/v1/customers', { headers: bearer(body.access_token) })).status, 200);

    // A token of the other project sees only the other project's data.
    const created = await t.request('POST', '/v1/customers', { json: { source_id: 'home-only' } });
    const otherToken = await issue('customers', otherKeys);
    const peek = await t.request('GET', `/v1/customers/${created.body.id}`, { headers: bearer(otherToken.body.access_token) });
    assert.equal(peek.status, 404);
  });

  test('at most 1000 live tokens per project', async () => {
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Token limit', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const keys = t.serverHeaders(created.body.server_side_key);
    const answers: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(Array.from({ length: 100 }, () => issue('api', keys)));
      answers.push(...results.map((r) => r.status));
    }
    assert.equal(answers.filter((s) => s === 200).length, 1000);
    const over = await issue('api', keys);
    assert.equal(over.status, 429);
    assert.equal(over.body.key, 'limit_exceeded');
  });
});
