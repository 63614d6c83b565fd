import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';

// Metadata schemas enforced on the writes of campaigns, vouchers (create, update, imports, vouchers added
// to a campaign), publications, promotion tiers, loyalty tiers, earning rules, rewards, orders, order
// items and redemptions (platform
// reference 5.3; wording 2.4): a write that breaks the project's schema for its related object is a 400
// metadata_validation_failed and writes nothing; a write that follows it succeeds. Each test defines its
// schema through the management API and removes it again, so the tests do not constrain each other.

/** What the tests read of an SDK answer. */
interface Written {
  id: string;
  code: string;
  name: string;
  metadata: Record<string, unknown>;
  vouchers_count: number;
  promotion: { tiers: Written[] };
  async_action_id: string;
}

const written = async (call: Promise<unknown>): Promise<Written> => (await call) as Written;
const writtenList = async (call: Promise<unknown>): Promise<Written[]> => (await call) as Written[];

/** Tables a refused write must leave as they were (events included: nothing was announced either). */
const WATCHED = [
  'events',
  'jobs',
  'customers',
  'campaigns',
  'vouchers',
  'publications',
  'promotion_tiers',
  'loyalty_tiers',
  'earning_rules',
  'rewards',
  'validation_rule_assignments',
  'orders',
  'redemptions',
] as const;

const required = (field: string) => `${field}: must be defined, the property is required (actual value is 'undefined')`;

