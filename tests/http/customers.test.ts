import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction, internalActor } from '../../src/services/context.ts';
import { resolveCustomer } from '../../src/services/customers/customers.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

type Sdk = ReturnType<TestApp['sdk']>;
type ListParams = Parameters<Sdk['customers']['list']>[0];

interface CustomerOut {
  id: string;
  source_id: string | null;
  name: string | null;
  email: string | null;
  created_at: string;
  updated_at: string | null;
  [member: string]: unknown;
}

interface ListOut {
  object: string;
  data_ref: string;
  customers: CustomerOut[];
  total: number;
  has_more: boolean;
}

interface SdkError {
  code: number;
  key: string;
  message: string;
  details?: string;
  request_id?: string;
  resource_id?: string;
  resource_type?: string;
}

/** Runs an SDK call that must fail and answers the error fields the SDK copies from the body. */
async function sdkError(call: Promise<unknown>): Promise<SdkError> {
  try {
    await call;
  } catch (error) {
    return error as SdkError;
  }
  throw new assert.AssertionError({ message: 'the call was expected to fail' });
}

function assertNotFound(error: SdkError | Record<string, unknown>, asPassed: string): void {
  assert.equal(error.code, 404);
  assert.equal(error.key, 'not_found');
  assert.equal(error.message, 'Resource not found');
  assert.equal(error.details, `Cannot find customer with id ${asPassed}`);
  assert.equal(error.resource_id, asPassed);
  assert.equal(error.resource_type, 'customer');
  assert.match(String(error.request_id), /^v-[0-9a-f]{18}$/);
}

