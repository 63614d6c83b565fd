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

  const INTERNAL_TARGETS = [
    'http://127.0.0.1/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://0177.0.0.1/hook',
    'http://127.1:8080/hook',
    'http://localhost:3000/hook',
    'https://admin.localhost/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0.0.0.0/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://10.0.0.5/hook',
    'http://192.168.1.1/hook',
    'http://172.16.3.4/hook',
    'http://100.64.0.1/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://224.0.0.1/hook',
  ];

  test('a target on an internal address is refused in every spelling, on create and update, and nothing is stored', async () => {
    const created = await t.request('POST', base(t), { ...mgmt(t), json: { target_url: 'https://f.example.com/', events: ['customer.created'] } });
    const path = `${base(t)}/${created.body.id}`;
    const count = (await t.request('GET', base(t), mgmt(t))).body.total;
    for (const target_url of INTERNAL_TARGETS) {
      const json = { target_url, events: ['customer.created'] };
      for (const [method, url] of [['POST', base(t)], ['PUT', path]] as const) {
        const res = await t.request(method, url, { ...mgmt(t), json });
        assert.equal(res.status, 400, `${method} ${target_url}`);
        assert.equal(res.body.key, 'invalid_payload');
        assert.match(res.body.details, /^Property \.target_url must reach a public address; \S+ is (a|an) [a-z]/, target_url);
        assert.match(res.body.details, /PUNCHCARD_WEBHOOK_ALLOW_NETWORKS/);
      }
    }
    const decimal = await t.request('POST', base(t), { ...mgmt(t), json: { target_url: 'http://2130706433/', events: ['customer.created'] } });
    assert.match(decimal.body.details, /127\.0\.0\.1 is a loopback address/, 'names the address the URL means');
    assert.equal((await t.request('GET', base(t), mgmt(t))).body.total, count);
    assert.deepEqual((await t.request('GET', path, mgmt(t))).body, created.body);
  });

  test('an installation that allows its own networks can target addresses inside them, and only those', async () => {
    const own = await startTestApp({ config: { webhookAllowNetworks: ['127.0.0.0/8', '10.0.0.0/8'] } });
    try {
      const ownBase = `/management/v1/projects/${own.projectId}/webhooks`;
      for (const target_url of ['http://127.0.0.1:9000/hook', 'http://127.1/hook', 'http://localhost:3000/hook', 'http://10.0.0.5/hook']) {
        const res = await own.request('POST', ownBase, { headers: own.managementHeaders(), json: { target_url, events: ['customer.created'] } });
        assert.equal(res.status, 200, target_url);
        assert.equal(res.body.target_url, target_url, 'stored as given');
      }
      for (const target_url of ['http://192.168.1.1/hook', 'http://169.254.169.254/', 'http://[::1]/hook']) {
        const res = await own.request('POST', ownBase, { headers: own.managementHeaders(), json: { target_url, events: ['customer.created'] } });
        assert.equal(res.status, 400, target_url);
      }
    } finally {
      await own.close();
    }
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
