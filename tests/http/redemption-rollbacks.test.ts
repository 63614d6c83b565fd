import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, rejects, type Json } from '../helpers/redemption-fixtures.ts';

// Rollbacks (promotions reference 6.13, DECISIONS 15): exactly what a redemption consumed comes back —
// voucher uses, gift credits, loyalty points into their buckets, reward units, tier summaries — the order
// is cancelled with the rollback in its redemptions map, rollback records (rr_/rrf_) are listed, events
// are appended, and a second rollback fails with already_rolled_back.

describe('rollbacks', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
  });
  after(async () => t.close());

  test('a single redemption: usage and credits back, order CANCELED, rollback record, customer counters; twice → already_rolled_back', async () => {
    const gift = await f.giftCard(5000, { redemption: { quantity: 3 } });
    const customer = await f.customer();
    const sourceId = f.unique('ord');
    const res: Json = await t.sdk().redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: 2000 } }],
      order: { amount: 3000, source_id: sourceId },
      customer: { id: customer.id },
    } as never);
    const redemption = res.redemptions[0];
    assert.equal((await f.voucherState(gift.code)).gift.balance, 3000);

    const rollback: Json = await t.sdk().redemptions.rollback(redemption.id, { reason: 'wrong order' } as never);
    assert.match(rollback.id, /^rr_/);
    assert.equal(rollback.object, 'redemption_rollback');
    assert.equal(rollback.redemption, redemption.id);
    assert.equal(rollback.result, 'SUCCESS');
    assert.equal(rollback.status, 'SUCCEEDED');
    assert.equal(rollback.reason, 'wrong order');
    assert.equal(rollback.amount, -2000);
    assert.deepEqual(rollback.gift, { amount: -2000 });
    assert.equal(rollback.related_object_id, gift.id);
    assert.equal(rollback.voucher.gift.balance, 5000, 'the voucher after the rollback');
    assert.equal(rollback.order.status, 'CANCELED');
    assert.equal(rollback.order.total_amount, 3000);
    assert.equal(rollback.order.discount_amount, 0);
    assert.equal(rollback.order.redemptions[redemption.id].rollback_id, rollback.id);

    const state = await f.voucherState(gift.code);
    assert.equal(state.gift.balance, 5000);
    assert.equal(state.redemption.redeemed_quantity, 0);
    assert.equal(state.redemption.redeemed_amount, 0);
    const original: Json = await t.sdk().redemptions.get(redemption.id);
    assert.equal(original.status, 'ROLLED_BACK');
    assert.equal(original.related_redemptions.rollbacks[0].id, rollback.id);
    assert.equal(original.related_redemptions.rollbacks[0].rollback_order_mode, 'WITH_ORDER');
    const order: Json = await t.sdk().orders.get(sourceId);
    assert.equal(order.status, 'CANCELED');
    const summary = await f.customerSummary(customer.id);
    assert.deepEqual([summary.total_succeeded, summary.total_rolled_back, summary.total_rollback_succeeded], [1, 1, 1]);

    const again = await rejects(t.sdk().redemptions.rollback(redemption.id));
    assert.equal(again.code, 400);
    assert.equal(again.key, 'already_rolled_back');
    assert.match(again.resource_id, /^rrf_/);
    assert.equal(again.resource_type, 'redemption_rollback');
    const failed: Json = await t.sdk().redemptions.get(again.resource_id);
    assert.equal(failed.object, 'redemption_rollback');
    assert.equal(failed.result, 'FAILURE');
    assert.equal(failed.failure_code, 'already_rolled_back');
    assert.equal((await f.voucherState(gift.code)).gift.balance, 5000, 'a failed rollback restores nothing twice');
    assert.equal((await f.customerSummary(customer.id)).total_rollback_failed, 1);

    const history: Json = await t.sdk().redemptions.getForVoucher(gift.code);
    assert.equal(history.data_ref, 'redemption_entries');
    assert.equal(history.object, 'list');
    assert.equal(history.quantity, 3);
    assert.equal(history.redeemed_quantity, 0);
    assert.deepEqual(history.redemption_entries.map((e: Json) => e.id).sort(), [redemption.id, rollback.id, again.resource_id].sort());
    assert.equal(history.total, 3);
    const events = await t.deps.db.selectFrom('events').select(['type']).where('type', 'in', ['redemption.rollback.succeeded', 'redemption.rollback.failed']).execute();
    assert.deepEqual(events.map((e) => e.type).sort(), ['redemption.rollback.failed', 'redemption.rollback.succeeded']);
  });

  test('a stacked redemption: /rollback refuses the parent and a child; /rollbacks undoes every child', async () => {
    const a = await f.amountVoucher(100, { redemption: { quantity: 1 } });
    const promo = await f.promotion([{ name: 'T', action: { discount: { type: 'AMOUNT', amount_off: 50 } } }]);
    const tier = promo.promotion.tiers[0];
    const { card, reward, customer } = await f.payWithPoints(1000);
    const res: Json = await t.sdk().redemptions.redeemStackable({
      redeemables: [
        { object: 'voucher', id: a.code },
        { object: 'promotion_tier', id: tier.id },
        { object: 'voucher', id: card.code, reward: { id: reward.id, points: 200 } },
      ],
      order: { amount: 10000 },
      customer: { id: customer.id },
    } as never);
    const parent = res.parent_redemption;
    assert.equal(res.order.total_amount, 10000 - 100 - 50 - 4000);
    assert.equal((await f.voucherState(card.code)).loyalty_card.balance, 800);

    const viaRollback = await rejects(t.sdk().redemptions.rollback(parent.id));
    assert.equal(viaRollback.key, 'invalid_redemption');
    const child = await rejects(t.sdk().redemptions.rollback(res.redemptions[0].id));
    assert.equal(child.key, 'invalid_redemption_parent');
    const childStacked = await rejects(t.sdk().redemptions.rollbackStackable(res.redemptions[0].id));
    assert.equal(childStacked.key, 'invalid_redemption_parent');

    const rolled: Json = await t.sdk().redemptions.rollbackStackable(parent.id, { customer: { id: customer.id } }, { reason: 'returned' });
    assert.equal(rolled.parent_rollback.redemption, parent.id);
    assert.equal(rolled.rollbacks.length, 3);
    for (const r of rolled.rollbacks) assert.equal(r.redemption !== parent.id, true);
    assert.deepEqual(rolled.rollbacks.map((r: Json) => r.redemption).sort(), res.redemptions.map((r: Json) => r.id).sort());
    assert.equal(rolled.order.status, 'CANCELED');
    assert.equal(rolled.order.total_amount, 10000);
    assert.deepEqual(rolled.order.redemptions[parent.id].rollback_stacked.length, 3);
    const pointsRollback = rolled.rollbacks.find((r: Json) => r.related_object_id === card.id);
    assert.equal(pointsRollback.amount, -200);
    assert.deepEqual(pointsRollback.loyalty_card, { points: -200 });

    assert.equal((await f.voucherState(a.code)).redemption.redeemed_quantity, 0, 'the voucher use is back: quantity 1 can be redeemed again');
    const cardState = await f.voucherState(card.code);
    assert.equal(cardState.loyalty_card.balance, 1000);
    assert.equal(cardState.redemption.redeemed_points, 0);
    const tierState = await f.ok('GET', `/v1/promotions/tiers/${tier.id}`);
    assert.deepEqual(tierState.summary, { redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } });
    const rewardState = await f.ok('GET', `/v1/rewards/${reward.id}`);
    assert.equal(rewardState.redeemed, 0);
    for (const r of res.redemptions) assert.equal(((await t.sdk().redemptions.get(r.id)) as Json).status, 'ROLLED_BACK');
    const summary = await f.customerSummary(customer.id);
    assert.deepEqual([summary.total_succeeded, summary.total_rolled_back, summary.total_rollback_succeeded], [3, 3, 3]);

    const twice = await rejects(t.sdk().redemptions.rollbackStackable(parent.id));
    assert.equal(twice.key, 'already_rolled_back');
    const again: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: a.code }], order: { amount: 500 } } as never);
    assert.equal(again.redemptions.length, 1);
  });

  test('refunded points go back into the bucket they came from', async () => {
    const { program, card, reward, customer } = await f.payWithPoints(0);
    await f.ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/balance`, { points: 500, expiration_type: 'CUSTOM_DATE', expiration_date: '2026-12-31' });
    const res: Json = await t.sdk().redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: reward.id, points: 300 } }],
      order: { amount: 10000 },
      customer: { id: customer.id },
    } as never);
    const buckets = async () => (await f.ok('GET', `/v1/loyalties/${program.id}/members/${card.code}/points-expiration`)).data;
    assert.equal((await buckets())[0].bucket.total_points, 200);
    await t.sdk().redemptions.rollback(res.redemptions[0].id);
    const after = await buckets();
    assert.equal(after.length, 1);
    assert.equal(after[0].bucket.total_points, 500, 'the same bucket holds the points again');
    assert.equal(after[0].expires_at, '2026-12-31');
  });

  test('rollback refusals: unrelated customer or order, a failure record, unknown id', async () => {
    const v = await f.amountVoucher(10);
    const customer = await f.customer();
    const other = await f.customer();
    const res: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: v.code }], order: { amount: 100 }, customer: { id: customer.id } } as never);
    const id = res.redemptions[0].id;
    const wrongCustomer = await rejects(t.sdk().redemptions.rollback(id, { customer: { id: other.id } } as never));
    assert.equal(wrongCustomer.key, 'invalid_customer');
    assert.match(wrongCustomer.resource_id, /^rrf_/);
    const wrongOrder = await t.request('POST', `/v1/redemptions/${id}/rollback`, { json: { order: { source_id: 'not-this-one' } } });
    assert.equal(wrongOrder.status, 400);
    assert.equal(wrongOrder.body.key, 'invalid_order');
    const missing = await rejects(t.sdk().redemptions.rollback('r_does_not_exist'));
    assert.equal(missing.code, 404);
    const failure = await rejects(t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'NOPE-RB' }] } as never));
    const onFailure = await rejects(t.sdk().redemptions.rollback(failure.resource_id));
    assert.equal(onFailure.key, 'invalid_redemption');
    // None of these undid anything.
    assert.equal(((await t.sdk().redemptions.get(id)) as Json).status, 'SUCCEEDED');
    t.clock.advance(93 * 86_400_000);
    const old = await rejects(t.sdk().redemptions.rollback(id));
    assert.equal(old.key, 'invalid_rollback_params');
  });

  test('WITHOUT_ORDER mode (stacking rules) keeps the order as it was', async () => {
    const project = await f.ok('POST', '/management/v1/projects', { name: f.unique('NoOrder'), case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' }, t.managementHeaders());
    await f.ok('POST', `/management/v1/projects/${project.id}/stacking-rules`, { redeemables_rollback_order_mode: 'WITHOUT_ORDER' }, t.managementHeaders());
    const headers = t.serverHeaders(project.server_side_key);
    await t.request('POST', '/v1/vouchers/KEEP-ORDER', { headers, json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } } });
    const sdk = t.sdk(project.server_side_key);
    const res: Json = await sdk.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'KEEP-ORDER' }], order: { amount: 1000, source_id: 'kept' } } as never);
    const rollback: Json = await sdk.redemptions.rollback(res.redemptions[0].id);
    assert.equal(rollback.order.status, 'PAID');
    assert.equal(rollback.order.total_amount, 700);
    const original: Json = await sdk.redemptions.get(res.redemptions[0].id);
    assert.equal(original.related_redemptions.rollbacks[0].rollback_order_mode, 'WITHOUT_ORDER');
  });

  test('a reward redeemed through the loyalty endpoints is rolled back: points and stock return', async () => {
    const program = await f.ok('POST', '/v1/loyalties', { name: f.unique('Rewards'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const customer = await f.customer();
    const card = await f.ok('POST', `/v1/loyalties/${program.id}/members`, { customer: { id: customer.id } });
    await f.ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/balance`, { points: 1000 });
    const product = await f.product(100);
    const reward = await f.ok('POST', '/v1/rewards', { name: f.unique('Mug'), parameters: { product: { id: product.id } }, stock: 5 });
    await f.ok('POST', `/v1/rewards/${reward.id}/assignments`, { campaign: program.id, parameters: { loyalty: { points: 400 } } });
    const redemption = await f.ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/redemption`, { reward: { id: reward.id } });
    assert.equal((await f.ok('GET', `/v1/rewards/${reward.id}`)).stock, 4);
    const rollback: Json = await t.sdk().redemptions.rollback(redemption.id);
    assert.deepEqual(rollback.loyalty_card, { points: -400 });
    const cardNow = await f.voucherState(card.code);
    assert.equal(cardNow.loyalty_card.balance, 1000);
    assert.equal(cardNow.redemption.redeemed_quantity, 0);
    const rewardNow = await f.ok('GET', `/v1/rewards/${reward.id}`);
    assert.equal(rewardNow.stock, 5);
    assert.equal(rewardNow.redeemed, 0);
  });

  test('rolling back a campaign reward takes back the credits it added, or disables the coupon it handed out', async () => {
    const program = await f.ok('POST', '/v1/loyalties', { name: f.unique('Handouts'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const customer = await f.customer();
    const card = await f.ok('POST', `/v1/loyalties/${program.id}/members`, { customer: { id: customer.id } });
    await f.ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/balance`, { points: 1000 });
    const gifts = await f.ok('POST', '/v1/campaigns', { name: f.unique('Gift cards'), campaign_type: 'GIFT_VOUCHERS', vouchers_count: 0, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 100 } } });
    const coupons = await f.ok('POST', '/v1/campaigns', { name: f.unique('Coupons'), campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 2, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    const credit = await f.ok('POST', '/v1/rewards', { name: f.unique('Credit'), parameters: { campaign: { id: gifts.id, balance: 2500 } } });
    const coupon = await f.ok('POST', '/v1/rewards', { name: f.unique('Coupon'), parameters: { campaign: { id: coupons.id } } });
    await f.ok('POST', `/v1/rewards/${credit.id}/assignments`, { campaign: program.id, parameters: { loyalty: { points: 100 } } });
    await f.ok('POST', `/v1/rewards/${coupon.id}/assignments`, { campaign: program.id, parameters: { loyalty: { points: 100 } } });

    const creditRedemption = await f.ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/redemption`, { reward: { id: credit.id } });
    const giftCode = creditRedemption.reward.voucher.code;
    assert.equal((await f.voucherState(giftCode)).gift.balance, 2600);
    await t.sdk().redemptions.rollback(creditRedemption.id);
    assert.equal((await f.voucherState(giftCode)).gift.balance, 100, 'the 2500 credits the reward added are taken back');
    assert.equal((await f.voucherState(card.code)).loyalty_card.balance, 1000);

    const couponRedemption = await f.ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/redemption`, { reward: { id: coupon.id } });
    const couponCode = couponRedemption.reward.voucher.code;
    await t.sdk().redemptions.rollback(couponRedemption.id);
    assert.equal((await f.voucherState(couponCode)).active, false, 'the coupon handed out can no longer be used');

    // Spent credits cannot be taken back: the rollback is refused and changes nothing.
    const again = await f.ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/redemption`, { reward: { id: credit.id } });
    await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: giftCode, gift: { credits: 2600 } }], order: { amount: 5000 } } as never);
    const refused = await rejects(t.sdk().redemptions.rollback(again.id));
    assert.equal(refused.key, 'gift_amount_exceeded');
    assert.match(refused.resource_id, /^rrf_/);
    assert.equal((await f.voucherState(card.code)).loyalty_card.balance, 900, 'the points stay spent');
  });
  test('a redemption whose customer was erased for good can still be rolled back: the credits come back, no order to cancel', async () => {
    const gift = await f.giftCard(5000);
    const customer = await f.customer();
    const res: Json = await t.sdk().redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: 1500 } }],
      order: { amount: 3000, source_id: f.unique('ord') },
      customer: { id: customer.id },
    } as never);
    const redemption = res.redemptions[0];
    await f.ok('POST', `/v1/customers/${customer.id}/permanent-deletion`, {});

    const rollback: Json = await t.sdk().redemptions.rollback(redemption.id);
    assert.equal(rollback.result, 'SUCCESS');
    assert.equal(rollback.order, null, 'the order went with the customer');
    assert.equal((await f.voucherState(gift.code)).gift.balance, 5000);
  });
});
