import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Rewards (seed 2.2, 4.1; loyalty reference 5): CRUD and assignments through the SDK on both path
// families, member rewards, and redeeming rewards with a loyalty card — each kind of reward, the
// redemption record, counters and events, failures that change nothing, and concurrent redemptions.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('rewards', () => {
  let t: TestApp;
  let n = 0;

  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const unique = (prefix: string) => `${prefix}-${++n}`;

  async function program(extra: Record<string, unknown> = {}): Promise<Json> {
    const res = await t.request('POST', '/v1/loyalties', { json: { name: unique('Rewarding'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, ...extra } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function product(price = 1500): Promise<Json> {
    const res = await t.request('POST', '/v1/products', { json: { source_id: unique('prize'), name: 'Prize', price } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function material(extra: Record<string, unknown> = {}): Promise<Json> {
    const p = await product();
    const res = await t.request('POST', '/v1/rewards', { json: { name: unique('Mug'), parameters: { product: { id: p.id } }, ...extra } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function assign(rewardId: string, campaignId: string, points?: number): Promise<Json> {
    const res = await t.request('POST', `/v1/rewards/${rewardId}/assignments`, {
      json: { campaign: campaignId, ...(points !== undefined ? { parameters: { loyalty: { points } } } : {}) },
    });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** A member card of the program holding `points` (added by hand). */
  async function member(campaignId: string, points: number): Promise<{ code: string; id: string; customerId: string; sourceId: string }> {
    const sourceId = unique('member');
    const card: Json = await t.sdk().loyalties.createMember(campaignId, { customer: { source_id: sourceId } });
    if (points > 0) {
      const res = await t.request('POST', `/v1/loyalties/${campaignId}/members/${card.code}/balance`, { json: { points } });
      assert.equal(res.status, 200, res.text);
    }
    return { code: card.code, id: card.id, customerId: card.holder_id, sourceId };
  }

  async function balance(code: string): Promise<number> {
    const res = await t.request('GET', `/v1/loyalties/members/${code}`);
    return res.body.loyalty_card.balance;
  }

  async function redeem(campaignId: string | null, code: string, body: Json, headers?: Record<string, string>) {
    const path = campaignId === null ? `/v1/loyalties/members/${code}/redemption` : `/v1/loyalties/${campaignId}/members/${code}/redemption`;
    return t.request('POST', path, { json: body, ...(headers ? { headers } : {}) });
  }

  async function customerSummary(customerId: string): Promise<Json> {
    const res = await t.request('GET', `/v1/customers/${customerId}`);
    return res.body.summary.redemptions;
  }

  describe('reward CRUD', () => {
    test('create through the SDK takes the type from the parameters member; every seed 2.2 field is answered', async () => {
      const p = await product();
      const created: Json = await t.sdk().rewards.create({ name: 'Coffee', parameters: { product: { id: p.id } }, stock: 10, attributes: { image_url: 'https://cdn.example.com/coffee.png', description: 'A cup' } } as never);
      assert.match(created.id, /^rew_/);
      assert.deepEqual(
        { ...created, id: undefined, created_at: undefined },
        {
          id: undefined,
          created_at: undefined,
          name: 'Coffee',
          type: 'MATERIAL',
          parameters: { product: { id: p.id, sku_id: null } },
          stock: 10,
          redeemed: 0,
          attributes: { image_url: 'https://cdn.example.com/coffee.png', description: 'A cup' },
          metadata: {},
          updated_at: null,
          object: 'reward',
        },
      );
      assert.deepEqual(await t.sdk().rewards.get(created.id), created);

      const coin = await t.request('POST', '/v1/rewards', { json: { name: 'Pay', type: 'COIN', parameters: { coin: { exchange_ratio: '0.5', points_ratio: '10' } } } });
      assert.equal(coin.status, 200, coin.text);
      assert.deepEqual(coin.body.parameters, { coin: { exchange_ratio: 0.5, points_ratio: 10 } });
      assert.equal(coin.body.stock, null);

      const giftCampaign = await t.request('POST', '/v1/campaigns', { json: { name: unique('Gifts'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } });
      const gift = await t.request('POST', '/v1/rewards', { json: { name: 'Gift', parameters: { campaign: { id: giftCampaign.body.name, balance: 2500 } } } });
      assert.equal(gift.status, 200, gift.text);
      assert.deepEqual(gift.body.parameters, { campaign: { id: giftCampaign.body.id, balance: 2500, type: 'GIFT_VOUCHERS' } });
    });

    test('update changes only what is sent and keeps the type; list pages newest first; assignment_id filters', async () => {
      const reward = await material({ stock: 5, metadata: { a: 1 } });
      const sku = await t.request('POST', `/v1/products/${reward.parameters.product.id}/skus`, { json: { source_id: unique('sku'), sku: 'Red', price: 100 } });
      const updated: Json = await t.sdk().rewards.update({ id: reward.id, name: 'Tea', stock: 7, parameters: { product: { sku: sku.body.id } } } as never);
      assert.equal(updated.name, 'Tea');
      assert.equal(updated.stock, 7);
      assert.deepEqual(updated.parameters, { product: { id: reward.parameters.product.id, sku_id: sku.body.id } });
      assert.deepEqual(updated.metadata, { a: 1 });
      assert.ok(updated.updated_at);
      const changeType = await t.request('PUT', `/v1/rewards/${reward.id}`, { json: { parameters: { coin: { exchange_ratio: 1 } } } });
      assert.equal(changeType.status, 400);

      const newest = await material();
      const page: Json = await t.sdk().rewards.list({ limit: 1 });
      assert.equal(page.data[0].id, newest.id);
      assert.ok(page.total >= 2);
      const p = await program();
      const assignment = await assign(reward.id, p.id, 10);
      const filtered = await t.request('GET', `/v1/rewards?assignment_id=${assignment.id}`);
      assert.deepEqual(filtered.body.data.map((r: Json) => r.id), [reward.id]);
      assert.equal(filtered.body.total, 1);
    });

    test('bad definitions answer precise errors and store nothing', async () => {
      const p = await product();
      const promotion = await t.request('POST', '/v1/campaigns', { json: { name: unique('Promo'), campaign_type: 'PROMOTION', promotion: { tiers: [] } } });
      const loyalty = await program();
      const discount = await t.request('POST', '/v1/campaigns', {
        json: { name: unique('Coupons'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } },
      });
      const before = (await t.request('GET', '/v1/rewards?limit=1')).body.total;
      const cases: Array<[Json, number, string, RegExp]> = [
        [{ name: 'x' }, 400, 'invalid_payload', /one of campaign, coin, product/],
        [{ name: 'x', parameters: { coin: { exchange_ratio: 1 }, product: { id: p.id } } }, 400, 'invalid_payload', /exactly one/],
        [{ name: 'x', type: 'MATERIAL', parameters: { coin: { exchange_ratio: 1 } } }, 400, 'invalid_payload', /does not fit reward type MATERIAL/],
        [{ name: 'x', parameters: { product: { id: p.id } }, attributes: { image_url: 'http://cdn.example.com/a.png' } }, 400, 'invalid_payload', /HTTPS/],
        [{ name: 'x', parameters: { product: { id: p.id } }, attributes: { image_url: 'https://cdn.example.com/a.gif' } }, 400, 'invalid_payload', /\.png or \.jpg/],
        [{ name: 'x', parameters: { product: { id: 'prod_missing' } } }, 404, 'not_found', /product/],
        [{ name: 'x', parameters: { coin: { points_ratio: 2 } } }, 400, 'missing_param', /exchange_ratio/],
        [{ name: 'x', parameters: { coin: { exchange_ratio: 0 } } }, 400, 'invalid_payload', /greater than 0/],
        [{ name: 'x', parameters: { campaign: { id: loyalty.id } } }, 400, 'invalid_balance', /greater than zero for campaign type: LOYALTY_PROGRAM/],
        [{ name: 'x', parameters: { campaign: { id: discount.body.id, balance: 100 } } }, 400, 'invalid_payload', /does not apply to DISCOUNT_COUPONS/],
        [{ name: 'x', parameters: { campaign: { id: promotion.body.id } } }, 400, 'invalid_payload', /PROMOTION campaign/],
        [{ name: 'x', parameters: { product: { id: p.id } }, stock: -1 }, 400, 'invalid_payload', /stock/],
      ];
      for (const [body, status, key, details] of cases) {
        const res = await t.request('POST', '/v1/rewards', { json: body });
        assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.key, key, res.text);
        assert.match(res.body.details, details);
      }
      assert.equal((await t.request('GET', '/v1/rewards?limit=1')).body.total, before);
    });

    test('an assigned reward cannot be deleted (resource_in_use); once unassigned it can', async () => {
      const reward = await material();
      const p = await program();
      const assignment = await assign(reward.id, p.id, 10);
      const refused = await t.request('DELETE', `/v1/rewards/${reward.id}`);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.key, 'resource_in_use');
      assert.deepEqual(refused.body.related_object_ids, [assignment.id]);
      assert.equal(refused.body.related_object_type, 'reward_assignment');
      assert.equal(refused.body.related_object_total, 1);
      assert.equal(await t.sdk().rewards.deleteAssignment(reward.id, assignment.id), '');
      assert.equal(await t.sdk().rewards.delete(reward.id), '');
      assert.equal((await t.request('GET', `/v1/rewards/${reward.id}`)).status, 404);
    });
  });

  describe('assignments', () => {
    test('through /v1/rewards/{id}/assignments with the SDK', async () => {
      const reward = await material();
      const p = await program();
      const created: Json = await t.sdk().rewards.createAssignment(reward.id, { campaign: p.name, parameters: { loyalty: { points: 100 } } });
      assert.match(created.id, /^rewa_/);
      assert.deepEqual(
        { ...created, id: undefined, created_at: undefined },
        {
          id: undefined,
          created_at: undefined,
          reward_id: reward.id,
          related_object_id: p.id,
          related_object_type: 'campaign',
          parameters: { loyalty: { points: 100, auto_redeem: null } },
          updated_at: null,
          object: 'reward_assignment',
        },
      );
      assert.deepEqual(await t.sdk().rewards.getAssignment(reward.id, created.id), created);
      const updated: Json = await t.sdk().rewards.updateAssignment(reward.id, { id: created.id, parameters: { loyalty: { points: 200 } } });
      assert.equal(updated.parameters.loyalty.points, 200);
      const list: Json = await t.sdk().rewards.listAssignments(reward.id, { limit: 5 });
      assert.deepEqual(list.data.map((a: Json) => a.id), [created.id]);
      const duplicate = await t.request('POST', `/v1/rewards/${reward.id}/assignments`, { json: { campaign: p.id, parameters: { loyalty: { points: 1 } } } });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.resource_type, 'reward_assignment');
      const other = await material();
      const missing = await t.request('POST', `/v1/rewards/${other.id}/assignments`, { json: { campaign: p.id } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.key, 'missing_param');
      assert.match(missing.body.details, /parameters.loyalty/);
      assert.equal((await t.request('POST', `/v1/rewards/${other.id}/assignments`, { json: { campaign: 'camp_missing', parameters: { loyalty: { points: 1 } } } })).status, 404);
      const events = await t.db.db.selectFrom('events').select('type').where('campaign_id', '=', p.id).where('type', 'like', 'campaign.reward.assignment.%').orderBy('seq').execute();
      assert.deepEqual(events.map((e) => e.type), ['campaign.reward.assignment.created', 'campaign.reward.assignment.updated']);
    });

    test('through /v1/loyalties/{campaignId}/rewards with the SDK, and the seed 4.1 reward details', async () => {
      const reward = await material({ stock: 3 });
      const coin = await t.request('POST', '/v1/rewards', { json: { name: unique('Coin'), parameters: { coin: { exchange_ratio: 1, points_ratio: 100 } } } });
      const p = await program();
      const created: Json[] = await t.sdk().loyalties.createRewardAssignments(p.id, [
        { reward: reward.id, parameters: { loyalty: { points: 50 } } },
        { reward: coin.body.id } as never,
      ]);
      assert.equal(created.length, 2);
      const [priced, coinAssignment] = created;
      assert.equal(coinAssignment.parameters, undefined);
      assert.deepEqual(await t.sdk().loyalties.getRewardAssignment(p.id, priced.id), priced);
      const updated: Json = await t.sdk().loyalties.updateRewardAssignment(p.id, { id: priced.id, parameters: { loyalty: { points: 60 } } });
      assert.equal(updated.parameters.loyalty.points, 60);
      const list: Json = await t.sdk().loyalties.listRewardAssignments(p.id, { limit: 5 });
      assert.equal(list.total, 2);
      const legacyList = await t.request('GET', `/v1/loyalties/${p.id}/reward-assignments?assignment_id=${priced.id}`);
      assert.deepEqual(legacyList.body.data.map((a: Json) => a.id), [priced.id]);
      assert.equal((await t.request('GET', `/v1/loyalties/${p.id}/reward-assignments/${priced.id}`)).body.id, priced.id);

      // Seed 4.1: campaign by id or (URL-encoded) name; the answer is the reward (2.2).
      const details: Json = await t.sdk().loyalties.getRewardDetails(p.id, priced.id);
      assert.deepEqual(details, await t.sdk().rewards.get(reward.id));
      const byName = await t.request('GET', `/v1/loyalties/${encodeURIComponent(p.name)}/reward-assignments/${priced.id}/reward`);
      assert.deepEqual(byName.body, details);
      const otherProgram = await program();
      assert.equal((await t.request('GET', `/v1/loyalties/${otherProgram.id}/reward-assignments/${priced.id}/reward`)).status, 404);

      const coinWithPoints = await t.request('POST', `/v1/loyalties/${otherProgram.id}/rewards`, { json: [{ reward: coin.body.id, parameters: { loyalty: { points: 5 } } }] });
      assert.equal(coinWithPoints.status, 400);
      assert.equal(await t.sdk().loyalties.deleteRewardAssignment(p.id, priced.id), '');
      assert.equal((await t.request('GET', `/v1/loyalties/${p.id}/rewards/${priced.id}`)).status, 404);
    });

    test('a program cannot reward its own points; at most one auto-redeem reward per program', async () => {
      const p = await program();
      const own = await t.request('POST', '/v1/rewards', { json: { name: unique('Own'), parameters: { campaign: { id: p.id, balance: 10 } } } });
      const self = await t.request('POST', `/v1/rewards/${own.body.id}/assignments`, { json: { campaign: p.id, parameters: { loyalty: { points: 1 } } } });
      assert.equal(self.status, 400);
      assert.match(self.body.details, /cannot use itself/);
      const a = await material();
      const b = await material();
      assert.equal((await t.request('POST', `/v1/rewards/${a.id}/assignments`, { json: { campaign: p.id, parameters: { loyalty: { points: 1, auto_redeem: true } } } })).status, 200);
      const second = await t.request('POST', `/v1/rewards/${b.id}/assignments`, { json: { campaign: p.id, parameters: { loyalty: { points: 1, auto_redeem: true } } } });
      assert.equal(second.status, 400, second.text);
      assert.match(second.body.details, /auto-redeem/);
      assert.equal((await t.request('GET', `/v1/loyalties/${p.id}/rewards`)).body.total, 1);
    });

    test("another project's keys get 404 on rewards and assignments", async () => {
      const reward = await material();
      const p = await program();
      const assignment = await assign(reward.id, p.id, 10);
      const other = await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: unique('Other rewards'), case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      });
      const headers = t.serverHeaders(other.body.server_side_key as KeyPairOut);
      const paths: Array<[string, string, Json?]> = [
        ['GET', `/v1/rewards/${reward.id}`],
        ['PUT', `/v1/rewards/${reward.id}`, { name: 'x' }],
        ['DELETE', `/v1/rewards/${reward.id}`],
        ['GET', `/v1/rewards/${reward.id}/assignments`],
        ['GET', `/v1/rewards/${reward.id}/assignments/${assignment.id}`],
        ['POST', `/v1/rewards/${reward.id}/assignments`, { campaign: p.id, parameters: { loyalty: { points: 1 } } }],
        ['GET', `/v1/loyalties/${p.id}/rewards`],
        ['GET', `/v1/loyalties/${p.id}/reward-assignments/${assignment.id}/reward`],
        ['DELETE', `/v1/loyalties/${p.id}/rewards/${assignment.id}`],
      ];
      for (const [method, path, json] of paths) {
        const res = await t.request(method, path, { headers, ...(json ? { json } : {}) });
        assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      }
      assert.equal((await t.request('GET', '/v1/rewards', { headers })).body.total, 0);
      assert.equal((await t.request('GET', `/v1/rewards/${reward.id}`)).status, 200);
    });
  });

  describe('member rewards', () => {
    test('affordable_only keeps what the balance pays for, at the tier price', async () => {
      const p = await program();
      const cheap = await material();
      const dear = await material();
      const coin = await t.request('POST', '/v1/rewards', { json: { name: unique('Coin'), parameters: { coin: { exchange_ratio: 1 } } } });
      const cheapA = await assign(cheap.id, p.id, 100);
      const dearA = await assign(dear.id, p.id, 1000);
      await assign(coin.body.id, p.id);
      const m = await member(p.id, 300);
      const all: Json = await t.sdk().loyalties.listMemberRewards(m.code, {});
      assert.equal(all.total, 3);
      assert.equal(all.data[0].object, 'loyalty_reward');
      const affordable: Json = await t.sdk().loyalties.listMemberRewards(m.code, { affordable_only: true, limit: 10 });
      assert.deepEqual(affordable.data.map((r: Json) => r.reward.id).sort(), [cheap.id, coin.body.id].sort());

      // A tier that prices the dear reward at 250 makes it affordable for its members.
      const tier = await t.request('POST', `/v1/loyalties/${p.id}/tiers`, { json: [{ name: 'Friends', points: { from: 0 }, rewards: { [dearA.id]: { type: 'CUSTOM', points: 250 } } }] });
      assert.equal(tier.status, 200, tier.text);
      while (await t.worker.runOnce()) {
        /* recalculate members */
      }
      const withTier: Json = await t.sdk().loyalties.listMemberRewards(m.code, { affordable_only: true });
      const dearEntry = withTier.data.find((r: Json) => r.reward.id === dear.id);
      assert.equal(dearEntry.assignment.parameters.loyalty.points, 250);
      assert.equal(withTier.total, 3);
      const redeemed = await redeem(p.id, m.code, { reward: { id: dear.id } });
      assert.equal(redeemed.status, 200, redeemed.text);
      assert.equal(redeemed.body.amount, 250);
      assert.equal(redeemed.body.reward.loyalty_tier_id, tier.body[0].id);
      assert.equal(cheapA.parameters.loyalty.points, 100);
      const empty = await member(p.id, 0);
      const none: Json = await t.sdk().loyalties.listMemberRewards(empty.code, { affordable_only: true });
      assert.equal(none.total, 0);
    });
  });

  describe('redeeming a reward', () => {
    test('a material reward: the record (seed 2.8), points, stock, counters and events', async () => {
      const p = await program();
      const reward = await material({ stock: 2 });
      const assignment = await assign(reward.id, p.id, 120);
      const m = await member(p.id, 500);
      const record: Json = await t.sdk().loyalties.redeemReward(p.id, m.code, { reward: { id: reward.id }, metadata: { store: 'north' } });
      assert.match(record.id, /^r_/);
      assert.equal(record.object, 'redemption');
      assert.equal(record.result, 'SUCCESS');
      assert.equal(record.status, 'SUCCEEDED');
      assert.equal(record.customer_id, m.customerId);
      assert.equal(record.tracking_id, m.sourceId);
      assert.deepEqual(record.metadata, { store: 'north' });
      assert.equal(record.amount, 120);
      assert.deepEqual(record.loyalty_card, { points: 120 });
      assert.equal(record.order, null);
      assert.deepEqual(record.channel, { channel_id: 'test-app-id-0001', channel_type: 'API' });
      assert.deepEqual(record.customer, { id: m.customerId, name: null, email: null, source_id: m.sourceId, metadata: {}, object: 'customer' });
      assert.equal(record.related_object_type, 'voucher');
      assert.equal(record.related_object_id, m.id);
      assert.equal(record.voucher.code, m.code);
      assert.equal(record.voucher.loyalty_card.balance, 380);
      assert.equal(record.voucher.holder.id, m.customerId);
      assert.equal(record.reward.id, reward.id);
      assert.equal(record.reward.assignment_id, assignment.id);
      assert.equal(record.reward.type, 'MATERIAL');
      assert.equal(record.reward.product.id, reward.parameters.product.id);
      assert.equal(record.reward.sku, null);
      assert.equal(record.reward.customer.id, m.customerId);
      assert.equal(record.reward.stock, 1);
      assert.equal(record.reward.redeemed, 1);
      assert.ok(record.date);

      assert.equal(await balance(m.code), 380);
      const after: Json = await t.sdk().rewards.get(reward.id);
      assert.equal(after.stock, 1);
      assert.equal(after.redeemed, 1);
      const card = await t.request('GET', `/v1/loyalties/members/${m.code}`);
      assert.equal(card.body.redemption.redeemed_points, 120);
      assert.equal(card.body.redemption.redeemed_quantity, 1);
      const txs = await t.request('GET', `/v1/loyalties/members/${m.code}/transactions?limit=10`);
      const spent = txs.body.data.find((x: Json) => x.type === 'POINTS_REDEMPTION');
      assert.deepEqual(spent.details.reward, { id: reward.id, name: reward.name });
      assert.deepEqual(spent.details.redemption, { id: record.id });
      assert.equal(spent.details.balance.points, -120);

      const summary = await customerSummary(m.customerId);
      assert.equal(summary.total_redeemed, 1);
      assert.equal(summary.total_succeeded, 1);
      assert.equal(summary.loyalty_card.redeemed_points, 120);

      const stored = await t.db.db.selectFrom('redemptions').selectAll().where('id', '=', record.id).executeTakeFirstOrThrow();
      assert.equal(stored.project_id, t.projectId);
      assert.equal(stored.voucher_code, m.code);
      assert.equal(stored.campaign_id, p.id);
      const effects = JSON.parse(stored.effects as string);
      assert.equal(effects.kind, 'loyalty_reward');
      assert.equal(effects.points.points, 120);
      assert.equal(effects.reward.stock_taken, true);
      assert.equal(effects.points.transaction_id, spent.id);

      const activity = await t.request('GET', `/v1/customers/${m.customerId}/activities?limit=50`);
      const types = activity.body.data.map((a: Json) => a.type);
      assert.ok(types.includes('customer.redemption.succeeded'));
      assert.ok(types.includes('customer.rewarded'));
      const webhookEvent = await t.db.db.selectFrom('events').select('data').where('type', '=', 'redemption.succeeded').where('entity_id', '=', record.id).executeTakeFirstOrThrow();
      assert.equal(JSON.parse(webhookEvent.data).redemption.id, record.id);
    });

    test('both paths, and the assignment id in reward.id, redeem the same way', async () => {
      const p = await program();
      const reward = await material();
      const assignment = await assign(reward.id, p.id, 10);
      const m = await member(p.id, 100);
      const byCode = await redeem(null, m.code, { reward: { id: reward.id } });
      assert.equal(byCode.status, 200, byCode.text);
      const byAssignment = await redeem(p.id, m.code, { reward: { id: assignment.id } });
      assert.equal(byAssignment.status, 200, byAssignment.text);
      assert.equal(byAssignment.body.reward.id, reward.id);
      assert.equal(await balance(m.code), 80);
    });

    test('failures answer HTTP errors and change nothing', async () => {
      const p = await program();
      const reward = await material({ stock: 1 });
      const unassigned = await material();
      await assign(reward.id, p.id, 100);
      const m = await member(p.id, 150);
      const other = await program();
      const otherCard = await member(other.id, 1000);
      const cases: Array<[string | null, string, Json, number, string]> = [
        [p.id, m.code, {}, 400, 'missing_reward'],
        [p.id, m.code, { reward: {} }, 400, 'missing_reward'],
        [p.id, m.code, { reward: { id: unassigned.id } }, 400, 'missing_reward'],
        [p.id, m.code, { reward: { id: 'rew_missing' } }, 404, 'not_found'],
        [p.id, otherCard.code, { reward: { id: reward.id } }, 404, 'not_found'],
        [p.id, 'NO-SUCH-CARD', { reward: { id: reward.id } }, 404, 'not_found'],
        ['camp_missing', m.code, { reward: { id: reward.id } }, 404, 'not_found'],
        [p.id, m.code, { reward: { id: reward.id, points: 10 } }, 400, 'invalid_payload'],
      ];
      for (const [campaignId, code, body, status, key] of cases) {
        const res = await redeem(campaignId, code, body);
        assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.key, key, res.text);
      }
      const first = await redeem(p.id, m.code, { reward: { id: reward.id } });
      assert.equal(first.status, 200, first.text);
      // 50 points left: too few; and the stock is used up anyway.
      const poor = await redeem(p.id, m.code, { reward: { id: reward.id } });
      assert.equal(poor.status, 400);
      assert.equal(poor.body.key, 'loyalty_card_points_exceeded');
      await t.request('POST', `/v1/loyalties/${p.id}/members/${m.code}/balance`, { json: { points: 1000 } });
      const out = await redeem(p.id, m.code, { reward: { id: reward.id } });
      assert.equal(out.status, 400);
      assert.equal(out.body.key, 'reward_out_of_stock');
      assert.equal(await balance(m.code), 1050);
      const card = await t.request('GET', `/v1/loyalties/members/${m.code}`);
      assert.equal(card.body.redemption.redeemed_quantity, 1);
      assert.equal(card.body.redemption.redeemed_points, 100);
      const summary = await customerSummary(m.customerId);
      assert.equal(summary.total_redeemed, 1);
      assert.equal(summary.total_failed, 0);
      const records = await t.db.db.selectFrom('redemptions').select('id').where('voucher_id', '=', m.id).execute();
      assert.equal(records.length, 1);
      assert.equal((await t.sdk().rewards.get(reward.id) as Json).redeemed, 1);

      const disabled = await t.request('POST', `/v1/vouchers/${m.code}/disable`, { json: {} });
      assert.equal(disabled.status, 200, disabled.text);
      const refused = await redeem(p.id, m.code, { reward: { id: reward.id } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.key, 'voucher_disabled');
    });

    test("a card's redemption quantity limits reward redemptions", async () => {
      const p = await program({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, redemption: { quantity: 1 } } });
      const reward = await material();
      await assign(reward.id, p.id, 1);
      const m = await member(p.id, 100);
      assert.equal((await redeem(p.id, m.code, { reward: { id: reward.id } })).status, 200);
      const second = await redeem(p.id, m.code, { reward: { id: reward.id } });
      assert.equal(second.status, 400);
      assert.equal(second.body.key, 'quantity_exceeded');
      assert.equal(await balance(m.code), 99);
    });

    test('CAMPAIGN rewards: a coupon is published, a gift card topped up, points added to another program', async () => {
      const coupons = await t.request('POST', '/v1/campaigns', {
        json: { name: unique('Coupons'), campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } },
      });
      const gifts = await t.request('POST', '/v1/campaigns', { json: { name: unique('Gifts'), campaign_type: 'GIFT_VOUCHERS', type: 'AUTO_UPDATE', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 0 + 1000 } } } });
      const partner = await program({ type: 'AUTO_UPDATE' });
      const p = await program();
      const coupon = await t.request('POST', '/v1/rewards', { json: { name: unique('Coupon'), parameters: { campaign: { id: coupons.body.id } } } });
      const gift = await t.request('POST', '/v1/rewards', { json: { name: unique('Gift'), parameters: { campaign: { id: gifts.body.id, balance: 2500 } } } });
      const points = await t.request('POST', '/v1/rewards', { json: { name: unique('Partner'), parameters: { campaign: { id: partner.id, balance: 70 } } } });
      for (const r of [coupon, gift, points]) await assign(r.body.id, p.id, 10);
      const m = await member(p.id, 100);

      const c = await redeem(p.id, m.code, { reward: { id: coupon.body.id } });
      assert.equal(c.status, 200, c.text);
      assert.equal(c.body.reward.voucher.campaign_id, coupons.body.id);
      assert.equal(c.body.reward.voucher.holder_id, m.customerId);
      assert.equal(c.body.reward.voucher.discount.amount_off, 500);

      const g1 = await redeem(p.id, m.code, { reward: { id: gift.body.id } });
      assert.equal(g1.status, 200, g1.text);
      const giftCode = g1.body.reward.voucher.code;
      assert.equal(g1.body.reward.voucher.gift.balance, 1000 + 2500);
      const g2 = await redeem(p.id, m.code, { reward: { id: gift.body.id } });
      assert.equal(g2.body.reward.voucher.code, giftCode);
      assert.equal(g2.body.reward.voucher.gift.balance, 1000 + 5000);

      const l = await redeem(p.id, m.code, { reward: { id: points.body.id } });
      assert.equal(l.status, 200, l.text);
      assert.equal(l.body.reward.voucher.campaign_id, partner.id);
      assert.equal(l.body.reward.voucher.loyalty_card.balance, 70);
      assert.equal(await balance(m.code), 60);
      const partnerCards = await t.request('GET', `/v1/loyalties/${partner.id}/members?customer=${m.customerId}`);
      assert.equal(partnerCards.body.total, 1);
    });

    test('pay with points: an order-level discount on a stored PAID order, earning on what is left to pay', async () => {
      const p = await program();
      await t.request('POST', `/v1/loyalties/${p.id}/earning-rules`, {
        json: [{ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT', order: { total_amount: { every: 1000, points: 1 } } } }],
      });
      const coin = await t.request('POST', '/v1/rewards', { json: { name: unique('Pay'), parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } } } });
      await assign(coin.body.id, p.id);
      const m = await member(p.id, 5000);

      const given: Json = await t.sdk().loyalties.redeemReward(p.id, m.code, { reward: { id: coin.body.id, points: 100 } as never, order: { source_id: unique('pwp'), amount: 45000 } });
      assert.equal(given.amount, 100);
      assert.equal(given.order.status, 'PAID');
      assert.equal(given.order.discount_amount, 2000);
      assert.equal(given.order.applied_discount_amount, 2000);
      assert.equal(given.order.total_amount, 43000);
      assert.equal(given.order.customer_id, m.customerId);
      assert.deepEqual(given.order.redemptions[given.id], { date: given.date, related_object_type: 'voucher', related_object_id: m.id, related_object_parent_id: p.id });
      // 5000 − 100 spent + 43 earned on the 430.00 left to pay.
      assert.equal(await balance(m.code), 4943);
      const stored = await t.request('GET', `/v1/orders/${given.order.id}`);
      assert.equal(stored.body.total_amount, 43000);
      assert.ok(stored.body.redemptions[given.id]);

      const cover = await redeem(null, m.code, { reward: { id: coin.body.id }, order: { amount: 45000 } });
      assert.equal(cover.status, 200, cover.text);
      assert.equal(cover.body.amount, 2300);
      assert.equal(cover.body.order.total_amount, 0);
      assert.equal(cover.body.order.discount_amount, 45000);

      const ordersBefore = (await t.request('GET', '/v1/orders?limit=1')).body.total;
      const noOrder = await redeem(p.id, m.code, { reward: { id: coin.body.id, points: 100 } });
      assert.equal(noOrder.status, 400);
      assert.equal(noOrder.body.key, 'missing_order');
      const tooMany = await redeem(p.id, m.code, { reward: { id: coin.body.id, points: 999999 }, order: { amount: 1000 } });
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.key, 'loyalty_card_points_exceeded');
      // The refused redemptions stored no order.
      assert.equal((await t.request('GET', '/v1/orders?limit=1')).body.total, ordersBefore);
    });

    test('auto-redeem: points reaching the price redeem the reward in the background (channel AUTO_REDEEM)', async () => {
      const p = await program();
      await t.request('POST', `/v1/loyalties/${p.id}/earning-rules`, {
        json: [{ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1, points: 1 } } } }],
      });
      const reward = await material({ stock: 5 });
      const assignment = await t.request('POST', `/v1/rewards/${reward.id}/assignments`, { json: { campaign: p.id, parameters: { loyalty: { points: 100, auto_redeem: true } } } });
      assert.equal(assignment.body.parameters.loyalty.auto_redeem, true);
      const m = await member(p.id, 0);
      const paid = await t.request('POST', '/v1/orders', { json: { status: 'PAID', amount: 250, customer: { source_id: m.sourceId } } });
      assert.equal(paid.status, 200, paid.text);
      assert.equal(await balance(m.code), 250);
      while (await t.worker.runOnce()) {
        /* the auto-redeem job */
      }
      assert.equal(await balance(m.code), 50);
      const records = await t.db.db.selectFrom('redemptions').select(['channel', 'amount']).where('voucher_id', '=', m.id).execute();
      assert.equal(records.length, 2);
      for (const r of records) {
        assert.deepEqual(JSON.parse(r.channel), { channel_id: assignment.body.id, channel_type: 'AUTO_REDEEM' });
        assert.equal(Number(r.amount), 100);
      }
      const txs = await t.request('GET', `/v1/loyalties/members/${m.code}/transactions?limit=10`);
      for (const x of txs.body.data.filter((y: Json) => y.type === 'POINTS_REDEMPTION')) assert.equal(x.details.balance.operation_type, 'AUTOMATIC');
      assert.equal(((await t.sdk().rewards.get(reward.id)) as Json).stock, 3);
    });

    test('validation rules guard an assignment: its validation_rules and rules assigned to it later', async () => {
      const p = await program();
      const bigOrder = await t.request('POST', '/v1/validation-rules', {
        json: { name: unique('Big'), rules: { '1': { name: 'order.amount', conditions: { $more_than: [5000] }, rules: {} }, logic: '1' } },
      });
      assert.equal(bigOrder.status, 200, bigOrder.text);
      const coin = await t.request('POST', '/v1/rewards', { json: { name: unique('Pay'), parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } } } });
      const created = await t.request('POST', `/v1/rewards/${coin.body.id}/assignments`, { json: { campaign: p.id, validation_rules: [bigOrder.body.id] } });
      assert.equal(created.status, 200, created.text);
      const m = await member(p.id, 1000);
      const ordersBefore = (await t.request('GET', '/v1/orders?limit=1')).body.total;
      const small = await redeem(p.id, m.code, { reward: { id: coin.body.id, points: 100 }, order: { amount: 1000 } });
      assert.equal(small.status, 400, small.text);
      assert.equal(small.body.key, 'order_rules_violated');
      assert.equal(await balance(m.code), 1000);
      // The order stored on the way was rolled back with the rest.
      assert.equal((await t.request('GET', '/v1/orders?limit=1')).body.total, ordersBefore);
      const big = await redeem(p.id, m.code, { reward: { id: coin.body.id, points: 100 }, order: { amount: 6000 } });
      assert.equal(big.status, 200, big.text);
      assert.equal(big.body.order.total_amount, 5900);

      const material_ = await material();
      const assignment = await assign(material_.id, p.id, 10);
      const vip = await t.request('POST', '/v1/validation-rules', {
        json: { name: unique('VIP'), rules: { '1': { name: 'customer.metadata', property: 'vip', conditions: { $is: [true] }, rules: {} }, logic: '1' } },
      });
      const assigned = await t.request('POST', `/v1/validation-rules/${vip.body.id}/assignments`, { json: { related_object_type: 'reward_assignment', related_object_id: assignment.id } });
      assert.equal(assigned.status, 200, assigned.text);
      const refused = await redeem(p.id, m.code, { reward: { id: material_.id } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.key, 'customer_rules_violated');
      await t.request('PUT', `/v1/customers/${m.customerId}`, { json: { metadata: { vip: true } } });
      assert.equal((await redeem(p.id, m.code, { reward: { id: material_.id } })).status, 200);
    });

    test("another project's keys cannot redeem", async () => {
      const p = await program();
      const reward = await material();
      await assign(reward.id, p.id, 1);
      const m = await member(p.id, 10);
      const other = await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: unique('Other redeem'), case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      });
      const headers = t.serverHeaders(other.body.server_side_key as KeyPairOut);
      assert.equal((await redeem(p.id, m.code, { reward: { id: reward.id } }, headers)).status, 404);
      assert.equal((await redeem(null, m.code, { reward: { id: reward.id } }, headers)).status, 404);
      assert.equal((await t.request('GET', `/v1/loyalties/members/${m.code}/rewards`, { headers })).status, 404);
      assert.equal(await balance(m.code), 10);
    });
  });

  describe('concurrency', () => {
    test('limited stock redeemed by many cards at once: exactly `stock` succeed, never below zero', async () => {
      const p = await program();
      const reward = await material({ stock: 3 });
      await assign(reward.id, p.id, 10);
      const cards = [];
      for (let i = 0; i < 10; i++) cards.push(await member(p.id, 100));
      const results = await Promise.all(cards.map((c) => redeem(p.id, c.code, { reward: { id: reward.id } })));
      const ok = results.filter((r) => r.status === 200);
      assert.equal(ok.length, 3, results.map((r) => r.text).join('\n'));
      for (const r of results.filter((x) => x.status !== 200)) assert.equal(r.body.key, 'reward_out_of_stock', r.text);
      const after: Json = await t.sdk().rewards.get(reward.id);
      assert.equal(after.stock, 0);
      assert.equal(after.redeemed, 3);
      const balances = await Promise.all(cards.map((c) => balance(c.code)));
      assert.equal(balances.reduce((s, b) => s + b, 0), 10 * 100 - 3 * 10);
      const spent = await t.db.db.selectFrom('voucher_transactions').select('id').where('campaign_id', '=', p.id).where('type', '=', 'POINTS_REDEMPTION').execute();
      assert.equal(spent.length, 3);
    });

    test('fifty concurrent redemptions against one card never overspend', async () => {
      const p = await program();
      const reward = await material();
      await assign(reward.id, p.id, 10);
      const m = await member(p.id, 200);
      const results = await Promise.all(Array.from({ length: 50 }, () => redeem(p.id, m.code, { reward: { id: reward.id } })));
      const ok = results.filter((r) => r.status === 200).length;
      assert.equal(ok, 20);
      for (const r of results.filter((x) => x.status !== 200)) assert.equal(r.body.key, 'loyalty_card_points_exceeded', r.text);
      assert.equal(await balance(m.code), 0);
      const card = await t.request('GET', `/v1/loyalties/members/${m.code}`);
      assert.equal(card.body.redemption.redeemed_points, 200);
      assert.equal(card.body.redemption.redeemed_quantity, 20);
      assert.equal((await t.sdk().rewards.get(reward.id) as Json).redeemed, 20);
      assert.equal((await customerSummary(m.customerId)).total_succeeded, 20);
      const records = await t.db.db.selectFrom('redemptions').select('id').where('voucher_id', '=', m.id).execute();
      assert.equal(records.length, 20);
    });
  });
});
