import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ok, tokenOf } from '../helpers/cockpit.ts';

// What the cockpit tells a customer so they can check it: a points history that adds up to the balance
// (the points the card started with included, page by page), and each coupon's validity, uses left and
// conditions — only those about the order and their own use, never the shop's targeting.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('customer cockpit: history that adds up, coupon terms', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  const cockpit = async (token: string, path: string) => {
    const res = await t.request('GET', `/cockpit/v1${path}`, { headers: { 'x-cockpit-token': token } });
    assert.equal(res.status, 200, res.text);
    return res.body as Json;
  };

  test('a card made with starting points, then earning and a reward: every page adds up to the balance, the last one opens with the starting points', async () => {
    const customer = await ok(t, 'POST', '/v1/customers', { source_id: 'history-1', name: 'Grace Hopper' });
    const program = await ok(t, 'POST', '/v1/loyalties', { name: 'Starter Points', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 } } });
    await ok(t, 'POST', `/v1/loyalties/${program.id}/earning-rules`, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 7 } }]);
    const product = await ok(t, 'POST', '/v1/products', { source_id: 'history-mug', name: 'Mug', price: 900 });
    const reward = await ok(t, 'POST', '/v1/rewards', { name: 'Free mug', parameters: { product: { id: product.id } } });
    await ok(t, 'POST', `/v1/rewards/${reward.id}/assignments`, { campaign: program.id, parameters: { loyalty: { points: 50 } } });
    const card = await ok(t, 'POST', `/v1/loyalties/${program.id}/members`, { customer: { id: customer.id } });
    const token = tokenOf((await ok(t, 'GET', `/v1/customers/${customer.id}`)).assets.cockpit_url);

    // The vendor's transaction list is unchanged: the starting points are on the card, not a transaction.
    assert.equal((await ok(t, 'GET', `/v1/loyalties/${program.id}/members/${card.code}/transactions`)).data.length, 0);
    let wallet = await cockpit(token, '/wallet');
    assert.deepEqual(
      wallet.loyalty_cards[0].history.data.map((e: Json) => [e.type, e.points, e.balance_after]),
      [['OPENING_BALANCE', 100, 100]],
      'a card with only its starting points shows them',
    );

    for (let i = 1; i <= 24; i++) {
      const res = await t.request('POST', '/v1/orders', { json: { status: 'PAID', source_id: `history-order-${i}`, customer: { id: customer.id }, amount: 1000 } });
      assert.equal(res.status, 200, res.text);
    }
    const redeemed = await t.request('POST', `/cockpit/v1/cards/${encodeURIComponent(card.code)}/redemption`, {
      headers: { 'x-cockpit-token': token, 'idempotency-key': 'history-redeem-1' },
      json: { reward_id: reward.id },
    });
    assert.equal(redeemed.status, 200, redeemed.text);

    wallet = await cockpit(token, '/wallet');
    const shown = wallet.loyalty_cards[0];
    const balance = 100 + 24 * 7 - 50;
    assert.equal(shown.balance, balance);
    const first = shown.history;
    assert.equal(first.data.length, 20);
    assert.equal(first.has_more, true);
    assert.deepEqual([first.data[0].type, first.data[0].points, first.data[0].balance_after], ['POINTS_REDEMPTION', -50, balance]);
    const sum = (entries: Json[]) => entries.reduce((s: number, e: Json) => s + e.points, 0);
    assert.equal(first.balance_before + sum(first.data), balance, 'the first page: balance before it plus its entries is the balance');
    // Each entry's balance follows from the one below it.
    first.data.slice(0, -1).forEach((e: Json, i: number) => assert.equal(e.balance_after - e.points, first.data[i + 1].balance_after));

    const second = await cockpit(token, `/cards/${encodeURIComponent(card.code)}/transactions?starting_after_id=${first.more_starting_after}`);
    assert.equal(second.has_more, false);
    assert.equal(second.data[0].balance_after, first.balance_before, 'the older page ends where the newer one starts');
    const opening = second.data.at(-1);
    assert.deepEqual([opening.type, opening.points, opening.balance_after], ['OPENING_BALANCE', 100, 100]);
    assert.equal(opening.created_at, card.created_at);
    assert.equal(second.balance_before, 0);
    assert.equal(sum(first.data) + sum(second.data), balance, 'everything listed adds up to the balance');
    assert.equal(second.data.filter((e: Json) => e.type === 'POINTS_ACCRUAL').length + first.data.filter((e: Json) => e.type === 'POINTS_ACCRUAL').length, 24);
    assert.equal((await ok(t, 'GET', `/v1/loyalties/${program.id}/members/${card.code}/transactions?limit=100`)).data.length, 25, 'the vendor list: 24 accruals and the redemption');
  });

  test('a coupon shows its validity, uses left and the conditions a customer can meet, never the shop\'s targeting', async () => {
    const customer = await ok(t, 'POST', '/v1/customers', { source_id: 'terms-1', name: 'Ada' });
    const product = await ok(t, 'POST', '/v1/products', { source_id: 'terms-coffee', name: 'Filter coffee', price: 300 });
    const campaign = await ok(t, 'POST', '/v1/campaigns', {
      name: 'Weekend treat',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 15 }, redemption: { quantity: 3 } },
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2031-06-30T23:59:59.000Z',
      validity_day_of_week: [0, 6],
    });
    const rule = await ok(t, 'POST', '/v1/validation-rules', {
      name: 'Big weekend orders of VIPs',
      rules: {
        '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] } },
        '2': { name: 'redemption.count.per_customer', conditions: { $less_than: [2] } },
        '3': { name: 'customer.metadata', property: 'secret_tier', conditions: { $is: ['whale'] } },
        logic: '1 AND 2 AND 3',
      },
      applicable_to: { included: [{ object: 'product', id: product.id, effect: 'APPLY_TO_EVERY' }], excluded: [] },
    });
    await ok(t, 'POST', `/v1/validation-rules/${rule.id}/assignments`, { related_object_type: 'campaign', related_object_id: campaign.id });
    const published = await ok(t, 'POST', '/v1/publications', { campaign: { id: campaign.id }, customer: { id: customer.id } });
    const code = published.voucher?.code ?? published.vouchers?.[0]?.code;
    const token = tokenOf((await ok(t, 'GET', `/v1/customers/${customer.id}`)).assets.cockpit_url);

    const wallet = await cockpit(token, '/wallet');
    const coupon = wallet.vouchers.find((v: Json) => v.code === code);
    assert.ok(coupon, JSON.stringify(wallet.vouchers));
    assert.equal(coupon.start_date, '2026-01-01T00:00:00.000Z');
    assert.equal(coupon.expiration_date, '2031-06-30T23:59:59.000Z');
    assert.deepEqual(coupon.validity_day_of_week, [0, 6]);
    assert.equal(coupon.uses_left, 3);
    assert.equal(coupon.conditions.length, 1);
    const [terms] = coupon.conditions;
    assert.deepEqual(terms.rules, {
      '1': { name: 'order.amount', property: null, conditions: { $more_than_or_equal: [5000] }, rules: {} },
      '2': { name: 'redemption.count.per_customer', property: null, conditions: { $less_than: [2] }, rules: {} },
      logic: '1 AND 2',
    });
    assert.equal(terms.more_conditions, true, 'the hidden condition is only said to exist');
    assert.deepEqual(terms.applies_to, ['Filter coffee']);

    // "A OR (something hidden)": the shown part alone would promise too much, so only "conditions apply".
    const either = await ok(t, 'POST', '/v1/validation-rules', {
      name: 'Big order or insider',
      rules: {
        '1': { name: 'order.amount', conditions: { $more_than: [9000] } },
        '2': { name: 'order.metadata', property: 'insider_channel', conditions: { $is: ['staff'] } },
        logic: '1 OR 2',
      },
    });
    await ok(t, 'POST', `/v1/validation-rules/${either.id}/assignments`, { related_object_type: 'voucher', related_object_id: (await ok(t, 'GET', `/v1/vouchers/${code}`)).id });
    const again = (await cockpit(token, '/wallet')).vouchers.find((v: Json) => v.code === code);
    assert.equal(again.conditions.length, 2);
    assert.deepEqual(again.conditions[1], { rules: null, more_conditions: true, applies_to: [], excluded: [] });
    assert.ok(!JSON.stringify(again).includes('insider_channel'));
    const text = JSON.stringify(wallet);
    for (const secret of ['secret_tier', 'whale', rule.id, product.id, 'Big weekend orders of VIPs']) assert.ok(!text.includes(secret), `the wallet does not carry ${secret}`);
  });
});
