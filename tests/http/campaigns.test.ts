import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Campaigns of every type, code generation, async actions (seed 2.3, 4.5; promotions reference 1;
// loyalty reference 1; DECISIONS 4, 21).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('campaigns', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const discountCampaign = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    campaign_type: 'DISCOUNT_COUPONS',
    vouchers_count: 3,
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    ...extra,
  });

  async function vouchersOf(campaignId: string): Promise<Json[]> {
    const rows = await t.deps.db
      .selectFrom('vouchers')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('binned_at', 'is', null)
      .orderBy('id')
      .execute();
    return rows;
  }

  test('a discount campaign is created with its vouchers, through the SDK', async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Spring sale') as never);
    assert.match(created.id, /^camp_/);
    assert.equal(created.object, 'campaign');
    assert.equal(created.campaign_type, 'DISCOUNT_COUPONS');
    assert.equal(created.type, 'AUTO_UPDATE');
    assert.equal(created.creation_status, 'DONE');
    assert.equal(created.vouchers_generation_status, 'DONE');
    assert.equal(created.vouchers_count, 3);
    assert.equal(created.active, true);
    assert.equal(created.protected, false);
    assert.deepEqual(created.categories, []);
    assert.equal(created.category_id, null);
    assert.deepEqual(created.voucher.discount, { type: 'PERCENT', percent_off: 10, is_dynamic: false });
    assert.equal(created.voucher.code_config.length, 8);
    assert.equal(created.voucher.code_config.pattern, '########');
    assert.equal(created.voucher.redemption.quantity, null);
    const vouchers = await vouchersOf(created.id);
    assert.equal(vouchers.length, 3);
    for (const v of vouchers) assert.match(v.code, /^[0-9A-Za-z]{8}$/);
  });

  test('get by id or by name; list newest first with filters', async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Named campaign') as never);
    const byName: Json = await t.sdk().campaigns.get('Named campaign');
    assert.equal(byName.id, created.id);
    const byId: Json = await t.sdk().campaigns.get(created.id);
    assert.equal(byId.name, 'Named campaign');
    const list: Json = await t.sdk().campaigns.list({ limit: 100, campaign_type: 'DISCOUNT_COUPONS' } as never);
    assert.equal(list.object, 'list');
    assert.equal(list.data_ref, 'campaigns');
    assert.equal(list.campaigns[0].id, created.id);
    assert.equal(list.total, list.campaigns.length);
    const none: Json = await t.sdk().campaigns.list({ campaign_type: 'GIFT_VOUCHERS' } as never);
    assert.equal(none.campaigns.every((c: Json) => c.campaign_type === 'GIFT_VOUCHERS'), true);
  });

  test('code_config: pattern, prefix, postfix, charset', async () => {
    const created: Json = await t.sdk().campaigns.create(
      discountCampaign('Patterned', {
        vouchers_count: 20,
        voucher: {
          type: 'DISCOUNT_VOUCHER',
          discount: { type: 'AMOUNT', amount_off: 500 },
          code_config: { pattern: 'SUMMER-####', prefix: 'X', postfix: '-Z', charset: '0123456789' },
        },
      }) as never,
    );
    assert.equal(created.voucher.code_config.length, 4);
    assert.equal(created.voucher.code_config.charset, '0123456789');
    const vouchers = await vouchersOf(created.id);
    assert.equal(vouchers.length, 20);
    assert.equal(new Set(vouchers.map((v: Json) => v.code)).size, 20);
    for (const v of vouchers) assert.match(v.code, /^XSUMMER-\d{4}-Z$/);
  });

  test('codes are never repeated, even when the code space is nearly full', async () => {
    const first: Json = await t.sdk().campaigns.create(
      discountCampaign('Tiny space A', {
        vouchers_count: 40,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, code_config: { pattern: 'T##', charset: '0123456789' } },
      }) as never,
    );
    const second: Json = await t.sdk().campaigns.create(
      discountCampaign('Tiny space B', {
        vouchers_count: 10,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, code_config: { pattern: 'T##', charset: '0123456789' } },
      }) as never,
    );
    const codes = [...(await vouchersOf(first.id)), ...(await vouchersOf(second.id))].map((v: Json) => v.code);
    assert.equal(codes.length, 50);
    assert.equal(new Set(codes).size, 50);
    // Asking for more than the space holds is refused up front and creates nothing.
    const tooMany = await t.request('POST', '/v1/campaigns', {
      json: discountCampaign('Tiny space C', {
        vouchers_count: 60,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, code_config: { pattern: 'T##', charset: '0123456789' } },
      }),
    });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.key, 'invalid_code_config');
    assert.equal((await t.request('GET', '/v1/campaigns/Tiny%20space%20C')).status, 404);
  });

  test('the campaign type is inferred from the voucher template, as the SDK relies on', async () => {
    const loyalty: Json = await t.sdk().campaigns.create({ name: 'Loyal', vouchers_count: 1, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 1000 } } } as never);
    assert.equal(loyalty.campaign_type, 'LOYALTY_PROGRAM');
    assert.equal(loyalty.join_once, true);
    const [card] = await vouchersOf(loyalty.id);
    assert.equal(Number(card.loyalty_points), 1000);
    assert.equal(Number(card.loyalty_balance), 1000);
    const gift: Json = await t.sdk().campaigns.create({ name: 'Gifts', vouchers_count: 2, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 5000 } } } as never);
    assert.equal(gift.campaign_type, 'GIFT_VOUCHERS');
    const [giftCard] = await vouchersOf(gift.id);
    assert.equal(Number(giftCard.gift_balance), 5000);
    const referral: Json = await t.sdk().campaigns.create({
      name: 'Refer a friend',
      voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 1000 } },
    } as never);
    assert.equal(referral.campaign_type, 'REFERRAL_PROGRAM');
    assert.equal(referral.voucher.is_referral_code, true);
  });

  test('loyalty programs through /v1/loyalties', async () => {
    const created: Json = await t.sdk().loyalties.create({ name: 'Points club', vouchers_count: 2, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    assert.equal(created.campaign_type, 'LOYALTY_PROGRAM');
    const fetched: Json = await t.sdk().loyalties.get('Points club');
    assert.equal(fetched.id, created.id);
    const list: Json = await t.sdk().loyalties.list();
    assert.ok(list.campaigns.every((c: Json) => c.campaign_type === 'LOYALTY_PROGRAM'));
    // A campaign of another type is not a loyalty program.
    const other = await t.request('GET', '/v1/loyalties/Spring%20sale');
    assert.equal(other.status, 404);
    const wrongType = await t.request('POST', '/v1/loyalties', { json: { name: 'x', campaign_type: 'PROMOTION' } });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.key, 'invalid_campaign');
  });

  test('bad definitions are refused with precise errors and create nothing', async () => {
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ name: 'b1', campaign_type: 'REFERRAL_PROGRAM', voucher: { type: 'DISCOUNT_VOUCHER' } }, 400, 'invalid_campaign', /discount/],
      [{ name: 'b2', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT' } } }, 400, 'invalid_payload', /amount_off/],
      [{ name: 'b3', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' } } }, 400, 'invalid_payload', /effect/],
      [{ name: 'b4', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 5, amount_off_formula: 'ORDER_AMOUNT **' } } }, 400, 'invalid_payload', /amount_off_formula/],
      [{ name: 'b5', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 120 } } }, 400, 'invalid_payload', /percent_off/],
      [{ name: 'b6', campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } }, 400, 'invalid_campaign', /GIFT_VOUCHER/],
      [{ name: 'b7', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH' } } } }, 400, 'invalid_payload', /period_value/],
      [{ name: 'b8', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } }, validity_timeframe: { interval: 'P1D', duration: 'PT1H' } }, 400, 'invalid_payload', /start_date/],
      [{ name: 'b9', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } }, category_id: 'cat_missing' }, 404, 'not_found', /category/],
      [{ name: 'b10' }, 400, 'invalid_campaign', /campaign_type/],
      [{ name: 'b11', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, code_config: { pattern: 'NOHASH' } } }, 400, 'invalid_code_config', /#/],
      [{ name: 'b12', campaign_type: 'PROMOTION', vouchers_count: 5 }, 400, 'invalid_campaign', /vouchers/],
    ];
    for (const [body, status, key, details] of cases) {
      const res = await t.request('POST', '/v1/campaigns', { json: body });
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.match(res.body.details, details, res.text);
      assert.equal((await t.request('GET', `/v1/campaigns/${body.name as string}`)).status, 404);
    }
  });

  test('names are unique among live campaigns', async () => {
    await t.sdk().campaigns.create(discountCampaign('Unique name') as never);
    const again = await t.request('POST', '/v1/campaigns', { json: discountCampaign('Unique name') });
    assert.equal(again.status, 409);
    assert.equal(again.body.key, 'duplicate_found');
    assert.equal(again.body.resource_type, 'campaign');
  });

  test('update changes what is sent and reaches unused vouchers only', async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Updatable') as never);
    const [first] = await vouchersOf(created.id);
    await t.deps.db.updateTable('vouchers').set({ redeemed_quantity: 1 }).where('id', '=', first.id).execute();
    const updated: Json = await t.sdk().campaigns.update(created.id, {
      description: 'Now 20%',
      discount: { type: 'PERCENT', percent_off: 20 },
      expiration_date: '2027-01-01T00:00:00.000Z',
      metadata: { season: 'spring' },
    } as never);
    assert.equal(updated.description, 'Now 20%');
    assert.equal(updated.voucher.discount.percent_off, 20);
    assert.equal(updated.expiration_date, '2027-01-01T00:00:00.000Z');
    assert.deepEqual(updated.metadata, { season: 'spring' });
    assert.ok(updated.updated_at);
    const after = await vouchersOf(created.id);
    const used = after.find((v: Json) => v.id === first.id);
    assert.equal(JSON.parse(used.discount).percent_off, 10, 'a used voucher keeps its discount');
    assert.ok(after.filter((v: Json) => v.id !== first.id).every((v: Json) => JSON.parse(v.discount).percent_off === 20));
    const wrong = await t.request('PUT', `/v1/campaigns/${created.id}`, { json: { gift: { amount: 100 } } });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.key, 'invalid_campaign');
  });

  test('enable and disable answer an empty object and toggle active', async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Toggle') as never);
    const disabled = await t.request('POST', `/v1/campaigns/${created.id}/disable`, { json: {} });
    assert.equal(disabled.status, 200);
    assert.deepEqual(disabled.body, {});
    assert.equal((await t.sdk().campaigns.get(created.id) as Json).active, false);
    await t.sdk().campaigns.enable(created.id);
    assert.equal((await t.sdk().campaigns.get(created.id) as Json).active, true);
  });

  test('adding vouchers: one answers the voucher, several answer an async action', async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Growing', { vouchers_count: 0 }) as never);
    const one: Json = await t.sdk().campaigns.addVoucher(created.id, { metadata: { batch: 1 } } as never);
    assert.equal(one.object, 'voucher');
    assert.equal(one.campaign_id, created.id);
    assert.equal(one.campaign, 'Growing');
    assert.deepEqual(one.metadata, { batch: 1 });
    assert.deepEqual(one.discount, { type: 'PERCENT', percent_off: 10, is_dynamic: false });
    const certain: Json = await t.sdk().campaigns.addCertainVoucher(created.id, 'MY-CODE-1', {} as never);
    assert.equal(certain.code, 'MY-CODE-1');
    const dup = await t.request('POST', `/v1/campaigns/${created.id}/vouchers/MY-CODE-1`, { json: {} });
    assert.equal(dup.status, 409);
    const many = await t.request('POST', `/v1/campaigns/${created.id}/vouchers?vouchers_count=5`, { json: {} });
    assert.equal(many.status, 202);
    assert.match(many.body.async_action_id, /^aa_/);
    const action = await t.request('GET', `/v1/async-actions/${many.body.async_action_id}`);
    assert.equal(action.body.status, 'DONE');
    assert.equal(action.body.type, 'CAMPAIGN.VOUCHERS_GENERATE');
    assert.equal(action.body.result.done_count, 5);
    assert.equal((await t.sdk().campaigns.get(created.id) as Json).vouchers_count, 7);
    assert.equal((await vouchersOf(created.id)).length, 7);
  });

  test('large generation runs as a job with honest statuses', async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Big', { vouchers_count: 1500 }) as never);
    assert.equal(created.creation_status, 'IN_PROGRESS');
    assert.equal(created.vouchers_generation_status, 'IN_PROGRESS');
    const list = await t.request('GET', '/v1/async-actions?limit=5');
    const action = list.body.async_actions.find((a: Json) => a.type === 'CAMPAIGN.VOUCHERS_GENERATE' && a.status === 'ENQUEUED');
    assert.ok(action, JSON.stringify(list.body));
    while (await t.worker.runOnce()) {
      /* drain */
    }
    const done: Json = await t.sdk().campaigns.get(created.id);
    assert.equal(done.creation_status, 'DONE');
    assert.equal(done.vouchers_count, 1500);
    assert.equal((await vouchersOf(created.id)).length, 1500);
    const finished = await t.request('GET', `/v1/async-actions/${action.id}`);
    assert.equal(finished.body.status, 'DONE');
    assert.equal(finished.body.progress, 100);
    assert.equal(finished.body.result.done_count, 1500);
  });

  test('generation jobs in a small code space draw again where codes are taken, and never share a code', async () => {
    // 10 000 possible codes: the second job's sorted draws meet many codes the first one took.
    const small = { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 }, code_config: { length: 4, charset: '0123456789' } };
    const first: Json = await t.sdk().campaigns.create(discountCampaign('Digits A', { vouchers_count: 2500, voucher: small }) as never);
    const second: Json = await t.sdk().campaigns.create(discountCampaign('Digits B', { vouchers_count: 2500, voucher: small }) as never);
    while (await t.worker.runOnce()) {
      /* drain */
    }
    const codes = [...(await vouchersOf(first.id)), ...(await vouchersOf(second.id))].map((v) => v.code as string);
    assert.equal(codes.length, 5000);
    assert.equal(new Set(codes).size, 5000);
    for (const code of codes) assert.match(code, /^[0-9]{4}$/);
    assert.equal(((await t.sdk().campaigns.get(second.id)) as Json).vouchers_count, 2500);
  });

  test('delete bins the campaign at once and its vouchers in the background; the name is free again', async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Doomed', { vouchers_count: 4 }) as never);
    const codes = (await vouchersOf(created.id)).map((v: Json) => v.code);
    const res = await t.request('DELETE', `/v1/campaigns/${created.id}`);
    assert.equal(res.status, 202);
    assert.match(res.body.async_action_id, /^aa_/);
    assert.equal((await t.request('GET', `/v1/campaigns/${created.id}`)).status, 404);
    while (await t.worker.runOnce()) {
      /* drain */
    }
    assert.equal((await vouchersOf(created.id)).length, 0);
    const bin = await t.request('GET', '/v1/trash-bin?limit=100');
    const entry = bin.body.data.find((e: Json) => e.resource_id === created.id);
    assert.equal(entry.resource_type, 'campaign');
    assert.equal(entry.resource_name, 'Doomed');
    // The name and the codes are free for new campaigns.
    const again: Json = await t.sdk().campaigns.create(discountCampaign('Doomed', { vouchers_count: 0 }) as never);
    assert.notEqual(again.id, created.id);
    const reused: Json = await t.sdk().campaigns.addCertainVoucher(again.id, codes[0], {} as never);
    assert.equal(reused.code, codes[0]);
    // Deleting the bin entry removes the campaign and its vouchers for good.
    assert.equal((await t.request('DELETE', `/v1/trash-bin/${entry.id}`)).status, 204);
    while (await t.worker.runOnce()) {
      /* drain */
    }
    const rows = await t.deps.db.selectFrom('vouchers').select('id').where('campaign_id', '=', created.id).execute();
    assert.equal(rows.length, 0);
    const campaignRow = await t.deps.db.selectFrom('campaigns').select('id').where('id', '=', created.id).executeTakeFirst();
    assert.equal(campaignRow, undefined);
  });

  test('force delete removes the campaign for good, through the loyalty path too', async () => {
    const created: Json = await t.sdk().loyalties.create({ name: 'Gone for good', vouchers_count: 2 } as never);
    const res = await t.request('DELETE', `/v1/loyalties/${created.id}?force=true`);
    assert.equal(res.status, 200);
    assert.match(res.body.async_action_id, /^aa_/);
    while (await t.worker.runOnce()) {
      /* drain */
    }
    const row = await t.deps.db.selectFrom('campaigns').select('id').where('id', '=', created.id).executeTakeFirst();
    assert.equal(row, undefined);
    const bin = await t.request('GET', '/v1/trash-bin?limit=100');
    assert.equal(bin.body.data.some((e: Json) => e.resource_id === created.id), false);
  });

  test('force delete also removes the campaign’s tiers, stacks and rule assignments', async () => {
    const rule = await t.request('POST', '/v1/validation-rules', { json: { name: 'Any order', rules: { logic: '' } } });
    assert.equal(rule.status, 200, rule.text);
    const promo = await t.request('POST', '/v1/campaigns', {
      json: {
        name: 'Promo to purge',
        campaign_type: 'PROMOTION',
        validation_rules: [rule.body.id],
        promotion: { tiers: [{ name: 'T1', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }] },
      },
    });
    assert.equal(promo.status, 200, promo.text);
    assert.equal(promo.body.validation_rules_assignments.total, 1);
    assert.equal(promo.body.validation_rules_assignments.data[0].rule_id, rule.body.id);
    const before = await t.deps.db.selectFrom('validation_rule_assignments').select('id').where('related_object_id', '=', promo.body.id).execute();
    assert.equal(before.length, 1);
    const res = await t.request('DELETE', `/v1/campaigns/${promo.body.id}?force=true`);
    assert.equal(res.status, 202);
    while (await t.worker.runOnce()) {
      /* drain */
    }
    const tiers = await t.deps.db.selectFrom('promotion_tiers').select('id').where('campaign_id', '=', promo.body.id).execute();
    assert.equal(tiers.length, 0);
    const assignments = await t.deps.db.selectFrom('validation_rule_assignments').select('id').where('related_object_id', '=', promo.body.id).execute();
    assert.equal(assignments.length, 0);
  });

  test('loyalty tier settings are checked, and refreshing tiers runs in the background', async () => {
    const bad = await t.request('POST', '/v1/loyalties', { json: { name: 'Bad tiers', loyalty_tiers_expiration: { qualification_type: 'SOMETIMES' } } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.details, /qualification_type/);
    const wrongType = await t.request('POST', '/v1/campaigns', { json: discountCampaign('Not loyalty', { loyalty_tiers_expiration: { qualification_type: 'BALANCE' } }) });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.key, 'invalid_campaign');
    const program = await t.request('POST', '/v1/loyalties', {
      json: { name: 'Tiered', loyalty_tiers_expiration: { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'BALANCE_DROP' } } },
    });
    assert.equal(program.status, 200, program.text);
    assert.equal(program.body.loyalty_tiers_expiration.qualification_type, 'BALANCE');
    const refreshed = await t.request('PUT', `/v1/loyalties/${program.body.id}`, { json: { options: { recalculate_tiers: true } } });
    assert.equal(refreshed.status, 200, refreshed.text);
    // The recalculation is queued as internal work, not shown as one of the vendor's async actions.
    const job = await t.deps.db.selectFrom('jobs').select('id').where('project_id', '=', t.projectId).where('kind', '=', 'LOYALTY.TIERS_RECALCULATE').executeTakeFirst();
    assert.ok(job);
    const actions = await t.request('GET', '/v1/async-actions?limit=100');
    assert.ok(!actions.body.async_actions.some((a: Json) => a.type === 'LOYALTY.TIERS_RECALCULATE'), JSON.stringify(actions.body));
    assert.equal((await t.request('GET', `/v1/async-actions/${job.id}`)).status, 404);
  });

  test("another project's keys cannot see or change a campaign", async () => {
    const created: Json = await t.sdk().campaigns.create(discountCampaign('Private') as never);
    const other = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const keys = t.serverHeaders(other.body.server_side_key);
    assert.equal((await t.request('GET', `/v1/campaigns/${created.id}`, { headers: keys })).status, 404);
    assert.equal((await t.request('GET', '/v1/campaigns/Private', { headers: keys })).status, 404);
    assert.equal((await t.request('PUT', `/v1/campaigns/${created.id}`, { headers: keys, json: { description: 'x' } })).status, 404);
    assert.equal((await t.request('DELETE', `/v1/campaigns/${created.id}`, { headers: keys })).status, 404);
    assert.equal((await t.request('POST', `/v1/campaigns/${created.id}/vouchers`, { headers: keys, json: {} })).status, 404);
    const list = await t.request('GET', '/v1/campaigns', { headers: keys });
    assert.equal(list.body.total, 0);
    // The same name is free in another project.
    const theirs = await t.request('POST', '/v1/campaigns', { headers: keys, json: discountCampaign('Private') });
    assert.equal(theirs.status, 200);
  });
});
