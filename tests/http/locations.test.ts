import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertVendorResponse, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// Locations (vendor list-locations, get-location): nothing in the vendor's API or Punchcard's creates a
// location, so a self-hosted project holds none: the list is empty, every id is 404, and the query is
// checked as the vendor documents it.

describe('locations', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('the list is empty, in the vendor shape, whatever valid query is sent', async () => {
    for (const query of ['', '?limit=5&order=-created_at', '?filters[name][conditions][$contains]=Belle&end_date=2026-01-01', '?filters[created_at][conditions][$after]=2024-01-01T00:00:00Z']) {
      const res = await t.request('GET', `/v1/locations${query}`);
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      if (vendorSchemasAvailable) assertVendorResponse('GET', '/v1/locations', res.body);
      assert.deepEqual(res.body, { object: 'list', data_ref: 'data', data: [], total: 0, has_more: false });
    }
  });

  test('a location id is 404 in the standard body', async () => {
    const res = await t.request('GET', '/v1/locations/loc_NoMGXmHO9OUs7iz9mGWpamma');
    assert.equal(res.status, 404);
    assert.deepEqual([res.body.code, res.body.key, res.body.resource_type, res.body.resource_id], [404, 'not_found', 'location', 'loc_NoMGXmHO9OUs7iz9mGWpamma']);
    assert.ok(res.body.request_id);
  });

  test('a bad query is 400 invalid_query_params; scopes and keys apply', async () => {
    for (const query of ['?order=name', '?limit=0', '?end_date=yesterday', '?filters[radius][conditions][$is]=1', '?filters[name][conditions][$after]=x']) {
      const res = await t.request('GET', `/v1/locations${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.key, 'invalid_query_params');
    }
    assert.equal((await t.request('GET', '/v1/locations', { headers: {} })).status, 401);
    const token = async (scope: string) =>
      (await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(), form: { grant_type: 'client_credentials', scope } })).body.access_token as string;
    assert.equal((await t.request('GET', '/v1/locations', { headers: { authorization: `Bearer ${await token('locations')}` } })).status, 200);
    assert.equal((await t.request('GET', '/v1/locations', { headers: { authorization: `Bearer ${await token('customers')}` } })).status, 403);
  });
});