describe('customers', () => {
  let t: TestApp;
  let sdk: Sdk;
  let projectCount = 0;

  before(async () => {
    t = await startTestApp();
    sdk = t.sdk();
  });
  after(async () => t.close());

  /** A fresh project, so list tests control every customer the list can see. */
  async function newProject(): Promise<{ keys: KeyPairOut; sdk: Sdk; id: string }> {
    projectCount += 1;
    const res = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: `Other ${projectCount}`, case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(res.status, 200);
    const keys = res.body.server_side_key as KeyPairOut;
    return { keys, sdk: t.sdk(keys), id: res.body.id as string };
  }

  async function list(client: Sdk, params: Record<string, unknown>): Promise<ListOut> {
    return (await client.customers.list(params as ListParams)) as unknown as ListOut;
  }

  async function activityTypes(customerId: string): Promise<string[]> {
    const res = await t.request('GET', `/v1/customers/${encodeURIComponent(customerId)}/activities?limit=100&order=created_at`);
    assert.equal(res.status, 200);
    return (res.body.data as Array<{ type: string }>).map((a) => a.type);
  }

  async function countCustomers(): Promise<number> {
    const res = await t.request('GET', '/v1/customers?limit=1');
    assert.equal(res.status, 200);
    return res.body.total as number;
  }

  test('create answers every member of the customer object', async () => {
    const before = t.clock.now().toISOString();
    const created = (await sdk.customers.create({
      source_id: 'full-1',
      name: 'Bob Smith',
      description: 'A frequent customer',
      email: 'bob.smith@email.com',
      phone: '+1 933 222 3333',
      birthday: '1990-01-02',
      birthdate: '1990-01-01',
      address: { city: 'New York', country: 'United States', line_1: '123 Main St.', line_2: 'APT 3', postal_code: '10001', state: 'NY' },
      metadata: { lang: 'en', test: true },
    })) as unknown as CustomerOut;
    assert.match(created.id, /^cust_[0-9a-z]{20}$/);
    assert.ok(created.created_at > before, 'created_at comes from the service clock');
    assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const { id: _id, created_at: _createdAt, assets, ...rest } = created as CustomerOut & { assets: { cockpit_url: string; cockpit_preference_center_url: string } };
    // The cockpit links (tests/http/cockpit.test.ts covers them): absolute, on PUBLIC_URL.
    assert.ok(assets.cockpit_url.startsWith(`${t.deps.config.publicUrl}/cockpit#token=`));
    assert.ok(assets.cockpit_preference_center_url.startsWith(`${t.deps.config.publicUrl}/cockpit/preferences#token=`));
    assert.deepEqual(rest, {
      source_id: 'full-1',
      name: 'Bob Smith',
      description: 'A frequent customer',
      email: 'bob.smith@email.com',
      phone: '+1 933 222 3333',
      birthday: '1990-01-02',
      birthdate: '1990-01-01',
      address: { city: 'New York', state: 'NY', line_1: '123 Main St.', line_2: 'APT 3', country: 'United States', postal_code: '10001' },
      metadata: { lang: 'en', test: true },
      system_metadata: {},
      summary: {
        redemptions: {
          total_redeemed: 0,
          total_failed: 0,
          total_succeeded: 0,
          total_rolled_back: 0,
          total_rollback_failed: 0,
          total_rollback_succeeded: 0,
          gift: { redeemed_amount: 0, amount_to_go: 0 },
          loyalty_card: { redeemed_points: 0, points_to_go: 0 },
        },
        orders: { total_amount: 0, total_count: 0, average_amount: 0, last_order_amount: 0, last_order_date: null },
      },
      loyalty: { points: 0, referred_customers: 0, campaigns: {} },
      referrals: { total: 0, campaigns: [] },
      updated_at: null,
      object: 'customer',
    });
    assert.deepEqual(await activityTypes(created.id), ['customer.created']);
  });

  test('a customer created with nothing but a name has null members and no address', async () => {
    const created = (await sdk.customers.create({ name: 'Anonymous' })) as unknown as CustomerOut;
    assert.equal(created.source_id, null);
    assert.equal(created.email, null);
    assert.equal(created.address, null);
    assert.deepEqual(created.metadata, {});
    // Without a source_id nothing identifies an existing customer, so a second call creates another.
    const second = (await sdk.customers.create({ name: 'Anonymous' })) as unknown as CustomerOut;
    assert.notEqual(second.id, created.id);
  });

  test('POST with an existing source_id updates that customer with the members sent', async () => {
    const first = (await sdk.customers.create({ source_id: 'upsert-1', name: 'Alice', email: 'a@x.io', metadata: { tier: 'gold' } })) as unknown as CustomerOut;
    const total = await countCustomers();
    const again = (await sdk.customers.create({ source_id: 'upsert-1', name: 'Alicia' })) as unknown as CustomerOut;
    assert.equal(again.id, first.id);
    assert.equal(again.name, 'Alicia');
    assert.equal(again.email, 'a@x.io', 'members not sent stay');
    assert.deepEqual(again.metadata, { tier: 'gold' });
    assert.equal(again.created_at, first.created_at);
    assert.ok(again.updated_at !== null && again.updated_at > first.created_at);
    assert.equal(await countCustomers(), total, 'no second customer');
    assert.deepEqual(await activityTypes(first.id), ['customer.created', 'customer.updated']);
  });

  test('POST with an existing id updates that customer; a source_id beside it is ignored', async () => {
    const first = (await sdk.customers.create({ source_id: 'by-id-1', name: 'Carol' })) as unknown as CustomerOut;
    const updated = (await sdk.customers.create({ id: first.id, source_id: 'by-id-other', phone: '123' })) as unknown as CustomerOut;
    assert.equal(updated.id, first.id);
    assert.equal(updated.source_id, 'by-id-1');
    assert.equal(updated.phone, '123');
    assert.equal(updated.name, 'Carol');
    const other = await sdkError(sdk.customers.get('by-id-other'));
    assert.equal(other.code, 404, 'the ignored source_id did not create a customer');
  });

  test('POST with an unknown id is 404 and creates nothing', async () => {
    const total = await countCustomers();
    const res = await t.request('POST', '/v1/customers', { json: { id: 'cust_doesnotexist', source_id: 'never-created', name: 'X' } });
    assert.equal(res.status, 404);
    assertNotFound(res.body, 'cust_doesnotexist');
    assert.equal(await countCustomers(), total);
    assert.equal((await t.request('GET', '/v1/customers/never-created')).status, 404);
  });

  test('get answers the customer by id and by source_id; an id wins over an equal source_id', async () => {
    const a = (await sdk.customers.create({ source_id: 'get-a', name: 'A' })) as unknown as CustomerOut;
    const byId = (await sdk.customers.get(a.id)) as unknown as CustomerOut;
    const bySource = (await sdk.customers.get('get-a')) as unknown as CustomerOut;
    assert.deepEqual(byId, a);
    assert.deepEqual(bySource, a);
    // A second customer whose source_id is the first one's id: the path value is read as an id first.
    const b = (await sdk.customers.create({ source_id: a.id, name: 'B' })) as unknown as CustomerOut;
    assert.equal(((await sdk.customers.get(a.id)) as unknown as CustomerOut).name, 'A');
    assert.equal(((await sdk.customers.get(b.id)) as unknown as CustomerOut).name, 'B');
    // Source ids with characters that need escaping in a path work too.
    const odd = (await sdk.customers.create({ source_id: 'odd id/with?chars&x=1', name: 'Odd' })) as unknown as CustomerOut;
    assert.equal(((await sdk.customers.get('odd id/with?chars&x=1')) as unknown as CustomerOut).id, odd.id);
  });

  test('update changes only the members sent, and never re-identifies the customer', async () => {
    const c = (await sdk.customers.create({
      source_id: 'partial-1',
      name: 'Dana',
      email: 'dana@x.io',
      phone: '555',
      birthdate: '1980-05-05',
      address: { city: 'Lyon', country: 'France' },
      metadata: { a: 1, b: 2 },
    })) as unknown as CustomerOut;

    // The SDK sends source_id in the body; it names nothing and changes nothing.
    const renamed = (await sdk.customers.update({ source_id: 'partial-1', name: 'Danielle' })) as unknown as CustomerOut;
    assert.equal(renamed.id, c.id);
    assert.equal(renamed.name, 'Danielle');
    assert.equal(renamed.email, 'dana@x.io');
    assert.equal(renamed.phone, '555');
    assert.equal(renamed.birthdate, '1980-05-05');
    assert.deepEqual(renamed.address, { city: 'Lyon', state: null, line_1: null, line_2: null, country: 'France', postal_code: null });
    assert.deepEqual(renamed.metadata, { a: 1, b: 2 });
    assert.ok(renamed.updated_at !== null);

    const res = await t.request('PUT', `/v1/customers/${c.id}`, {
      json: { id: 'cust_other', source_id: 'partial-renamed', email: null, address: { city: 'Paris' }, metadata: { c: 3 } },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, c.id);
    assert.equal(res.body.source_id, 'partial-1', 'source_id in the body does not change the customer');
    assert.equal(res.body.email, null, 'null clears a member');
    assert.equal(res.body.name, 'Danielle');
    assert.deepEqual(res.body.address, { city: 'Paris', state: null, line_1: null, line_2: null, country: null, postal_code: null });
    assert.deepEqual(res.body.metadata, { c: 3 }, 'metadata sent replaces the metadata');
    assert.ok(res.body.updated_at > renamed.updated_at!);

    const cleared = await t.request('PUT', '/v1/customers/partial-1', { json: { address: null } });
    assert.equal(cleared.body.address, null);
    assert.equal((await t.request('GET', '/v1/customers/partial-renamed')).status, 404);
    assert.deepEqual(await activityTypes(c.id), ['customer.created', 'customer.updated', 'customer.updated', 'customer.updated']);
  });

  test('update of an unknown customer is 404', async () => {
    assertNotFound(await sdkError(sdk.customers.update({ id: 'cust_nope', name: 'x' })), 'cust_nope');
    const res = await t.request('PUT', '/v1/customers/no-such-source', { json: { name: 'x' } });
    assert.equal(res.status, 404);
    assertNotFound(res.body, 'no-such-source');
  });

  test('bad input is refused with invalid_payload and changes nothing', async () => {
    const c = (await sdk.customers.create({ source_id: 'bad-1', name: 'Eve', birthdate: '2000-01-01' })) as unknown as CustomerOut;
    const total = await countCustomers();
    const cases: Array<{ method: string; path: string; json: unknown; details: RegExp }> = [
      { method: 'PUT', path: `/v1/customers/${c.id}`, json: { name: 'Changed', birthdate: 'not-a-date' }, details: /^Property \.birthdate should/ },
      { method: 'PUT', path: `/v1/customers/${c.id}`, json: { name: 42 }, details: /^Property \.name should be string,null$/ },
      { method: 'PUT', path: `/v1/customers/${c.id}`, json: { address: 'Paris' }, details: /^Property \.address should be object,null$/ },
      { method: 'POST', path: '/v1/customers', json: { source_id: 'bad-1', name: 'Changed', birthday: '2000-13-45' }, details: /birthday/ },
      { method: 'POST', path: '/v1/customers', json: { source_id: 'bad-2', metadata: 'x' }, details: /metadata/ },
      { method: 'POST', path: '/v1/customers', json: { source_id: '' }, details: /source_id/ },
      { method: 'POST', path: '/v1/customers', json: { source_id: 'bad-3', address: { city: 5 } }, details: /^Property \.address\.city should be string/ },
    ];
    for (const bad of cases) {
      const res = await t.request(bad.method, bad.path, { json: bad.json });
      assert.equal(res.status, 400, JSON.stringify(bad.json));
      assert.equal(res.body.key, 'invalid_payload');
      assert.equal(res.body.code, 400);
      assert.match(res.body.details, bad.details);
    }
    const malformed = await t.request('POST', '/v1/customers', { body: '{"source_id": "bad-4",', headers: { ...t.serverHeaders(), 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.key, 'malformed_json');

    const after = (await sdk.customers.get(c.id)) as unknown as CustomerOut;
    assert.deepEqual(after, c);
    assert.equal(await countCustomers(), total);
    assert.deepEqual(await activityTypes(c.id), ['customer.created']);
  });

  test('delete answers 204, hides the customer everywhere, frees its source_id and appends customer.deleted', async () => {
    const c = (await sdk.customers.create({ source_id: 'del-1', name: 'Frank', email: 'frank@del.io' })) as unknown as CustomerOut;
    const res = await t.request('DELETE', `/v1/customers/${c.id}`, { headers: { ...t.serverHeaders(), 'content-type': 'application/json' } });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');

    assertNotFound(await sdkError(sdk.customers.get(c.id)), c.id);
    assertNotFound(await sdkError(sdk.customers.get('del-1')), 'del-1');
    assert.equal((await list(sdk, { email: 'frank@del.io' })).total, 0);
    assertNotFound(await sdkError(sdk.customers.update({ id: c.id, name: 'x' })), c.id);
    assertNotFound(await sdkError(sdk.customers.delete(c.id)), c.id);
    assertNotFound(await sdkError(sdk.customers.listActivities(c.id)), c.id);

    const events = await t.db.db
      .selectFrom('events')
      .select(['type', 'activity_type', 'activity_category', 'data'])
      .where('customer_id', '=', c.id)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      events.map((e) => [e.type, e.activity_type, e.activity_category]),
      [
        ['customer.created', 'customer.created', 'ACTION'],
        ['customer.deleted', 'customer.deleted', 'ACTION'],
      ],
    );
    assert.equal(JSON.parse(events[1]!.data).customer.id, c.id);

    // The source_id is free: the same merchant id now names a brand-new customer.
    const reborn = (await sdk.customers.create({ source_id: 'del-1', name: 'Frank again' })) as unknown as CustomerOut;
    assert.notEqual(reborn.id, c.id);
    assert.equal(reborn.email, null);
  });

  test('SDK delete resolves to an empty answer', async () => {
    await sdk.customers.create({ source_id: 'del-sdk' });
    assert.equal(await sdk.customers.delete('del-sdk'), '');
    assert.equal((await t.request('GET', '/v1/customers/del-sdk')).status, 404);
  });

  test('permanent deletion erases the customer and all of its events and answers the record', async () => {
    const keep = (await sdk.customers.create({ source_id: 'perm-keep' })) as unknown as CustomerOut;
    const c = (await sdk.customers.create({ source_id: 'perm-1', name: 'Gina' })) as unknown as CustomerOut;
    await sdk.customers.update({ id: c.id, name: 'Gina B' });
    await sdk.customers.update({ id: c.id, phone: '1' });

    const before = t.clock.now().toISOString();
    const record = (await sdk.customers.deletePermanently('perm-1')) as unknown as Record<string, unknown>;
    assert.match(String(record.id), /^del_[0-9a-z]{20}$/);
    assert.ok(String(record.created_at) > before);
    const { id: _id, created_at: _createdAt, ...rest } = record;
    assert.deepEqual(rest, {
      related_object_id: c.id,
      related_object: 'customer',
      status: 'DONE',
      data_json: { events: 3, customer_events: 3, daily_events: 0, segments: 0, orders: 0, order_events: 0, customer: 1 },
      object: 'pernament_deletion',
    });

    assertNotFound(await sdkError(sdk.customers.get(c.id)), c.id);
    assertNotFound(await sdkError(sdk.customers.listActivity(c.id)), c.id);
    const left = await t.db.db.selectFrom('events').select('id').where('customer_id', '=', c.id).execute();
    assert.equal(left.length, 0, 'no event names the customer any more');
    const rows = await t.db.db.selectFrom('customers').select('id').where('id', '=', c.id).execute();
    assert.equal(rows.length, 0, 'the row itself is gone');
    const stored = await t.db.db.selectFrom('customer_deletions').selectAll().where('id', '=', String(record.id)).executeTakeFirstOrThrow();
    assert.equal(stored.customer_id, c.id);
    assert.equal(stored.project_id, t.projectId);
    assert.equal(stored.status, 'DONE');
    assert.deepEqual(JSON.parse(stored.data_json), rest.data_json);

    // Other customers keep their data, and a second erase finds nothing.
    assert.equal(((await sdk.customers.get(keep.id)) as unknown as CustomerOut).id, keep.id);
    assert.deepEqual(await activityTypes(keep.id), ['customer.created']);
    assertNotFound(await sdkError(sdk.customers.deletePermanently(c.id)), c.id);
  });

  test('permanent deletion still erases a customer that was deleted before (by id only)', async () => {
    const c = (await sdk.customers.create({ source_id: 'perm-2' })) as unknown as CustomerOut;
    await sdk.customers.delete(c.id);
    assertNotFound(await sdkError(sdk.customers.deletePermanently('perm-2')), 'perm-2');
    const record = (await sdk.customers.deletePermanently(c.id)) as unknown as { related_object_id: string; data_json: Record<string, number> };
    assert.equal(record.related_object_id, c.id);
    assert.equal(record.data_json.events, 2, 'customer.created and customer.deleted');
    assert.equal(record.data_json.customer_events, 2);
    const left = await t.db.db.selectFrom('events').select('id').where('customer_id', '=', c.id).execute();
    assert.equal(left.length, 0);
  });

  test('unknown customers answer the vendor 404 body on every endpoint', async () => {
    assertNotFound(await sdkError(sdk.customers.get('ghost')), 'ghost');
    assertNotFound(await sdkError(sdk.customers.delete('ghost')), 'ghost');
    assertNotFound(await sdkError(sdk.customers.deletePermanently('ghost')), 'ghost');
    assertNotFound(await sdkError(sdk.customers.update({ source_id: 'ghost', name: 'x' })), 'ghost');
  });

  test('list filters by exact email, name and city, and by created_at and updated_at bounds', async () => {
    const p = await newProject();
    t.clock.set('2026-05-01T08:00:00.000Z');
    const a = (await p.sdk.customers.create({ source_id: 'a', name: 'Ann', email: 'ann@x.io', address: { city: 'Oslo' } })) as unknown as CustomerOut;
    t.clock.set('2026-05-02T08:00:00.000Z');
    const b = (await p.sdk.customers.create({ source_id: 'b', name: 'Ben', email: 'ben@x.io', address: { city: 'Oslo' } })) as unknown as CustomerOut;
    t.clock.set('2026-05-03T08:00:00.000Z');
    const c = (await p.sdk.customers.create({ source_id: 'c', name: 'Ann', email: 'ANN@x.io', address: { city: 'Bergen' } })) as unknown as CustomerOut;
    t.clock.set('2026-05-04T08:00:00.000Z');
    await p.sdk.customers.update({ id: a.id, description: 'touched' });

    const ids = async (params: Record<string, unknown>) => (await list(p.sdk, { ...params, order: 'created_at' })).customers.map((x) => x.id);
    assert.deepEqual(await ids({}), [a.id, b.id, c.id]);
    assert.deepEqual(await ids({ email: 'ann@x.io' }), [a.id], 'email matches exactly, case included');
    assert.deepEqual(await ids({ name: 'Ann' }), [a.id, c.id]);
    assert.deepEqual(await ids({ name: 'An' }), [], 'no partial matches');
    assert.deepEqual(await ids({ city: 'Oslo' }), [a.id, b.id]);
    assert.deepEqual(await ids({ city: 'Oslo', name: 'Ann' }), [a.id]);
    assert.deepEqual(await ids({ created_at: { before: '2026-05-02' } }), [a.id], 'a date means midnight UTC');
    assert.deepEqual(await ids({ created_at: { after: '2026-05-02' } }), [b.id, c.id]);
    assert.deepEqual(await ids({ created_at: { after: b.created_at } }), [c.id], 'bounds are exclusive');
    assert.deepEqual(await ids({ created_at: { after: '2026-05-01T09:00:00Z', before: '2026-05-03T08:00:00+00:00' } }), [b.id]);
    assert.deepEqual(await ids({ created_at: { before: '2026-05-02T10:00:00' } }), [a.id, b.id], 'no zone means UTC');
    // a was updated on 05-04; b and c were never updated, so their last change is their creation.
    assert.deepEqual(await ids({ updated_at: { after: '2026-05-03T12:00:00Z' } }), [a.id]);
    assert.deepEqual(await ids({ updated_at: { before: '2026-05-03T12:00:00Z' } }), [b.id, c.id]);
    assert.deepEqual(await ids({ updated_at: { after: '2026-05-01T12:00:00Z', before: '2026-05-03T12:00:00Z' } }), [b.id, c.id]);

    const filtered = await list(p.sdk, { city: 'Oslo', limit: 1 });
    assert.equal(filtered.total, 2, 'total counts every match, not the page');
    assert.equal(filtered.has_more, true);
    assert.equal(filtered.customers.length, 1);
  });

  test('list orders by created_at, updated_at and source_id in both directions; newest first by default', async () => {
    const p = await newProject();
    t.clock.set('2026-06-01T00:00:00.000Z');
    const first = (await p.sdk.customers.create({ source_id: 'm' })) as unknown as CustomerOut;
    t.clock.set('2026-06-02T00:00:00.000Z');
    const second = (await p.sdk.customers.create({ source_id: 'z' })) as unknown as CustomerOut;
    t.clock.set('2026-06-03T00:00:00.000Z');
    const third = (await p.sdk.customers.create({ name: 'no source id' })) as unknown as CustomerOut;
    t.clock.set('2026-06-04T00:00:00.000Z');
    const fourth = (await p.sdk.customers.create({ source_id: 'a' })) as unknown as CustomerOut;
    t.clock.set('2026-06-05T00:00:00.000Z');
    await p.sdk.customers.update({ id: first.id, name: 'touched last' });

    const order = async (value?: string) => (await list(p.sdk, value === undefined ? {} : { order: value })).customers.map((x) => x.id);
    assert.deepEqual(await order(), [fourth.id, third.id, second.id, first.id]);
    assert.deepEqual(await order('-created_at'), [fourth.id, third.id, second.id, first.id]);
    assert.deepEqual(await order('created_at'), [first.id, second.id, third.id, fourth.id]);
    // Last change: first was updated after everything else; the others count from their creation.
    assert.deepEqual(await order('updated_at'), [second.id, third.id, fourth.id, first.id]);
    assert.deepEqual(await order('-updated_at'), [first.id, fourth.id, third.id, second.id]);
    // A customer without a source_id sorts before every source_id, on both databases.
    assert.deepEqual(await order('source_id'), [third.id, fourth.id, first.id, second.id]);
    assert.deepEqual(await order('-source_id'), [second.id, first.id, fourth.id, third.id]);
  });

  test('list pages with limit and page, and walks with the starting_after cursor', async () => {
    const p = await newProject();
    const made: CustomerOut[] = [];
    for (let i = 0; i < 12; i++) {
      t.clock.set(`2026-07-01T00:00:${String(i).padStart(2, '0')}.000Z`);
      made.push((await p.sdk.customers.create({ source_id: `pg-${i}` })) as unknown as CustomerOut);
    }
    const newestFirst = [...made].reverse().map((c) => c.id);

    const defaults = await list(p.sdk, {});
    assert.equal(defaults.object, 'list');
    assert.equal(defaults.data_ref, 'customers');
    assert.equal(defaults.customers.length, 10, 'limit defaults to 10');
    assert.equal(defaults.total, 12);
    assert.equal(defaults.has_more, true);

    const page1 = await list(p.sdk, { limit: 5, page: 1 });
    const page2 = await list(p.sdk, { limit: 5, page: 2 });
    const page3 = await list(p.sdk, { limit: 5, page: 3 });
    assert.deepEqual([...page1.customers, ...page2.customers, ...page3.customers].map((c) => c.id), newestFirst);
    assert.deepEqual([page1.has_more, page2.has_more, page3.has_more], [true, true, false]);
    assert.equal(page3.total, 12);
    const past = await list(p.sdk, { limit: 5, page: 4 });
    assert.deepEqual(past.customers, [], 'a page past the end is empty, not an error');
    assert.equal(past.has_more, false);

    // Descending (default): the cursor returns older customers.
    const older = await list(p.sdk, { limit: 3, starting_after: made[5]!.created_at });
    assert.deepEqual(older.customers.map((c) => c.id), [made[4]!.id, made[3]!.id, made[2]!.id]);
    assert.equal(older.has_more, true);
    // Ascending orders walk ascending.
    const newer = await list(p.sdk, { limit: 3, order: 'created_at', starting_after: made[5]!.created_at });
    assert.deepEqual(newer.customers.map((c) => c.id), [made[6]!.id, made[7]!.id, made[8]!.id]);
    const tail = await list(p.sdk, { limit: 3, order: 'created_at', starting_after: made[9]!.created_at });
    assert.deepEqual(tail.customers.map((c) => c.id), [made[10]!.id, made[11]!.id]);
    assert.equal(tail.has_more, false);

    // The SDK's scroll drives has_more and starting_after through the whole list, both directions.
    // (Driven by hand: the SDK types its generator's next() argument, which for-await cannot satisfy.)
    const drain = async (scroll: ReturnType<Sdk['customers']['scroll']>) => {
      const out: string[] = [];
      for (let step = await scroll.next(undefined as never); !step.done; step = await scroll.next(step.value)) out.push(step.value.id);
      return out;
    };
    assert.deepEqual(await drain(p.sdk.customers.scroll({ limit: 5 })), newestFirst);
    assert.deepEqual(await drain(p.sdk.customers.scroll({ limit: 4, order: 'created_at' })), made.map((c) => c.id));
  });

  test('bad list queries answer invalid_query_params', async () => {
    const cases: Array<[string, RegExp]> = [
      ['limit=0', /^Property \.limit must be >= 1$/],
      ['limit=101', /^Property \.limit must be <= 100$/],
      ['limit=abc', /^Property \.limit should be integer$/],
      ['page=0', /^Property \.page must be >= 1$/],
      ['page=100', /^Property \.page must be <= 99$/],
      ['order=name', /^Property \.order should be equal to one of the allowed values \[ created_at, -created_at, updated_at, -updated_at, source_id, -source_id \]$/],
      ['created_at[before]=yesterday', /created_at\.before/],
      ['updated_at[after]=2026-13-01T00:00:00Z', /updated_at\.after/],
      ['starting_after=soon', /starting_after/],
      ['created_at=2026-01-01', /^Property \.created_at should be object$/],
    ];
    for (const [query, details] of cases) {
      const res = await t.request('GET', `/v1/customers?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.key, 'invalid_query_params', query);
      assert.match(res.body.details, details, query);
    }
    // Unknown query keys (such as the SDK's cache-buster) are ignored.
    assert.equal((await t.request('GET', '/v1/customers?_=123&unknown=1')).status, 200);
  });

  test('concurrent creates with one source_id end as one customer', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `Racer ${i}`);
    const results = (await Promise.all(names.map((name) => sdk.customers.create({ source_id: 'race-1', name })))) as unknown as CustomerOut[];
    const ids = new Set(results.map((r) => r.id));
    assert.equal(ids.size, 1, 'every request answered the same customer');
    const stored = await t.db.db.selectFrom('customers').select('id').where('source_id', '=', 'race-1').execute();
    assert.equal(stored.length, 1);
    const types = await activityTypes('race-1');
    assert.equal(types.filter((x) => x === 'customer.created').length, 1);
    assert.equal(types.filter((x) => x === 'customer.updated').length, 7);
    const final = (await sdk.customers.get('race-1')) as unknown as CustomerOut;
    assert.ok(names.includes(final.name!));
  });

  test("another project's keys see none of these customers", async () => {
    const mine = (await sdk.customers.create({ source_id: 'tenant-1', name: 'Mine', email: 'mine@tenant.io' })) as unknown as CustomerOut;
    const other = await newProject();
    const headers = t.serverHeaders(other.keys);

    assertNotFound(await sdkError(other.sdk.customers.get(mine.id)), mine.id);
    assertNotFound(await sdkError(other.sdk.customers.get('tenant-1')), 'tenant-1');
    assertNotFound(await sdkError(other.sdk.customers.update({ id: mine.id, name: 'Hijacked' })), mine.id);
    assertNotFound(await sdkError(other.sdk.customers.delete(mine.id)), mine.id);
    assertNotFound(await sdkError(other.sdk.customers.deletePermanently(mine.id)), mine.id);
    assertNotFound(await sdkError(other.sdk.customers.listActivities(mine.id)), mine.id);
    assertNotFound(await sdkError(other.sdk.customers.listActivity('tenant-1')), 'tenant-1');
    const upsertById = await t.request('POST', '/v1/customers', { headers, json: { id: mine.id, name: 'Hijacked' } });
    assert.equal(upsertById.status, 404);
    assert.equal((await list(other.sdk, { email: 'mine@tenant.io' })).total, 0);

    // The same source_id in another project is another customer.
    const theirs = (await other.sdk.customers.create({ source_id: 'tenant-1', name: 'Theirs' })) as unknown as CustomerOut;
    assert.notEqual(theirs.id, mine.id);
    const still = (await sdk.customers.get('tenant-1')) as unknown as CustomerOut;
    assert.deepEqual(still, mine);
    assert.deepEqual(await activityTypes(mine.id), ['customer.created']);
  });

  describe('resolveCustomer (for areas that name a customer inside their own transaction)', () => {
    const actor = () => internalActor(t.projectId, 'v-resolve-test');

    test('creates a missing customer by source_id with customer.created in the same transaction', async () => {
      const result = await inTransaction(t.deps, (tx) =>
        resolveCustomer(tx, t.deps, actor(), { source_id: 'resolve-1', name: 'Resolved', email: 'r@x.io' }, { createIfMissing: true }),
      );
      assert.equal(result.created, true);
      assert.equal(result.customer.source_id, 'resolve-1');
      const fetched = (await sdk.customers.get('resolve-1')) as unknown as CustomerOut;
      assert.equal(fetched.id, result.customer.id);
      assert.equal(fetched.email, 'r@x.io');
      const activities = await t.request('GET', '/v1/customers/resolve-1/activities');
      assert.equal(activities.body.total, 1);
      assert.equal(activities.body.data[0].type, 'customer.created');
      assert.equal(activities.body.data[0].group_id, 'v-resolve-test');
      assert.deepEqual(activities.body.data[0].data.event_source, { channel: 'INTERNAL' });
    });

    test('finds an existing customer by source_id or id and leaves it unchanged', async () => {
      const existing = (await sdk.customers.create({ source_id: 'resolve-2', name: 'Kept' })) as unknown as CustomerOut;
      const bySource = await inTransaction(t.deps, (tx) =>
        resolveCustomer(tx, t.deps, actor(), { source_id: 'resolve-2', name: 'Other name' }, { createIfMissing: true }),
      );
      assert.equal(bySource.created, false);
      assert.equal(bySource.customer.id, existing.id);
      assert.equal(bySource.customer.name, 'Kept');
      const byId = await inTransaction(t.deps, (tx) => resolveCustomer(tx, t.deps, actor(), { id: existing.id }, { createIfMissing: false }));
      assert.deepEqual(byId.customer, bySource.customer);
      assert.deepEqual(await activityTypes(existing.id), ['customer.created']);
    });

    test('refuses unknown ids, missing customers without createIfMissing, and refs with no member at all', async () => {
      const keyOf = async (call: Promise<unknown>) => ((await sdkError(call)) as unknown as { key: string }).key;
      assert.equal(
        await keyOf(inTransaction(t.deps, (tx) => resolveCustomer(tx, t.deps, actor(), { id: 'cust_missing' }, { createIfMissing: true }))),
        'not_found',
      );
      assert.equal(
        await keyOf(inTransaction(t.deps, (tx) => resolveCustomer(tx, t.deps, actor(), { source_id: 'resolve-none' }, { createIfMissing: false }))),
        'not_found',
      );
      assert.equal(await keyOf(inTransaction(t.deps, (tx) => resolveCustomer(tx, t.deps, actor(), {}, { createIfMissing: true }))), 'invalid_payload');
      assert.equal(
        await keyOf(inTransaction(t.deps, (tx) => resolveCustomer(tx, t.deps, actor(), { name: 'nameless' }, { createIfMissing: false }))),
        'invalid_payload',
      );
      // Neither id nor source_id, with members: a new customer is made from them, each time.
      const made = await inTransaction(t.deps, (tx) => resolveCustomer(tx, t.deps, actor(), { name: 'nameless' }, { createIfMissing: true }));
      assert.equal(made.created, true);
      assert.equal(made.customer.name, 'nameless');
      assert.equal(made.customer.source_id, null);
      assert.equal((await t.request('GET', '/v1/customers/resolve-none')).status, 404);
    });

    test("a creation rolls back with the caller's transaction", async () => {
      await assert.rejects(
        inTransaction(t.deps, async (tx) => {
          const rollbackActor = internalActor(t.projectId, 'v-rollback-check');
          await resolveCustomer(tx, t.deps, rollbackActor, { source_id: 'resolve-rollback' }, { createIfMissing: true });
          throw new Error('the caller failed later');
        }),
        /the caller failed later/,
      );
      assert.equal((await t.request('GET', '/v1/customers/resolve-rollback')).status, 404);
      const events = await t.db.db.selectFrom('events').select('id').where('group_id', '=', 'v-rollback-check').execute();
      assert.equal(events.length, 0, 'its customer.created event rolled back too');
    });

    test('concurrent callers resolving one new source_id share one customer and neither transaction fails', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          inTransaction(t.deps, (tx) => resolveCustomer(tx, t.deps, actor(), { source_id: 'resolve-race' }, { createIfMissing: true })),
        ),
      );
      assert.equal(new Set(results.map((r) => r.customer.id)).size, 1);
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.deepEqual(await activityTypes('resolve-race'), ['customer.created']);
    });
  });
});
