import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Loyalty tiers (loyalty reference 6, 1.6): definitions through the SDK, and the tier each card holds,
// recalculated when its points change, in the background after tiers are created, and when a held tier
// expires — with the customer.loyalty.tier.* activities.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const SEED_EXPIRATION = {
  qualification_type: 'BALANCE',
  start_date: { type: 'IMMEDIATE' },
  expiration_date: { type: 'CUSTOM', extend: 'P3M', rounding: { type: 'MONTH', strategy: 'END' } },
};

describe('loyalty tiers', () => {
  let t: TestApp;
  let programs = 0;
  let customers = 0;

  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  /** A program whose orders earn 1 point per minor unit, so an order's amount is what it earns. */
  async function program(extra: Record<string, unknown> = {}): Promise<Json> {
    programs += 1;
    const res = await t.request('POST', '/v1/loyalties', { json: { name: `Tiered ${programs}`, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, ...extra } });
    assert.equal(res.status, 200, res.text);
    const rule = await t.request('POST', `/v1/loyalties/${res.body.id}/earning-rules`, {
      json: [{ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1, points: 1 } } } }],
    });
    assert.equal(rule.status, 200, rule.text);
    return { ...res.body, rule: rule.body[0] };
  }

  async function tiers(campaignId: string, items: Json[]): Promise<Json[]> {
    return t.sdk().loyalties.createTiers(campaignId, items);
  }

  async function standardTiers(campaignId: string): Promise<{ bronze: Json; silver: Json; gold: Json }> {
    const [bronze, silver, gold] = await tiers(campaignId, [
      { name: 'Bronze', points: { from: 1, to: 249 } },
      { name: 'Silver', points: { from: 250, to: 499 } },
      { name: 'Gold', points: { from: 500, to: 1000 } },
    ]);
    return { bronze, silver, gold };
  }

  async function joined(campaignId: string): Promise<{ customer: Json; code: string }> {
    customers += 1;
    const card: Json = await t.sdk().loyalties.createMember(campaignId, { customer: { source_id: `tiered-${customers}` } });
    return { customer: { id: card.holder_id, source_id: `tiered-${customers}` }, code: card.code };
  }

  async function earn(customerSourceId: string, points: number): Promise<void> {
    const res = await t.request('POST', '/v1/orders', { json: { status: 'PAID', amount: points, customer: { source_id: customerSourceId } } });
    assert.equal(res.status, 200, res.text);
  }

  /** Spends points with a material reward of that price (a path that recalculates the tier). */
  async function spend(campaignId: string, code: string, points: number): Promise<void> {
    const product = await t.request('POST', '/v1/products', { json: { name: `Prize ${points}`, price: 100 } });
    const reward = await t.request('POST', '/v1/rewards', { json: { name: `Prize ${points} ${campaignId}`, parameters: { product: { id: product.body.id } } } });
    assert.equal(reward.status, 200, reward.text);
    const assignment = await t.request('POST', `/v1/rewards/${reward.body.id}/assignments`, { json: { campaign: campaignId, parameters: { loyalty: { points } } } });
    assert.equal(assignment.status, 200, assignment.text);
    const redeemed = await t.request('POST', `/v1/loyalties/${campaignId}/members/${code}/redemption`, { json: { reward: { id: reward.body.id } } });
    assert.equal(redeemed.status, 200, redeemed.text);
  }

  async function memberTier(code: string): Promise<Json | null> {
    const list: Json = await t.sdk().loyalties.listMemberLoyaltyTiers(code);
    assert.equal(list.object, 'list');
    return list.data[0] ?? null;
  }

  async function tierActivities(customerId: string): Promise<string[]> {
    const res = await t.request('GET', `/v1/customers/${customerId}/activities?limit=100&order=created_at`);
    assert.equal(res.status, 200, res.text);
    return res.body.data.map((a: Json) => a.type).filter((type: string) => type.startsWith('customer.loyalty.tier.'));
  }

  async function drainJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      /* every queued job */
    }
  }

  describe('definitions', () => {
    test('create (array), list and get through the SDK', async () => {
      const p = await program();
      const created = await tiers(p.id, [
        { name: 'Silver', points: { from: 100, to: 499 }, earning_rules: { [p.rule.id]: { type: 'MULTIPLY', multiplier: 1.5 } }, metadata: { color: 'grey' } } as never,
        { name: 'Gold', points: { from: 500 } },
      ]);
      assert.equal(created.length, 2);
      const [silver, gold] = created;
      assert.match(silver.id, /^ltr_/);
      assert.deepEqual(
        { ...silver, id: undefined, created_at: undefined },
        {
          id: undefined,
          created_at: undefined,
          name: 'Silver',
          campaign_id: p.id,
          metadata: { color: 'grey' },
          updated_at: null,
          points: { from: 100, to: 499 },
          config: { points: { from: 100, to: 499 } },
          earning_rules: { [p.rule.id]: { type: 'MULTIPLY', multiplier: 1.5 } },
          rewards: {},
          object: 'loyalty_tier',
        },
      );
      assert.deepEqual(gold.points, { from: 500, to: null });
      const list: Json = await t.sdk().loyalties.listTiers(p.id, { limit: 10 });
      assert.equal(list.total, 2);
      assert.deepEqual(list.data.map((x: Json) => x.name), ['Silver', 'Gold']);
      assert.deepEqual(await t.sdk().loyalties.getTier(p.id, gold.id), gold);
      const events = await t.db.db.selectFrom('events').select('type').where('campaign_id', '=', p.id).where('type', '=', 'campaign.loyalty_tier.created').execute();
      assert.equal(events.length, 2);
    });

    test('overlapping or reversed ranges and unknown mappings are refused, and nothing is created', async () => {
      const p = await program();
      await standardTiers(p.id);
      const bad: Array<[Json, number, RegExp]> = [
        [[{ name: 'Overlap', points: { from: 900, to: 2000 } }], 400, /overlaps tier 'Gold'/],
        [[{ name: 'A', points: { from: 2000, to: 3000 } }, { name: 'B', points: { from: 2500 } }], 400, /\[1\]\.points .* overlaps tier 'A'/],
        [[{ name: 'Reversed', points: { from: 5000, to: 4000 } }], 400, /must not be below/],
        [[{ name: 'NoMultiplier', points: { from: 5000 }, earning_rules: { [p.rule.id]: { type: 'MULTIPLY' } } }], 400, /multiplier is required/],
        [[{ name: 'UnknownRule', points: { from: 5000 }, earning_rules: { ern_missing: { type: 'CUSTOM', points: 1 } } }], 404, /earning_rule/],
        [[{ name: 'UnknownReward', points: { from: 5000 }, rewards: { rewa_missing: { type: 'CUSTOM', points: 1 } } }], 404, /reward_assignment/],
        [[{ name: 'NoRange' }], 400, /points/],
      ];
      for (const [body, status, details] of bad) {
        const res = await t.request('POST', `/v1/loyalties/${p.id}/tiers`, { json: body });
        assert.equal(res.status, status, res.text);
        assert.match(res.body.details, details);
      }
      const list = await t.request('GET', `/v1/loyalties/${p.id}/tiers`);
      assert.equal(list.body.total, 3);
    });

    test('the tier earning-rules and rewards lists show points as the tier maps them', async () => {
      const p = await program();
      const product = await t.request('POST', '/v1/products', { json: { name: 'Mug', price: 100 } });
      const reward = await t.request('POST', '/v1/rewards', { json: { name: `Mug ${p.id}`, parameters: { product: { id: product.body.id } } } });
      const coin = await t.request('POST', '/v1/rewards', { json: { name: `Coin ${p.id}`, parameters: { coin: { exchange_ratio: 1, points_ratio: 100 } } } });
      const [assignment, coinAssignment]: Json[] = await t.sdk().loyalties.createRewardAssignments(p.id, [
        { reward: reward.body.id, parameters: { loyalty: { points: 200 } } },
        { reward: coin.body.id } as never,
      ]);
      const refused = await t.request('POST', `/v1/loyalties/${p.id}/tiers`, {
        json: [{ name: 'Coin mapping', points: { from: 0 }, rewards: { [coinAssignment.id]: { type: 'CUSTOM', points: 1 } } }],
      });
      assert.equal(refused.status, 400);
      assert.match(refused.body.details, /pay-with-points/);
      const [vip] = await tiers(p.id, [
        { name: 'VIP', points: { from: 0 }, earning_rules: { [p.rule.id]: { type: 'MULTIPLY', multiplier: 3 } }, rewards: { [assignment.id]: { type: 'CUSTOM', points: 50 } } } as never,
      ]);
      const earning: Json = await t.sdk().loyalties.listLoyaltyTierEarningRules(p.id, vip.id, { limit: 10 });
      assert.equal(earning.total, 1);
      assert.deepEqual(earning.data[0].loyalty, { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1, points: 3 } } });
      const rewards: Json = await t.sdk().loyalties.listLoyaltyTierRewards(p.id, vip.id);
      assert.equal(rewards.total, 2);
      const mug = rewards.data.find((r: Json) => r.reward.id === reward.body.id);
      assert.equal(mug.object, 'loyalty_tier_reward');
      assert.equal(mug.assignment.parameters.loyalty.points, 50);
      const coinEntry = rewards.data.find((r: Json) => r.reward.id === coin.body.id);
      assert.equal(coinEntry.assignment.parameters, undefined);
    });

    test("another project's keys get 404", async () => {
      const p = await program();
      const { gold } = await standardTiers(p.id);
      const other = await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other tiers', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      });
      const headers = t.serverHeaders(other.body.server_side_key as KeyPairOut);
      for (const path of [`/v1/loyalties/${p.id}/tiers`, `/v1/loyalties/${p.id}/tiers/${gold.id}`, `/v1/loyalties/${p.id}/tiers/${gold.id}/earning-rules`, `/v1/loyalties/${p.id}/tiers/${gold.id}/rewards`]) {
        assert.equal((await t.request('GET', path, { headers })).status, 404, path);
      }
      const { code } = await joined(p.id);
      assert.equal((await t.request('GET', `/v1/loyalties/members/${code}/tiers`, { headers })).status, 404);
      assert.equal((await t.request('POST', `/v1/loyalties/${p.id}/tiers`, { headers, json: [{ name: 'X', points: { from: 5000 } }] })).status, 404);
      // A tier of another program is not found under this one.
      const q = await program();
      assert.equal((await t.request('GET', `/v1/loyalties/${q.id}/tiers/${gold.id}`)).status, 404);
    });
  });

  describe('membership', () => {
    test('without loyalty_tiers_expiration the tier follows the balance, up and down, at once', async () => {
      const p = await program();
      const { silver, gold } = await standardTiers(p.id);
      const m = await joined(p.id);
      assert.equal(await memberTier(m.code), null);
      await earn(m.customer.source_id, 300);
      const first = await memberTier(m.code);
      assert.equal(first.id, silver.id);
      assert.deepEqual(first.expiration, {
        customer_id: m.customer.id,
        campaign_id: p.id,
        tier_id: silver.id,
        start_date: '2026-03-02',
        expiration_date: null,
        created_at: first.expiration.created_at,
        updated_at: null,
      });
      await earn(m.customer.source_id, 300);
      assert.equal((await memberTier(m.code)).id, gold.id);
      await spend(p.id, m.code, 300);
      assert.equal((await memberTier(m.code)).id, silver.id);
      await spend(p.id, m.code, 300);
      assert.equal(await memberTier(m.code), null);
      assert.deepEqual(await tierActivities(m.customer.id), [
        'customer.loyalty.tier.joined',
        'customer.loyalty.tier.upgraded',
        'customer.loyalty.tier.downgraded',
        'customer.loyalty.tier.left',
      ]);
      const upgraded = await t.db.db.selectFrom('events').select('data').where('type', '=', 'customer.loyalty.tier.upgraded').where('customer_id', '=', m.customer.id).executeTakeFirstOrThrow();
      const data = JSON.parse(upgraded.data);
      assert.equal(data.loyalty_tier_from.id, silver.id);
      assert.equal(data.loyalty_tier_to.id, gold.id);
    });

    test('cards that already hold points get their tiers in the background after tiers are created', async () => {
      const p = await program();
      const rich = await joined(p.id);
      const poor = await joined(p.id);
      const added = await t.request('POST', `/v1/loyalties/${p.id}/members/${rich.code}/balance`, { json: { points: 600 } });
      assert.equal(added.status, 200, added.text);
      const { gold } = await standardTiers(p.id);
      assert.equal(await memberTier(rich.code), null);
      await drainJobs();
      assert.equal((await memberTier(rich.code)).id, gold.id);
      assert.equal(await memberTier(poor.code), null);
    });

    test('seed policy (CUSTOM, P3M, month end): a drop keeps the tier until the grace period ends', async () => {
      const p = await program({ loyalty_tiers_expiration: SEED_EXPIRATION });
      const { bronze, gold } = await standardTiers(p.id);
      const m = await joined(p.id);
      await earn(m.customer.source_id, 600);
      assert.deepEqual([(await memberTier(m.code)).id, (await memberTier(m.code)).expiration.expiration_date], [gold.id, null]);
      await spend(p.id, m.code, 500);
      // Balance 100: still Gold, until the end of the month three months on.
      const kept = await memberTier(m.code);
      assert.equal(kept.id, gold.id);
      assert.equal(kept.expiration.expiration_date, '2026-06-30');

      const start = t.clock.now();
      try {
        t.clock.set('2026-06-30T23:00:00.000Z');
        await t.worker.runPeriodic({ force: true });
        assert.equal((await memberTier(m.code)).id, gold.id);
        t.clock.set('2026-07-01T08:00:00.000Z');
        // Even before the refresh runs, an expired tier is not shown as held.
        assert.equal(await memberTier(m.code), null);
        await t.worker.runPeriodic({ force: true });
        const after = await memberTier(m.code);
        assert.equal(after.id, bronze.id);
        assert.equal(after.expiration.start_date, '2026-07-01');
      } finally {
        t.clock.set(start);
      }
      assert.deepEqual(await tierActivities(m.customer.id), ['customer.loyalty.tier.joined', 'customer.loyalty.tier.downgraded']);
    });

    test('seed policy: coming back into range during the grace period prolongs the tier', async () => {
      const p = await program({ loyalty_tiers_expiration: SEED_EXPIRATION });
      const { gold } = await standardTiers(p.id);
      const m = await joined(p.id);
      await earn(m.customer.source_id, 600);
      await spend(p.id, m.code, 300);
      assert.equal((await memberTier(m.code)).expiration.expiration_date, '2026-06-30');
      await earn(m.customer.source_id, 300);
      const back = await memberTier(m.code);
      assert.equal(back.id, gold.id);
      assert.equal(back.expiration.expiration_date, null);
      assert.deepEqual(await tierActivities(m.customer.id), ['customer.loyalty.tier.joined', 'customer.loyalty.tier.prolonged']);
    });

    test('POINTS_IN_PERIOD: points collected this quarter decide, held until the end of the quarter', async () => {
      const p = await program({
        loyalty_tiers_expiration: {
          qualification_type: 'POINTS_IN_PERIOD',
          qualification_period: 'QUARTER',
          start_date: { type: 'IMMEDIATE' },
          expiration_date: { type: 'END_OF_PERIOD', extend: 'P0D' },
        },
      });
      const { silver, gold } = await standardTiers(p.id);
      const m = await joined(p.id);
      await earn(m.customer.source_id, 300);
      const first = await memberTier(m.code);
      assert.equal(first.id, silver.id);
      assert.equal(first.expiration.expiration_date, '2026-03-31');
      // Spending does not lower the points collected in the period.
      await spend(p.id, m.code, 250);
      assert.equal((await memberTier(m.code)).id, silver.id);
      await earn(m.customer.source_id, 250);
      assert.equal((await memberTier(m.code)).id, gold.id);
    });
  });
});