describe('metadata enforcement on writes', () => {
  let t: TestApp;
  let serial = 0;
  const unique = (prefix: string) => `${prefix}-${++serial}`;

  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function rowCounts(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of WATCHED) {
      const row = await t.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    return counts;
  }

  /** Runs `body` with a schema for `relatedObject` in place, and removes the schema afterwards. */
  async function withSchema(relatedObject: string, properties: Record<string, unknown>, body: () => Promise<void>): Promise<void> {
    const base = `/management/v1/projects/${t.projectId}/metadata-schemas`;
    const created = await t.request('POST', base, { headers: t.managementHeaders(), json: { related_object: relatedObject, properties } });
    assert.equal(created.status, 200, created.text);
    try {
      await body();
    } finally {
      const removed = await t.request('DELETE', `${base}/${created.body.id}`, { headers: t.managementHeaders() });
      assert.equal(removed.status, 204, removed.text);
    }
  }

  function assertRefusal(error: { code?: unknown; key?: unknown; message?: unknown; details?: unknown; resource_type?: unknown }, relatedObject: string, details: string): void {
    assert.equal(error.code, 400);
    assert.equal(error.key, 'metadata_validation_failed');
    assert.equal(error.message, 'Metadata validation failed');
    assert.equal(error.details, details);
    assert.equal(error.resource_type, relatedObject);
  }

  /** The write is refused with the schema's wording, and no watched table changed. */
  async function refused(call: () => Promise<TestResponse>, relatedObject: string, details: string): Promise<void> {
    const before = await rowCounts();
    const res = await call();
    assert.equal(res.status, 400, res.text);
    assertRefusal(res.body, relatedObject, details);
    assert.deepEqual(await rowCounts(), before, 'a refused write changes nothing');
  }

  /** The same through the official SDK, which rejects with the error body's members. */
  async function refusedBySdk(call: () => Promise<unknown>, relatedObject: string, details: string): Promise<void> {
    const before = await rowCounts();
    await assert.rejects(call(), (error: unknown) => {
      assert.ok(error instanceof Error, String(error));
      assertRefusal(error, relatedObject, details);
      return true;
    });
    assert.deepEqual(await rowCounts(), before, 'a refused write changes nothing');
  }

  const discountCampaign = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    campaign_type: 'DISCOUNT_COUPONS',
    vouchers_count: 2,
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    ...extra,
  });

  async function loyaltyProgram(): Promise<Written> {
    return written(t.sdk().loyalties.create({ name: unique('Program'), vouchers_count: 2, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never));
  }

  test('campaign: create always, update on the metadata that will be stored (after unset_metadata_fields)', async () => {
    // Made before the schema exists: an update that sends no metadata is not checked.
    const older = await written(t.sdk().campaigns.create(discountCampaign(unique('Older')) as never));
    await withSchema('campaign', { region: { type: 'string', optional: false, eq: ['eu', 'us'] }, budget: { type: 'number' } }, async () => {
      const name = unique('Regional');
      await refusedBySdk(() => t.sdk().campaigns.create(discountCampaign(name) as never), 'campaign', required('region'));
      await refusedBySdk(
        () => t.sdk().campaigns.create(discountCampaign(name, { metadata: { region: 'asia', budget: 'big' } }) as never),
        'campaign',
        "region: must be one of [eu, us] (actual value is 'asia'); budget: must be a number (actual value is 'big')",
      );
      await refused(() => t.request('POST', '/v1/campaigns', { json: discountCampaign(name, { metadata: { budget: 5 } }) }), 'campaign', required('region'));
      assert.equal((await t.request('GET', `/v1/campaigns/${name}`)).status, 404);

      const created = await written(t.sdk().campaigns.create(discountCampaign(name, { metadata: { region: 'eu', budget: 100 } }) as never));
      assert.deepEqual(created.metadata, { region: 'eu', budget: 100 });

      await refusedBySdk(() => t.sdk().campaigns.update(created.id, { metadata: { region: 'eu', budget: 'more' } } as never), 'campaign', "budget: must be a number (actual value is 'more')");
      await refusedBySdk(() => t.sdk().campaigns.update(created.id, { unset_metadata_fields: ['region'] } as never), 'campaign', required('region'));
      await refused(
        () => t.request('PUT', `/v1/campaigns/${created.id}`, { json: { metadata: { region: 'us' }, unset_metadata_fields: ['region'] } }),
        'campaign',
        required('region'),
      );
      assert.deepEqual((await written(t.sdk().campaigns.get(created.id))).metadata, { region: 'eu', budget: 100 });

      const unset = await written(t.sdk().campaigns.update(created.id, { unset_metadata_fields: ['budget'] } as never));
      assert.deepEqual(unset.metadata, { region: 'eu' });
      const replaced = await written(t.sdk().campaigns.update(created.id, { metadata: { region: 'us', budget: 7 } } as never));
      assert.deepEqual(replaced.metadata, { region: 'us', budget: 7 });

      const untouched = await t.request('PUT', `/v1/campaigns/${older.id}`, { json: { description: 'Only the description' } });
      assert.equal(untouched.status, 200, 'an update without metadata is not checked');
      assert.deepEqual(untouched.body.metadata, {});
    });
  });

  test('voucher: create and update', async () => {
    await withSchema('voucher', { batch: { type: 'number', optional: false, gte: 1 } }, async () => {
      const body = (code: string, extra: Record<string, unknown> = {}) => ({ code, type: 'GIFT_VOUCHER', gift: { amount: 500 }, ...extra });
      await refusedBySdk(() => t.sdk().vouchers.create(body('MV-1') as never), 'voucher', required('batch'));
      await refusedBySdk(() => t.sdk().vouchers.create(body('MV-1', { metadata: { batch: 0 } }) as never), 'voucher', "batch: must be greater than or equal to 1 (actual value is '0')");
      await refused(() => t.request('POST', '/v1/vouchers/MV-1', { json: body('MV-1', { metadata: { batch: 'one' } }) }), 'voucher', "batch: must be a number (actual value is 'one')");
      assert.equal((await t.request('GET', '/v1/vouchers/MV-1')).status, 404);

      const created = await written(t.sdk().vouchers.create(body('MV-1', { metadata: { batch: 1 } }) as never));
      assert.deepEqual(created.metadata, { batch: 1 });

      await refusedBySdk(() => t.sdk().vouchers.update({ code: 'MV-1', metadata: { note: 'no batch' } } as never), 'voucher', required('batch'));
      await refused(() => t.request('PUT', '/v1/vouchers/MV-1', { json: { metadata: { batch: '2' } } }), 'voucher', "batch: must be a number (actual value is '2')");
      assert.deepEqual((await written(t.sdk().vouchers.get('MV-1'))).metadata, { batch: 1 });

      const updated = await written(t.sdk().vouchers.update({ code: 'MV-1', metadata: { batch: 2 } } as never));
      assert.deepEqual(updated.metadata, { batch: 2 });
      const activeOnly = await t.request('PUT', '/v1/vouchers/MV-1', { json: { additional_info: 'no metadata sent' } });
      assert.equal(activeOnly.status, 200, activeOnly.text);
    });
  });

  test('voucher: imports check every item in the request; one bad item refuses the whole import', async () => {
    const campaign = await written(t.sdk().campaigns.create(discountCampaign(unique('Import target'), { vouchers_count: 0 }) as never));
    await withSchema('voucher', { batch: { type: 'number', optional: false } }, async () => {
      await refusedBySdk(
        () =>
          t.sdk().vouchers.import([
            { code: 'MI-1', type: 'GIFT_VOUCHER', gift: { amount: 100 }, metadata: { batch: 1 } },
            { code: 'MI-2', type: 'GIFT_VOUCHER', gift: { amount: 100 } },
            { code: 'MI-3', type: 'GIFT_VOUCHER', gift: { amount: 100 }, metadata: { batch: 'x' } },
          ] as never),
        'voucher',
        required('[1].batch'),
      );
      await refused(
        () => t.request('POST', '/v1/vouchers/import', { json: [{ code: 'MI-1', gift: { amount: 100 }, metadata: { batch: 1 } }, { code: 'MI-3', gift: { amount: 100 }, metadata: { batch: 'x' } }] }),
        'voucher',
        "[1].batch: must be a number (actual value is 'x')",
      );
      await refusedBySdk(
        () => t.sdk().campaigns.importVouchers(campaign.id, [{ code: 'MCI-1', metadata: { batch: 1 } }, { code: 'MCI-2' }] as never),
        'voucher',
        required('[1].batch'),
      );

      const action = await written(
        t.sdk().vouchers.import([
          { code: 'MI-1', type: 'GIFT_VOUCHER', gift: { amount: 100 }, metadata: { batch: 1 } },
          { code: 'MI-2', type: 'GIFT_VOUCHER', gift: { amount: 100 }, metadata: { batch: 2 } },
        ] as never),
      );
      const intoCampaign = await written(t.sdk().campaigns.importVouchers(campaign.id, [{ code: 'MCI-1', metadata: { batch: 3 } }] as never));
      while (await t.worker.runOnce()) {
        /* drain */
      }
      for (const id of [action.async_action_id, intoCampaign.async_action_id]) {
        const done = await t.request('GET', `/v1/async-actions/${id}`);
        assert.equal(done.body.status, 'DONE', done.text);
        assert.equal(done.body.result.failed_count, 0, done.text);
      }
      assert.deepEqual((await written(t.sdk().vouchers.get('MI-2'))).metadata, { batch: 2 });
      assert.deepEqual((await written(t.sdk().vouchers.get('MCI-1'))).metadata, { batch: 3 });
    });
  });

  test('voucher: vouchers added to a campaign, one or several', async () => {
    const campaign = await written(t.sdk().campaigns.create(discountCampaign(unique('Growing'), { vouchers_count: 0 }) as never));
    await withSchema('voucher', { batch: { type: 'number', optional: false } }, async () => {
      await refusedBySdk(() => t.sdk().campaigns.addVoucher(campaign.id, {} as never), 'voucher', required('batch'));
      await refusedBySdk(() => t.sdk().campaigns.addCertainVoucher(campaign.id, 'MA-1', { metadata: { batch: 'x' } } as never), 'voucher', "batch: must be a number (actual value is 'x')");
      await refusedBySdk(() => t.sdk().campaigns.addVoucher(campaign.id, { metadata: { other: 1 } } as never, { vouchers_count: 3 }), 'voucher', required('batch'));
      await refused(() => t.request('POST', `/v1/campaigns/${campaign.id}/vouchers?vouchers_count=3`, { json: {} }), 'voucher', required('batch'));
      assert.equal((await written(t.sdk().campaigns.get(campaign.id))).vouchers_count, 0);

      const one = await written(t.sdk().campaigns.addVoucher(campaign.id, { metadata: { batch: 1 } } as never));
      assert.deepEqual(one.metadata, { batch: 1 });
      const certain = await written(t.sdk().campaigns.addCertainVoucher(campaign.id, 'MA-1', { metadata: { batch: 2 } } as never));
      assert.equal(certain.code, 'MA-1');
      const several = await t.request('POST', `/v1/campaigns/${campaign.id}/vouchers?vouchers_count=3`, { json: { metadata: { batch: 3 } } });
      assert.equal(several.status, 202, several.text);
      const viaSdk = await written(t.sdk().campaigns.addVoucher(campaign.id, { metadata: { batch: 4 } } as never, { vouchers_count: 2 }));
      assert.match(viaSdk.async_action_id, /^aa_/);
      assert.equal((await written(t.sdk().campaigns.get(campaign.id))).vouchers_count, 7);
    });
  });

  test("publication: the publication's metadata, through publications and loyalty members", async () => {
    const campaign = await written(t.sdk().campaigns.create(discountCampaign(unique('Handouts'), { vouchers_count: 3 }) as never));
    const program = await loyaltyProgram();
    await withSchema('publication', { source: { type: 'string', optional: false, eq: ['newsletter', 'store'] } }, async () => {
      const publish = (customer: string, metadata?: Record<string, unknown>) => ({
        campaign: { id: campaign.id },
        customer: { source_id: customer },
        ...(metadata ? { metadata } : {}),
      });
      await refusedBySdk(() => t.sdk().distributions.publications.create(publish('mp-1') as never), 'publication', required('source'));
      await refusedBySdk(
        () => t.sdk().distributions.publications.create(publish('mp-1', { source: 'tv' }) as never),
        'publication',
        "source: must be one of [newsletter, store] (actual value is 'tv')",
      );
      await refused(() => t.request('POST', '/v1/publications', { json: publish('mp-1', { source: 7 }) }), 'publication', "source: must be a string (actual value is '7')");
      assert.equal((await t.request('GET', '/v1/customers/mp-1')).status, 404, 'the customer named by the refused publication was not created');

      const published = await written(t.sdk().distributions.publications.create(publish('mp-1', { source: 'newsletter' }) as never));
      assert.deepEqual(published.metadata, { source: 'newsletter' });

      // Adding a loyalty member publishes a card: the member's metadata is the publication's.
      await refusedBySdk(() => t.sdk().loyalties.createMember(program.id, { customer: { source_id: 'mp-2' }, metadata: { source: 'tv' } }), 'publication', "source: must be one of [newsletter, store] (actual value is 'tv')");
      await refusedBySdk(() => t.sdk().loyalties.createMember(program.id, { customer: { source_id: 'mp-2' } }), 'publication', required('source'));
      const card = await written(t.sdk().loyalties.createMember(program.id, { customer: { source_id: 'mp-2' }, metadata: { source: 'store' } }));
      assert.match(card.code, /.+/);
      const stored = await t.deps.db.selectFrom('publications').select('metadata').where('voucher_id', '=', card.id).executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(stored.metadata), { source: 'store' });
    });
  });

  test('promotion_tier: tiers of a PROMOTION campaign create, tier create and update', async () => {
    await withSchema('promotion_tier', { level: { type: 'number', optional: false, gte: 1 } }, async () => {
      const action = { discount: { type: 'AMOUNT', amount_off: 500 } };
      const name = unique('Promo');
      const promotion = (tiers: Array<Record<string, unknown>>) => ({ name, campaign_type: 'PROMOTION', promotion: { tiers } });
      await refusedBySdk(
        () => t.sdk().promotions.create(promotion([{ name: 'First', action, metadata: { level: 1 } }, { name: 'Second', action }]) as never),
        'promotion_tier',
        required('level'),
      );
      await refused(
        () => t.request('POST', '/v1/campaigns', { json: promotion([{ name: 'First', action, metadata: { level: 0 } }]) }),
        'promotion_tier',
        "level: must be greater than or equal to 1 (actual value is '0')",
      );
      assert.equal((await t.request('GET', `/v1/campaigns/${name}`)).status, 404, 'the campaign goes with its tiers');

      const created = await written(t.sdk().promotions.create(promotion([{ name: 'First', action, metadata: { level: 1 } }]) as never));
      assert.deepEqual(created.promotion.tiers[0]?.metadata, { level: 1 });

      await refusedBySdk(() => t.sdk().promotions.tiers.create(created.id, { name: 'Extra', action } as never), 'promotion_tier', required('level'));
      const tier = await written(t.sdk().promotions.tiers.create(created.id, { name: 'Extra', action, metadata: { level: 2 } } as never));
      assert.deepEqual(tier.metadata, { level: 2 });

      await refusedBySdk(() => t.sdk().promotions.tiers.update({ id: tier.id, metadata: { level: 'high' } } as never), 'promotion_tier', "level: must be a number (actual value is 'high')");
      await refused(() => t.request('PUT', `/v1/promotions/tiers/${tier.id}`, { json: { metadata: {} } }), 'promotion_tier', required('level'));
      assert.deepEqual((await written(t.sdk().promotions.tiers.get(tier.id))).metadata, { level: 2 });
      const updated = await written(t.sdk().promotions.tiers.update({ id: tier.id, metadata: { level: 3 } } as never));
      assert.deepEqual(updated.metadata, { level: 3 });
      const nameOnly = await t.request('PUT', `/v1/promotions/tiers/${tier.id}`, { json: { name: 'Renamed' } });
      assert.equal(nameOnly.status, 200, nameOnly.text);
    });
  });

  test('loyalty_tier: every tier of a create is checked before any is stored', async () => {
    const program = await loyaltyProgram();
    await withSchema('loyalty_tier', { perk: { type: 'string', optional: false, min_length: 2 } }, async () => {
      await refusedBySdk(
        () =>
          t.sdk().loyalties.createTiers(program.id, [
            { name: 'Bronze', points: { from: 1, to: 99 }, metadata: { perk: 'mug' } },
            { name: 'Silver', points: { from: 100, to: 199 } },
          ] as never),
        'loyalty_tier',
        required('perk'),
      );
      await refused(
        () => t.request('POST', `/v1/loyalties/${program.id}/tiers`, { json: [{ name: 'Bronze', points: { from: 1, to: 99 }, metadata: { perk: 'x' } }] }),
        'loyalty_tier',
        "perk: must be at least 2 characters long (actual value is 'x')",
      );
      const tiers = await writtenList(
        t.sdk().loyalties.createTiers(program.id, [
          { name: 'Bronze', points: { from: 1, to: 99 }, metadata: { perk: 'mug' } },
          { name: 'Silver', points: { from: 100, to: 199 }, metadata: { perk: 'cap' } },
        ] as never),
      );
      assert.deepEqual(
        tiers.map((tier) => tier.metadata),
        [{ perk: 'mug' }, { perk: 'cap' }],
      );
    });
  });

  test('earning_rule: create and update', async () => {
    const program = await loyaltyProgram();
    await withSchema('earning_rule', { channel: { type: 'string', optional: false, max_length: 10 } }, async () => {
      const rule = (metadata?: Record<string, unknown>) => ({ event: 'order.paid', loyalty: { type: 'FIXED', points: 10 }, ...(metadata ? { metadata } : {}) });
      await refusedBySdk(() => t.sdk().loyalties.createEarningRule(program.id, [rule({ channel: 'web' }), rule()] as never), 'earning_rule', required('channel'));
      await refused(
        () => t.request('POST', `/v1/loyalties/${program.id}/earning-rules`, { json: [rule({ channel: 'a channel far too long' })] }),
        'earning_rule',
        "channel: must be at most 10 characters long (actual value is 'a channel far too long')",
      );
      const [created] = await writtenList(t.sdk().loyalties.createEarningRule(program.id, [rule({ channel: 'web' })] as never));
      assert.ok(created);
      assert.deepEqual(created.metadata, { channel: 'web' });

      await refusedBySdk(() => t.sdk().loyalties.updateEarningRule(program.id, { id: created.id, metadata: { channel: 42 } } as never), 'earning_rule', "channel: must be a string (actual value is '42')");
      await refused(() => t.request('PUT', `/v1/loyalties/${program.id}/earning-rules/${created.id}`, { json: { metadata: null } }), 'earning_rule', required('channel'));
      assert.deepEqual((await written(t.sdk().loyalties.getEarningRule(program.id, created.id))).metadata, { channel: 'web' });
      const updated = await written(t.sdk().loyalties.updateEarningRule(program.id, { id: created.id, metadata: { channel: 'store' } } as never));
      assert.deepEqual(updated.metadata, { channel: 'store' });
    });
  });

  test('order and order_item: create, update and the orders a redemption stores', async () => {
    await withSchema('order', { channel: { type: 'string', optional: false } }, async () => {
      await withSchema('order_item', { gift_wrap: { type: 'boolean' } }, async () => {
        const items = (wrap: unknown) => [{ source_id: 'sku-a', quantity: 1, price: 1000 }, { source_id: 'sku-b', quantity: 2, price: 500, metadata: { gift_wrap: wrap } }];
        await refusedBySdk(() => t.sdk().orders.create({ source_id: 'MO-1', amount: 1000 } as never), 'order', required('channel'));
        await refused(
          () => t.request('POST', '/v1/orders', { json: { source_id: 'MO-1', items: items('yes'), metadata: { channel: 'web' } } }),
          'order_item',
          "items[1].gift_wrap: must be a boolean (actual value is 'yes')",
        );
        const created = await written(t.sdk().orders.create({ source_id: 'MO-1', items: items(true), metadata: { channel: 'web' } } as never));
        assert.deepEqual(created.metadata, { channel: 'web' });

        await refused(() => t.request('PUT', `/v1/orders/${created.id}`, { json: { metadata: { channel: 3 } } }), 'order', "channel: must be a string (actual value is '3')");
        const statusOnly = await t.request('PUT', `/v1/orders/${created.id}`, { json: { status: 'FULFILLED' } });
        assert.equal(statusOnly.status, 200, 'an update without metadata or items is not checked');

        const voucher = await t.request('POST', '/v1/vouchers/MO-TEN', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
        assert.equal(voucher.status, 200, voucher.text);
        const redeem = (order: Record<string, unknown>) => ({ redeemables: [{ object: 'voucher', id: 'MO-TEN' }], order });
        // The refusal is a bad request: no failure record, the voucher is not used.
        await refused(() => t.request('POST', '/v1/redemptions', { json: redeem({ source_id: 'MO-2', amount: 2000 }) }), 'order', required('channel'));
        await refused(
          () => t.request('POST', '/v1/redemptions', { json: redeem({ source_id: 'MO-2', items: items(1), metadata: { channel: 'pos' } }) }),
          'order_item',
          "items[1].gift_wrap: must be a boolean (actual value is '1')",
        );
        const redeemed = await t.request('POST', '/v1/redemptions', { json: redeem({ source_id: 'MO-2', items: items(false), metadata: { channel: 'pos' } }) });
        assert.equal(redeemed.status, 200, redeemed.text);
        assert.deepEqual(redeemed.body.order.metadata, { channel: 'pos' });
      });
    });
  });

  test('redemption: the metadata a redemption request carries', async () => {
    await withSchema('redemption', { cashier: { type: 'string', optional: false, min_length: 2 } }, async () => {
      const voucher = await t.request('POST', '/v1/vouchers/MR-TEN', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } });
      assert.equal(voucher.status, 200, voucher.text);
      const body = (metadata?: Record<string, unknown>) => ({ redeemables: [{ object: 'voucher', id: 'MR-TEN' }], order: { amount: 1000 }, ...(metadata ? { metadata } : {}) });
      await refused(() => t.request('POST', '/v1/redemptions', { json: body() }), 'redemption', required('cashier'));
      // The metadata is checked after the customer is read (its statement reads the definitions version):
      // a customer the request would have created is not, and a stored one is left as it was.
      await refused(() => t.request('POST', '/v1/redemptions', { json: { ...body(), customer: { source_id: unique('mr-new') } } }), 'redemption', required('cashier'));
      const stored = await t.request('POST', '/v1/customers', { json: { source_id: unique('mr-known') } });
      assert.equal(stored.status, 200, stored.text);
      await refused(() => t.request('POST', '/v1/redemptions', { json: { ...body(), customer: { source_id: stored.body.source_id } } }), 'redemption', required('cashier'));
      await refusedBySdk(
        () => t.sdk().redemptions.redeemStackable(body({ cashier: 'A' }) as never),
        'redemption',
        "cashier: must be at least 2 characters long (actual value is 'A')",
      );
      const redeemed = await t.request('POST', '/v1/redemptions', { json: body({ cashier: 'Ann' }) });
      assert.equal(redeemed.status, 200, redeemed.text);
      assert.deepEqual(redeemed.body.redemptions[0].metadata, { cashier: 'Ann' });
    });
  });

  test('reward: create and update', async () => {
    const product = await t.request('POST', '/v1/products', { json: { name: 'Mug', price: 1000 } });
    assert.equal(product.status, 200, product.text);
    await withSchema('reward', { sku: { type: 'string', optional: false } }, async () => {
      const reward = (name: string, metadata?: Record<string, unknown>) => ({ name, parameters: { product: { id: product.body.id } }, ...(metadata ? { metadata } : {}) });
      await refusedBySdk(() => t.sdk().rewards.create(reward('Mug reward') as never), 'reward', required('sku'));
      await refused(() => t.request('POST', '/v1/rewards', { json: reward('Mug reward', { sku: 12 }) }), 'reward', "sku: must be a string (actual value is '12')");

      const created = await written(t.sdk().rewards.create(reward('Mug reward', { sku: 'MUG-1' }) as never));
      assert.deepEqual(created.metadata, { sku: 'MUG-1' });

      await refusedBySdk(() => t.sdk().rewards.update({ id: created.id, metadata: { sku: true } } as never), 'reward', "sku: must be a string (actual value is 'true')");
      await refused(() => t.request('PUT', `/v1/rewards/${created.id}`, { json: { metadata: { other: 1 } } }), 'reward', required('sku'));
      assert.deepEqual((await written(t.sdk().rewards.get(created.id))).metadata, { sku: 'MUG-1' });
      const updated = await written(t.sdk().rewards.update({ id: created.id, metadata: { sku: 'MUG-2' } } as never));
      assert.deepEqual(updated.metadata, { sku: 'MUG-2' });
      const nameOnly = await t.request('PUT', `/v1/rewards/${created.id}`, { json: { name: 'Mug reward renamed' } });
      assert.equal(nameOnly.status, 200, nameOnly.text);
    });
  });
});
