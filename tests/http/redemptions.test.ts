import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, rejects, type Json } from '../helpers/redemption-fixtures.ts';

// Stackable validation and redemption (promotions reference 3, 6, 7.3–7.5, 9; seed 2.8; DECISIONS 10–14)
// driven by the official SDK: the reference's worked examples through the API, the redemption record
// with every field, stacked parents and children, failures stored as FAILURE records that consume
// nothing, and the request-level rejections.

describe('stackable validation and redemption', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  let prodA: Json;
  let prodB: Json;

  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
    prodA = await f.product(2000);
    prodB = await f.product(3000);
  });
  after(async () => t.close());

  /** The order of worked examples A and B: prod_A 2000 × 2, prod_B 3000 × 1. */
  const orderAB = (extra: Record<string, unknown> = {}) => ({ items: [{ product_id: prodA.id, quantity: 2 }, { product_id: prodB.id, quantity: 1 }], ...extra });

  describe('worked example A — AMOUNT to order', () => {
    test('validation answers the calculated order of reference 3.8 and stores nothing', async () => {
      const v = await f.amountVoucher(1500);
      const before = { rows: await f.redemptionRows(), orders: await f.count('orders') };
      const res: Json = await t.sdk().validations.validateStackable({ redeemables: [{ object: 'voucher', id: v.code }], order: orderAB() } as never);
      assert.equal(res.valid, true);
      assert.match(res.id, /^valid_/);
      const o = res.order;
      assert.deepEqual(
        [o.amount, o.initial_amount, o.discount_amount, o.items_discount_amount, o.total_discount_amount, o.total_amount],
        [7000, 7000, 1500, 0, 1500, 5500],
      );
      assert.deepEqual([o.applied_discount_amount, o.items_applied_discount_amount, o.total_applied_discount_amount], [1500, 0, 1500]);
      assert.deepEqual(
        o.items.map((i: Json) => [i.amount, i.discount_amount, i.applied_discount_amount, i.subtotal_amount]),
        [
          [4000, 0, 0, 4000],
          [3000, 0, 0, 3000],
        ],
      );
      const [entry] = res.redeemables;
      assert.equal(entry.status, 'APPLICABLE');
      assert.equal(entry.id, v.code);
      assert.equal(entry.object, 'voucher');
      assert.equal(entry.result.discount.amount_off, 1500);
      assert.equal(entry.order.total_amount, 5500);
      assert.equal(res.stacking_rules.redeemables_application_mode, 'ALL');
      assert.equal(res.stacking_rules.applicable_redeemables_limit, 5);
      assert.equal(await f.redemptionRows(), before.rows, 'validation stores no record');
      assert.equal(await f.count('orders'), before.orders, 'validation stores no order');
    });

    test('redemption stores a PAID order; a second one on the same order adds to its discount; a larger one clamps at the total', async () => {
      const first = await f.amountVoucher(1500);
      const second = await f.amountVoucher(1000);
      const big = await f.amountVoucher(9000);
      const customer = { source_id: f.unique('buyer'), name: 'Ann', email: 'ann@example.com', metadata: { tier: 'gold' } };
      const sourceId = f.unique('order');
      const res1: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: first.code }], order: orderAB({ source_id: sourceId }), customer, metadata: { channel: 'web' } } as never);
      assert.equal(res1.redemptions.length, 1);
      assert.equal(res1.parent_redemption, undefined, 'a single redeemable has no parent');
      const record = res1.redemptions[0];
      // Seed 2.8: every field of the record.
      assert.match(record.id, /^r_/);
      assert.equal(record.object, 'redemption');
      assert.equal(typeof record.date, 'string');
      assert.match(record.customer_id, /^cust_/);
      assert.equal(record.tracking_id, customer.source_id);
      assert.deepEqual(record.metadata, { channel: 'web' });
      assert.equal(record.amount, undefined, 'discount vouchers carry no amount');
      assert.equal(record.result, 'SUCCESS');
      assert.equal(record.status, 'SUCCEEDED');
      assert.equal(record.redemption, null);
      assert.deepEqual(record.channel, { channel_id: 'test-app-id-0001', channel_type: 'API' });
      assert.deepEqual(record.customer, { id: record.customer_id, name: 'Ann', email: 'ann@example.com', source_id: customer.source_id, metadata: { tier: 'gold' }, object: 'customer' });
      assert.equal(record.related_object_type, 'voucher');
      assert.equal(record.related_object_id, first.id);
      assert.equal(record.voucher.code, first.code);
      assert.equal(record.voucher.redemption.redeemed_quantity, 1, 'the voucher as it is after the redemption');
      assert.ok(!('holder' in record.voucher), 'a voucher nobody holds has no holder member');
      const order = record.order;
      assert.match(order.id, /^ord_/);
      assert.equal(order.source_id, sourceId);
      assert.equal(order.status, 'PAID');
      assert.equal(order.object, 'order');
      assert.deepEqual(order.customer, { id: record.customer_id, object: 'customer' });
      assert.equal(order.customer_id, record.customer_id);
      assert.equal(order.referrer_id, null);
      assert.deepEqual([order.discount_amount, order.total_amount, order.applied_discount_amount], [1500, 5500, 1500]);
      for (const item of order.items) {
        for (const member of ['object', 'product_id', 'sku_id', 'quantity', 'discount_quantity', 'initial_quantity', 'amount', 'discount_amount', 'initial_amount', 'applied_discount_amount', 'price', 'subtotal_amount', 'product']) {
          assert.ok(member in item, `order item has ${member}`);
        }
        assert.deepEqual(Object.keys(item.product).sort(), ['id', 'metadata', 'name', 'price', 'source_id']);
      }
      assert.deepEqual(order.redemptions[record.id], { date: record.date, related_object_type: 'voucher', related_object_id: first.id, related_object_parent_id: null });

      const stored: Json = await t.sdk().orders.get(sourceId);
      assert.equal(stored.status, 'PAID');
      assert.equal(stored.total_amount, 5500);

      const res2: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: second.code }], order: { source_id: sourceId }, customer: { source_id: customer.source_id } } as never);
      const o2 = res2.order;
      assert.deepEqual([o2.discount_amount, o2.applied_discount_amount, o2.total_amount, o2.total_applied_discount_amount], [2500, 1000, 4500, 1000]);
      assert.equal(Object.keys(o2.redemptions).length, 2, 'the order keeps both redemptions');

      const clamp: Json = await t.sdk().validations.validateStackable({ redeemables: [{ object: 'voucher', id: big.code }], order: orderAB() } as never);
      assert.deepEqual([clamp.order.discount_amount, clamp.order.total_amount], [7000, 0]);
      const summary = await f.customerSummary(customer.source_id);
      assert.equal(summary.total_redeemed, 2);
      assert.equal(summary.total_succeeded, 2);
    });
  });

  describe('worked example B — PERCENT to items', () => {
    async function percentVoucher(discount: Record<string, unknown>, included: Json[]): Promise<Json> {
      const v = await f.voucher({ discount: { type: 'PERCENT', effect: 'APPLY_TO_ITEMS', ...discount } });
      const rule = await f.rule({ rules: { logic: '' }, applicable_to: { included, excluded: [] } });
      await f.assign(rule.id, { voucher: v.code });
      return v;
    }

    test('10 % on prod_A lines: 400 off line 0, nothing on line 1', async () => {
      const v = await percentVoucher({ percent_off: 10 }, [{ object: 'product', id: prodA.id, effect: 'APPLY_TO_EVERY' }]);
      const res: Json = await t.sdk().validations.validateStackable({ redeemables: [{ object: 'voucher', id: v.code }], order: orderAB() } as never);
      assert.equal(res.valid, true, JSON.stringify(res.redeemables));
      const o = res.order;
      assert.deepEqual([o.items[0].discount_amount, o.items[0].applied_discount_amount, o.items[0].subtotal_amount], [400, 400, 3600]);
      assert.deepEqual([o.items[1].discount_amount, o.items[1].applied_discount_amount, o.items[1].subtotal_amount], [0, 0, 3000]);
      assert.deepEqual([o.discount_amount, o.items_discount_amount, o.total_discount_amount, o.total_amount], [0, 400, 400, 6600]);
      assert.deepEqual([o.applied_discount_amount, o.items_applied_discount_amount, o.total_applied_discount_amount], [0, 400, 400]);
      const entry = res.redeemables[0];
      assert.equal(entry.applicable_to.total, 1);
      assert.deepEqual(entry.applicable_to.data[0].order_item_indices, [0]);
    });

    test('amount_limit 300 caps the line; both lines included give 700; aggregated_amount_limit 500 caps the sum', async () => {
      const limited = await percentVoucher({ percent_off: 10, amount_limit: 300 }, [{ object: 'product', id: prodA.id, effect: 'APPLY_TO_EVERY' }]);
      const both = await percentVoucher({ percent_off: 10 }, [
        { object: 'product', id: prodA.id, effect: 'APPLY_TO_EVERY' },
        { object: 'product', id: prodB.id, effect: 'APPLY_TO_EVERY' },
      ]);
      const capped = await percentVoucher({ percent_off: 10, aggregated_amount_limit: 500 }, [
        { object: 'product', id: prodA.id, effect: 'APPLY_TO_EVERY' },
        { object: 'product', id: prodB.id, effect: 'APPLY_TO_EVERY' },
      ]);
      const totalOf = async (code: string) =>
        ((await t.sdk().validations.validateStackable({ redeemables: [{ object: 'voucher', id: code }], order: orderAB() } as never)) as Json).order.total_amount;
      assert.equal(await totalOf(limited.code), 6700);
      assert.equal(await totalOf(both.code), 6300);
      assert.equal(await totalOf(capped.code), 6500);
    });
  });

  describe('worked example C — a stacked sequence', () => {
    test('item discount, gift credits, then two tiers, each seeing the running total; parent with children', async () => {
      const p2000 = await f.product(2000);
      const p700 = await f.product(700);
      const v = await f.voucher({ discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS' } });
      const gift = await f.giftCard(5000);
      const promo = await f.promotion([
        { name: 'Forty', action: { discount: { type: 'PERCENT', percent_off: 40, effect: 'APPLY_TO_ORDER' } } },
        { name: 'Thirty', action: { discount: { type: 'AMOUNT', amount_off: 30, effect: 'APPLY_TO_ORDER' } } },
      ]);
      const [tier40, tier30] = promo.promotion.tiers;
      const order = { items: [{ product_id: p2000.id, quantity: 1 }, { product_id: p700.id, quantity: 1 }] };
      const redeemables = [
        { object: 'voucher', id: v.code },
        { object: 'voucher', id: gift.code, gift: { credits: 100 } },
        { object: 'promotion_tier', id: tier40.id },
        { object: 'promotion_tier', id: tier30.id },
      ];
      const validation: Json = await t.sdk().validations.validateStackable({ redeemables, order } as never);
      assert.equal(validation.valid, true, JSON.stringify(validation.inapplicable_redeemables));
      const snap = (i: number) => {
        const o = validation.redeemables[i].order;
        return [o.discount_amount, o.items_discount_amount, o.total_amount];
      };
      assert.deepEqual(snap(0), [0, 1700, 1000]);
      assert.deepEqual(validation.redeemables[0].order.items.map((i: Json) => i.discount_amount), [1000, 700]);
      assert.deepEqual(snap(1), [100, 1700, 900]);
      assert.deepEqual(snap(2), [460, 1700, 540]);
      assert.deepEqual(snap(3), [490, 1700, 510]);
      assert.deepEqual(
        validation.redeemables.map((r: Json) => r.order.total_applied_discount_amount),
        [1700, 100, 360, 30],
        'each snapshot carries only its own applied amounts',
      );
      assert.deepEqual(validation.redeemables[1].result, { gift: { balance: 5000, credits: 100 } });
      const o = validation.order;
      assert.deepEqual(
        [o.discount_amount, o.items_discount_amount, o.total_discount_amount, o.total_amount, o.applied_discount_amount, o.items_applied_discount_amount, o.total_applied_discount_amount],
        [490, 1700, 2190, 510, 490, 1700, 2190],
      );

      const redeemed: Json = await t.sdk().redemptions.redeemStackable({ redeemables, order, customer: { source_id: f.unique('stacker') } } as never);
      const parent = redeemed.parent_redemption;
      assert.match(parent.id, /^r_/);
      assert.equal(parent.related_object_type, 'redemption');
      assert.equal(parent.related_object_id, parent.id);
      assert.equal(parent.redemption, null);
      assert.equal(parent.order.total_amount, 510);
      assert.equal(redeemed.redemptions.length, 4);
      for (const child of redeemed.redemptions) assert.equal(child.redemption, parent.id);
      assert.deepEqual(redeemed.redemptions.map((r: Json) => r.related_object_type), ['voucher', 'voucher', 'promotion_tier', 'promotion_tier']);
      const giftRecord = redeemed.redemptions[1];
      assert.equal(giftRecord.amount, 100);
      assert.deepEqual(giftRecord.gift, { amount: 100 });
      assert.equal(giftRecord.voucher.gift.balance, 4900);
      const tierRecord = redeemed.redemptions[2];
      assert.equal(tierRecord.promotion_tier.id, tier40.id);
      assert.equal(tierRecord.promotion_tier.campaign.id, promo.id);
      assert.equal(tierRecord.promotion_tier.summary.redemptions.total_redeemed, 1);
      assert.equal(tierRecord.promotion_tier.summary.orders.total_discount_amount, 360);
      assert.equal(tierRecord.order.total_amount, 540, 'a child snapshot is cumulative up to it');
      assert.equal(tierRecord.order.total_applied_discount_amount, 360);
      const entry = redeemed.order.redemptions[parent.id];
      assert.equal(entry.related_object_type, 'redemption');
      assert.deepEqual(entry.stacked, redeemed.redemptions.map((r: Json) => r.id));
      assert.equal(redeemed.order.status, 'PAID');
      const tier = await f.ok('GET', `/v1/promotions/tiers/${tier30.id}`);
      assert.deepEqual(tier.summary, { redemptions: { total_redeemed: 1 }, orders: { total_amount: 510, total_discount_amount: 30 } });
      const giftNow = await f.voucherState(gift.code);
      assert.equal(giftNow.gift.balance, 4900);
      assert.equal(giftNow.redemption.redeemed_amount, 100);
    });
  });

  describe('worked example D — unit effects', () => {
    test('ADD_MANY_ITEMS: a missing unit is raised to 1, a new unit added; the free value is the discount', async () => {
      const red = await f.product(2900);
      const blue = await f.product(3100);
      const v = await f.voucher({
        discount: {
          type: 'UNIT',
          effect: 'ADD_MANY_ITEMS',
          units: [
            { unit_type: red.id, unit_off: 1, effect: 'ADD_MISSING_ITEMS' },
            { unit_type: blue.id, unit_off: 1, effect: 'ADD_NEW_ITEMS' },
          ],
        },
      });
      const res: Json = await t.sdk().validations.validateStackable({
        redeemables: [{ object: 'voucher', id: v.code }],
        order: { items: [{ product_id: red.id, quantity: 1 }, { product_id: blue.id, quantity: 1 }] },
      } as never);
      const o = res.order;
      assert.deepEqual(o.items.map((i: Json) => [i.quantity, i.initial_quantity, i.discount_quantity, i.amount, i.initial_amount, i.discount_amount, i.subtotal_amount]), [
        [1, 1, 1, 2900, 2900, 2900, 0],
        [2, 1, 1, 6200, 3100, 3100, 3100],
      ]);
      assert.deepEqual([o.amount, o.items_discount_amount, o.total_discount_amount, o.total_amount, o.items_applied_discount_amount], [9100, 6000, 6000, 3100, 6000]);
    });
  });

  describe('gift cards and pay with points', () => {
    test('gift credits without `credits` cover the order, capped by the balance (DECISIONS 14)', async () => {
      const small = await f.giftCard(2000);
      const res: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: small.code }], order: { amount: 5000 }, customer: { source_id: f.unique('g') } } as never);
      assert.equal(res.redemptions[0].amount, 2000);
      assert.equal(res.order.total_amount, 3000);
      const big = await f.giftCard(9000);
      const res2: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: big.code }], order: { amount: 5000 } } as never);
      assert.equal(res2.redemptions[0].gift.amount, 5000, 'no more than the order needs');
      assert.equal((await f.voucherState(big.code)).gift.balance, 4000);
    });

    test('gift APPLY_TO_ITEMS spreads the credits over the lines in proportion', async () => {
      const gift = await f.giftCard(300, { gift: { amount: 300, effect: 'APPLY_TO_ITEMS' } });
      const res: Json = await t.sdk().validations.validateStackable({
        redeemables: [{ object: 'voucher', id: gift.code }],
        order: { items: [{ product_id: (await f.product(3300)).id }, { product_id: (await f.product(3400)).id }] },
      } as never);
      assert.deepEqual(res.order.items.map((i: Json) => i.discount_amount), [148, 152]);
    });

    test('pay with points: 100 points = 20.00; without points as many blocks as cover the order; the reward is redeemed', async () => {
      const { card, reward, customer } = await f.payWithPoints(3000);
      const res: Json = await t.sdk().redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: card.code, reward: { id: reward.id, points: 100 } }],
        order: { amount: 45000 },
        customer: { id: customer.id },
      } as never);
      const record = res.redemptions[0];
      assert.equal(record.amount, 100);
      assert.deepEqual(record.loyalty_card, { points: 100 });
      assert.equal(record.reward.id, reward.id);
      assert.equal(res.order.discount_amount, 2000);
      assert.equal(res.order.total_amount, 43000);
      const full: Json = await t.sdk().validations.validateStackable({
        redeemables: [{ object: 'voucher', id: card.code, reward: { id: reward.id } }],
        order: { amount: 45000 },
        customer: { id: customer.id },
      } as never);
      assert.deepEqual(full.redeemables[0].result, { loyalty_card: { points: 2300 } });
      assert.equal(full.order.total_amount, 0);
      const after = await f.voucherState(card.code);
      assert.equal(after.loyalty_card.balance, 2900);
      assert.equal(after.redemption.redeemed_points, 100);
    });
  });

  describe('failures (DECISIONS 10)', () => {
    test('a failed stacked redemption changes nothing and leaves FAILURE records with their codes', async () => {
      const good = await f.amountVoucher(500);
      const gift = await f.giftCard(1000);
      const disabled = await f.amountVoucher(100, { active: false });
      const sourceId = f.unique('absent-customer');
      const before = {
        orders: await f.count('orders'),
        customers: await f.count('customers'),
        transactions: await f.count('voucher_transactions'),
      };
      const error = await rejects(
        t.sdk().redemptions.redeemStackable({
          redeemables: [
            { object: 'voucher', id: good.code },
            { object: 'voucher', id: gift.code, gift: { credits: 200 } },
            { object: 'voucher', id: disabled.code },
          ],
          order: { amount: 5000, source_id: f.unique('never') },
          customer: { source_id: sourceId },
        } as never),
      );
      assert.equal(error.code, 400);
      assert.equal(error.key, 'voucher_disabled');
      assert.equal(error.resource_type, 'redemption');
      assert.match(error.resource_id, /^rf_/);
      assert.equal((await f.voucherState(good.code)).redemption.redeemed_quantity, 0);
      assert.equal((await f.voucherState(gift.code)).gift.balance, 1000);
      assert.equal(await f.count('orders'), before.orders, 'no order is stored');
      assert.equal(await f.count('customers'), before.customers, 'no customer is created');
      assert.equal(await f.count('voucher_transactions'), before.transactions, 'no credits moved');

      const parent: Json = await t.sdk().redemptions.get(error.resource_id);
      assert.equal(parent.result, 'FAILURE');
      assert.equal(parent.status, 'FAILED');
      assert.equal(parent.failure_code, 'voucher_disabled');
      assert.equal(parent.order, null);
      const list: Json = await t.sdk().redemptions.list({ result: 'FAILURE', limit: 100 } as never);
      const children = list.redemptions.filter((r: Json) => r.redemption === error.resource_id);
      assert.equal(children.length, 3);
      assert.deepEqual(children.map((c: Json) => c.failure_code).sort(), ['voucher_disabled', 'voucher_disabled', 'voucher_disabled']);
      assert.ok(children.find((c: Json) => c.voucher.code === disabled.code).failure_message.length > 0);
      assert.ok(list.redemptions.some((r: Json) => r.id === error.resource_id));
    });

    test('the failing redeemable is named; a known customer counts the failure; unknown code is 404 not_found', async () => {
      const customer = await f.customer();
      const error = await rejects(
        t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'NO-SUCH-CODE' }], customer: { id: customer.id } } as never),
      );
      assert.equal(error.code, 404);
      assert.equal(error.key, 'not_found');
      const raw = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: 'NO-SUCH-CODE' }], customer: { id: customer.id } } });
      assert.equal(raw.status, 404);
      assert.equal(raw.body.redeemable_type, 'voucher');
      assert.equal(raw.body.redeemable_id, 'NO-SUCH-CODE');
      assert.match(raw.body.resource_id, /^rf_/);
      const summary = await f.customerSummary(customer.id);
      assert.equal(summary.total_failed, 2);
      assert.equal(summary.total_redeemed, 2);
      assert.equal(summary.total_succeeded, 0);
    });

    test('PARTIAL mode applies what applies and lists the rest (project stacking rules)', async () => {
      const project = await f.ok('POST', '/management/v1/projects', { name: f.unique('Partial'), case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' }, t.managementHeaders());
      await f.ok('POST', `/management/v1/projects/${project.id}/stacking-rules`, { redeemables_application_mode: 'PARTIAL' }, t.managementHeaders());
      const keys = project.server_side_key;
      const sdk = t.sdk(keys);
      await t.request('POST', '/v1/vouchers/P-GOOD', { headers: t.serverHeaders(keys), json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } } });
      const res: Json = await sdk.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'P-GOOD' }, { object: 'voucher', id: 'P-MISSING' }], order: { amount: 1000 } } as never);
      assert.equal(res.redemptions.length, 1);
      assert.ok(res.parent_redemption);
      assert.equal(res.inapplicable_redeemables.length, 1);
      assert.equal(res.inapplicable_redeemables[0].result.error.key, 'not_found');
      assert.equal(res.order.total_amount, 700);
      const validation: Json = await sdk.validations.validateStackable({ redeemables: [{ object: 'voucher', id: 'P-GOOD' }, { object: 'voucher', id: 'P-MISSING' }], order: { amount: 1000 } } as never);
      assert.equal(validation.valid, true, 'PARTIAL: one applicable redeemable makes the validation valid');
      assert.equal(validation.stacking_rules.redeemables_application_mode, 'PARTIAL');
      // Nothing applicable in PARTIAL mode is the same failure.
      const none = await rejects(sdk.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'P-MISSING' }], order: { amount: 1000 } } as never));
      assert.equal(none.key, 'not_found');
    });

    test('ALL mode: after the first inapplicable redeemable the rest are SKIPPED preceding_validation_failed', async () => {
      const good = await f.amountVoucher(100);
      const res: Json = await t.sdk().validations.validateStackable({
        redeemables: [{ object: 'voucher', id: 'MISSING-1' }, { object: 'voucher', id: good.code }],
        order: { amount: 1000 },
      } as never);
      assert.equal(res.valid, false);
      assert.deepEqual(res.redeemables.map((r: Json) => r.status), ['INAPPLICABLE', 'SKIPPED']);
      assert.equal(res.redeemables[0].result.error.code, 404);
      assert.equal(res.redeemables[1].result.details.key, 'preceding_validation_failed');
      assert.equal(res.skipped_redeemables.length, 1);
      assert.equal(res.inapplicable_redeemables.length, 1);
    });
  });

  describe('request-level rejections', () => {
    test('invalid_payload names the path; duplicated_redeemables; a stack with others is invalid_redeemables; nothing stored', async () => {
      const before = await f.redemptionRows();
      const v = await f.amountVoucher(100);
      const missingId = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher' }] } });
      assert.equal(missingId.status, 400);
      assert.equal(missingId.body.key, 'invalid_payload');
      assert.match(missingId.body.details, /\.redeemables\[0\]/);
      const empty = await t.request('POST', '/v1/validations', { json: { redeemables: [] } });
      assert.equal(empty.body.key, 'invalid_payload');
      const tooMany = await t.request('POST', '/v1/validations', { json: { redeemables: Array.from({ length: 31 }, (_, i) => ({ object: 'voucher', id: `C${i}` })) } });
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.key, 'invalid_payload');
      const badObject = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'campaign', id: 'x' }] } });
      assert.equal(badObject.body.key, 'invalid_payload');
      const dup = await rejects(t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: v.code }, { object: 'voucher', id: v.code }] } as never));
      assert.equal(dup.code, 400);
      assert.equal(dup.key, 'duplicated_redeemables');
      const dupById = await t.request('POST', '/v1/validations', { json: { redeemables: [{ object: 'voucher', id: v.code }, { object: 'voucher', id: v.id }] } });
      assert.equal(dupById.body.key, 'duplicated_redeemables', 'a code and the id of the same voucher are duplicates');
      const promo = await f.promotion([{ name: 'T', action: { discount: { type: 'AMOUNT', amount_off: 10 } } }]);
      const stack = await f.ok('POST', `/v1/promotions/${promo.id}/stacks`, { name: 'S', tiers: { ids: [promo.promotion.tiers[0].id], hierarchy_mode: 'MANUAL' } });
      const mixed = await rejects(t.sdk().validations.validateStackable({ redeemables: [{ object: 'promotion_stack', id: stack.id }, { object: 'voucher', id: v.code }] } as never));
      assert.equal(mixed.key, 'invalid_redeemables');
      const twoStacks = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'promotion_stack', id: stack.id }, { object: 'promotion_stack', id: 'stack_other' }] } });
      assert.equal(twoStacks.body.key, 'invalid_redeemables');
      const malformed = await t.request('POST', '/v1/redemptions', { body: '{"redeemables": [', headers: { ...t.serverHeaders(), 'content-type': 'application/json' } });
      assert.equal(malformed.body.key, 'malformed_json');
      const badCustomer = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: v.code }], customer: {} } });
      assert.equal(badCustomer.status, 400);
      assert.equal(badCustomer.body.key, 'invalid_payload');
      assert.equal(await f.redemptionRows(), before, 'request-level rejections store nothing');
      assert.equal((await f.voucherState(v.code)).redemption.redeemed_quantity, 0);
    });

    test('a promotion stack applies its tiers in the stack order', async () => {
      const promo = await f.promotion([
        { name: 'Ten', action: { discount: { type: 'AMOUNT', amount_off: 100 } } },
        { name: 'Half', action: { discount: { type: 'PERCENT', percent_off: 50 } } },
      ]);
      const [ten, half] = promo.promotion.tiers;
      const stack = await f.ok('POST', `/v1/promotions/${promo.id}/stacks`, { name: 'S', tiers: { ids: [half.id, ten.id], hierarchy_mode: 'MANUAL' } });
      const res: Json = await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'promotion_stack', id: stack.id }], order: { amount: 1000 } } as never);
      assert.deepEqual(res.redemptions.map((r: Json) => r.related_object_id), [half.id, ten.id]);
      assert.equal(res.order.total_amount, 400, '50 % of 1000, then 100 off');
      assert.ok(res.parent_redemption);
    });
  });

  test('malformed input on every engine endpoint is a precise 4xx, never a 5xx', async () => {
    const v = await f.amountVoucher(10);
    const bodies: unknown[] = [
      null,
      [],
      'text',
      42,
      { redeemables: 'x' },
      { redeemables: [null] },
      { redeemables: [{ object: 'voucher', id: '' }] },
      { redeemables: [{ object: 'voucher', id: v.code, gift: { credits: -1 } }] },
      { redeemables: [{ object: 'voucher', id: v.code, reward: { points: 0 } }] },
      { redeemables: [{ object: 'voucher', id: v.code }], order: { items: [{ quantity: -1 }] } },
      { redeemables: [{ object: 'voucher', id: v.code }], order: { items: [{ price: 1e20 }] } },
      { redeemables: [{ object: 'voucher', id: v.code }], order: { id: 'ord_missing' } },
      { redeemables: [{ object: 'voucher', id: v.code }], order: { created_at: '2026-06-30T23:59:60Z' } },
      { redeemables: [{ object: 'voucher', id: v.code }], customer: { id: 'cust_missing' } },
      { redeemables: [{ object: 'voucher', id: v.code }], session: { type: 'LOCK', ttl: -1 } },
      { redeemables: [{ object: 'voucher', id: v.code }], session: { type: 'NOPE' } },
      { redeemables: [{ object: 'voucher', id: v.code }], options: { expand: ['everything'] } },
      { redeemables: [{ object: 'voucher', id: v.code }], metadata: [] },
      { redeemables: [{ object: 'promotion_stack', id: 'stack_missing' }] },
      { options: { starting_after: '2026-06-30T23:59:60Z' } },
      { options: { filters: 'x' } },
      { scenario: 'EVERYTHING' },
    ];
    const paths = ['/v1/validations', '/v1/redemptions', '/v1/qualifications', `/v1/vouchers/${v.code}/validate`, `/v1/vouchers/${v.code}/redemption`, '/v1/promotions/validation', '/v1/redemptions/r_missing/rollback'];
    let legacyRedeemed = 0;
    for (const path of paths) {
      for (const body of bodies) {
        const res = await t.request('POST', path, { json: body });
        assert.ok(res.status < 500, `${path} ${JSON.stringify(body)} → ${res.status} ${res.text}`);
        if (res.status >= 400) assert.equal(res.body.code, res.status);
        if (path === '/v1/redemptions') assert.notEqual(res.status, 200, JSON.stringify(body));
        // The legacy body ignores members it does not know (as the SDK's bodies need), so some redeem.
        if (path.endsWith('/redemption') && res.status === 200) legacyRedeemed++;
      }
    }
    for (const query of ['limit=abc', 'filters[voucher_code]=x', 'filters=1', 'created_at=2024', 'customer=', 'order[x]=1', 'page=1.5']) {
      const res = await t.request('GET', `/v1/redemptions?${query}`);
      assert.ok(res.status === 400 || res.status === 200, `${query} → ${res.status} ${res.text}`);
    }
    assert.equal((await f.voucherState(v.code)).redemption.redeemed_quantity, legacyRedeemed, 'only the legacy redemptions that answered 200 redeemed');
  });

  describe('legacy single-object endpoints', () => {
    test('redeem a voucher with the SDK: one record, no parent; a tier through promotions.tiers.redeem', async () => {
      const v = await f.amountVoucher(250);
      const record: Json = await t.sdk().redemptions.redeem(v.code, { customer: { source_id: f.unique('legacy') }, order: { amount: 1000, items: [{ product_id: prodA.id, quantity: 2, price: 500 }] }, metadata: { m: 1 } } as never);
      assert.match(record.id, /^r_/);
      assert.equal(record.redemption, null);
      assert.equal(record.order.total_amount, 750);
      assert.deepEqual(record.metadata, { m: 1 });
      const promo = await f.promotion([{ name: 'Legacy tier', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }]);
      const tierRecord: Json = await t.sdk().promotions.tiers.redeem(promo.promotion.tiers[0].id, { customer: { source_id: 'cust_1' }, order: { amount: 1000 } } as never);
      assert.equal(tierRecord.related_object_type, 'promotion_tier');
      assert.equal(tierRecord.order.total_amount, 900);
    });

    test('legacy redemption failures are 400 with the FAILURE record; legacy validate is 200 valid:false with reason and error', async () => {
      const v = await f.amountVoucher(100, { active: false });
      const error = await rejects(t.sdk().redemptions.redeem(v.code, { order: { amount: 1000 } } as never));
      assert.equal(error.code, 400);
      assert.equal(error.key, 'voucher_disabled');
      assert.match(error.resource_id, /^rf_/);
      const failed: Json = await t.sdk().redemptions.get(error.resource_id);
      assert.equal(failed.redemption, null, 'a single redeemable leaves one record, no parent');
      const validation: Json = await t.sdk().validations.validateVoucher(v.code, { order: { amount: 1000 } } as never);
      assert.equal(validation.valid, false);
      assert.equal(validation.reason, 'voucher is disabled');
      assert.equal(validation.error.key, 'voucher_disabled');
      assert.equal(validation.code, v.code);
      const good = await f.amountVoucher(100);
      const ok: Json = await t.sdk().validations.validate(good.code, { order: { amount: 1000 } } as never);
      assert.equal(ok.valid, true);
      assert.equal(ok.discount.amount_off, 100);
      assert.equal(ok.order.total_amount, 900);
    });
  });
});
