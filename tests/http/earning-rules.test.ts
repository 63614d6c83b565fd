import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction, internalActor } from '../../src/services/context.ts';
import { earnPointsForCustomEvent, earnPointsForSegmentEntered } from '../../src/services/loyalty/earning.ts';
import { findLiveCustomerById, toCustomerObject } from '../../src/store/customers.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Earning rules (loyalty reference 4): CRUD through the SDK, and points earned when orders are paid,
// custom events arrive, customers enter segments — once per order, within validity windows, guarded by
// validation rules, multiplied by tiers, joining auto-join programs.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('earning rules', () => {
  let t: TestApp;
  let programs = 0;
  let customers = 0;

  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function program(extra: Record<string, unknown> = {}): Promise<Json> {
    programs += 1;
    const res = await t.request('POST', '/v1/loyalties', {
      json: { name: `Program ${programs}`, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, ...extra },
    });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function customer(metadata: Record<string, unknown> = {}): Promise<Json> {
    customers += 1;
    const res = await t.request('POST', '/v1/customers', { json: { source_id: `earner-${customers}`, name: `Earner ${customers}`, metadata } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function member(campaignId: string, customerSourceId: string): Promise<Json> {
    return t.sdk().loyalties.createMember(campaignId, { customer: { source_id: customerSourceId } });
  }

  async function rules(campaignId: string, items: Json[]): Promise<Json[]> {
    const res = await t.request('POST', `/v1/loyalties/${campaignId}/earning-rules`, { json: items });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function card(code: string): Promise<Json> {
    const res = await t.request('GET', `/v1/loyalties/members/${encodeURIComponent(code)}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function transactions(code: string): Promise<Json[]> {
    const res = await t.request('GET', `/v1/loyalties/members/${encodeURIComponent(code)}/transactions?limit=100`);
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  async function paidOrder(customerSourceId: string, body: Record<string, unknown>): Promise<Json> {
    const res = await t.request('POST', '/v1/orders', { json: { status: 'PAID', customer: { source_id: customerSourceId }, ...body } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  describe('CRUD through the SDK', () => {
    test('create answers an array; get, update, enable, disable, list and delete', async () => {
      const p = await program();
      const sdk = t.sdk();
      const created: Json[] = await sdk.loyalties.createEarningRule(p.id, [
        { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 }, source: { banner: 'Ten per order' } } as never,
        { event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 1 } } }, metadata: { a: 1 } } as never,
      ]);
      assert.equal(created.length, 2);
      const [fixed, proportional] = created;
      assert.match(fixed.id, /^ern_/);
      assert.match(fixed.automation_id, /^auto_/);
      assert.deepEqual(
        { ...fixed, id: undefined, created_at: undefined, automation_id: undefined },
        {
          id: undefined,
          created_at: undefined,
          automation_id: undefined,
          updated_at: null,
          validation_rule_id: null,
          loyalty: { type: 'FIXED', points: 10 },
          event: 'order.paid',
          custom_event: null,
          segment: null,
          loyalty_tier: null,
          pending_points: null,
          source: { banner: 'Ten per order', object_id: p.id, object_type: 'campaign' },
          active: true,
          start_date: null,
          expiration_date: null,
          validity_timeframe: null,
          validity_day_of_week: null,
          validity_hours: null,
          metadata: {},
          object: 'earning_rule',
        },
      );
      assert.deepEqual(proportional.loyalty, { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 1 } } });

      assert.deepEqual(await sdk.loyalties.getEarningRule(p.id, fixed.id), fixed);
      const updated: Json = await sdk.loyalties.updateEarningRule(p.id, { id: fixed.id, loyalty: { type: 'FIXED', points: 20 } } as never);
      assert.deepEqual(updated.loyalty, { type: 'FIXED', points: 20 });
      assert.equal(updated.source.banner, 'Ten per order');
      assert.ok(updated.updated_at);

      const disabled: Json = await sdk.loyalties.disableEarningRule(p.id, fixed.id);
      assert.equal(disabled.active, false);
      const enabled: Json = await sdk.loyalties.enableEarningRule(p.id, fixed.id);
      assert.equal(enabled.active, true);

      const list: Json = await sdk.loyalties.listEarningRules(p.id, { limit: 1 });
      assert.equal(list.total, 2);
      assert.equal(list.data.length, 1);
      assert.equal(list.data[0].id, fixed.id);
      const byName = await t.request('GET', `/v1/loyalties/${encodeURIComponent(p.name)}/earning-rules?order=-created_at`);
      assert.deepEqual(byName.body.data.map((r: Json) => r.id), [proportional.id, fixed.id]);

      assert.equal(await sdk.loyalties.deleteEarningRule(p.id, fixed.id), '');
      const gone = await t.request('GET', `/v1/loyalties/${p.id}/earning-rules/${fixed.id}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.body.resource_type, 'earning_rule');
      assert.equal((await t.request('DELETE', `/v1/loyalties/${p.id}/earning-rules/${fixed.id}`)).status, 404);
    });

    test('every change is an event on the campaign', async () => {
      const p = await program();
      const [rule] = await rules(p.id, [{ loyalty: { type: 'FIXED', points: 1 } }]);
      await t.request('POST', `/v1/loyalties/${p.id}/earning-rules/${rule.id}/disable`, { json: {} });
      await t.request('PUT', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`, { json: { metadata: { x: 1 } } });
      await t.request('DELETE', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`);
      const types = await t.db.db.selectFrom('events').select('type').where('campaign_id', '=', p.id).where('type', 'like', 'campaign.earning_rule.%').orderBy('seq').execute();
      assert.deepEqual(
        types.map((e) => e.type),
        ['campaign.earning_rule.assigned', 'campaign.earning_rule.disabled', 'campaign.earning_rule.updated', 'campaign.earning_rule.deleted'],
      );
    });

    test('bad input answers a precise 400 and creates nothing, not even the valid items', async () => {
      const p = await program();
      const cases: Array<[Json, string, RegExp]> = [
        [[{ loyalty: { type: 'FIXED' } }], 'invalid_payload', /loyalty\.points is required/],
        [[{ loyalty: { type: 'FIXED', points: 1 } }, { loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT' } }], 'invalid_payload', /\[1\]|total_amount/],
        [[{ event: 'customer.segment.entered', loyalty: { type: 'FIXED', points: 1 } }], 'invalid_payload', /segment\.id is required/],
        [[{ event: 'customer.loyalty.tier.joined', loyalty: { type: 'FIXED', points: 1 } }], 'missing_param', /loyalty_tier\.id is required/],
        [[{ event: 'signed_up', loyalty: { type: 'FIXED', points: 1 } }], 'missing_param', /custom_event\.schema_id/],
        [[{ event: 'signed_up', custom_event: { schema_id: 'ms_1' }, pending_points: { period_value: 3 }, loyalty: { type: 'FIXED', points: 1 } }], 'invalid_payload', /pending_points applies to order\.paid/],
        [[{ loyalty: { type: 'FIXED', points: 1 }, expiration_rules: { period_type: 'MONTH' } }], 'invalid_payload', /period_value is required/],
        [[{ loyalty: { type: 'FIXED', points: 1 }, start_date: '2026-05-01T00:00:00Z', expiration_date: '2026-04-01T00:00:00Z' }], 'invalid_payload', /expiration_date must not be before start_date/],
        [[{ loyalty: { type: 'FIXED', points: 1 }, pending_points: { period_value: 91 } }], 'invalid_payload', /pending_points\.period_value/],
        [[], 'invalid_payload', /fewer than 1|NOT have fewer/],
        [{ loyalty: { type: 'FIXED', points: 1 } }, 'invalid_payload', /array/],
      ];
      for (const [body, key, details] of cases) {
        const res = await t.request('POST', `/v1/loyalties/${p.id}/earning-rules`, { json: body });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.key, key, res.text);
        assert.match(res.body.details, details);
      }
      const notFound: Array<[Json, string]> = [
        [[{ loyalty: { type: 'FIXED', points: 1 }, validation_rule_id: 'val_missing' }], 'validation_rules'],
        [[{ event: 'customer.segment.entered', segment: { id: 'seg_missing' }, loyalty: { type: 'FIXED', points: 1 } }], 'segment'],
        [[{ event: 'customer.loyalty.tier.joined', loyalty_tier: { id: 'ltr_missing' }, loyalty: { type: 'FIXED', points: 1 } }], 'loyalty_tier'],
        [[{ loyalty: { type: 'PROPORTIONAL', order_items: { quantity: { every: 1, points: 1, object: 'product', id: 'prod_missing' } } } }], 'product'],
      ];
      for (const [body, type] of notFound) {
        const res = await t.request('POST', `/v1/loyalties/${p.id}/earning-rules`, { json: body });
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.resource_type, type);
      }
      const list = await t.request('GET', `/v1/loyalties/${p.id}/earning-rules`);
      assert.equal(list.body.total, 0);
      assert.equal((await t.request('POST', '/v1/loyalties/camp_missing/earning-rules', { json: [{ loyalty: { type: 'FIXED', points: 1 } }] })).status, 404);
    });

    test('what a rule reacts to cannot be changed by an update', async () => {
      const p = await program();
      const [rule] = await rules(p.id, [{ loyalty: { type: 'FIXED', points: 1 } }]);
      const res = await t.request('PUT', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`, { json: { event: 'customer.segment.entered' } });
      assert.equal(res.status, 400);
      assert.match(res.body.details, /event cannot be changed/);
      const same = await t.request('PUT', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`, { json: { event: 'order.paid', loyalty: { type: 'FIXED', points: '7' } } });
      assert.equal(same.status, 200, same.text);
      assert.deepEqual(same.body.loyalty, { type: 'FIXED', points: 7 });
    });

    test("another project's keys get 404 for a program's rules", async () => {
      const p = await program();
      const [rule] = await rules(p.id, [{ loyalty: { type: 'FIXED', points: 1 } }]);
      const other = await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other earning', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      });
      const headers = t.serverHeaders(other.body.server_side_key as KeyPairOut);
      assert.equal((await t.request('GET', `/v1/loyalties/${p.id}/earning-rules`, { headers })).status, 404);
      assert.equal((await t.request('GET', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`, { headers })).status, 404);
      assert.equal((await t.request('PUT', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`, { headers, json: { active: false } })).status, 404);
      assert.equal((await t.request('POST', `/v1/loyalties/${p.id}/earning-rules/${rule.id}/disable`, { headers, json: {} })).status, 404);
      assert.equal((await t.request('DELETE', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`, { headers })).status, 404);
      assert.equal((await t.request('POST', `/v1/loyalties/${p.id}/earning-rules`, { headers, json: [{ loyalty: { type: 'FIXED', points: 1 } }] })).status, 404);
      assert.equal((await t.request('GET', `/v1/loyalties/${p.id}/earning-rules/${rule.id}`)).body.active, true);
    });
  });

  describe('order.paid earning', () => {
    test('a paid order gives each rule its points as one POINTS_ACCRUAL with details, expiry and events', async () => {
      const p = await program({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 2 } } } });
      const [fixed, proportional] = await rules(p.id, [
        { loyalty: { type: 'FIXED', points: 10 }, source: { banner: 'Welcome' } },
        { loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT', order: { total_amount: { every: 1000, points: 2 } } }, expiration_rules: { period_type: 'MONTH', period_value: 0, rounding_type: 'END_OF_YEAR' } },
      ]);
      const c = await customer();
      const m = await member(p.id, c.source_id);
      const order = await paidOrder(c.source_id, { source_id: 'earn-1', amount: 12500, discount_amount: 500 });
      assert.equal((await card(m.code)).loyalty_card.balance, 10 + 24);

      const accruals = (await transactions(m.code)).filter((x: Json) => x.type === 'POINTS_ACCRUAL');
      assert.equal(accruals.length, 2);
      const byRule = new Map(accruals.map((x: Json) => [x.details.earning_rule.id, x]));
      const first: Json = byRule.get(fixed.id);
      assert.equal(first.details.balance.points, 10);
      assert.equal(first.details.balance.operation_type, 'AUTOMATIC');
      assert.equal(first.source, 'Automation');
      assert.deepEqual(first.details.order, { id: order.id, source_id: 'earn-1' });
      assert.equal(first.details.event.type, 'customer.order.paid');
      assert.match(first.details.event.id, /^ev/);
      assert.deepEqual(first.details.earning_rule, { id: fixed.id, source: { banner: 'Welcome' } });
      assert.equal(first.details.loyalty_tier, null);
      assert.equal(first.details.holder_loyalty_tier, null);
      assert.equal((byRule.get(proportional.id) as Json).details.balance.points, 24);

      // The rule's own expiry wins (earned 2026-03-02, 0 months, end of year); the program's (2 months) otherwise.
      const buckets = await t.request('GET', `/v1/loyalties/${p.id}/members/${m.code}/points-expiration?limit=10`);
      const expiries = buckets.body.data.map((b: Json) => [b.bucket.total_points, b.expires_at]).sort();
      assert.deepEqual(expiries, [
        [10, '2026-05-02'],
        [24, '2026-12-31'],
      ]);

      const activity = await t.request('GET', `/v1/customers/${c.id}/activities?limit=100`);
      const rewarded = activity.body.data.filter((a: Json) => a.type === 'customer.rewarded.loyalty_points');
      assert.equal(rewarded.length, 2);
      assert.equal(rewarded[0].data.data.voucher.code, m.code);
      assert.equal(rewarded[0].data.data.order.id, order.id);
    });

    test('an order earns once: paid, cancelled, paid again', async () => {
      const p = await program();
      await rules(p.id, [{ loyalty: { type: 'FIXED', points: 5 } }]);
      const c = await customer();
      const m = await member(p.id, c.source_id);
      const order = await paidOrder(c.source_id, { source_id: 'once-1', amount: 1000 });
      for (const status of ['CANCELED', 'PAID', 'FULFILLED', 'PAID']) {
        const res = await t.request('PUT', `/v1/orders/${order.id}`, { json: { status } });
        assert.equal(res.status, 200, res.text);
      }
      assert.equal((await card(m.code)).loyalty_card.balance, 5);
      assert.equal((await transactions(m.code)).filter((x: Json) => x.type === 'POINTS_ACCRUAL').length, 1);
    });

    test('ten concurrent PUTs marking an order PAID earn once', async () => {
      const p = await program();
      await rules(p.id, [{ loyalty: { type: 'FIXED', points: 7 } }]);
      const c = await customer();
      const m = await member(p.id, c.source_id);
      const created = await t.request('POST', '/v1/orders', { json: { source_id: 'race-1', amount: 1000, customer: { source_id: c.source_id } } });
      assert.equal(created.body.status, 'CREATED');
      const results = await Promise.all(Array.from({ length: 10 }, () => t.request('PUT', `/v1/orders/${created.body.id}`, { json: { status: 'PAID' } })));
      for (const r of results) assert.equal(r.status, 200, r.text);
      assert.equal((await card(m.code)).loyalty_card.balance, 7);
      assert.equal((await transactions(m.code)).filter((x: Json) => x.type === 'POINTS_ACCRUAL').length, 1);
    });

    test('auto_join: a customer without a card gets one when a rule gives points; other programs do not join', async () => {
      const joining = await program({ auto_join: true });
      const closed = await program({ auto_join: false });
      await rules(joining.id, [{ loyalty: { type: 'FIXED', points: 3 } }]);
      await rules(closed.id, [{ loyalty: { type: 'FIXED', points: 4 } }]);
      const c = await customer();
      await paidOrder(c.source_id, { amount: 1000 });
      const joined = await t.request('GET', `/v1/loyalties/${joining.id}/members?customer=${c.id}`);
      assert.equal(joined.body.total, 1);
      assert.equal(joined.body.vouchers[0].loyalty_card.balance, 3);
      assert.equal(joined.body.vouchers[0].holder_id, c.id);
      const notJoined = await t.request('GET', `/v1/loyalties/${closed.id}/members?customer=${c.id}`);
      assert.equal(notJoined.body.total, 0);
      // A second paid order credits the same card instead of joining again.
      await paidOrder(c.source_id, { amount: 1000 });
      const again = await t.request('GET', `/v1/loyalties/${joining.id}/members?customer=${c.id}`);
      assert.equal(again.body.total, 1);
      assert.equal(again.body.vouchers[0].loyalty_card.balance, 6);
    });

    test('auto-join under concurrent paid orders of one customer makes one card', async () => {
      const joining = await program({ auto_join: true });
      await rules(joining.id, [{ loyalty: { type: 'FIXED', points: 1 } }]);
      const c = await customer();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => t.request('POST', '/v1/orders', { json: { status: 'PAID', source_id: `aj-${c.id}-${i}`, amount: 100, customer: { id: c.id } } })),
      );
      for (const r of results) assert.equal(r.status, 200, r.text);
      const cards = await t.request('GET', `/v1/loyalties/${joining.id}/members?customer=${c.id}`);
      assert.equal(cards.body.total, 1);
      assert.equal(cards.body.vouchers[0].loyalty_card.balance, 8);
    });

    test('inactive, expired, not yet started and out-of-window rules give nothing; the program being disabled blocks earning', async () => {
      const p = await program();
      const [disabled] = await rules(p.id, [
        { loyalty: { type: 'FIXED', points: 1000 }, active: false },
        { loyalty: { type: 'FIXED', points: 2000 }, start_date: '2026-04-01T00:00:00Z' },
        { loyalty: { type: 'FIXED', points: 4000 }, expiration_date: '2026-03-01T00:00:00Z' },
        // 2026-03-02 is a Monday (1); Sundays only.
        { loyalty: { type: 'FIXED', points: 8000 }, validity_day_of_week: [0] },
        { loyalty: { type: 'FIXED', points: 1 } },
      ]);
      const c = await customer();
      const m = await member(p.id, c.source_id);
      await paidOrder(c.source_id, { amount: 1000 });
      assert.equal((await card(m.code)).loyalty_card.balance, 1);
      await t.request('POST', `/v1/loyalties/${p.id}/earning-rules/${disabled.id}/enable`, { json: {} });
      await t.request('POST', `/v1/campaigns/${p.id}/disable`, { json: {} });
      await paidOrder(c.source_id, { amount: 1000 });
      assert.equal((await card(m.code)).loyalty_card.balance, 1);
      await t.request('POST', `/v1/campaigns/${p.id}/enable`, { json: {} });
      await paidOrder(c.source_id, { amount: 1000 });
      assert.equal((await card(m.code)).loyalty_card.balance, 1 + 1001);
    });

    test('an expired program neither gives points nor joins anyone', async () => {
      const p = await program({ auto_join: true, expiration_date: '2026-03-01T00:00:00Z' });
      await rules(p.id, [{ loyalty: { type: 'FIXED', points: 9 }, start_date: '2026-01-01T00:00:00Z' }]);
      const c = await customer();
      await paidOrder(c.source_id, { amount: 1000 });
      assert.equal((await t.request('GET', `/v1/loyalties/${p.id}/members?customer=${c.id}`)).body.total, 0);
      const rows = await t.db.db.selectFrom('voucher_transactions').select('id').where('campaign_id', '=', p.id).execute();
      assert.equal(rows.length, 0);
    });

    test('validation rules on the rule (validation_rule_id and assignments) must pass', async () => {
      const p = await program();
      const bigOrder = await t.request('POST', '/v1/validation-rules', {
        json: { name: `Big orders ${p.id}`, rules: { '1': { name: 'order.amount', conditions: { $more_than: [5000] }, rules: {} }, logic: '1' } },
      });
      assert.equal(bigOrder.status, 200, bigOrder.text);
      const vip = await t.request('POST', '/v1/validation-rules', {
        json: { name: `VIP ${p.id}`, rules: { '1': { name: 'customer.metadata', property: 'vip', conditions: { $is: [true] }, rules: {} }, logic: '1' } },
      });
      assert.equal(vip.status, 200, vip.text);
      const [byId, byAssignment] = await rules(p.id, [
        { loyalty: { type: 'FIXED', points: 100 }, validation_rule_id: bigOrder.body.id },
        { loyalty: { type: 'FIXED', points: 10 } },
      ]);
      const assigned = await t.request('POST', `/v1/validation-rules/${vip.body.id}/assignments`, { json: { related_object_type: 'earning_rule', related_object_id: byAssignment.id } });
      assert.equal(assigned.status, 200, assigned.text);
      assert.equal(byId.validation_rule_id, bigOrder.body.id);

      const plain = await customer();
      const pm = await member(p.id, plain.source_id);
      await paidOrder(plain.source_id, { amount: 1000 });
      assert.equal((await card(pm.code)).loyalty_card.balance, 0);
      await paidOrder(plain.source_id, { amount: 6000 });
      assert.equal((await card(pm.code)).loyalty_card.balance, 100);

      const vipCustomer = await customer({ vip: true });
      const vm = await member(p.id, vipCustomer.source_id);
      await paidOrder(vipCustomer.source_id, { amount: 1000 });
      assert.equal((await card(vm.code)).loyalty_card.balance, 10);
    });

    test('items rules count matching products, SKUs and collections', async () => {
      const p = await program();
      const shoe = (await t.request('POST', '/v1/products', { json: { source_id: `shoe-${p.id}`, name: 'Shoe', price: 5000 } })).body;
      const sock = (await t.request('POST', '/v1/products', { json: { source_id: `sock-${p.id}`, name: 'Sock', price: 500 } })).body;
      const collection = await t.request('POST', '/v1/product-collections', { json: { type: 'STATIC', name: `Footwear ${p.id}`, products: [{ id: shoe.id, object: 'product' }] } });
      assert.equal(collection.status, 200, collection.text);
      await rules(p.id, [
        { loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_QUANTITY', order_items: { quantity: { every: 1, points: 5, object: 'products_collection', id: collection.body.id } } } },
        { loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_AMOUNT', order_items: { amount: { every: 100, points: 1, object: 'product', id: sock.id } } } },
      ]);
      const c = await customer();
      const m = await member(p.id, c.source_id);
      await paidOrder(c.source_id, { items: [{ product_id: shoe.id, quantity: 2 }, { product_id: sock.id, quantity: 3 }] });
      // 2 shoes × 5 + 1500 / 100 × 1
      assert.equal((await card(m.code)).loyalty_card.balance, 10 + 15);
    });

    test('pending_points go to a pending entry instead of the balance', async () => {
      const p = await program();
      await rules(p.id, [{ loyalty: { type: 'FIXED', points: 40 }, pending_points: { period_type: 'DAY', period_value: 14 } }]);
      const c = await customer();
      const m = await member(p.id, c.source_id);
      await paidOrder(c.source_id, { amount: 1000 });
      const after = await card(m.code);
      assert.equal(after.loyalty_card.balance, 0);
      assert.equal(after.loyalty_card.pending_points, 40);
      const pending = await t.request('GET', `/v1/loyalties/members/${m.code}/pending-points`);
      assert.equal(pending.status, 200, pending.text);
      assert.equal(pending.body.data[0].activates_at, '2026-03-16');
      assert.equal(pending.body.data[0].details.order.id !== undefined, true);
    });

    test('tier multipliers change what a member earns, and the details name the tiers', async () => {
      const p = await program();
      const [rule] = await rules(p.id, [{ loyalty: { type: 'FIXED', points: 100 } }]);
      const tiers = await t.request('POST', `/v1/loyalties/${p.id}/tiers`, {
        json: [
          { name: 'Base', points: { from: 0, to: 99 } },
          { name: 'Gold', points: { from: 100, to: null }, earning_rules: { [rule.id]: { type: 'MULTIPLY', multiplier: 2 } } },
        ],
      });
      assert.equal(tiers.status, 200, tiers.text);
      const gold = tiers.body[1];
      const c = await customer();
      const m = await member(p.id, c.source_id);
      await paidOrder(c.source_id, { amount: 1000 });
      // Earned at Base (×1), which lifted the card into Gold; the next order earns ×2.
      await paidOrder(c.source_id, { amount: 1000 });
      assert.equal((await card(m.code)).loyalty_card.balance, 300);
      const accruals = (await transactions(m.code)).filter((x: Json) => x.type === 'POINTS_ACCRUAL');
      const atBase = accruals.find((x: Json) => x.details.balance.points === 100);
      const atGold = accruals.find((x: Json) => x.details.balance.points === 200);
      // Joining put the member in Base at once; Base maps nothing for this rule.
      assert.equal(atBase.details.loyalty_tier, null);
      assert.deepEqual(atBase.details.holder_loyalty_tier, { id: tiers.body[0].id, name: 'Base' });
      assert.deepEqual(atGold.details.loyalty_tier, { id: gold.id, name: 'Gold' });
      assert.deepEqual(atGold.details.holder_loyalty_tier, { id: gold.id, name: 'Gold' });
    });
  });

  describe('other events', () => {
    test('custom events: rules of that name give points, with event metadata, to the named card', async () => {
      const p = await program({ auto_join: true });
      const [rule] = await rules(p.id, [
        { event: 'video_watched', custom_event: { schema_id: 'ms_video' }, loyalty: { type: 'PROPORTIONAL', custom_event: { metadata: { every: 10, points: 1, property: 'minutes' } } } },
        { event: 'other_event', custom_event: { schema_id: 'ms_other' }, loyalty: { type: 'FIXED', points: 50 } },
      ]);
      const c = await customer();
      const earned = await inTransaction(t.deps, async (tx) => {
        const row = await findLiveCustomerById(tx, t.projectId, c.id);
        assert.ok(row);
        return earnPointsForCustomEvent(tx, t.deps, internalActor(t.projectId, 'test'), {
          customer: toCustomerObject(row),
          event: { name: 'video_watched', id: 'evcus_test', metadata: { minutes: 35 }, schemaId: 'ms_video' },
        });
      });
      assert.equal(earned.length, 1);
      assert.equal(earned[0]?.earning_rule_id, rule.id);
      assert.equal(earned[0]?.points, 3);
      const joined = await t.request('GET', `/v1/loyalties/${p.id}/members?customer=${c.id}`);
      assert.equal(joined.body.vouchers[0].loyalty_card.balance, 3);
      const tx = (await transactions(joined.body.vouchers[0].code)).find((x: Json) => x.type === 'POINTS_ACCRUAL');
      assert.deepEqual(tx.details.custom_event, { id: 'evcus_test', type: 'video_watched' });

      const stranger = await customer();
      await assert.rejects(
        inTransaction(t.deps, async (t2) => {
          const row = await findLiveCustomerById(t2, t.projectId, stranger.id);
          assert.ok(row);
          return earnPointsForCustomEvent(t2, t.deps, internalActor(t.projectId, 'test'), {
            customer: toCustomerObject(row),
            event: { name: 'video_watched', metadata: { minutes: 100 } },
            loyaltyCardCode: joined.body.vouchers[0].code,
          });
        }),
        (error: Json) => error.key === 'invalid_customer',
      );
    });

    test('segment entered: rules naming the segment give points', async () => {
      const p = await program();
      const c = await customer();
      const m = await member(p.id, c.source_id);
      const segment = await t.request('POST', '/v1/segments', { json: { name: `Seg ${p.id}`, type: 'static', customers: [] } });
      assert.equal(segment.status, 200, segment.text);
      await rules(p.id, [{ event: 'customer.segment.entered', segment: { id: segment.body.id }, loyalty: { type: 'FIXED', points: 15 } }]);
      await inTransaction(t.deps, async (tx) => {
        const row = await findLiveCustomerById(tx, t.projectId, c.id);
        assert.ok(row);
        const actor = internalActor(t.projectId, 'test');
        assert.equal((await earnPointsForSegmentEntered(tx, t.deps, actor, { customer: toCustomerObject(row), segment: { id: 'seg_other', name: 'x' } })).length, 0);
        assert.equal((await earnPointsForSegmentEntered(tx, t.deps, actor, { customer: toCustomerObject(row), segment: { id: segment.body.id, name: 'Seg' } })).length, 1);
      });
      const tx = (await transactions(m.code)).find((x: Json) => x.type === 'POINTS_ACCRUAL');
      assert.equal(tx.details.balance.points, 15);
      assert.deepEqual(tx.details.segment, { id: segment.body.id, name: 'Seg' });
    });

    test('tier events: joining a tier fires the rules naming it (or __ANY__)', async () => {
      const p = await program();
      const tiers = await t.request('POST', `/v1/loyalties/${p.id}/tiers`, { json: [{ name: 'Silver', points: { from: 50 } }] });
      const silver = tiers.body[0];
      await rules(p.id, [
        { loyalty: { type: 'FIXED', points: 60 } },
        { event: 'customer.loyalty.tier.joined', loyalty_tier: { id: silver.id }, loyalty: { type: 'FIXED', points: 5 } },
        { event: 'customer.loyalty.tier.joined', loyalty_tier: { id: '__ANY__' }, loyalty: { type: 'FIXED', points: 1 } },
        { event: 'customer.loyalty.tier.upgraded', loyalty_tier: { id: silver.id }, loyalty: { type: 'FIXED', points: 1000 } },
      ]);
      const c = await customer();
      const m = await member(p.id, c.source_id);
      await paidOrder(c.source_id, { amount: 1000 });
      assert.equal((await card(m.code)).loyalty_card.balance, 66);
      const tx = (await transactions(m.code)).filter((x: Json) => x.type === 'POINTS_ACCRUAL' && x.details.event.type === 'customer.loyalty.tier.joined');
      assert.equal(tx.length, 2);
    });
  });
});
