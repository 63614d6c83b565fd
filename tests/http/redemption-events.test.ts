import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, rejects, type Json } from '../helpers/redemption-fixtures.ts';

// What a redemption sets off besides the records (promotions reference 6.4, 7.4, 9.2; DECISIONS 13):
// `redemption.succeeded` per child and one for the parent with `customer.redemption.*` activities,
// `redemption.failed`; a redemption's order is PAID unless the request says otherwise, and a PAID order
// fires order-paid earning exactly once; `options.expand` adds redeemable details.

describe('redemption events, activities and order-paid earning', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
  });
  after(async () => t.close());

  const eventsOf = async (type: string) => t.deps.db.selectFrom('events').select(['id', 'type', 'customer_id', 'activity_type', 'entity_id']).where('type', '=', type).orderBy('seq').execute();

  test('a stacked redemption appends one redemption.succeeded per child and one for the parent; activities per child', async () => {
    const customer = await f.customer();
    const a = await f.amountVoucher(100);
    const b = await f.amountVoucher(200);
    const before = (await eventsOf('redemption.succeeded')).length;
    const res: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: a.code }, { object: 'voucher', id: b.code }], order: { amount: 1000 }, customer: { id: customer.id } } as never);
    const events = (await eventsOf('redemption.succeeded')).slice(before);
    assert.deepEqual(events.map((e) => e.entity_id).sort(), [res.parent_redemption.id, ...res.redemptions.map((r: Json) => r.id)].sort());
    assert.equal(events.filter((e) => e.activity_type === 'customer.redemption.succeeded').length, 2);
    const activities = await t.request('GET', `/v1/customers/${customer.id}/activities?limit=100`);
    const succeeded = activities.body.data.filter((x: Json) => x.type === 'customer.redemption.succeeded');
    assert.equal(succeeded.length, 2);
    // The records' snapshots are written into the answer as stored: the answer is its own serialisation.
    assert.equal(activities.text, JSON.stringify(activities.body));
    for (const activity of succeeded) {
      const record = await t.request('GET', `/v1/redemptions/${activity.data.data.redemption.id}`);
      assert.deepEqual(activity.data.data.redemption, record.body);
      assert.deepEqual(activity.data.data.order, record.body.order);
    }
    const failed = await rejects(t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'NOT-HERE' }], customer: { id: customer.id } } as never));
    const failures = await eventsOf('redemption.failed');
    assert.ok(failures.some((e) => e.entity_id === failed.resource_id && e.activity_type === 'customer.redemption.failed'));
  });

  test('the order is PAID (earning fires once) unless the request gives a status', async () => {
    const program = await f.ok('POST', '/v1/loyalties', { name: f.unique('Earn'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    await f.ok('POST', `/v1/loyalties/${program.id}/earning-rules`, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } },
      { event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT', order: { total_amount: { every: 1000, points: 1 } } } },
    ]);
    const customer = await f.customer();
    const card = await f.ok('POST', `/v1/loyalties/${program.id}/members`, { customer: { id: customer.id } });
    const v1 = await f.amountVoucher(2000);
    const v2 = await f.amountVoucher(1000);
    const sourceId = f.unique('earning-order');
    await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: v1.code }], order: { source_id: sourceId, amount: 10000 }, customer: { id: customer.id } } as never);
    // 10 fixed + 8 for the 8000 paid after the discount.
    assert.equal((await f.voucherState(card.code)).loyalty_card.balance, 18);
    await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: v2.code }], order: { source_id: sourceId }, customer: { id: customer.id } } as never);
    assert.equal((await f.voucherState(card.code)).loyalty_card.balance, 18, 'the order was paid already: no second earning');

    const v3 = await f.amountVoucher(100);
    const created: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: v3.code }], order: { amount: 5000, status: 'CREATED' }, customer: { id: customer.id } } as never);
    assert.equal(created.order.status, 'CREATED');
    assert.equal((await f.voucherState(card.code)).loyalty_card.balance, 18);
    const summary = (await f.ok('GET', `/v1/customers/${customer.id}`)).summary.orders;
    assert.equal(summary.total_count, 1, 'the PAID order counts for the customer, the CREATED one not');
  });

  test('options.expand redeemable adds the campaign and the tier name to results', async () => {
    const promo = await f.promotion([{ name: 'Named tier', metadata: { color: 'red' }, action: { discount: { type: 'AMOUNT', amount_off: 10 } } }]);
    const tier = promo.promotion.tiers[0];
    const plain: Json = await t.sdk().validations.validateStackable({ redeemables: [{ object: 'promotion_tier', id: tier.id }], order: { amount: 100 } } as never);
    assert.equal(plain.redeemables[0].campaign_name, undefined);
    assert.deepEqual(plain.redeemables[0].metadata, { color: 'red' });
    const expanded: Json = await t.sdk().validations.validateStackable({ redeemables: [{ object: 'promotion_tier', id: tier.id }], order: { amount: 100 }, options: { expand: ['redeemable'] } } as never);
    assert.equal(expanded.redeemables[0].campaign_name, promo.name);
    assert.equal(expanded.redeemables[0].campaign_id, promo.id);
    assert.equal(expanded.redeemables[0].name, 'Named tier');
  });
});
