import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, TEST_ORIGIN, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { addUser, ADMIN, createFirstAdmin, signIn, type ConsoleClient } from '../helpers/console.ts';

// A project's API keys through the management API (Punchcard extension): the list names the keys and
// never shows a secret; rotating retires the old key at once (401, and its OAuth tokens with it) and answers
// the new secret once; only the management key and a console ADMIN of the project may do either.

describe('management API: project API keys', () => {
  let t: TestApp;
  let shop = '';
  let server: KeyPairOut;
  let client: KeyPairOut;
  let admin: ConsoleClient;
  const keys = (projectId: string) => `/management/v1/projects/${projectId}/api-keys`;
  const customers = (keys: KeyPairOut) => t.request('GET', '/v1/customers', { headers: t.serverHeaders(keys) });

  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
    // A second project whose keys were generated (the default project's are fixed by the environment in
    // tests), with the first admin as its ADMIN from the start.
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Shop', case_sensitive_codes: true, timezone: 'UTC', currency: 'EUR', client_trusted_domains: [TEST_ORIGIN], users: [{ login: ADMIN.email, role: 'ADMIN' }] },
    });
    assert.equal(created.status, 200, created.text);
    shop = created.body.id;
    server = created.body.server_side_key;
    client = created.body.client_side_key;
    admin = await signIn(t, ADMIN.email, ADMIN.password);
    const switched = await admin.request('PUT', '/console/v1/session', { json: { project_id: shop } });
    assert.equal(switched.status, 200, switched.text);
  });
  after(async () => t.close());

  test('the list shows ids, kinds and dates, never a secret', async () => {
    const list = await t.request('GET', keys(shop), { headers: t.managementHeaders() });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.total, 2);
    assert.deepEqual(
      list.body.data.map((k: Record<string, unknown>) => [k.object, k.app_id, k.kind, k.fixed_by_environment]),
      [['api_key', server.app_id, 'server', false], ['api_key', client.app_id, 'client', false]],
    );
    for (const key of list.body.data) {
      assert.match(key.id, /^key_/);
      assert.ok(!Number.isNaN(Date.parse(key.created_at)));
      assert.deepEqual(Object.keys(key).sort(), ['app_id', 'created_at', 'fixed_by_environment', 'id', 'kind', 'name', 'object']);
    }
    assert.ok(!list.text.includes(server.app_token) && !list.text.includes(client.app_token), 'no secret in the answer');

    const byAdmin = await admin.request('GET', keys(shop));
    assert.equal(byAdmin.status, 200);
    assert.deepEqual(byAdmin.body, list.body, 'a console ADMIN sees the same list');
  });

  test('rotating the server key: the old key gets 401 at once, with its OAuth tokens; the new one works', async () => {
    const token = await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(server), form: { grant_type: 'client_credentials', scope: 'api' } });
    assert.equal(token.status, 200, token.text);
    assert.equal((await customers(server)).status, 200);

    const rotated = await t.request('POST', `${keys(shop)}/${server.app_id}/rotate`, { headers: t.managementHeaders() });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.kind, 'server');
    assert.equal(rotated.body.replaces, server.app_id);
    assert.notEqual(rotated.body.app_id, server.app_id);
    assert.equal(typeof rotated.body.app_token, 'string');
    const fresh = { app_id: rotated.body.app_id, app_token: rotated.body.app_token };

    const old = await customers(server);
    assert.equal(old.status, 401);
    assert.equal(old.body.key, 'unauthorized');
    const bearer = await t.request('GET', '/v1/customers', { headers: { authorization: `Bearer ${token.body.access_token}` } });
    assert.equal(bearer.status, 401, 'a token issued to the old key stops working with it');
    assert.equal((await customers(fresh)).status, 200);

    const list = await t.request('GET', keys(shop), { headers: t.managementHeaders() });
    assert.deepEqual(list.body.data.map((k: { app_id: string }) => k.app_id), [fresh.app_id, client.app_id]);
    assert.ok(!list.text.includes(fresh.app_token));
    server = fresh;

    const again = await t.request('POST', `${keys(shop)}/${rotated.body.replaces}/rotate`, { headers: t.managementHeaders() });
    assert.equal(again.status, 404, 'a retired key cannot be rotated again');
  });

  test('a console ADMIN rotates the client key (with the CSRF token); the old client key gets 401', async () => {
    const before = await t.request('GET', '/client/v1/consents', { headers: t.clientHeaders(client) });
    assert.equal(before.status, 200, before.text);
    const list = await admin.request('GET', keys(shop));
    const id = list.body.data.find((k: { kind: string }) => k.kind === 'client').id;

    const noCsrf = await admin.request('POST', `${keys(shop)}/${id}/rotate`, { csrf: false });
    assert.equal(noCsrf.status, 403);
    assert.equal((await t.request('GET', '/client/v1/consents', { headers: t.clientHeaders(client) })).status, before.status, 'refused without CSRF: nothing changed');

    const rotated = await admin.request('POST', `${keys(shop)}/${id}/rotate`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.kind, 'client');
    assert.equal(rotated.body.replaces, client.app_id);
    const old = await t.request('GET', '/client/v1/consents', { headers: t.clientHeaders(client) });
    assert.equal(old.status, 401);
    const fresh = await t.request('GET', '/client/v1/consents', { headers: t.clientHeaders({ app_id: rotated.body.app_id, app_token: rotated.body.app_token }) });
    assert.equal(fresh.status, before.status);
  });

  test('keys fixed by the environment are listed but not rotated; unknown keys and projects are 404', async () => {
    const list = await t.request('GET', keys(t.projectId), { headers: t.managementHeaders() });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((k: { fixed_by_environment: boolean }) => k.fixed_by_environment), [true, true]);
    const refused = await t.request('POST', `${keys(t.projectId)}/${list.body.data[0].app_id}/rotate`, { headers: t.managementHeaders() });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'api_key_fixed_by_environment');
    assert.match(refused.body.details, /PUNCHCARD_APP_ID/);
    assert.equal((await t.request('GET', '/v1/customers')).status, 200, 'the fixed key still works');

    assert.equal((await t.request('POST', `${keys(shop)}/key_missing/rotate`, { headers: t.managementHeaders() })).status, 404);
    assert.equal((await t.request('GET', keys('proj_missing'), { headers: t.managementHeaders() })).status, 404);
    // A key of another project is not found through this one.
    assert.equal((await t.request('POST', `${keys(t.projectId)}/${server.app_id}/rotate`, { headers: t.managementHeaders() })).status, 404);
  });

  test('VIEWER and USER sessions may neither list nor rotate (403); an ADMIN only in its own project', async () => {
    const defaultKeys = (await t.request('GET', keys(t.projectId), { headers: t.managementHeaders() })).body.data;
    for (const role of ['VIEWER', 'USER', 'MERCHANT']) {
      const session = await addUser(t, `${role.toLowerCase()}@shop.example.com`, role);
      const list = await session.request('GET', keys(t.projectId));
      assert.equal(list.status, 403, `${role} lists`);
      assert.equal(list.body.key, 'missing_required_permission');
      const rotate = await session.request('POST', `${keys(t.projectId)}/${defaultKeys[1].id}/rotate`);
      assert.equal(rotate.status, 403, `${role} rotates`);
    }
    const elsewhere = await admin.request('GET', keys(t.projectId));
    assert.equal(elsewhere.status, 403, "a session works in its own project only (the admin's is now the shop)");
    assert.equal((await t.request('GET', '/v1/customers')).status, 200);
  });
});
