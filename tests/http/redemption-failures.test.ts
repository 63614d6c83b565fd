import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, rejects, type Json } from '../helpers/redemption-fixtures.ts';

// Every failure key of the engine's catalogue (promotions reference 6.7, 6.8; 5.8 for rule families)
// produced by the situation it names: as a validation result (200, INAPPLICABLE with result.error) and,
// for a representative set, as a redemption failure (400 with the FAILURE record). The clock starts on a
// Monday, 2026-03-02 10:00 UTC.

describe('failure keys', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  before(async () => {
    t = await startTestApp({ clockStart: '2026-03-02T10:00:00.000Z' });
    f = fixtures(t);
  });
  after(async () => t.close());

  async function failure(redeemable: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Json> {
    const res: Json = await t.sdk().validations.validateStackable({ redeemables: [redeemable], ...extra } as never);
    assert.equal(res.valid, false, JSON.stringify(res.redeemables));
    const entry = res.redeemables[0];
    assert.equal(entry.status, 'INAPPLICABLE');
    return entry.result.error;
  }

  async function redemptionFailure(redeemable: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Json> {
    const rows = await f.redemptionRows();
    const error = await rejects(t.sdk().redemptions.redeemStackable({ redeemables: [redeemable], ...extra } as never));
    assert.match(error.resource_id, /^rf_/);
    assert.equal(await f.redemptionRows(), rows + 1, 'one FAILURE record');
    const record: Json = await t.sdk().redemptions.get(error.resource_id);
    assert.equal(record.failure_code, error.key);
    return error;
  }

  test('voucher validity: voucher_disabled, voucher_not_active, voucher_expired, voucher_not_active_now', async () => {
    const disabled = await f.amountVoucher(10, { active: false });
    assert.equal((await failure({ object: 'voucher', id: disabled.code })).key, 'voucher_disabled');
    const future = await f.amountVoucher(10, { start_date: '2026-04-01T00:00:00Z' });
    assert.equal((await failure({ object: 'voucher', id: future.code })).key, 'voucher_not_active');
    const expired = await f.amountVoucher(10, { expiration_date: '2026-03-01T00:00:00Z' });
    const err = await failure({ object: 'voucher', id: expired.code });
    assert.equal(err.key, 'voucher_expired');
    assert.equal(err.message, 'voucher expired');
    const sundays = await f.amountVoucher(10, { validity_day_of_week: [0] });
    assert.equal((await failure({ object: 'voucher', id: sundays.code })).key, 'voucher_not_active_now');
    assert.equal((await redemptionFailure({ object: 'voucher', id: sundays.code })).key, 'voucher_not_active_now');
    // A disabled campaign disables its vouchers.
    const campaign = await f.ok('POST', '/v1/campaigns', { name: f.unique('Off'), campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 1, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 5 } } });
    await f.ok('POST', `/v1/campaigns/${campaign.id}/disable`, {});
    const [code] = (await f.ok('GET', `/v1/vouchers?campaign_id=${campaign.id}`)).vouchers.map((v: Json) => v.code);
    assert.equal((await failure({ object: 'voucher', id: code })).key, 'voucher_disabled');
  });

  test('tier validity: promotion_inactive (disabled tier, disabled campaign, expired), promotion_not_active_now', async () => {
    const promo = await f.promotion([
      { name: 'Off', action: { discount: { type: 'AMOUNT', amount_off: 5 } } },
      { name: 'Later', start_date: '2026-05-01T00:00:00Z', action: { discount: { type: 'AMOUNT', amount_off: 5 } } },
      { name: 'Gone', expiration_date: '2026-02-01T00:00:00Z', action: { discount: { type: 'AMOUNT', amount_off: 5 } } },
      { name: 'Sundays', validity_day_of_week: [0], action: { discount: { type: 'AMOUNT', amount_off: 5 } } },
    ]);
    const [off, later, gone, sundays] = promo.promotion.tiers;
    await f.ok('POST', `/v1/promotions/tiers/${off.id}/disable`, {});
    const inactive = await failure({ object: 'promotion_tier', id: off.id });
    assert.equal(inactive.key, 'promotion_inactive');
    assert.equal(inactive.message, 'Inactive Promotion');
    assert.equal((await failure({ object: 'promotion_tier', id: later.id })).key, 'promotion_not_active_now');
    assert.equal((await failure({ object: 'promotion_tier', id: gone.id })).key, 'promotion_inactive');
    assert.equal((await failure({ object: 'promotion_tier', id: sundays.id })).key, 'promotion_not_active_now');
    const tierError = await redemptionFailure({ object: 'promotion_tier', id: off.id });
    assert.equal(tierError.key, 'promotion_inactive');
    assert.equal((await rejects(t.sdk().promotions.tiers.redeem(off.id, { order: { amount: 100 } } as never))).key, 'promotion_inactive');
    const other = await f.promotion([{ name: 'Fine', action: { discount: { type: 'AMOUNT', amount_off: 5 } } }]);
    await f.ok('POST', `/v1/campaigns/${other.id}/disable`, {});
    assert.equal((await failure({ object: 'promotion_tier', id: other.promotion.tiers[0].id })).key, 'promotion_inactive');
    assert.equal((await failure({ object: 'promotion_tier', id: 'promo_nope' })).code, 404);
  });

  test('rule families: customer_rules_violated, order_rules_violated, redemption_rules_violated, missing_customer', async () => {
    const v = await f.amountVoucher(10);
    const customerRule = await f.rule({ rules: { 1: { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } }, logic: '1' }, error: { message: 'Gold members only' } });
    await f.assign(customerRule.id, { voucher: v.code });
    const silver = await f.customer({ metadata: { tier: 'silver' } });
    const err = await failure({ object: 'voucher', id: v.code }, { customer: { id: silver.id } });
    assert.equal(err.key, 'customer_rules_violated');
    assert.deepEqual(err.error, { message: 'Gold members only' });
    assert.equal((await failure({ object: 'voucher', id: v.code })).key, 'missing_customer');
    const gold = await f.customer({ metadata: { tier: 'gold' } });
    assert.equal(((await t.sdk().validations.validateStackable({ redeemables: [{ object: 'voucher', id: v.code }], customer: { id: gold.id } } as never)) as Json).valid, true);
    const redeemError = await redemptionFailure({ object: 'voucher', id: v.code }, { customer: { id: silver.id } });
    assert.equal(redeemError.key, 'customer_rules_violated');
    const raw = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: v.code }], customer: { id: silver.id } } });
    assert.deepEqual(raw.body.error, { message: 'Gold members only' });

    const bigOrders = await f.amountVoucher(10);
    const orderRule = await f.rule({ rules: { 1: { name: 'order.amount', conditions: { $more_than: [5000] } }, logic: '1' } });
    await f.assign(orderRule.id, { voucher: bigOrders.code });
    assert.equal((await failure({ object: 'voucher', id: bigOrders.code }, { order: { amount: 1000 } })).key, 'order_rules_violated');

    const oncePerCustomer = await f.amountVoucher(10);
    const counterRule = await f.rule({ rules: { 1: { name: 'redemption.count.per_customer', conditions: { $less_than: [1] } }, logic: '1' } });
    await f.assign(counterRule.id, { voucher: oncePerCustomer.code });
    const buyer = await f.customer();
    await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: oncePerCustomer.code }], customer: { id: buyer.id }, order: { amount: 100 } } as never);
    assert.equal((await failure({ object: 'voucher', id: oncePerCustomer.code }, { customer: { id: buyer.id } })).key, 'redemption_rules_violated');
    const someoneElse = await f.customer();
    assert.equal(((await t.sdk().validations.validateStackable({ redeemables: [{ object: 'voucher', id: oncePerCustomer.code }], customer: { id: someoneElse.id } } as never)) as Json).valid, true);

    const metadataRule = await f.rule({ rules: { 1: { name: 'redemption.metadata', property: 'channel', conditions: { $is: ['pos'] } }, logic: '1' } });
    const posOnly = await f.amountVoucher(10);
    await f.assign(metadataRule.id, { voucher: posOnly.code });
    assert.equal((await failure({ object: 'voucher', id: posOnly.code }, { metadata: { channel: 'web' } })).key, 'redemption_rules_violated');
  });

  test('segments: a customer outside the segment violates customer rules', async () => {
    const member = await f.customer();
    const outsider = await f.customer();
    const segment = await f.ok('POST', '/v1/segments', { name: f.unique('vip'), type: 'static', customers: [member.id] });
    const rule = await f.rule({ rules: { 1: { name: 'customer.segment', conditions: { $in: [segment.id] } }, logic: '1' } });
    const promo = await f.promotion([{ name: 'VIP', action: { discount: { type: 'AMOUNT', amount_off: 5 } } }]);
    const tier = promo.promotion.tiers[0];
    await f.assign(rule.id, { promotion_tier: tier.id });
    assert.equal((await failure({ object: 'promotion_tier', id: tier.id }, { customer: { id: outsider.id } })).key, 'customer_rules_violated');
    const ok: Json = await t.sdk().validations.validateStackable({ redeemables: [{ object: 'promotion_tier', id: tier.id }], customer: { id: member.id }, order: { amount: 100 } } as never);
    assert.equal(ok.valid, true);
  });

  test('order shape: missing_order_items, missing_amount, missing_order_items_amount, missing_order', async () => {
    const items = await f.voucher({ discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' } });
    assert.equal((await failure({ object: 'voucher', id: items.code }, { order: { amount: 1000 } })).key, 'missing_order_items');
    const gift = await f.giftCard(1000);
    assert.equal((await failure({ object: 'voucher', id: gift.code })).key, 'missing_amount');
    assert.equal((await redemptionFailure({ object: 'voucher', id: gift.code })).key, 'missing_amount');
    const itemsGift = await f.giftCard(1000, { gift: { amount: 1000, effect: 'APPLY_TO_ITEMS' } });
    assert.equal((await failure({ object: 'voucher', id: itemsGift.code }, { order: { amount: 1000, items: [{ source_id: 'unpriced', quantity: 1 }] } })).key, 'missing_order_items_amount');
    const { card, reward, customer } = await f.payWithPoints(500);
    assert.equal((await failure({ object: 'voucher', id: card.code, reward: { id: reward.id } }, { customer: { id: customer.id } })).key, 'missing_order');
  });

  test('loyalty cards: missing_reward, invalid_customer, loyalty_card_points_exceeded, invalid_amount, reward_out_of_stock', async () => {
    const { program, card, reward, customer } = await f.payWithPoints(500);
    const order = { order: { amount: 10000 }, customer: { id: customer.id } };
    assert.equal((await failure({ object: 'voucher', id: card.code }, order)).key, 'missing_reward');
    const unassigned = await f.ok('POST', '/v1/rewards', { name: f.unique('Elsewhere'), type: 'COIN', parameters: { coin: { exchange_ratio: 1, points_ratio: 1 } } });
    assert.equal((await failure({ object: 'voucher', id: card.code, reward: { id: unassigned.id } }, order)).key, 'missing_reward');
    const stranger = await f.customer();
    const wrong = await failure({ object: 'voucher', id: card.code, reward: { id: reward.id } }, { order: { amount: 10000 }, customer: { id: stranger.id } });
    assert.equal(wrong.key, 'invalid_customer');
    assert.equal(wrong.message, 'Customer must be a holder of a loyalty card.');
    const exceeded = await redemptionFailure({ object: 'voucher', id: card.code, reward: { id: reward.id, points: 600 } }, order);
    assert.equal(exceeded.key, 'loyalty_card_points_exceeded');
    assert.equal((await f.voucherState(card.code)).loyalty_card.balance, 500, 'nothing was taken');
    const tiny = await f.ok('POST', '/v1/rewards', { name: f.unique('Tiny'), type: 'COIN', parameters: { coin: { exchange_ratio: 0.001, points_ratio: 100 } } });
    await f.ok('POST', `/v1/rewards/${tiny.id}/assignments`, { campaign: program.id });
    assert.equal((await failure({ object: 'voucher', id: card.code, reward: { id: tiny.id, points: 1 } }, order)).key, 'invalid_amount');
    const scarce = await f.ok('POST', '/v1/rewards', { name: f.unique('Scarce'), type: 'COIN', parameters: { coin: { exchange_ratio: 1, points_ratio: 1 } }, stock: 1 });
    await f.ok('POST', `/v1/rewards/${scarce.id}/assignments`, { campaign: program.id });
    await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: card.code, reward: { id: scarce.id, points: 10 } }], ...order } as never);
    assert.equal((await failure({ object: 'voucher', id: card.code, reward: { id: scarce.id, points: 10 } }, order)).key, 'reward_out_of_stock');
    const material = await f.ok('POST', '/v1/rewards', { name: f.unique('Mug'), parameters: { product: { id: (await f.product(100)).id } } });
    await f.ok('POST', `/v1/rewards/${material.id}/assignments`, { campaign: program.id, parameters: { loyalty: { points: 10 } } });
    const notCoin = await failure({ object: 'voucher', id: card.code, reward: { id: material.id } }, order);
    assert.equal(notCoin.key, 'missing_reward');
    assert.match(notCoin.details, /pay-with-points/);
  });

  test('referrals: the referrer may not redeem their own code; a referee converts the referral', async () => {
    const gifts = await f.ok('POST', '/v1/campaigns', { name: f.unique('Referee gifts'), campaign_type: 'GIFT_VOUCHERS', vouchers_count: 0, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    const program = await f.ok('POST', '/v1/campaigns', {
      name: f.unique('Friends'),
      campaign_type: 'REFERRAL_PROGRAM',
      vouchers_count: 2,
      voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 100 } },
      referral_program: { conversion_event_type: 'redemption', referee_reward: { related_object_parent: { id: gifts.id, object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 500 } },
    });
    const pub: Json = await t.sdk().distributions.publications.create({ campaign: { name: program.name }, customer: { source_id: f.unique('referrer') } } as never);
    const code = pub.voucher.code;
    const own = await redemptionFailure({ object: 'voucher', id: code }, { customer: { id: pub.customer.id }, order: { amount: 1000 } });
    assert.equal(own.key, 'referrer_not_permitted_to_redeem');
    const friend = f.unique('friend');
    await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: code }], customer: { source_id: friend }, order: { amount: 1000 } } as never);
    const referee: Json = await t.sdk().customers.get(friend);
    assert.equal(referee.referrals.total, 1);
    assert.equal(referee.referrals.campaigns[0].referrer_id, pub.customer.id);
    assert.equal(referee.summary.redemptions.gift.amount_to_go, 1500, 'the referee got a gift card (1000) and the reward (500)');
  });

  test('no_applicable_redeemables: nothing applied and nothing inapplicable (no-effect SKIP)', async () => {
    const project = await f.ok('POST', '/management/v1/projects', { name: f.unique('Skip'), case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' }, t.managementHeaders());
    await f.ok('POST', `/management/v1/projects/${project.id}/stacking-rules`, { redeemables_no_effect_rule: 'SKIP' }, t.managementHeaders());
    await t.request('POST', '/v1/vouchers/NO-EFFECT', { headers: t.serverHeaders(project.server_side_key), json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    const sdk = t.sdk(project.server_side_key);
    const validation: Json = await sdk.validations.validateStackable({ redeemables: [{ object: 'voucher', id: 'NO-EFFECT' }], order: { amount: 0 } } as never);
    assert.equal(validation.valid, false);
    assert.equal(validation.redeemables[0].status, 'SKIPPED');
    assert.equal(validation.redeemables[0].result.details.key, 'no_effect');
    const error = await rejects(sdk.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'NO-EFFECT' }], order: { amount: 0 } } as never));
    assert.equal(error.code, 400);
    assert.equal(error.key, 'no_applicable_redeemables');
    const record: Json = await sdk.redemptions.get(error.resource_id);
    assert.equal(record.failure_code, 'no_applicable_redeemables');
    assert.equal(record.failure_message, 'No applicable redeemables');
  });
});
