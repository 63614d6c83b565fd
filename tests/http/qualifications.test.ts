import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, rejects, type Json } from '../helpers/redemption-fixtures.ts';

// Qualifications (promotions reference 8) and the client-side API: which redeemables a customer and
// order qualify for per scenario, each evaluated alone by the validation engine, with limit, paging,
// filters and sorting, nothing stored; client keys validate, redeem (when the project allows it) and
// qualify exactly as the client SDK sends them.

describe('qualifications and the client side', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  let customer: Json;
  let walletCode: string;
  let tiers: Json[];
  let stack: Json;
  let tiersCampaignName: string;

  before(async () => {
    t = await startTestApp();
    await t.allowClientActions();
    f = fixtures(t);
    customer = await f.customer({ source_id: 'qualifier', metadata: { tier: 'gold' } });
    const campaign = await f.ok('POST', '/v1/campaigns', {
      name: 'Wallet campaign',
      campaign_type: 'DISCOUNT_COUPONS',
      // One code, published below: the wallet holds it and no unassigned code of the campaign is left.
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 700 } },
    });
    const pub: Json = await t.sdk().distributions.publications.create({ campaign: { name: campaign.name }, customer: { id: customer.id } } as never);
    walletCode = pub.voucher.code;
    const promo = await f.promotion([
      { name: 'Small', action: { discount: { type: 'AMOUNT', amount_off: 100 } } },
      { name: 'Big', action: { discount: { type: 'AMOUNT', amount_off: 500 } } },
      { name: 'Big orders only', action: { discount: { type: 'AMOUNT', amount_off: 900 } } },
      { name: 'Silver only', action: { discount: { type: 'AMOUNT', amount_off: 50 } } },
    ]);
    tiers = promo.promotion.tiers;
    tiersCampaignName = promo.name;
    const orderRule = await f.rule({ rules: { 1: { name: 'order.amount', conditions: { $more_than: [50000] } }, logic: '1' } });
    await f.assign(orderRule.id, { promotion_tier: tiers[2].id });
    const silver = await f.rule({ rules: { 1: { name: 'customer.metadata', property: 'tier', conditions: { $is: ['silver'] } }, logic: '1' } });
    await f.assign(silver.id, { promotion_tier: tiers[3].id });
    stack = await f.ok('POST', `/v1/promotions/${promo.id}/stacks`, { name: 'Small and big', tiers: { ids: [tiers[0].id, tiers[1].id], hierarchy_mode: 'MANUAL' } });
  });
  after(async () => t.close());

  const check = (body: Record<string, unknown>) => t.sdk().qualifications.checkEligibility(body as never) as Promise<Json>;
  const idsOf = (res: Json) => res.redeemables.data.map((r: Json) => r.id);

  test('ALL: the wallet voucher and the tiers that apply, newest first, limit 5 by default; nothing stored', async () => {
    const rows = await f.redemptionRows();
    const res = await check({ customer: { id: customer.id }, order: { amount: 10000 }, scenario: 'ALL' });
    assert.equal(res.redeemables.object, 'list');
    assert.equal(res.redeemables.data_ref, 'data');
    assert.deepEqual([...idsOf(res)].sort(), [walletCode, tiers[0].id, tiers[1].id].sort());
    assert.equal(res.redeemables.total, 3);
    assert.equal(res.redeemables.has_more, false);
    const voucher = res.redeemables.data.find((r: Json) => r.id === walletCode);
    assert.equal(voucher.object, 'voucher');
    assert.equal(voucher.campaign_name, 'Wallet campaign');
    assert.equal(voucher.order.total_amount, 9300, 'each candidate is evaluated alone against the original order');
    const big = res.redeemables.data.find((r: Json) => r.id === tiers[1].id);
    assert.equal(big.object, 'promotion_tier');
    assert.equal(big.name, 'Big');
    assert.equal(big.result.discount.amount_off, 500);
    assert.equal(res.order.amount, 10000);
    assert.equal(res.stacking_rules.redeemables_application_mode, 'ALL');
    assert.equal(await f.redemptionRows(), rows);
    const unknown = await check({ customer: { source_id: 'never-seen' }, order: { amount: 10000 } });
    assert.deepEqual([...idsOf(unknown)].sort(), [tiers[0].id, tiers[1].id].sort(), 'an unknown customer has no wallet and is not created');
    assert.equal((await t.request('GET', '/v1/customers/never-seen')).status, 404);
  });

  test('scenarios: CUSTOMER_WALLET, AUDIENCE_ONLY (order rules not checked), PROMOTION_STACKS', async () => {
    assert.deepEqual(idsOf(await check({ customer: { id: customer.id }, order: { amount: 10000 }, scenario: 'CUSTOMER_WALLET' })), [walletCode]);
    const audience = await check({ customer: { id: customer.id }, order: { amount: 10000 }, scenario: 'AUDIENCE_ONLY' });
    assert.ok(idsOf(audience).includes(tiers[2].id), 'the order rule does not decide');
    assert.ok(!idsOf(audience).includes(tiers[3].id), 'the customer rule does');
    const stacks = await check({ customer: { id: customer.id }, order: { amount: 10000 }, scenario: 'PROMOTION_STACKS' });
    assert.deepEqual(idsOf(stacks), [stack.id]);
    assert.equal(stacks.redeemables.data[0].object, 'promotion_stack');
    assert.equal(stacks.redeemables.data[0].order.total_amount, 9400);
    assert.equal(stacks.redeemables.data[0].redeemables.length, 2);
  });

  test('options: limit and starting_after paging, filters, sorting rules', async () => {
    const first = await check({ customer: { id: customer.id }, order: { amount: 10000 }, options: { limit: 2 } });
    assert.equal(first.redeemables.data.length, 2);
    assert.equal(first.redeemables.has_more, true);
    assert.equal(typeof first.redeemables.more_starting_after, 'string');
    const next = await check({ customer: { id: customer.id }, order: { amount: 10000 }, options: { limit: 2, starting_after: first.redeemables.more_starting_after } });
    assert.equal(next.redeemables.data.length, 1);
    assert.equal(next.redeemables.has_more, false);
    assert.equal(new Set([...idsOf(first), ...idsOf(next)]).size, 3);
    const best = await check({ customer: { id: customer.id }, order: { amount: 10000 }, options: { sorting_rule: 'BEST_DEAL' } });
    assert.deepEqual(idsOf(best), [walletCode, tiers[1].id, tiers[0].id]);
    const least = await check({ customer: { id: customer.id }, order: { amount: 10000 }, options: { sorting_rule: 'LEAST_DEAL' } });
    assert.deepEqual(idsOf(least), [tiers[0].id, tiers[1].id, walletCode]);
    const onlyTiers = await check({ customer: { id: customer.id }, order: { amount: 10000 }, options: { filters: { resource_type: { conditions: { $in: ['promotion_tier'] } } } } });
    assert.deepEqual([...idsOf(onlyTiers)].sort(), [tiers[0].id, tiers[1].id].sort());
    const either = await check({
      customer: { id: customer.id },
      order: { amount: 10000 },
      options: { filters: { junction: 'OR', code: { conditions: { $is: [walletCode] } }, resource_id: { conditions: { $is: [tiers[0].id] } } } },
    });
    assert.deepEqual([...idsOf(either)].sort(), [walletCode, tiers[0].id].sort());
    const bad = await t.request('POST', '/v1/qualifications', { json: { options: { filters: { shoe: { conditions: { $is: ['x'] } } } } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_payload');
    const tooMany = await t.request('POST', '/v1/qualifications', { json: { options: { limit: 51 } } });
    assert.equal(tooMany.body.key, 'invalid_payload');
  });

  test('legacy promotion validation: the tiers that apply, in hierarchy order', async () => {
    const res = (await t.sdk().validations.validate({ customer: { id: customer.id }, order: { amount: 10000 } } as never)) as Json;
    assert.equal(res.valid, true);
    assert.deepEqual(res.promotions.map((p: Json) => p.id), [tiers[0].id, tiers[1].id]);
    assert.equal(res.promotions[1].discount_amount, 500);
  });

  test('legacy examine calls: the wallet vouchers that apply, the campaigns that qualify', async () => {
    const vouchers = (await t.sdk().vouchers.qualifications.examine({ customer: { id: customer.id }, order: { amount: 10000 } } as never, { limit: 5 } as never)) as Json;
    assert.equal(vouchers.object, 'list');
    assert.deepEqual(vouchers.data.map((v: Json) => v.code), [walletCode]);
    assert.equal(vouchers.data[0].object, 'voucher');
    const campaigns = (await t.sdk().campaigns.qualifications.examine({ customer: { id: customer.id }, order: { amount: 10000 } } as never, { limit: 5 } as never)) as Json;
    assert.deepEqual(campaigns.data.map((c: Json) => c.name).sort(), ['Wallet campaign', tiersCampaignName].sort());
    assert.equal(campaigns.total, 2);
  });

  describe('client side', () => {
    test('validateStackable, redeemStackable, qualifications, validate and redeem through the client SDK', async () => {
      const client = t.clientSdk();
      const v = await f.amountVoucher(200);
      const validation = (await client.validateStackable({ redeemables: [{ object: 'voucher', id: v.code }], order: { amount: 1000 } } as never)) as Json;
      assert.equal(validation.valid, true);
      const redeemed = (await client.redeemStackable({ redeemables: [{ object: 'voucher', id: v.code }], order: { amount: 1000 }, customer: { source_id: 'client-buyer' } } as never)) as Json;
      assert.equal(redeemed.redemptions[0].order.total_amount, 800);
      assert.equal(redeemed.redemptions[0].channel.channel_type, 'API');
      const qualified = (await client.qualifications({ customer: { source_id: 'qualifier' }, scenario: 'ALL' } as never)) as Json;
      assert.ok(idsOf(qualified).includes(walletCode));
      const legacy = (await client.validate({ code: v.code, amount: 1000, items: [{ product_id: 'prod_x', quantity: 1, price: 1000 }], customer: { source_id: 'client-buyer' } } as never)) as Json;
      assert.equal(legacy.valid, true);
      assert.equal(legacy.order.total_amount, 800);
      const byCode = (await client.validate(v.code)) as Json;
      assert.equal(byCode.valid, true);
      const promotions = (await client.validate({ amount: 10000, customer: { source_id: 'qualifier' } } as never)) as Json;
      assert.deepEqual(promotions.promotions.map((p: Json) => p.id), [tiers[0].id, tiers[1].id]);
      const another = await f.amountVoucher(100);
      const record = (await client.redeem(another.code, { order: { amount: 1000 } } as never)) as Json;
      assert.equal(record.order.total_amount, 900);
      assert.equal(record.customer, null, 'the client SDK sends an empty customer when it has no tracking id');
    });

    test('client-side redemption needs client_redeem_enabled; other projects cannot see the codes', async () => {
      const project = await f.ok('POST', '/management/v1/projects', { name: f.unique('NoClientRedeem'), case_sensitive_codes: true, timezone: 'UTC', currency: 'USD', client_trusted_domains: ['https://shop.example.com'], client_redeem_enabled: false }, t.managementHeaders());
      await t.request('POST', '/v1/vouchers/CLIENT-OFF', { headers: t.serverHeaders(project.server_side_key), json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
      const client = t.clientSdk(project.client_side_key);
      const refused = await rejects(client.redeemStackable({ redeemables: [{ object: 'voucher', id: 'CLIENT-OFF' }], order: { amount: 1000 } } as never));
      assert.equal(refused.code, 403);
      const refusedLegacy = await rejects(client.redeem('CLIENT-OFF', { order: { amount: 1000 } } as never));
      assert.equal(refusedLegacy.code, 403);
      const allowed = (await client.validateStackable({ redeemables: [{ object: 'voucher', id: 'CLIENT-OFF' }], order: { amount: 1000 } } as never)) as Json;
      assert.equal(allowed.valid, true, 'validation is always allowed');
      const elsewhere = (await t.clientSdk().validateStackable({ redeemables: [{ object: 'voucher', id: 'CLIENT-OFF' }], order: { amount: 1000 } } as never)) as Json;
      assert.equal(elsewhere.redeemables[0].result.error.key, 'not_found', "another project's code is unknown here");
    });
  });

  describe('vouchers nobody holds (issue 19)', () => {
    let u: TestApp;
    let g: ReturnType<typeof fixtures>;
    let buyer: Json;
    let standalone: Json;
    let unassigned: string;
    let held: string;
    let othersCode: string;

    before(async () => {
      u = await startTestApp();
      g = fixtures(u);
      buyer = await g.customer({ source_id: 'buyer-unheld' });
      const other = await g.customer({ source_id: 'someone-else' });
      standalone = await g.amountVoucher(300);
      // Not candidates: inactive, expired, used up, a loyalty card, and codes other customers hold.
      await g.amountVoucher(400, { active: false });
      await g.amountVoucher(400, { expiration_date: '2020-01-01T00:00:00.000Z' });
      const usedUp = await g.amountVoucher(400, { redemption: { quantity: 1 } });
      await g.ok('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: usedUp.code }], order: { amount: 5000 } });
      const campaign = await g.ok('POST', '/v1/campaigns', {
        name: 'Unassigned codes',
        campaign_type: 'DISCOUNT_COUPONS',
        vouchers_count: 3,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 150 } },
      });
      held = ((await u.sdk().distributions.publications.create({ campaign: { name: campaign.name }, customer: { id: buyer.id } } as never)) as Json).voucher.code;
      othersCode = ((await u.sdk().distributions.publications.create({ campaign: { name: campaign.name }, customer: { id: other.id } } as never)) as Json).voucher.code;
      const codes = (await g.ok('GET', `/v1/vouchers?campaign_id=${campaign.id}&limit=10`)).vouchers.map((v: Json) => v.code);
      unassigned = codes.find((c: string) => c !== held && c !== othersCode);
    });
    after(async () => u.close());

    const ids = async (body: Record<string, unknown>) => ((await u.sdk().qualifications.checkEligibility(body as never)) as Json).redeemables.data.map((r: Json) => r.id).sort();

    test('ALL and the open scenarios offer standalone vouchers and unassigned campaign codes; the wallet scenario does not', async () => {
      const everyone = [standalone.code, unassigned, held].sort();
      assert.deepEqual(await ids({ customer: { id: buyer.id }, order: { amount: 5000 }, scenario: 'ALL', options: { limit: 50 } }), everyone);
      assert.deepEqual(await ids({ customer: { id: buyer.id }, order: { amount: 5000 }, scenario: 'AUDIENCE_ONLY', options: { limit: 50 } }), everyone);
      assert.deepEqual(await ids({ customer: { id: buyer.id }, order: { amount: 5000 }, scenario: 'CUSTOMER_WALLET', options: { limit: 50 } }), [held]);
      assert.deepEqual(await ids({ order: { amount: 5000 }, options: { limit: 50 } }), [standalone.code, unassigned].sort(), 'no customer: what anyone may use');
    });

    test('filters and sorting see them: holder_role, BEST_DEAL with limit', async () => {
      const owned = await ids({ customer: { id: buyer.id }, order: { amount: 5000 }, options: { filters: { holder_role: { conditions: { $is: ['OWNER'] } } } } });
      assert.deepEqual(owned, [held]);
      const nobodys = await ids({ customer: { id: buyer.id }, order: { amount: 5000 }, options: { filters: { holder_role: { conditions: { $is_unknown: [] } } } } });
      assert.deepEqual(nobodys, [standalone.code, unassigned].sort());
      const best = (await u.sdk().qualifications.checkEligibility({ customer: { id: buyer.id }, order: { amount: 5000 }, options: { sorting_rule: 'BEST_DEAL', limit: 1 } } as never)) as Json;
      assert.deepEqual(best.redeemables.data.map((r: Json) => r.id), [standalone.code]);
      assert.equal(best.redeemables.data[0].order.total_amount, 4700);
      assert.equal(best.redeemables.has_more, true);
    });
  });
});
