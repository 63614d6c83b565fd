import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction, internalActor, makeEvent, type EventInit } from '../../src/services/context.ts';
import { appendEvents } from '../../src/store/events.ts';
import { startTestApp, TEST_KEYS, type KeyPairOut, type TestApp } from '../helpers/app.ts';

type Sdk = ReturnType<TestApp['sdk']>;
type ActivitiesParams = NonNullable<Parameters<Sdk['customers']['listActivities']>[1]>;
type ActivityParams = NonNullable<Parameters<Sdk['customers']['listActivity']>[1]>;

interface Activity {
  id: string;
  type: string;
  data: { data: Record<string, unknown>; event_source: Record<string, unknown> };
  created_at: string;
  group_id: string;
}

interface SeededEvent {
  id: string;
  type: string;
  category: 'ACTION' | 'EFFECT';
  campaignName: string;
  code: string;
  categoryName: string;
  createdAt: string;
}

describe('customer activities', () => {
  let t: TestApp;
  let sdk: Sdk;
  /** The main customer's activities in the order they happened. */
  const history: SeededEvent[] = [];
  let customerId = '';
  let createRequestId = '';
  let createdCustomer: Record<string, unknown> = {};
  let otherCustomerEventId = '';
  let hiddenEventId = '';

  const seedActor = () => internalActor(t.projectId, 'v-seeded-by-test');

  /**
   * Appends an activity the way later areas (redemptions, loyalty, publications) will: through the event
   * log, inside a transaction, stamped by makeEvent with the clock set to `at`.
   */
  async function seed(at: string, init: EventInit): Promise<string> {
    t.clock.set(at);
    const event = makeEvent(t.deps, seedActor(), init);
    await inTransaction(t.deps, (tx) => appendEvents(tx, [event]));
    return event.id;
  }

  async function activities(query: string, id = customerId): Promise<{ status: number; body: { data: Activity[]; total: number } & Record<string, unknown> }> {
    const res = await t.request('GET', `/v1/customers/${encodeURIComponent(id)}/activities${query === '' ? '' : `?${query}`}`);
    return { status: res.status, body: res.body };
  }

  const ids = (items: Array<{ id: string }>) => items.map((a) => a.id);
  const newestFirst = () => [...history].reverse().map((e) => e.id);
  /** Expected order for a sort key: by the key ('' for none), ties in the order the events happened. */
  const sortedBy = (key: (e: SeededEvent) => string, descending: boolean) => {
    const indexed = history.map((e, i) => ({ e, i }));
    indexed.sort((a, b) => {
      const ka = key(a.e);
      const kb = key(b.e);
      const byKey = ka < kb ? -1 : ka > kb ? 1 : a.i - b.i;
      return descending ? -byKey : byKey;
    });
    return indexed.map((x) => x.e.id);
  };

  before(async () => {
    t = await startTestApp();
    sdk = t.sdk();

    t.clock.set('2026-08-01T00:00:00.000Z');
    const created = await t.request('POST', '/v1/customers', { json: { source_id: 'act-main', name: 'Main', email: 'main@act.io' } });
    assert.equal(created.status, 200);
    customerId = created.body.id;
    // An activity carries the customer as created, less the cockpit links: events and webhooks never
    // hold a credential (src/services/cockpit/links.ts).
    const { assets, ...withoutLinks } = created.body;
    assert.ok(assets.cockpit_url);
    createdCustomer = withoutLinks;
    createRequestId = created.headers.get('x-request-id') ?? '';
    const createdEvent = await t.db.db.selectFrom('events').select(['id', 'created_at']).where('customer_id', '=', customerId).executeTakeFirstOrThrow();
    history.push({ id: createdEvent.id, type: 'customer.created', category: 'ACTION', campaignName: '', code: '', categoryName: '', createdAt: createdEvent.created_at });

    const promo = { id: 'camp_promo', type: 'PROMOTION', name: 'Summer' };
    const loyal = { id: 'camp_loyal', type: 'LOYALTY_PROGRAM', name: 'Club' };
    const coupons = { id: 'camp_coupons', type: 'DISCOUNT_COUPONS', name: 'Alpha' };
    const seeds: Array<{ at: string; type: string; category: 'ACTION' | 'EFFECT'; campaign?: typeof promo; code?: string; categoryName?: string; products?: string[] }> = [
      { at: '2026-08-02T10:00:00.000Z', type: 'customer.redemption.succeeded', category: 'ACTION', campaign: promo, code: 'SUMMER-1', categoryName: 'seasonal', products: ['prod_1', 'prod_2'] },
      // `prodX1` would match a LIKE pattern for prod_1 if the underscore were not escaped.
      { at: '2026-08-03T10:00:00.000Z', type: 'customer.rewarded.loyalty_points', category: 'EFFECT', campaign: loyal, code: 'LC-1', categoryName: 'loyalty', products: ['prodX1'] },
      { at: '2026-08-04T00:00:00.000Z', type: 'customer.voucher.loyalty_card.points_added', category: 'EFFECT', campaign: loyal, code: 'LC-1' },
      { at: '2026-08-04T23:59:59.999Z', type: 'customer.publication.succeeded', category: 'ACTION', campaign: coupons, code: 'ALPHA-9', categoryName: 'acquisition' },
      { at: '2026-08-05T10:00:00.000Z', type: 'customer.order.paid', category: 'ACTION', products: ['prod_1'] },
    ];
    for (const s of seeds) {
      const id = await seed(s.at, {
        type: s.type.replace(/^customer\./, ''),
        activityType: s.type,
        activityCategory: s.category,
        customerId,
        campaign: s.campaign ?? null,
        voucherCode: s.code ?? null,
        categoryName: s.categoryName ?? null,
        productIds: s.products ?? [],
        data: { customer: { id: customerId, object: 'customer' }, note: s.type },
      });
      history.push({
        id,
        type: s.type,
        category: s.category,
        campaignName: s.campaign?.name ?? '',
        code: s.code ?? '',
        categoryName: s.categoryName ?? '',
        createdAt: s.at,
      });
    }
    // An event about the customer that is not an activity never shows up in the lists.
    hiddenEventId = await seed('2026-08-05T12:00:00.000Z', { type: 'internal.audit', customerId, data: {} });

    t.clock.set('2026-08-06T00:00:00.000Z');
    const updated = await t.request('PUT', `/v1/customers/${customerId}`, { json: { name: 'Main, renamed' } });
    assert.equal(updated.status, 200);
    const updatedEvent = await t.db.db
      .selectFrom('events')
      .select(['id', 'created_at'])
      .where('customer_id', '=', customerId)
      .where('activity_type', '=', 'customer.updated')
      .executeTakeFirstOrThrow();
    history.push({ id: updatedEvent.id, type: 'customer.updated', category: 'ACTION', campaignName: '', code: '', categoryName: '', createdAt: updatedEvent.created_at });

    // Another customer with its own activities, which must never leak into the main customer's lists.
    const other = await t.request('POST', '/v1/customers', { json: { source_id: 'act-other' } });
    otherCustomerEventId = await seed('2026-08-03T12:00:00.000Z', {
      type: 'rewarded',
      activityType: 'customer.rewarded',
      activityCategory: 'EFFECT',
      customerId: other.body.id,
      campaign: loyal,
      data: {},
    });
  });
  after(async () => t.close());

  test('customer lifecycle events are activities with the vendor shape', async () => {
    const res = await activities('order=created_at&limit=1');
    assert.equal(res.status, 200);
    const [first] = res.body.data;
    assert.deepEqual(first, {
      id: history[0]!.id,
      type: 'customer.created',
      data: {
        data: { customer: createdCustomer },
        event_source: { channel: 'API', api_key: { name: 'Server-side key', app_id: TEST_KEYS.server.id } },
      },
      created_at: history[0]!.createdAt,
      group_id: createRequestId,
    });
    assert.match(first!.id, /^evcus_/);
    assert.match(createRequestId, /^v-[0-9a-f]{18}$/);
    const [latest] = (await activities('limit=1')).body.data;
    assert.equal(latest!.type, 'customer.updated');
    assert.equal((latest!.data.data.customer as { name: string }).name, 'Main, renamed');
    assert.equal(latest!.data.event_source.channel, 'API');
  });

  describe('GET /v1/customers/{id}/activities', () => {
    test('answers newest first with the total, by id or source_id', async () => {
      const res = await activities('');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'data_ref', 'object', 'total']);
      assert.equal(res.body.object, 'list');
      assert.equal(res.body.data_ref, 'data');
      assert.equal(res.body.total, 7);
      assert.deepEqual(ids(res.body.data), newestFirst());
      assert.ok(!ids(res.body.data).includes(hiddenEventId));
      assert.ok(!ids(res.body.data).includes(otherCustomerEventId));
      const bySource = await activities('', 'act-main');
      assert.deepEqual(bySource.body, res.body);
    });

    test('limit cuts the page but not the total; the default limit is 10', async () => {
      const res = await activities('limit=3');
      assert.deepEqual(ids(res.body.data), newestFirst().slice(0, 3));
      assert.equal(res.body.total, 7);

      const busy = await t.request('POST', '/v1/customers', { json: { source_id: 'act-busy' } });
      for (let i = 0; i < 11; i++) {
        await seed(`2026-09-01T00:00:${String(i).padStart(2, '0')}.000Z`, {
          type: 'order.paid',
          activityType: 'customer.order.paid',
          activityCategory: 'ACTION',
          customerId: busy.body.id,
          data: {},
        });
      }
      const page = await activities('', 'act-busy');
      assert.equal(page.body.data.length, 10);
      assert.equal(page.body.total, 12);
      const all = await activities('limit=100', 'act-busy');
      assert.equal(all.body.data.length, 12);
    });

    test('orders by created_at and updated_at (the same for activities) both ways', async () => {
      const oldestFirst = history.map((e) => e.id);
      assert.deepEqual(ids((await activities('order=created_at')).body.data), oldestFirst);
      assert.deepEqual(ids((await activities('order=-created_at')).body.data), newestFirst());
      assert.deepEqual(ids((await activities('order=updated_at')).body.data), oldestFirst);
      assert.deepEqual(ids((await activities('order=-updated_at')).body.data), newestFirst());
    });

    test('orders by type, code, campaign and category both ways; ties keep event order', async () => {
      const keys: Record<string, (e: SeededEvent) => string> = {
        type: (e) => e.type,
        code: (e) => e.code,
        campaign: (e) => e.campaignName,
        category: (e) => e.categoryName,
      };
      for (const [name, key] of Object.entries(keys)) {
        assert.deepEqual(ids((await activities(`order=${name}`)).body.data), sortedBy(key, false), name);
        assert.deepEqual(ids((await activities(`order=-${name}`)).body.data), sortedBy(key, true), `-${name}`);
      }
    });

    test('filters by campaign_type, campaign_id and product_id, with totals to match', async () => {
      const loyalty = await activities('campaign_type=LOYALTY_PROGRAM&order=created_at');
      assert.deepEqual(ids(loyalty.body.data), [history[2]!.id, history[3]!.id]);
      assert.equal(loyalty.body.total, 2);
      const promo = await activities('campaign_id=camp_promo');
      assert.deepEqual(ids(promo.body.data), [history[1]!.id]);
      assert.equal(promo.body.total, 1);
      const product = await activities('product_id=prod_1&order=created_at');
      assert.deepEqual(ids(product.body.data), [history[1]!.id, history[5]!.id], 'prodX1 does not match prod_1');
      assert.equal((await activities('product_id=prod_2')).body.total, 1);
      assert.equal((await activities('campaign_type=GIFT_VOUCHERS')).body.total, 0);
      assert.equal((await activities('campaign_type=LOYALTY_PROGRAM&campaign_id=camp_promo')).body.total, 0);
    });

    test('start_date and end_date are inclusive; a date alone covers its whole day', async () => {
      const exact = await activities('order=created_at&start_date=2026-08-03T10:00:00.000Z&end_date=2026-08-04T23:59:59.999Z');
      assert.deepEqual(ids(exact.body.data), [history[2]!.id, history[3]!.id, history[4]!.id]);
      assert.equal(exact.body.total, 3);
      const byDay = await activities('order=created_at&start_date=2026-08-04&end_date=2026-08-04');
      assert.deepEqual(ids(byDay.body.data), [history[3]!.id, history[4]!.id]);
      const openEnded = await activities('order=created_at&start_date=2026-08-05');
      assert.deepEqual(ids(openEnded.body.data), [history[5]!.id, history[6]!.id]);
    });

    test('starting_after walks from a created_at in the order direction', async () => {
      const pivot = history[3]!.createdAt;
      const older = await activities(`starting_after=${pivot}`);
      assert.deepEqual(ids(older.body.data), [history[2]!.id, history[1]!.id, history[0]!.id]);
      const newer = await activities(`order=created_at&starting_after=${pivot}`);
      assert.deepEqual(ids(newer.body.data), [history[4]!.id, history[5]!.id, history[6]!.id]);
      assert.equal(newer.body.total, 7, 'the total ignores the cursor');
      // For other orders the cursor keeps the activities created after it, in that order.
      const byType = await activities(`order=type&starting_after=${pivot}`);
      assert.deepEqual(ids(byType.body.data), sortedBy((e) => e.type, false).filter((id) => [history[4]!.id, history[5]!.id, history[6]!.id].includes(id)));
    });

    test('starting_after_id pages through any order without gaps or repeats', async () => {
      for (const order of ['-created_at', 'created_at', 'type', '-code', 'campaign', '-category']) {
        const full = ids((await activities(`order=${order}&limit=100`)).body.data);
        const walked: string[] = [];
        let cursor = '';
        for (let guard = 0; guard < 10; guard++) {
          const page = await activities(`order=${order}&limit=2${cursor === '' ? '' : `&starting_after_id=${cursor}`}`);
          assert.equal(page.status, 200);
          walked.push(...ids(page.body.data));
          if (page.body.data.length < 2) break;
          cursor = page.body.data[page.body.data.length - 1]!.id;
        }
        assert.deepEqual(walked, full, order);
      }
    });

    test('the SDK sends starting_after_id, campaign_type and campaign_id', async () => {
      const params: ActivitiesParams = { limit: 5, order: '-created_at', starting_after_id: history[6]!.id, campaign_type: 'LOYALTY_PROGRAM', campaign_id: 'camp_loyal' };
      const res = (await sdk.customers.listActivities('act-main', params)) as unknown as { data: Activity[]; total: number };
      assert.deepEqual(ids(res.data), [history[3]!.id, history[2]!.id]);
      assert.equal(res.total, 2);
    });

    test('a starting_after_id that is not one of this customer’s activities is invalid_query_params', async () => {
      for (const bad of ['evcus_unknown', otherCustomerEventId, hiddenEventId]) {
        const res = await activities(`starting_after_id=${bad}`);
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.key, 'invalid_query_params');
        assert.match(String(res.body.details), /starting_after_id/);
      }
    });

    test('bad query parameters answer invalid_query_params', async () => {
      const cases: Array<[string, RegExp]> = [
        ['limit=0', /^Property \.limit must be >= 1$/],
        ['limit=101', /^Property \.limit must be <= 100$/],
        ['order=name', /^Property \.order should be equal to one of the allowed values \[ created_at, -created_at, updated_at, -updated_at, type, -type, code, -code, campaign, -campaign, category, -category \]$/],
        ['campaign_type=REWARDS', /^Property \.campaign_type should be equal to one of the allowed values/],
        ['start_date=yesterday', /start_date/],
        ['end_date=2026-13-01', /end_date/],
        ['starting_after=later', /starting_after/],
      ];
      for (const [query, details] of cases) {
        const res = await activities(query);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.key, 'invalid_query_params', query);
        assert.match(String(res.body.details), details, query);
      }
    });
  });

  describe('GET /v1/customers/{id}/activity', () => {
    async function activity(params: ActivityParams, id = 'act-main') {
      return (await sdk.customers.listActivity(id, params)) as unknown as { object: string; data_ref: string; data: Activity[]; has_more: boolean; more_starting_after?: string };
    }

    test('answers newest first with has_more and no total', async () => {
      const res = await activity({});
      assert.deepEqual(Object.keys(res).sort(), ['data', 'data_ref', 'has_more', 'object']);
      assert.equal(res.object, 'list');
      assert.equal(res.data_ref, 'data');
      assert.deepEqual(ids(res.data), newestFirst());
      assert.equal(res.has_more, false);
      assert.deepEqual(ids((await activity({ order: 'created_at' })).data), history.map((e) => e.id));
    });

    test('more_starting_after chains the pages until has_more is false', async () => {
      for (const order of ['-created_at', 'created_at'] as const) {
        const walked: string[] = [];
        let page = await activity({ limit: 3, order });
        for (let guard = 0; guard < 10; guard++) {
          walked.push(...ids(page.data));
          if (!page.has_more) break;
          assert.equal(page.more_starting_after, page.data[page.data.length - 1]!.id);
          page = await activity({ limit: 3, order, starting_after_id: page.more_starting_after! });
        }
        assert.equal(page.has_more, false);
        assert.equal(page.more_starting_after, undefined);
        assert.deepEqual(walked, order === 'created_at' ? history.map((e) => e.id) : newestFirst());
      }
      const exact = await activity({ limit: 7 });
      assert.equal(exact.has_more, false, 'a page that ends exactly at the last activity has no more');
    });

    test('filters by type, category, campaign and period', async () => {
      assert.deepEqual(ids((await activity({ type: 'customer.updated' })).data), [history[6]!.id]);
      assert.deepEqual(ids((await activity({ category: 'EFFECT', order: 'created_at' })).data), [history[2]!.id, history[3]!.id]);
      assert.deepEqual(
        ids((await activity({ category: 'ACTION', order: 'created_at' })).data),
        history.filter((e) => e.category === 'ACTION').map((e) => e.id),
      );
      assert.deepEqual(ids((await activity({ campaign_type: 'DISCOUNT_COUPONS' })).data), [history[4]!.id]);
      assert.deepEqual(ids((await activity({ campaign_id: 'camp_loyal', order: 'created_at' })).data), [history[2]!.id, history[3]!.id]);
      assert.deepEqual(
        ids((await activity({ start_date: '2026-08-02T10:00:00.000Z', end_date: '2026-08-04', order: 'created_at' })).data),
        [history[1]!.id, history[2]!.id, history[3]!.id, history[4]!.id],
      );
      const limited = await activity({ category: 'ACTION', limit: 2 });
      assert.equal(limited.has_more, true);
      assert.equal(limited.data.length, 2);
    });

    test('bad query parameters answer invalid_query_params', async () => {
      const cases: Array<[string, RegExp]> = [
        ['type=customer.unknown', /^Property \.type should be equal to one of the allowed values/],
        ['category=SIDE_EFFECT', /^Property \.category should be equal to one of the allowed values \[ ACTION, EFFECT \]$/],
        ['order=type', /^Property \.order should be equal to one of the allowed values \[ created_at, -created_at \]$/],
        ['limit=101', /^Property \.limit must be <= 100$/],
        ['starting_after_id=evcus_unknown', /starting_after_id/],
      ];
      for (const [query, details] of cases) {
        const res = await t.request('GET', `/v1/customers/act-main/activity?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.key, 'invalid_query_params', query);
        assert.match(String(res.body.details), details, query);
      }
    });
  });

  test('unknown and deleted customers answer 404 on both lists', async () => {
    for (const path of ['activities', 'activity']) {
      const res = await t.request('GET', `/v1/customers/nobody/${path}`);
      assert.equal(res.status, 404);
      assert.deepEqual(
        { ...res.body, request_id: undefined },
        {
          code: 404,
          key: 'not_found',
          message: 'Resource not found',
          details: 'Cannot find customer with id nobody',
          request_id: undefined,
          resource_id: 'nobody',
          resource_type: 'customer',
        },
      );
    }
    const gone = await t.request('POST', '/v1/customers', { json: { source_id: 'act-gone' } });
    assert.equal((await t.request('DELETE', '/v1/customers/act-gone')).status, 204);
    assert.equal((await t.request('GET', `/v1/customers/${gone.body.id}/activities`)).status, 404);
    assert.equal((await t.request('GET', `/v1/customers/${gone.body.id}/activity`)).status, 404);
  });

  test("another project's keys get 404 for this customer's activities", async () => {
    const project = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const keys = project.body.server_side_key as KeyPairOut;
    const other = t.sdk(keys);
    for (const ref of [customerId, 'act-main']) {
      // Called one at a time: a rejection created before it is awaited would count as unhandled.
      for (const call of [() => other.customers.listActivities(ref), () => other.customers.listActivity(ref)]) {
        const error = (await call().then(
          () => null,
          (e: unknown) => e,
        )) as { code: number; key: string; resource_type: string } | null;
        assert.ok(error, 'the call must fail');
        assert.equal(error.code, 404);
        assert.equal(error.key, 'not_found');
        assert.equal(error.resource_type, 'customer');
      }
    }
    // A cursor naming this project's event is unknown in the other project too.
    const mine = await t.request('POST', '/v1/customers', { headers: t.serverHeaders(keys), json: { source_id: 'act-main' } });
    assert.notEqual(mine.body.id, customerId);
    const res = await t.request('GET', `/v1/customers/act-main/activities?starting_after_id=${history[1]!.id}`, { headers: t.serverHeaders(keys) });
    assert.equal(res.status, 400);
    assert.equal(res.body.key, 'invalid_query_params');
  });
});
