import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Webhook configurations of the management API (seed 2.11, 4.4, 6.1; platform reference 6.1; DECISIONS 22).

const base = (t: TestApp) => `/management/v1/projects/${t.projectId}/webhooks`;

describe('webhook configurations (management API)', () => {
  let t: TestApp;
  let otherProjectId: string;
  before(async () => {
    t = await startTestApp();
    const other = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: true, timezone: 'UTC', currency: 'EUR' },
    });
    otherProjectId = other.body.id;
  });
  after(async () => t.close());

  const mgmt = (t: TestApp) => ({ headers: t.managementHeaders() });

  test('create answers exactly the seed fields; events are stored as given, both spellings accepted', async () => {
    const events = ['customer.created', 'voucher.loyalty_card.points_aded', 'voucher.gift.balance_added'];
    const res = await t.request('POST', base(t), { ...mgmt(t), json: { target_url: 'https://hooks.example.com/in', events } });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['active', 'created_at', 'events', 'id', 'object', 'target_url']);
    assert.match(res.body.id, /^wh_/);
    assert.equal(res.body.object, 'webhook');
    assert.equal(res.body.active, true, 'active defaults to true');
    assert.deepEqual(res.body.events, events);
    assert.equal(res.body.target_url, 'https://hooks.example.com/in');
    assert.equal(res.body.created_at, new Date(res.body.created_at).toISOString());

    const got = await t.request('GET', `${base(t)}/${res.body.id}`, mgmt(t));
    assert.deepEqual(got.body, res.body);
    const list = await t.request('GET', base(t), mgmt(t));
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.data_ref, 'data');
    assert.ok(list.body.data.some((w: { id: string }) => w.id === res.body.id));
    assert.equal(list.body.total, list.body.data.length);
  });

  test('PUT per seed 4.4: target_url and events required, events replace the list, active defaults to true', async () => {
    const created = await t.request('POST', base(t), {
      ...mgmt(t),
      json: { target_url: 'https://a.example.com/hook', events: ['customer.created', 'customer.deleted'], active: false },
    });
    assert.equal(created.body.active, false);
    const path = `${base(t)}/${created.body.id}`;

    const noUrl = await t.request('PUT', path, { ...mgmt(t), json: { events: ['customer.created'] } });
    assert.equal(noUrl.status, 400);
    assert.equal(noUrl.body.key, 'invalid_payload');
    assert.equal(noUrl.body.details, "Payload should have required property 'target_url'");
    const noEvents = await t.request('PUT', path, { ...mgmt(t), json: { target_url: 'https://b.example.com/hook' } });
    assert.equal(noEvents.status, 400);
    assert.equal(noEvents.body.details, "Payload should have required property 'events'");

    const updated = await t.request('PUT', path, { ...mgmt(t), json: { target_url: 'https://b.example.com/hook', events: ['redemption.succeeded'] } });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body, {
      id: created.body.id,
      object: 'webhook',
      created_at: created.body.created_at,
      target_url: 'https://b.example.com/hook',
      events: ['redemption.succeeded'],
      active: true,
    });
    const off = await t.request('PUT', path, { ...mgmt(t), json: { target_url: 'https://b.example.com/hook', events: ['redemption.succeeded'], active: false } });
    assert.equal(off.body.active, false);
    assert.deepEqual((await t.request('GET', path, mgmt(t))).body, off.body);
  });

  test('bad input is a precise 400 and changes nothing', async () => {
    const created = await t.request('POST', base(t), { ...mgmt(t), json: { target_url: 'https://c.example.com/', events: ['customer.created'] } });
    const path = `${base(t)}/${created.body.id}`;
    const cases: Array<[unknown, RegExp]> = [
      [{ target_url: 'https://c.example.com/', events: ['customer.updated'] }, /^Property \.events\[0\] should be equal to one of the allowed values \[ business_validation_rule/],
      [{ target_url: 'https://c.example.com/', events: [] }, /^Property \.events must NOT have fewer than 1 items/],
      [{ target_url: 'ftp://c.example.com/', events: ['customer.created'] }, /^Property \.target_url must use http or https/],
      [{ target_url: 'not a url', events: ['customer.created'] }, /^Property \.target_url must be an absolute http\(s\) URL/],
      [{ target_url: 'https://user:pw@c.example.com/', events: ['customer.created'] }, /must not carry credentials/],
      [{ target_url: 'https://c.example.com/', events: ['customer.created'], active: 'yes' }, /^Property \.active should be boolean/],
    ];
    const count = (await t.request('GET', base(t), mgmt(t))).body.total;
    for (const [json, details] of cases) {
      const create = await t.request('POST', base(t), { ...mgmt(t), json });
      assert.equal(create.status, 400, JSON.stringify(json));
      assert.equal(create.body.key, 'invalid_payload');
      assert.match(create.body.details, details);
      const update = await t.request('PUT', path, { ...mgmt(t), json });
      assert.equal(update.status, 400);
    }
    assert.equal((await t.request('GET', base(t), mgmt(t))).body.total, count);
    assert.deepEqual((await t.request('GET', path, mgmt(t))).body, created.body);
  });

  test('unknown project, unknown webhook and another project’s webhook are 404', async () => {
    const unknownProject = await t.request('GET', '/management/v1/projects/proj_nope/webhooks', mgmt(t));
    assert.equal(unknownProject.status, 404);
    assert.equal(unknownProject.body.resource_type, 'project');
    const createInUnknown = await t.request('POST', '/management/v1/projects/proj_nope/webhooks', {
      ...mgmt(t),
      json: { target_url: 'https://x.example.com/', events: ['customer.created'] },
    });
    assert.equal(createInUnknown.status, 404);

    const unknown = await t.request('GET', `${base(t)}/wh_nope`, mgmt(t));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.key, 'not_found');
    assert.equal(unknown.body.resource_type, 'webhook');
    assert.equal(unknown.body.resource_id, 'wh_nope');
    assert.equal(unknown.body.details, 'Cannot find webhook with id wh_nope');

    const theirs = await t.request('POST', `/management/v1/projects/${otherProjectId}/webhooks`, {
      ...mgmt(t),
      json: { target_url: 'https://other.example.com/', events: ['customer.created'] },
    });
    assert.equal(theirs.status, 200);
    for (const [method, json] of [['GET', undefined], ['PUT', { target_url: 'https://x.example.com/', events: ['customer.created'] }], ['DELETE', undefined]] as const) {
      const res = await t.request(method, `${base(t)}/${theirs.body.id}`, { ...mgmt(t), ...(json ? { json } : {}) });
      assert.equal(res.status, 404, method);
      assert.equal(res.body.resource_type, 'webhook');
    }
    const stillThere = await t.request('GET', `/management/v1/projects/${otherProjectId}/webhooks/${theirs.body.id}`, mgmt(t));
    assert.equal(stillThere.body.target_url, 'https://other.example.com/');
  });

  test('delete answers 204; the webhook is gone from get and list', async () => {
    const created = await t.request('POST', base(t), { ...mgmt(t), json: { target_url: 'https://d.example.com/', events: ['customer.created'] } });
    const path = `${base(t)}/${created.body.id}`;
    const deleted = await t.request('DELETE', path, { headers: { ...t.managementHeaders(), 'content-type': 'application/json' } });
    assert.equal(deleted.status, 204);
    assert.equal((await t.request('GET', path, mgmt(t))).status, 404);
    assert.equal((await t.request('DELETE', path, mgmt(t))).status, 404);
    const list = await t.request('GET', base(t), mgmt(t));
    assert.ok(!list.body.data.some((w: { id: string }) => w.id === created.body.id));
  });

  test('management keys are required; project keys do not open it', async () => {
    const none = await t.request('GET', base(t), { headers: {} });
    assert.equal(none.status, 401);
    const serverKeys = await t.request('GET', base(t), { headers: t.serverHeaders() });
    assert.equal(serverKeys.status, 401);
  });

  test('the delivery list of an unknown webhook is 404, a bad status filter 400', async () => {
    const unknown = await t.request('GET', `${base(t)}/wh_nope/deliveries`, mgmt(t));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.resource_type, 'webhook');
    const created = await t.request('POST', base(t), { ...mgmt(t), json: { target_url: 'https://e.example.com/', events: ['customer.created'] } });
    const bad = await t.request('GET', `${base(t)}/${created.body.id}/deliveries?status=DONE`, mgmt(t));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_query_params');
    const empty = await t.request('GET', `${base(t)}/${created.body.id}/deliveries`, mgmt(t));
    assert.deepEqual(empty.body, { object: 'list', data_ref: 'data', data: [], has_more: false });
  });
});
