import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Referral tiers (a Punchcard extension; platform reference 6.2 `campaign.referral_tier.*`, 3.7
// `customer.rewarded` with `referral_tier`; vendor SimpleReferralTier): CRUD on a referral program's
// tiers, and the referrer rewards a conversion pays when the referrer's count of converted referees
// reaches a tier — exactly once per referrer and tier, also under concurrent conversions.

interface TierReward {
  related_object_parent: { id: string; name: string | null; object: 'CAMPAIGN' };
  type: 'LOYALTY_CARD' | 'GIFT_VOUCHER' | 'DISCOUNT_VOUCHER';
  amount: number | null;
}

interface Tier {
  id: string;
  campaign_id: string;
  banner: string | null;
  conversions: number;
  parameters: { reward: TierReward };
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
  object: 'referral_tier';
}

interface StoredEventOut {
  type: string;
  activity_type: string | null;
  customer_id: string | null;
  campaign_id: string | null;
  data: Record<string, unknown>;
}

interface Balance {
  balance: number;
  amount?: number;
  points?: number;
}

describe('referral tiers', () => {
  let t: TestApp;
  let other: KeyPairOut;
  let points: { id: string };
  let gifts: { id: string };
  let coupons: { id: string };
  let program: { id: string; name: string };

  const create = async (path: string, json: unknown): Promise<{ id: string; name: string }> => {
    const res = await t.request('POST', path, { json });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const referralProgram = (name: string, referralProgramBody: Record<string, unknown>) =>
    create('/v1/campaigns', {
      name,
      campaign_type: 'REFERRAL_PROGRAM',
      type: 'AUTO_UPDATE',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 500 } },
      referral_program: referralProgramBody,
    });
  const reward = (type: TierReward['type'], campaignId: string, amount?: number | null) => ({
    related_object_parent: { id: campaignId, object: 'CAMPAIGN' },
    type,
    ...(amount !== undefined ? { amount } : {}),
  });
  const tiersPath = (campaign = program.id) => `/v1/referrals/${campaign}/tiers`;

  async function events(where: { type: string; customerId?: string; campaignId?: string }): Promise<StoredEventOut[]> {
    let query = t.deps.db.selectFrom('events').selectAll().where('type', '=', where.type);
    if (where.customerId !== undefined) query = query.where('customer_id', '=', where.customerId);
    if (where.campaignId !== undefined) query = query.where('campaign_id', '=', where.campaignId);
    const rows = await query.orderBy('seq').execute();
    return rows.map((r) => ({ type: r.type, activity_type: r.activity_type, customer_id: r.customer_id, campaign_id: r.campaign_id, data: JSON.parse(r.data) as Record<string, unknown> }));
  }

  /** The customer's vouchers of one campaign (cards or coupons). */
  async function vouchersOf(sourceId: string, campaignId: string): Promise<Array<{ code: string; holder_id: string; gift?: { balance: number }; loyalty_card?: { balance: number } }>> {
    const res = await t.request('GET', `/v1/vouchers?customer=${sourceId}&campaign_id=${campaignId}&limit=100`);
    assert.equal(res.status, 200, res.text);
    return res.body.vouchers;
  }

  async function publishCode(programName: string, sourceId: string): Promise<{ code: string; customerId: string }> {
    const res = await t.request('POST', '/v1/publications', { json: { campaign: { name: programName }, customer: { source_id: sourceId } } });
    assert.equal(res.status, 200, res.text);
    return { code: res.body.voucher.code, customerId: res.body.customer.id };
  }

  async function redeemAsReferee(code: string, sourceId: string): Promise<void> {
    const res = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: code }], customer: { source_id: sourceId }, order: { amount: 5000 } } });
    assert.equal(res.status, 200, res.text);
  }

  async function tierRewardRows(referrerId: string): Promise<Array<{ tier_id: string; conversions: number; reward_type: string; voucher_id: string | null; transaction_id: string | null }>> {
    return t.deps.db
      .selectFrom('referral_tier_rewards')
      .select(['tier_id', 'conversions', 'reward_type', 'voucher_id', 'transaction_id'])
      .where('project_id', '=', t.projectId)
      .where('referrer_id', '=', referrerId)
      .orderBy('conversions')
      .execute();
  }

  before(async () => {
    t = await startTestApp();
    const project = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(project.status, 200, project.text);
    other = project.body.server_side_key;
    points = await create('/v1/loyalties', { name: 'Referrer points', vouchers_count: 0, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    gifts = await create('/v1/campaigns', { name: 'Referrer gifts', campaign_type: 'GIFT_VOUCHERS', type: 'AUTO_UPDATE', vouchers_count: 0, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    coupons = await create('/v1/campaigns', {
      name: 'Thank-you coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 15 } },
    });
    program = await referralProgram('Ambassadors', { conversion_event_type: 'redemption' });
  });
  after(async () => t.close());

  test('tiers are created, read, listed by conversions, updated and deleted, each change with its event', async () => {
    const first = await t.request('POST', tiersPath(), {
      json: { banner: 'First friend', conversions: 1, parameters: { reward: { related_object_parent: { name: 'Referrer points' }, type: 'LOYALTY_CARD', amount: 100 } }, metadata: { level: 'bronze' } },
    });
    assert.equal(first.status, 200, first.text);
    const tier: Tier = first.body;
    assert.match(tier.id, /^rt_/);
    assert.deepEqual(tier, {
      id: tier.id,
      campaign_id: program.id,
      banner: 'First friend',
      conversions: 1,
      parameters: { reward: { related_object_parent: { id: points.id, name: 'Referrer points', object: 'CAMPAIGN' }, type: 'LOYALTY_CARD', amount: 100 } },
      metadata: { level: 'bronze' },
      created_at: tier.created_at,
      updated_at: null,
      object: 'referral_tier',
    });
    const byName = await t.request('GET', `/v1/referrals/Ambassadors/tiers/${tier.id}`);
    assert.deepEqual(byName.body, tier, 'the program may be named by its name');

    const third: Tier = (await t.request('POST', tiersPath(), { json: { conversions: 3, parameters: { reward: reward('GIFT_VOUCHER', gifts.id, 2500) } } })).body;
    assert.equal(third.banner, null);
    assert.deepEqual(third.metadata, {});
    const fourth: Tier = (await t.request('POST', tiersPath(), { json: { banner: 'Coupon', conversions: 4, parameters: { reward: reward('DISCOUNT_VOUCHER', coupons.id) } } })).body;
    assert.deepEqual(fourth.parameters.reward, { related_object_parent: { id: coupons.id, name: 'Thank-you coupons', object: 'CAMPAIGN' }, type: 'DISCOUNT_VOUCHER', amount: null });
    const doomed: Tier = (await t.request('POST', tiersPath(), { json: { conversions: 50, parameters: { reward: reward('LOYALTY_CARD', points.id, 1) } } })).body;

    const page1 = await t.request('GET', `${tiersPath()}?limit=2`);
    assert.equal(page1.status, 200, page1.text);
    assert.deepEqual(
      { object: page1.body.object, data_ref: page1.body.data_ref, total: page1.body.total, has_more: page1.body.has_more, conversions: page1.body.data.map((d: Tier) => d.conversions) },
      { object: 'list', data_ref: 'data', total: 4, has_more: true, conversions: [1, 3] },
    );
    const page2 = await t.request('GET', `${tiersPath()}?limit=2&page=2`);
    assert.deepEqual([page2.body.has_more, page2.body.data.map((d: Tier) => d.conversions)], [false, [4, 50]]);
    const descending = await t.request('GET', `${tiersPath()}?order=-conversions&limit=1`);
    assert.equal(descending.body.data[0].id, doomed.id);

    const updated = await t.request('PUT', `${tiersPath()}/${doomed.id}`, { json: { banner: 'Legend', metadata: { level: 'gold' } } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.banner, 'Legend');
    assert.deepEqual(updated.body.metadata, { level: 'gold' });
    assert.equal(updated.body.conversions, 50, 'members not sent stay');
    assert.deepEqual(updated.body.parameters, doomed.parameters);
    assert.ok(updated.body.updated_at !== null);
    const moved = await t.request('PUT', `${tiersPath()}/${doomed.id}`, { json: { conversions: 60, parameters: { reward: reward('GIFT_VOUCHER', gifts.id, 700) } } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.conversions, 60);
    assert.deepEqual(moved.body.parameters.reward, { related_object_parent: { id: gifts.id, name: 'Referrer gifts', object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 700 });
    assert.equal(moved.body.banner, 'Legend');

    assert.equal((await t.request('DELETE', `${tiersPath()}/${doomed.id}`)).status, 204);
    assert.equal((await t.request('GET', `${tiersPath()}/${doomed.id}`)).status, 404);
    const again = await t.request('DELETE', `${tiersPath()}/${doomed.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.resource_type, 'referral_tier');
    assert.equal((await t.request('GET', tiersPath())).body.total, 3);

    const changes = await events({ type: 'campaign.referral_tier.created', campaignId: program.id });
    assert.deepEqual(
      changes.map((e) => (e.data.referral_tier as Tier).conversions),
      [1, 3, 4, 50],
    );
    assert.deepEqual(changes[0]?.data.campaign, { id: program.id, name: 'Ambassadors', campaign_type: 'REFERRAL_PROGRAM', object: 'campaign' });
    assert.deepEqual(changes[0]?.data.referral_tier, tier);
    const updates = await events({ type: 'campaign.referral_tier.updated', campaignId: program.id });
    assert.deepEqual(
      updates.map((e) => [(e.data.referral_tier as Tier).id, (e.data.referral_tier as Tier).conversions]),
      [
        [doomed.id, 50],
        [doomed.id, 60],
      ],
    );
    const deletions = await events({ type: 'campaign.referral_tier.deleted', campaignId: program.id });
    assert.equal(deletions.length, 1);
    assert.equal((deletions[0]?.data.referral_tier as Tier).id, doomed.id);
    assert.equal((deletions[0]?.data.referral_tier as Tier).banner, 'Legend');
  });

  test('bad tiers are refused with precise errors and change nothing', async () => {
    const before = (await t.request('GET', tiersPath())).body.total;
    const eventsBefore = (await events({ type: 'campaign.referral_tier.created' })).length;
    const valid = { conversions: 7, parameters: { reward: reward('LOYALTY_CARD', points.id, 10) } };
    const cases: Array<[string, unknown, number, string, RegExp]> = [
      ['conversions below 1', { ...valid, conversions: 0 }, 400, 'invalid_payload', /conversions/],
      ['conversions not whole', { ...valid, conversions: 1.5 }, 400, 'invalid_payload', /conversions/],
      ['no parameters', { conversions: 7 }, 400, 'invalid_payload', /parameters/],
      ['unknown reward type', { ...valid, parameters: { reward: { ...reward('LOYALTY_CARD', points.id, 10), type: 'POINTS' } } }, 400, 'invalid_payload', /type/],
      ['points without amount', { ...valid, parameters: { reward: reward('LOYALTY_CARD', points.id) } }, 400, 'invalid_payload', /\.parameters\.reward\.amount should be a positive integer \(points\)/],
      ['credits of zero', { ...valid, parameters: { reward: reward('GIFT_VOUCHER', gifts.id, 0) } }, 400, 'invalid_payload', /amount/],
      ['a coupon with an amount', { ...valid, parameters: { reward: reward('DISCOUNT_VOUCHER', coupons.id, 5) } }, 400, 'invalid_payload', /amount applies only to LOYALTY_CARD and GIFT_VOUCHER/],
      ['no reward campaign', { ...valid, parameters: { reward: { type: 'LOYALTY_CARD', amount: 10, related_object_parent: {} } } }, 400, 'invalid_payload', /'id' or 'name'/],
      ['unknown reward campaign', { ...valid, parameters: { reward: reward('LOYALTY_CARD', 'camp_missing', 10) } }, 404, 'not_found', /camp_missing/],
      ['credits from a loyalty program', { ...valid, parameters: { reward: reward('GIFT_VOUCHER', points.id, 10) } }, 400, 'invalid_campaign', /needs a GIFT_VOUCHERS campaign; Referrer points is LOYALTY_PROGRAM/],
      ['points from a gift campaign', { ...valid, parameters: { reward: reward('LOYALTY_CARD', gifts.id, 10) } }, 400, 'invalid_campaign', /needs a LOYALTY_PROGRAM campaign/],
      ['a coupon from a gift campaign', { ...valid, parameters: { reward: reward('DISCOUNT_VOUCHER', gifts.id) } }, 400, 'invalid_campaign', /needs a DISCOUNT_COUPONS campaign/],
      ['a coupon from a referral program', { ...valid, parameters: { reward: reward('DISCOUNT_VOUCHER', program.id) } }, 400, 'invalid_campaign', /REFERRAL_PROGRAM/],
      ['conversions already used', { ...valid, conversions: 3 }, 409, 'duplicate_found', /conversions 3/],
    ];
    for (const [name, body, status, key, details] of cases) {
      const res = await t.request('POST', tiersPath(), { json: body });
      assert.equal(res.status, status, `${name}: ${res.text}`);
      assert.equal(res.body.key, key, `${name}: ${res.text}`);
      assert.match(res.body.details, details, `${name}: ${res.text}`);
    }
    assert.equal((await t.request('GET', tiersPath())).body.total, before, 'no refused tier was stored');
    assert.equal((await events({ type: 'campaign.referral_tier.created' })).length, eventsBefore, 'no event for a refused tier');

    // Tiers live only on referral programs: any other campaign, or none, is 404.
    for (const campaign of [gifts.id, 'camp_missing', 'Referrer points']) {
      const res = await t.request('POST', tiersPath(campaign), { json: valid });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.resource_type, 'campaign');
      assert.equal((await t.request('GET', tiersPath(campaign))).status, 404);
    }
    const otherProgram = await referralProgram('Other program', {});
    const [tier] = (await t.request('GET', tiersPath())).body.data as Tier[];
    assert.ok(tier);
    assert.equal((await t.request('GET', `${tiersPath(otherProgram.id)}/${tier.id}`)).status, 404, "another program's tier is not found");
    assert.equal((await t.request('PUT', `${tiersPath(otherProgram.id)}/${tier.id}`, { json: { banner: 'x' } })).status, 404);
    assert.equal((await t.request('DELETE', `${tiersPath(otherProgram.id)}/${tier.id}`)).status, 404);

    // An update is checked like a create and changes nothing when refused.
    const tierAt3 = ((await t.request('GET', tiersPath())).body.data as Tier[]).find((d) => d.conversions === 3);
    assert.ok(tierAt3);
    const clash = await t.request('PUT', `${tiersPath()}/${tierAt3.id}`, { json: { conversions: 1, banner: 'changed' } });
    assert.equal(clash.status, 409, clash.text);
    const wrongType = await t.request('PUT', `${tiersPath()}/${tierAt3.id}`, { json: { banner: 'changed', parameters: { reward: reward('GIFT_VOUCHER', coupons.id, 10) } } });
    assert.equal(wrongType.status, 400, wrongType.text);
    assert.equal(wrongType.body.key, 'invalid_campaign');
    const badConversions = await t.request('PUT', `${tiersPath()}/${tierAt3.id}`, { json: { conversions: -2 } });
    assert.equal(badConversions.status, 400);
    assert.deepEqual((await t.request('GET', `${tiersPath()}/${tierAt3.id}`)).body, tierAt3);
  });

  test('a referrer is paid the tiers at 1 and 3 and 4 conversions — points, credits, a coupon — and nothing in between', async () => {
    const { code, customerId: referrerId } = await publishCode('Ambassadors', 'ambassador');
    const cards = async () => ({
      points: await vouchersOf('ambassador', points.id),
      gifts: await vouchersOf('ambassador', gifts.id),
      coupons: await vouchersOf('ambassador', coupons.id),
    });

    await redeemAsReferee(code, 'friend-1');
    let held = await cards();
    assert.equal(held.points.length, 1, 'a card of the reward program was published to the referrer');
    assert.equal(held.points[0]?.holder_id, referrerId);
    assert.equal(held.points[0]?.loyalty_card?.balance, 100);
    assert.deepEqual([held.gifts.length, held.coupons.length], [0, 0]);

    await redeemAsReferee(code, 'friend-2');
    held = await cards();
    assert.equal(held.points[0]?.loyalty_card?.balance, 100, 'no tier at 2 conversions');
    assert.deepEqual([held.gifts.length, held.coupons.length], [0, 0]);

    await redeemAsReferee(code, 'friend-3');
    held = await cards();
    assert.equal(held.gifts.length, 1);
    assert.equal(held.gifts[0]?.gift?.balance, 1000 + 2500, "the new gift card's own credits plus the tier's");
    const giftTxs = await t.request('GET', `/v1/vouchers/${held.gifts[0]?.code}/transactions`);
    assert.equal(giftTxs.body.data[0].type, 'CREDITS_ADDITION');
    assert.equal(giftTxs.body.data[0].source, 'Automation');
    assert.equal(giftTxs.body.data[0].details.balance.amount, 2500);
    assert.equal(held.coupons.length, 0);

    await redeemAsReferee(code, 'friend-4');
    held = await cards();
    assert.equal(held.coupons.length, 1, 'one coupon published to the referrer');
    assert.equal(held.coupons[0]?.holder_id, referrerId);
    assert.deepEqual([held.points[0]?.loyalty_card?.balance, held.gifts[0]?.gift?.balance], [100, 3500]);

    await redeemAsReferee(code, 'friend-5');
    const tiers = (await t.request('GET', tiersPath())).body.data as Tier[];
    const tierAt = (n: number) => tiers.find((d) => d.conversions === n);
    const paid = await tierRewardRows(referrerId);
    assert.deepEqual(
      paid.map((p) => [p.tier_id, Number(p.conversions), p.reward_type]),
      [
        [tierAt(1)?.id, 1, 'LOYALTY_CARD'],
        [tierAt(3)?.id, 3, 'GIFT_VOUCHER'],
        [tierAt(4)?.id, 4, 'DISCOUNT_VOUCHER'],
      ],
    );
    assert.equal(paid[2]?.transaction_id, null);
    assert.ok(paid[0]?.voucher_id !== null && paid[0]?.transaction_id !== null);

    // customer.rewarded: an activity of the referrer, carrying the tier (SimpleReferralTier) and balance.
    const rewarded = await events({ type: 'customer.rewarded', customerId: referrerId });
    assert.equal(rewarded.length, 3);
    assert.ok(rewarded.every((e) => e.activity_type === 'customer.rewarded' && e.campaign_id === program.id));
    const tier1 = tierAt(1);
    assert.ok(tier1);
    assert.deepEqual(rewarded[0]?.data.referral_tier, { id: tier1.id, campaign_id: program.id, banner: 'First friend', parameters: tier1.parameters });
    assert.equal((rewarded[0]?.data.balance as Balance).balance, 100);
    assert.equal((rewarded[0]?.data.balance as Balance).points, 100);
    assert.equal((rewarded[0]?.data.customer as { id: string }).id, referrerId);
    assert.ok((rewarded[0]?.data.redemption as { id: string }).id.startsWith('r_'));
    assert.equal((rewarded[1]?.data.balance as Balance).amount, 2500);
    assert.equal(rewarded[2]?.data.balance, null);
    assert.equal((rewarded[2]?.data.voucher as { code: string }).code, held.coupons[0]?.code);
    const activity = await t.request('GET', `/v1/customers/${referrerId}/activity?type=customer.rewarded`);
    assert.equal(activity.status, 200, activity.text);
    assert.equal(activity.body.data.length, 3);

    // The referees' own rewards carry no tier.
    const friend = await t.request('GET', '/v1/customers/friend-1');
    const refereeRewards = await events({ type: 'customer.rewarded', customerId: friend.body.id });
    assert.equal(refereeRewards.length, 0, 'the program has no referee reward');
  });

  test('a tier moved onto a count the referrer reaches again is not paid twice', async () => {
    const { code, customerId: referrerId } = await publishCode('Ambassadors', 'ambassador-2');
    await redeemAsReferee(code, 'b-friend-1');
    const tier1 = ((await t.request('GET', tiersPath())).body.data as Tier[]).find((d) => d.conversions === 1);
    assert.ok(tier1);
    assert.equal((await vouchersOf('ambassador-2', points.id))[0]?.loyalty_card?.balance, 100);
    const moved = await t.request('PUT', `${tiersPath()}/${tier1.id}`, { json: { conversions: 2 } });
    assert.equal(moved.status, 200, moved.text);
    await redeemAsReferee(code, 'b-friend-2');
    assert.equal((await vouchersOf('ambassador-2', points.id))[0]?.loyalty_card?.balance, 100, 'the tier paid at 1 is not paid again at 2');
    assert.deepEqual(
      (await tierRewardRows(referrerId)).map((p) => p.tier_id),
      [tier1.id],
    );
    assert.equal((await events({ type: 'customer.rewarded', customerId: referrerId })).length, 1);
    // A referrer who had not reached the tier before gets it at its new count.
    const fresh = await publishCode('Ambassadors', 'ambassador-3');
    await redeemAsReferee(fresh.code, 'c-friend-1');
    assert.equal((await vouchersOf('ambassador-3', points.id)).length, 0);
    await redeemAsReferee(fresh.code, 'c-friend-2');
    assert.equal((await vouchersOf('ambassador-3', points.id))[0]?.loyalty_card?.balance, 100);
    assert.equal((await t.request('PUT', `${tiersPath()}/${tier1.id}`, { json: { conversions: 1 } })).status, 200);
  });

  test('a tier reward that cannot be given refuses the conversion rather than dropping it', async () => {
    const doomedCoupons = await create('/v1/campaigns', {
      name: 'Short-lived coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    });
    const fragile = await referralProgram('Fragile', { conversion_event_type: 'redemption' });
    const tier = await t.request('POST', tiersPath(fragile.id), { json: { conversions: 1, parameters: { reward: reward('DISCOUNT_VOUCHER', doomedCoupons.id) } } });
    assert.equal(tier.status, 200, tier.text);
    const { code, customerId: referrerId } = await publishCode('Fragile', 'fragile-referrer');
    assert.equal((await t.request('DELETE', `/v1/campaigns/${doomedCoupons.id}`)).status, 202);

    const refused = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: code }], customer: { source_id: 'fragile-friend' }, order: { amount: 5000 } } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.key, 'invalid_campaign');
    assert.match(refused.body.details, new RegExp(`referral tier ${tier.body.id}`));
    assert.equal((await t.request('GET', '/v1/customers/fragile-referrer')).body.loyalty.referred_customers, 0, 'the conversion rolled back');
    const counted = await t.deps.db.selectFrom('referrer_conversions').selectAll().where('project_id', '=', t.projectId).where('referrer_id', '=', referrerId).execute();
    assert.deepEqual(counted, []);
    assert.deepEqual(await tierRewardRows(referrerId), []);
  });

  test('concurrent conversions of different referees of one referrer pay every tier exactly once', async () => {
    const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/custom-event-schemas`, {
      headers: t.managementHeaders(),
      json: { name: 'joined_via_friend', schema: { properties: {} } },
    });
    assert.equal(schema.status, 200, schema.text);
    const crowd = await referralProgram('Crowd', { conversion_event_type: 'custom_event', custom_event: { name: 'joined_via_friend' } });
    for (const [conversions, amount] of [
      [2, 10],
      [4, 20],
      [6, 40],
    ] as const) {
      const res = await t.request('POST', tiersPath(crowd.id), { json: { conversions, parameters: { reward: reward('LOYALTY_CARD', points.id, amount) } } });
      assert.equal(res.status, 200, res.text);
    }
    const couponTier = await t.request('POST', tiersPath(crowd.id), { json: { conversions: 3, parameters: { reward: reward('DISCOUNT_VOUCHER', coupons.id) } } });
    assert.equal(couponTier.status, 200, couponTier.text);
    const { code, customerId: referrerId } = await publishCode('Crowd', 'crowd-leader');

    const referees = Array.from({ length: 8 }, (_, i) => `crowd-friend-${i}`);
    const answers = await Promise.all(
      referees.map((sourceId) => t.request('POST', '/v1/events', { json: { event: 'joined_via_friend', customer: { source_id: sourceId }, referral: { code } } })),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);

    const count = await t.deps.db
      .selectFrom('referrer_conversions')
      .select('conversions')
      .where('project_id', '=', t.projectId)
      .where('campaign_id', '=', crowd.id)
      .where('referrer_id', '=', referrerId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.conversions), 8);
    assert.equal((await t.request('GET', '/v1/customers/crowd-leader')).body.loyalty.referred_customers, 8);
    const paid = await tierRewardRows(referrerId);
    assert.deepEqual(
      paid.map((p) => Number(p.conversions)),
      [2, 3, 4, 6],
      'each tier paid once',
    );
    const cards = await vouchersOf('crowd-leader', points.id);
    assert.equal(cards.length, 1, 'one card published to the referrer, however many conversions raced');
    assert.equal(cards[0]?.loyalty_card?.balance, 10 + 20 + 40);
    assert.equal((await vouchersOf('crowd-leader', coupons.id)).length, 1);
    assert.equal((await events({ type: 'customer.rewarded', customerId: referrerId })).length, 4);
  });

  test("another project's keys cannot see or change a program's tiers", async () => {
    const keys = t.serverHeaders(other);
    const [tier] = (await t.request('GET', tiersPath())).body.data as Tier[];
    assert.ok(tier);
    const attempts: Array<[string, string, unknown]> = [
      ['GET', tiersPath(), undefined],
      ['GET', `${tiersPath()}/${tier.id}`, undefined],
      ['POST', tiersPath(), { conversions: 99, parameters: { reward: reward('LOYALTY_CARD', points.id, 1) } }],
      ['PUT', `${tiersPath()}/${tier.id}`, { banner: 'hijacked' }],
      ['DELETE', `${tiersPath()}/${tier.id}`, undefined],
    ];
    for (const [method, path, json] of attempts) {
      const res = await t.request(method, path, { headers: keys, ...(json !== undefined ? { json } : {}) });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    assert.deepEqual((await t.request('GET', `${tiersPath()}/${tier.id}`)).body, tier, 'unchanged');
    assert.equal((await t.request('GET', tiersPath())).body.data.some((d: Tier) => d.conversions === 99), false);

    // The `referrals` scope opens these paths; another scope does not.
    const token = async (scope: string) =>
      (await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(), form: { grant_type: 'client_credentials', scope } })).body.access_token as string;
    const allowed = await t.request('GET', tiersPath(), { headers: { authorization: `Bearer ${await token('referrals')}` } });
    assert.equal(allowed.status, 200, allowed.text);
    const refused = await t.request('GET', tiersPath(), { headers: { authorization: `Bearer ${await token('customers')}` } });
    assert.equal(refused.status, 403);
  });
});
