import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('management API: projects', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const newProject = {
    name: 'Second shop',
    case_sensitive_codes: false,
    timezone: 'Europe/Warsaw',
    currency: 'PLN',
    client_trusted_domains: ['https://second.example.com'],
  };

  test('creating a project answers the project and its keys, once', async () => {
    const created = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: newProject });
    assert.equal(created.status, 200);
    assert.match(created.body.id, /^proj_/);
    assert.equal(created.body.object, 'project');
    assert.equal(created.body.name, 'Second shop');
    assert.equal(created.body.case_sensitive_codes, false);
    assert.deepEqual(created.body.client_trusted_domains, ['https://second.example.com']);
    assert.equal(created.body.api_version, 'v2018-08-01');
    assert.equal(typeof created.body.server_side_key.app_id, 'string');
    assert.equal(typeof created.body.server_side_key.app_token, 'string');
    assert.equal(typeof created.body.client_side_key.app_token, 'string');

    const fetched = await t.request('GET', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders() });
    assert.equal(fetched.status, 200);
    assert.equal(fetched.body.server_side_key, undefined, 'keys are never shown again');
    assert.equal(fetched.body.name, 'Second shop');

    // The new keys work on the server-side API of the new project.
    const ok = await t.request('POST', '/v1/oauth/token', {
      headers: t.serverHeaders(created.body.server_side_key),
      form: { grant_type: 'client_credentials', scope: 'customers' },
    });
    assert.equal(ok.status, 200);
  });

  test('list answers every live project with a total', async () => {
    const list = await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() });
    assert.equal(list.status, 200);
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.data_ref, 'data');
    assert.equal(list.body.total, list.body.data.length);
    assert.ok(list.body.data.some((p: { id: string }) => p.id === t.projectId));
  });

  test('update changes only the members sent', async () => {
    const created = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: { ...newProject, name: 'To update' } });
    const updated = await t.request('PUT', `/management/v1/projects/${created.body.id}`, {
      headers: t.managementHeaders(),
      json: { description: 'Now described', client_redeem_enabled: true },
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.description, 'Now described');
    assert.equal(updated.body.client_redeem_enabled, true);
    assert.equal(updated.body.name, 'To update');
    assert.equal(updated.body.timezone, 'Europe/Warsaw');
    assert.ok(updated.body.updated_at);
  });

  test('a project language for the console (a Punchcard extension): canonical tag kept, nonsense refused, null clears it', async () => {
    const created = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: { ...newProject, name: 'Localised' } });
    assert.equal(created.body.locale, null);
    const set = await t.request('PUT', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders(), json: { locale: 'de-de' } });
    assert.equal(set.status, 200);
    assert.equal(set.body.locale, 'de-DE');
    for (const locale of ['not a language', 'x', '']) {
      const refused = await t.request('PUT', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders(), json: { locale } });
      assert.equal(refused.status, 400, locale);
      assert.equal(refused.body.key, 'invalid_payload');
      assert.match(refused.body.details, /locale/);
    }
    const kept = await t.request('GET', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders() });
    assert.equal(kept.body.locale, 'de-DE');
    const cleared = await t.request('PUT', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders(), json: { locale: null } });
    assert.equal(cleared.body.locale, null);
  });

  test('bad project input is refused with details and creates nothing', async () => {
    const before = await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() });
    const missing = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: { name: 'x' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.key, 'invalid_payload');
    assert.match(missing.body.details, /required property/);
    const badZone = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { ...newProject, timezone: 'Mars/Olympus' },
    });
    assert.equal(badZone.status, 400);
    assert.match(badZone.body.details, /timezone/);
    const badOrigin = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { ...newProject, client_trusted_domains: ['not a url'] },
    });
    assert.equal(badOrigin.status, 400);
    const after = await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() });
    assert.equal(after.body.total, before.body.total);
  });

  test('deleting a project stops its keys at once; the default project is protected', async () => {
    const created = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: { ...newProject, name: 'Doomed' } });
    const keys = created.body.server_side_key;
    const before = await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(keys), form: { grant_type: 'client_credentials', scope: 'api' } });
    assert.equal(before.status, 200);
    const token = before.body.access_token as string;

    const deleted = await t.request('DELETE', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders() });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');

    const withKeys = await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(keys), form: { grant_type: 'client_credentials', scope: 'api' } });
    assert.equal(withKeys.status, 401);
    const withToken = await t.request('GET', '/v1/customers', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(withToken.status, 401);
    const gone = await t.request('GET', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders() });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.resource_type, 'project');

    const protectedDefault = await t.request('DELETE', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() });
    assert.equal(protectedDefault.status, 400);
    assert.equal(protectedDefault.body.key, 'resource_protected');
  });

  test('unknown project is 404 with the vendor body', async () => {
    const res = await t.request('GET', '/management/v1/projects/proj_nope', { headers: t.managementHeaders() });
    assert.equal(res.status, 404);
    assert.deepEqual(
      { code: res.body.code, key: res.body.key, message: res.body.message, resource_id: res.body.resource_id, resource_type: res.body.resource_type },
      { code: 404, key: 'not_found', message: 'Resource not found', resource_id: 'proj_nope', resource_type: 'project' },
    );
    assert.equal(res.body.details, 'Cannot find project with id proj_nope');
    assert.match(res.body.request_id, /^v-[0-9a-f]{18}$/);
  });

  test('management calls need management keys', async () => {
    const none = await t.request('GET', '/management/v1/projects', { headers: {} });
    assert.equal(none.status, 401);
    assert.equal(none.body.key, 'unauthorized');
    const wrong = await t.request('GET', '/management/v1/projects', {
      headers: { 'X-Management-Id': 'test-mgmt-id-0001', 'X-Management-Token': 'wrong-secret-123' },
    });
    assert.equal(wrong.status, 401);
    const serverKeys = await t.request('GET', '/management/v1/projects', { headers: t.serverHeaders() });
    assert.equal(serverKeys.status, 401);
  });
});
