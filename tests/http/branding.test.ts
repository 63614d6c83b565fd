import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The vendor's management API for a project's branding (one per project) with Punchcard's `cockpit`
// look, through the wire with the management key.

describe('management API: branding', () => {
  let t: TestApp;
  const path = (projectId: string) => `/management/v1/projects/${projectId}/branding`;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('create, list, get, update and delete in the vendor shape; one per project', async () => {
    const h = t.managementHeaders();
    const empty = await t.request('GET', path(t.projectId), { headers: h });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body, { object: 'list', data_ref: 'data', data: [], total: 0 });

    const created = await t.request('POST', path(t.projectId), {
      headers: h,
      json: {
        brand: { name: 'Bean There', website_url: 'beanthere.example.com', privacy_policy_url: null },
        address: { street: 'Roastery Lane 4', city: 'Leeds', postal: 'LS1 4AP', country: 'United Kingdom' },
        contact: { email: 'help@beanthere.example.com', phone: '+44 113 000 0000' },
        cockpit: { logo_url: 'https://cdn.example.com/bean.png', primary_color: '#5b3a29', accent_color: '#e8a33d' },
      },
    });
    assert.equal(created.status, 200, created.text);
    assert.match(created.body.id, /^brd_/);
    assert.deepEqual(created.body.brand, {
      name: 'Bean There',
      privacy_policy_url: null,
      terms_of_use_url: null,
      permission_reminder: null,
      website_url: 'beanthere.example.com',
    });
    assert.deepEqual(created.body.address, { street: 'Roastery Lane 4', city: 'Leeds', postal: 'LS1 4AP', state: null, country: 'United Kingdom' });
    assert.deepEqual(created.body.contact, { email: 'help@beanthere.example.com', phone: '+44 113 000 0000' });
    assert.equal(created.body.cockpit.primary_color, '#5b3a29');

    const second = await t.request('POST', path(t.projectId), { headers: h, json: { brand: { name: 'Other' } } });
    assert.equal(second.status, 409);
    assert.equal(second.body.key, 'branding_exist');

    const listed = await t.request('GET', path(t.projectId), { headers: h });
    assert.equal(listed.body.total, 1);
    assert.deepEqual(listed.body.data[0], created.body);

    const id = created.body.id as string;
    const updated = await t.request('PUT', `${path(t.projectId)}/${id}`, {
      headers: h,
      json: { brand: { name: 'Bean There Coffee' }, address: null, cockpit: { accent_color: null } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.brand.name, 'Bean There Coffee');
    assert.equal(updated.body.brand.website_url, 'beanthere.example.com', 'members not sent stay');
    assert.deepEqual(updated.body.address, { street: null, city: null, postal: null, state: null, country: null }, 'null clears a section');
    assert.equal(updated.body.cockpit.accent_color, null);
    assert.equal(updated.body.cockpit.primary_color, '#5b3a29');
    assert.notEqual(updated.body.updated_at, null);

    const got = await t.request('GET', `${path(t.projectId)}/${id}`, { headers: h });
    assert.deepEqual(got.body, updated.body);

    const deleted = await t.request('DELETE', `${path(t.projectId)}/${id}`, { headers: h });
    assert.equal(deleted.status, 204);
    const gone = await t.request('GET', `${path(t.projectId)}/${id}`, { headers: h });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.key, 'not_found');
    const again = await t.request('POST', path(t.projectId), { headers: h, json: {} });
    assert.equal(again.status, 200, 'after a deletion the project may have a branding again');
  });

  test('bad values are refused with a 400 naming the member, and change nothing', async () => {
    const h = t.managementHeaders();
    const [current] = (await t.request('GET', path(t.projectId), { headers: h })).body.data;
    for (const [json, member] of [
      [{ contact: { email: 'not-an-address' } }, 'contact.email'],
      [{ brand: { terms_of_use_url: 'javascript:alert(1)' } }, 'brand.terms_of_use_url'],
      [{ cockpit: { logo_url: 'cdn.example.com/logo.png' } }, 'cockpit.logo_url'],
      [{ cockpit: { primary_color: 'red' } }, 'cockpit.primary_color'],
    ] as const) {
      const bad = await t.request('PUT', `${path(t.projectId)}/${current.id}`, { headers: h, json });
      assert.equal(bad.status, 400, JSON.stringify(json));
      assert.ok(String(bad.body.details).includes(member), bad.text);
    }
    const after = await t.request('GET', `${path(t.projectId)}/${current.id}`, { headers: h });
    assert.deepEqual(after.body, current);
  });

  test('unknown project or branding: 404; another project cannot see this one\'s branding', async () => {
    const h = t.managementHeaders();
    assert.equal((await t.request('GET', path('proj_unknown'), { headers: h })).status, 404);
    const other = await t.request('POST', '/management/v1/projects', { headers: h, json: { name: 'Branding neighbour', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' } });
    assert.equal(other.status, 200, other.text);
    const [mine] = (await t.request('GET', path(t.projectId), { headers: h })).body.data;
    const cross = await t.request('GET', `${path(other.body.id)}/${mine.id}`, { headers: h });
    assert.equal(cross.status, 404);
    assert.equal((await t.request('DELETE', `${path(other.body.id)}/${mine.id}`, { headers: h })).status, 404);
    assert.equal((await t.request('GET', `${path(t.projectId)}/${mine.id}`, { headers: h })).status, 200);
  });
});
