import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addToTierSummary } from '../../src/store/promotion-tiers.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Promotion tiers, server side (seed 2.9, 4.13, part 6; promotions reference 1.3, 4.1, 4.2, 5.7).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Every member of seed 2.9, in no particular order. */
const TIER_FIELDS = [
  'action',
  'active',
  'banner',
  'campaign',
  'campaign_id',
  'categories',
  'category_id',
  'created_at',
  'expiration_date',
  'hierarchy',
  'id',
  'metadata',
  'name',
  'object',
  'promotion_id',
  'start_date',
  'summary',
  'updated_at',
  'validation_rule_assignments',
  'validity_day_of_week',
  'validity_hours',
  'validity_timeframe',
].sort();

const CAMPAIGN_PART_FIELDS = [
  'active',
  'category_id',
  'expiration_date',
  'id',
  'object',
  'start_date',
  'validity_day_of_week',
  'validity_hours',
  'validity_timeframe',
].sort();

describe('promotion tiers', () => {
  let t: TestApp;
  let ruleId: string;
  let otherRuleId: string;
  let categoryId: string;

  before(async () => {
    t = await startTestApp();
    const rule: Json = await t.sdk().validationRules.create({
      name: 'Order above 100',
      type: 'basic',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] }, rules: {} }, logic: '1' },
    } as never);
    ruleId = rule.id;
    const other: Json = await t.sdk().validationRules.create({
      name: 'Order above 50',
      type: 'basic',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [5000] }, rules: {} }, logic: '1' },
    } as never);
    otherRuleId = other.id;
    const category: Json = await t.sdk().categories.create({ name: 'Seasonal', hierarchy: 1 } as never);
    categoryId = category.id;
  });
  after(async () => t.close());

  async function eventsOf(type: string, entityId: string): Promise<Json[]> {
    const rows = await t.deps.db.selectFrom('events').selectAll().where('type', '=', type).where('entity_id', '=', entityId).orderBy('seq').execute();
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
  }

  async function tierCount(campaignId: string): Promise<number> {
    const row = await t.deps.db
      .selectFrom('promotion_tiers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', campaignId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function promotion(name: string, tiers: Json[], extra: Record<string, unknown> = {}): Promise<Json> {
    return t.sdk().promotions.create({ name, campaign_type: 'PROMOTION', promotion: { tiers }, ...extra } as never);
  }

  test('a PROMOTION campaign is created with its tiers through the SDK, hierarchy 1, 2, … in array order', async () => {
    const created = await promotion('Summer promo', [
      { name: 'Over 100', banner: '10 off', action: { discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' } }, validation_rules: [ruleId] },
      { name: 'Over 200', action: { discount: { type: 'PERCENT', percent_off: 15 } }, category_id: categoryId, metadata: { level: 2 } },
      { name: 'Over 300', action: { discount: { type: 'AMOUNT', amount_off: 3000 } }, active: false },
    ]);
    assert.equal(created.campaign_type, 'PROMOTION');
    assert.equal(created.type, 'STATIC');
    assert.equal(created.creation_status, 'DONE');
    assert.equal(created.promotion.object, 'list');
    assert.equal(created.promotion.data_ref, 'tiers');
    assert.equal(created.promotion.total, 3);
    assert.equal(created.promotion.has_more, false);
    assert.deepEqual(
      created.promotion.tiers.map((tier: Json) => [tier.name, tier.hierarchy]),
      [
        ['Over 100', 1],
        ['Over 200', 2],
        ['Over 300', 3],
      ],
    );
    const [first, second, third] = created.promotion.tiers;
    assert.match(first.id, /^promo_/);
    assert.deepEqual(first.action.discount, { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER', is_dynamic: false });
    assert.equal(first.validation_rule_assignments.total, 1);
    assert.equal(first.validation_rule_assignments.data[0].rule_id, ruleId);
    assert.equal(first.validation_rule_assignments.data[0].related_object_type, 'promotion_tier');
    assert.equal(second.category_id, categoryId);
    assert.equal(second.categories[0].name, 'Seasonal');
    assert.deepEqual(second.metadata, { level: 2 });
    assert.equal(third.active, false);

    // The campaign's event comes first, then one event per tier, in the same transaction.
    const campaignEvent = (await eventsOf('campaign.created', created.id))[0];
    const tierEvents = await Promise.all(created.promotion.tiers.map((tier: Json) => eventsOf('campaign.promotion_tier.created', tier.id)));
    assert.equal(tierEvents.every((list) => list.length === 1), true);
    assert.ok(tierEvents.every((list) => Number(list[0].seq) > Number(campaignEvent.seq)));
    assert.equal(tierEvents[0][0].data.promotion_tier.id, first.id);
    assert.equal(tierEvents[0][0].data.campaign.id, created.id);
    assert.equal(tierEvents[0][0].campaign_id, created.id);
    const assigned = await t.deps.db
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'business_validation_rule.assignment.created')
      .where('entity_id', '=', first.validation_rule_assignments.data[0].id)
      .execute();
    assert.equal(assigned.length, 1);
    assert.equal(JSON.parse(assigned[0]!.data).promotion_tier.id, first.id);

    // Read back, the campaign carries the same tiers.
    const fetched: Json = await t.sdk().campaigns.get(created.id);
    assert.deepEqual(
      fetched.promotion.tiers.map((tier: Json) => tier.id),
      created.promotion.tiers.map((tier: Json) => tier.id),
    );
  });

  test('get answers every field of seed 2.9, with the campaign window', async () => {
    const created = await promotion(
      'Windowed promo',
      [
        {
          name: 'Weekdays',
          banner: 'Weekday deal',
          action: { discount: { type: 'AMOUNT', amount_off: 500, amount_off_formula: 'ORDER_AMOUNT / 10', aggregated_amount_limit: 900 } },
          start_date: '2026-01-01T00:00:00+01:00',
          expiration_date: '2026-12-31T00:00:00Z',
          validity_timeframe: { interval: 'P2D', duration: 'P1D' },
          validity_day_of_week: [1, 2, 3, 4, 5],
          validity_hours: { daily: [{ start_time: '08:00', expiration_time: '20:00', days_of_week: [1, 2] }] },
          category: 'Seasonal',
          validation_rule_assignments: { object: 'list', data_ref: 'data', data: [{ rule_id: otherRuleId }], total: 1 },
        },
      ],
      { start_date: '2026-01-01T00:00:00.000Z', validity_day_of_week: [1, 2, 3], category_id: categoryId },
    );
    const id = created.promotion.tiers[0].id;
    const tier: Json = await t.sdk().promotions.tiers.get(id);
    assert.deepEqual(Object.keys(tier).sort(), TIER_FIELDS);
    assert.equal(tier.object, 'promotion_tier');
    assert.equal(tier.promotion_id, created.id);
    assert.equal(tier.campaign_id, created.id);
    assert.deepEqual(Object.keys(tier.campaign).sort(), CAMPAIGN_PART_FIELDS);
    assert.deepEqual(tier.campaign, {
      id: created.id,
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: null,
      validity_timeframe: null,
      validity_day_of_week: [1, 2, 3],
      validity_hours: null,
      active: true,
      category_id: categoryId,
      object: 'campaign',
    });
    // Dates are stored in UTC with milliseconds whatever zone they were sent in.
    assert.equal(tier.start_date, '2025-12-31T23:00:00.000Z');
    assert.equal(tier.expiration_date, '2026-12-31T00:00:00.000Z');
    assert.deepEqual(tier.validity_timeframe, { interval: 'P2D', duration: 'P1D' });
    assert.deepEqual(tier.validity_day_of_week, [1, 2, 3, 4, 5]);
    assert.deepEqual(tier.validity_hours.daily[0].days_of_week, [1, 2]);
    assert.equal(tier.action.discount.is_dynamic, true);
    assert.equal(tier.action.discount.aggregated_amount_limit, 900);
    assert.deepEqual(tier.summary, { redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } });
    assert.equal(tier.validation_rule_assignments.object, 'list');
    assert.equal(tier.validation_rule_assignments.data_ref, 'data');
    assert.equal(tier.validation_rule_assignments.data[0].rule_id, otherRuleId);
    assert.equal(tier.category_id, categoryId);
    assert.equal(tier.categories.length, 1);
    assert.equal(tier.updated_at, null);
    assert.equal(tier.banner, 'Weekday deal');

    // The redemption engine moves the summary by relative amounts, spread over count rows by request.
    await addToTierSummary(t.deps.db, t.projectId, id, 'r_request_a', { redeemed: 1, orderAmount: 12000, discountAmount: 500 });
    await addToTierSummary(t.deps.db, t.projectId, id, 'r_request_b', { redeemed: 1, orderAmount: 8000, discountAmount: 400 });
    await addToTierSummary(t.deps.db, t.projectId, id, 'r_request_a', { redeemed: 1, orderAmount: 1000, discountAmount: 100 });
    // Another project's counts under the same tier id never reach this tier's summary.
    await addToTierSummary(t.deps.db, 'proj_other', id, 'r_request_c', { redeemed: 5, orderAmount: 5, discountAmount: 5 });
    const after: Json = await t.sdk().promotions.tiers.get(id);
    assert.deepEqual(after.summary, { redemptions: { total_redeemed: 3 }, orders: { total_amount: 21000, total_discount_amount: 1000 } });
  });

  test('POST /v1/promotions/{id}/tiers: hierarchy follows the highest existing unless given', async () => {
    const created = await promotion('Growing promo', [{ name: 'A' }, { name: 'B' }]);
    const third: Json = await t.sdk().promotions.tiers.create(created.id, { name: 'C', banner: 'b', action: { discount: { type: 'AMOUNT', amount_off: 500 } } } as never);
    assert.equal(third.hierarchy, 3);
    assert.equal(third.campaign_id, created.id);
    assert.equal(third.promotion_id, created.id);
    assert.equal(third.active, true);
    const explicit: Json = await t.sdk().promotions.tiers.create(created.id, { name: 'J', hierarchy: 10 } as never);
    assert.equal(explicit.hierarchy, 10);
    const next: Json = await t.sdk().promotions.tiers.create(created.id, { name: 'K' } as never);
    assert.equal(next.hierarchy, 11);
    // By campaign name too, as every campaign path.
    const byName = await t.request('POST', '/v1/promotions/Growing%20promo/tiers', { json: { name: 'L' } });
    assert.equal(byName.status, 200);
    assert.equal(byName.body.hierarchy, 12);

    const events = await eventsOf('campaign.promotion_tier.created', third.id);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.promotion_tier.hierarchy, 3);
  });

  test('tiers added concurrently to one campaign get distinct, consecutive hierarchies', async () => {
    const created = await promotion('Busy promo', [{ name: 'seed' }]);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => t.request('POST', `/v1/promotions/${created.id}/tiers`, { json: { name: `parallel ${i}` } })));
    assert.deepEqual(
      answers.map((a) => a.status),
      Array.from({ length: 12 }, () => 200),
    );
    assert.deepEqual(
      answers.map((a) => a.body.hierarchy).sort((a: number, b: number) => a - b),
      Array.from({ length: 12 }, (_, i) => i + 2),
    );
  });

  test('the campaign list is in hierarchy order, with total and has_more', async () => {
    const created = await promotion('Ordered promo', [{ name: 'first' }, { name: 'second' }, { name: 'third' }]);
    const [first, , third] = created.promotion.tiers;
    // Moving the third tier to the top reorders every list that applies tiers.
    await t.sdk().promotions.tiers.update({ id: third.id, hierarchy: 0 } as never).then(
      () => assert.fail('hierarchy 0 must be refused'),
      (error: Json) => assert.equal(error.code, 400),
    );
    await t.request('PUT', `/v1/promotions/tiers/${first.id}`, { json: { hierarchy: 5 } });
    const list: Json = await t.sdk().promotions.tiers.list(created.id);
    assert.equal(list.object, 'list');
    assert.equal(list.data_ref, 'tiers');
    assert.equal(list.total, 3);
    assert.equal(list.has_more, false);
    assert.deepEqual(
      list.tiers.map((tier: Json) => tier.name),
      ['second', 'third', 'first'],
    );
    const campaign: Json = await t.sdk().campaigns.get(created.id);
    assert.deepEqual(
      campaign.promotion.tiers.map((tier: Json) => tier.name),
      ['second', 'third', 'first'],
    );
    const paged = await t.request('GET', `/v1/promotions/${created.id}/tiers?limit=2&page=1`);
    assert.equal(paged.body.tiers.length, 2);
    assert.equal(paged.body.has_more, true);
    const last = await t.request('GET', `/v1/promotions/${created.id}/tiers?limit=2&page=2`);
    assert.deepEqual(
      last.body.tiers.map((tier: Json) => tier.name),
      ['first'],
    );
    assert.equal(last.body.has_more, false);
  });

  test('update is partial, ignores the id the SDK keeps in the body, and replaces the rule set when sent', async () => {
    const created = await promotion('Updatable promo', [
      { name: 'Base', banner: 'old banner', action: { discount: { type: 'AMOUNT', amount_off: 100 } }, metadata: { a: 1 }, validation_rules: [ruleId] },
      { name: 'Other' },
    ]);
    const [tier, other] = created.promotion.tiers;
    // The SDK sends the tier id in the body; another id there changes nothing about which tier is updated.
    const renamed = await t.request('PUT', `/v1/promotions/tiers/${tier.id}`, { json: { id: other.id, name: 'Renamed' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.id, tier.id);
    assert.equal(renamed.body.name, 'Renamed');
    assert.equal(renamed.body.banner, 'old banner');
    assert.deepEqual(renamed.body.metadata, { a: 1 });
    assert.equal(renamed.body.action.discount.amount_off, 100);
    assert.equal((await t.sdk().promotions.tiers.get(other.id)).name, 'Other');
    assert.ok(renamed.body.updated_at);

    const viaSdk: Json = await t.sdk().promotions.tiers.update({
      id: tier.id,
      action: { discount: { type: 'PERCENT', percent_off: 20, amount_limit: 5000 } },
      validation_rule_assignments: { data: [{ rule_id: otherRuleId }] },
      start_date: '2026-01-01T00:00:00Z',
    } as never);
    assert.equal(viaSdk.name, 'Renamed');
    assert.deepEqual(viaSdk.action.discount, { type: 'PERCENT', percent_off: 20, amount_limit: 5000, is_dynamic: false });
    assert.deepEqual(
      viaSdk.validation_rule_assignments.data.map((a: Json) => a.rule_id),
      [otherRuleId],
    );
    assert.equal(viaSdk.start_date, '2026-01-01T00:00:00.000Z');
    const updates = await eventsOf('campaign.promotion_tier.updated', tier.id);
    assert.equal(updates.length, 2);
    assert.equal(updates[1].data.promotion_tier.action.discount.type, 'PERCENT');
    assert.equal(updates[1].data.campaign.id, created.id);

    // A timeframe without a start is refused; the stored start counts, so this one passes.
    const timeframe = await t.request('PUT', `/v1/promotions/tiers/${tier.id}`, { json: { validity_timeframe: { interval: 'P1D', duration: 'PT2H' } } });
    assert.equal(timeframe.status, 200);
    const unset = await t.request('PUT', `/v1/promotions/tiers/${tier.id}`, { json: { start_date: null } });
    assert.equal(unset.status, 400);
    assert.match(unset.body.details, /validity_timeframe requires start_date/);
  });

  test('enable and disable answer the tier and record their events', async () => {
    const created = await promotion('Toggle promo', [{ name: 'Toggle' }]);
    const id = created.promotion.tiers[0].id;
    const disabled = await t.request('POST', `/v1/promotions/tiers/${id}/disable`, { json: {} });
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.object, 'promotion_tier');
    assert.equal(disabled.body.active, false);
    const enabled = await t.request('POST', `/v1/promotions/tiers/${id}/enable`);
    assert.equal(enabled.body.active, true);
    assert.equal((await eventsOf('campaign.promotion_tier.disabled', id)).length, 1);
    assert.equal((await eventsOf('campaign.promotion_tier.enabled', id)).length, 1);
    assert.equal((await t.request('POST', '/v1/promotions/tiers/promo_missing/enable')).status, 404);
  });

  test('delete answers 204, removes the tier and its rule assignments, and records the event', async () => {
    const created = await promotion('Deletable promo', [{ name: 'Doomed', validation_rules: [ruleId] }, { name: 'Stays' }]);
    const id = created.promotion.tiers[0].id;
    assert.equal(await t.sdk().promotions.tiers.delete(id), '');
    const gone = await t.request('GET', `/v1/promotions/tiers/${id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.key, 'not_found');
    assert.equal(gone.body.resource_type, 'promotion_tier');
    assert.equal(gone.body.resource_id, id);
    const assignments = await t.request('GET', `/v1/validation-rules-assignments?related_object_id=${id}`);
    assert.equal(assignments.body.total, 0);
    const deleted = await eventsOf('campaign.promotion_tier.deleted', id);
    assert.equal(deleted.length, 1);
    assert.equal(deleted[0].data.promotion_tier.name, 'Doomed');
    assert.equal((await t.request('DELETE', `/v1/promotions/tiers/${id}`)).status, 404);
    assert.equal(await tierCount(created.id), 1);
  });

  test('validation rules can be assigned to tiers through the assignment endpoint', async () => {
    const created = await promotion('Assignable promo', [{ name: 'Guarded' }]);
    const id = created.promotion.tiers[0].id;
    const assignment: Json = await t.sdk().validationRules.createAssignment(ruleId, { related_object_type: 'promotion_tier', related_object_id: id } as never);
    assert.equal(assignment.related_object_type, 'promotion_tier');
    const tier: Json = await t.sdk().promotions.tiers.get(id);
    assert.deepEqual(
      tier.validation_rule_assignments.data.map((a: Json) => a.id),
      [assignment.id],
    );
    const unknown = await t.request('POST', `/v1/validation-rules/${ruleId}/assignments`, { json: { related_object_type: 'promotion_tier', related_object_id: 'promo_nope' } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.resource_type, 'promotion_tier');
  });

  test('bad definitions are refused with precise 400s and change nothing', async () => {
    const created = await promotion('Strict promo', [{ name: 'Existing' }]);
    const cases: Array<[Json, number, string, RegExp]> = [
      [{ name: 'x', action: { discount: { type: 'AMOUNT' } } }, 400, 'invalid_payload', /action\.discount of type AMOUNT needs amount_off/],
      [{ name: 'x', action: { discount: { type: 'PERCENT', percent_off: 10, effect: 'ADD_NEW_ITEMS' } } }, 400, 'invalid_payload', /effect ADD_NEW_ITEMS does not apply/],
      [{ name: 'x', action: { discount: { type: 'AMOUNT', amount_off: 1, amount_off_formula: 'ORDER_AMOUNT **' } } }, 400, 'invalid_payload', /amount_off_formula/],
      [{ name: 'x', action: { discount: { type: 'PERCENT', percent_off: 101 } } }, 400, 'invalid_payload', /percent_off/],
      [{ name: 'x', validity_timeframe: { interval: 'P1D', duration: 'PT1H' } }, 400, 'invalid_payload', /validity_timeframe requires start_date/],
      [{ name: 'x', start_date: '2026-05-01T00:00:00Z', expiration_date: '2026-04-01T00:00:00Z' }, 400, 'invalid_payload', /expiration_date/],
      [{ name: 'x', validity_hours: { daily: [{ start_time: '25:00', expiration_time: '26:00', days_of_week: [1] }] } }, 400, 'invalid_payload', /HH:mm/],
      [{ name: 'x', validity_day_of_week: [7] }, 400, 'invalid_payload', /validity_day_of_week/],
      [{ name: 'x', hierarchy: 'first' }, 400, 'invalid_payload', /hierarchy/],
      [{ banner: 'no name' }, 400, 'invalid_payload', /name/],
      [{ name: 'x', category_id: 'cat_missing' }, 404, 'not_found', /category/],
      [{ name: 'x', validation_rules: ['val_missing'] }, 404, 'not_found', /val_missing/],
    ];
    for (const [body, status, key, details] of cases) {
      const res = await t.request('POST', `/v1/promotions/${created.id}/tiers`, { json: body });
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.match(res.body.details, details, res.text);
    }
    assert.equal(await tierCount(created.id), 1);

    // Inside a campaign create the details name the tier; neither the campaign nor any tier is written.
    const inCampaign = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Broken promo', campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'ok' }, { name: 'bad', action: { discount: { type: 'FIXED' } } }] } },
    });
    assert.equal(inCampaign.status, 400);
    assert.match(inCampaign.body.details, /promotion\.tiers\[1\]\.action\.discount of type FIXED needs fixed_amount/);
    assert.equal((await t.request('GET', '/v1/campaigns/Broken%20promo')).status, 404);
    const schema = await t.request('POST', '/v1/campaigns', { json: { name: 'Broken promo', campaign_type: 'PROMOTION', promotion: { tiers: [{ banner: 'nameless' }] } } });
    assert.equal(schema.status, 400);
    assert.match(schema.body.details, /\.promotion\.tiers\[0\]/);
    const wrongType = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Coupons with tiers', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } }, promotion: { tiers: [{ name: 't' }] } },
    });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.key, 'invalid_campaign');
    const badUpdate = await t.request('PUT', `/v1/promotions/tiers/${created.promotion.tiers[0].id}`, { json: { name: 'Changed', action: { discount: { type: 'UNIT' } } } });
    assert.equal(badUpdate.status, 400);
    assert.equal((await t.sdk().promotions.tiers.get(created.promotion.tiers[0].id)).name, 'Existing');
    const malformed = await t.request('PUT', `/v1/promotions/tiers/${created.promotion.tiers[0].id}`, { body: '{"name":', headers: { ...t.serverHeaders(), 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
  });

  test('tiers belong to PROMOTION campaigns only; unknown campaigns are 404', async () => {
    const coupons: Json = await t.sdk().campaigns.create({
      name: 'Plain coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } },
    } as never);
    for (const [method, path] of [
      ['POST', `/v1/promotions/${coupons.id}/tiers`],
      ['GET', `/v1/promotions/${coupons.id}/tiers`],
      ['POST', '/v1/promotions/camp_missing/tiers'],
      ['GET', '/v1/promotions/camp_missing/tiers'],
    ] as const) {
      const res = await t.request(method, path, method === 'POST' ? { json: { name: 'x' } } : {});
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.resource_type, 'campaign');
    }
  });

  test('GET /v1/promotions/tiers pages with limit, page and order, and is_available keeps usable tiers', async () => {
    const other = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Listing project', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const keys: KeyPairOut = other.body.server_side_key;
    const sdk = t.sdk(keys);
    // The clock reads Monday 2026-03-02 10:00 UTC.
    const open: Json = await sdk.promotions.create({
      name: 'Open',
      campaign_type: 'PROMOTION',
      promotion: {
        tiers: [
          { name: 'plain' },
          { name: 'disabled', active: false },
          { name: 'expired', expiration_date: '2026-03-01T00:00:00Z' },
          { name: 'future', start_date: '2026-04-01T00:00:00Z' },
          { name: 'monday', validity_day_of_week: [1] },
          { name: 'sunday', validity_day_of_week: [0] },
          { name: 'morning', validity_hours: { daily: [{ start_time: '09:00', expiration_time: '11:00', days_of_week: [1] }] } },
          { name: 'evening', validity_hours: { daily: [{ start_time: '18:00', expiration_time: '22:00', days_of_week: [1] }] } },
          { name: 'odd days', start_date: '2026-03-01T00:00:00Z', validity_timeframe: { interval: 'P2D', duration: 'P1D' } },
          { name: 'dated', start_date: '2026-03-01T00:00:00Z', expiration_date: '2026-03-03T00:00:00Z' },
        ],
      },
    } as never);
    await sdk.promotions.create({ name: 'Disabled campaign', campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'in disabled campaign' }] } } as never);
    await t.request('POST', '/v1/campaigns/Disabled%20campaign/disable', { headers: t.serverHeaders(keys), json: {} });
    await sdk.promotions.create({
      name: 'Weekend campaign',
      campaign_type: 'PROMOTION',
      validity_day_of_week: [0, 6],
      promotion: { tiers: [{ name: 'in weekend campaign' }] },
    } as never);
    await sdk.promotions.create({
      name: 'Ended campaign',
      campaign_type: 'PROMOTION',
      start_date: '2026-01-01T00:00:00+02:00',
      expiration_date: '2026-02-01T00:00:00+02:00',
      promotion: { tiers: [{ name: 'in ended campaign' }] },
    } as never);
    await sdk.promotions.create({
      name: 'Running campaign',
      campaign_type: 'PROMOTION',
      start_date: '2026-03-01T00:00:00+02:00',
      promotion: { tiers: [{ name: 'in running campaign' }] },
    } as never);

    const all: Json = await sdk.promotions.tiers.listAll({ limit: 100 } as never);
    assert.equal(all.total, 14);
    assert.equal(all.tiers.length, 14);
    assert.equal(all.has_more, false);
    // Oldest first by default.
    assert.equal(all.tiers[0].name, 'plain');

    const available: Json = await sdk.promotions.tiers.listAll({ is_available: true, limit: 100 } as never);
    // Monday is the closed half of the odd-days timeframe (open 1 March, closed 2 March, open 3 March …).
    assert.deepEqual(available.tiers.map((tier: Json) => tier.name).sort(), ['dated', 'in running campaign', 'monday', 'morning', 'plain']);
    assert.equal(available.total, 5);

    const page: Json = await sdk.promotions.tiers.listAll({ is_available: true, limit: 4, page: 2 } as never);
    assert.equal(page.tiers.length, 1);
    assert.equal(page.total, 5);
    assert.equal(page.has_more, false);
    const firstPage = await t.request('GET', '/v1/promotions/tiers?is_available=true&limit=4&page=1&order=-created_at', { headers: t.serverHeaders(keys) });
    assert.equal(firstPage.body.has_more, true);
    assert.equal(firstPage.body.tiers[0].name, 'in running campaign');
    const beyond = await t.request('GET', '/v1/promotions/tiers?limit=10&page=5', { headers: t.serverHeaders(keys) });
    assert.equal(beyond.status, 200);
    assert.deepEqual(beyond.body.tiers, []);
    assert.equal(beyond.body.has_more, false);

    // updated_at ordering puts the last change first with -updated_at.
    await t.request('PUT', `/v1/promotions/tiers/${open.promotion.tiers[4].id}`, { headers: t.serverHeaders(keys), json: { banner: 'touched' } });
    const byUpdate = await t.request('GET', '/v1/promotions/tiers?order=-updated_at&limit=1', { headers: t.serverHeaders(keys) });
    assert.equal(byUpdate.body.tiers[0].name, 'monday');

    // Later the same day the morning window has closed and the evening one opened.
    t.clock.set('2026-03-02T19:00:00.000Z');
    try {
      const evening: Json = await sdk.promotions.tiers.listAll({ is_available: true, limit: 100 } as never);
      const names = evening.tiers.map((tier: Json) => tier.name);
      assert.ok(names.includes('evening'));
      assert.ok(!names.includes('morning'));
      // On Tuesday the odd-days timeframe is open again; the Monday tiers and the dated one are not.
      t.clock.set('2026-03-03T12:00:00.000Z');
      const tuesday: Json = await sdk.promotions.tiers.listAll({ is_available: true, limit: 100 } as never);
      assert.deepEqual(tuesday.tiers.map((tier: Json) => tier.name).sort(), ['in running campaign', 'odd days', 'plain']);
    } finally {
      t.clock.set('2026-03-02T10:00:00.000Z');
    }

    for (const query of ['limit=0', 'limit=101', 'page=0', 'page=101', 'order=name', 'is_available=maybe']) {
      const bad = await t.request('GET', `/v1/promotions/tiers?${query}`, { headers: t.serverHeaders(keys) });
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.key, 'invalid_query_params', query);
    }
  });

  test('days and hours are read in the project time zone', async () => {
    const kiribati = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Kiribati shop', case_sensitive_codes: false, timezone: 'Pacific/Kiritimati', currency: 'USD' },
    });
    const sdk = t.sdk(kiribati.body.server_side_key);
    // Monday 10:00 UTC is Tuesday 00:00 at UTC+14.
    await sdk.promotions.create({
      name: 'Local days',
      campaign_type: 'PROMOTION',
      promotion: { tiers: [{ name: 'tuesday', validity_day_of_week: [2] }, { name: 'monday', validity_day_of_week: [1] }] },
    } as never);
    const available: Json = await sdk.promotions.tiers.listAll({ is_available: true } as never);
    assert.deepEqual(
      available.tiers.map((tier: Json) => tier.name),
      ['tuesday'],
    );
  });

  test('a deleted campaign takes its tiers out of every read', async () => {
    const created = await promotion('Short-lived promo', [{ name: 'Vanishing' }]);
    const id = created.promotion.tiers[0].id;
    const before = await t.sdk().promotions.tiers.listAll({ limit: 100 } as never);
    assert.ok((before as Json).tiers.some((tier: Json) => tier.id === id));
    await t.sdk().campaigns.delete(created.id);
    assert.equal((await t.request('GET', `/v1/promotions/tiers/${id}`)).status, 404);
    const after: Json = await t.sdk().promotions.tiers.listAll({ limit: 100 } as never);
    assert.ok(!after.tiers.some((tier: Json) => tier.id === id));
    assert.equal(after.total, (before as Json).total - 1);
  });

  test("another project's keys cannot see or change a tier", async () => {
    const created = await promotion('Private promo', [{ name: 'Mine' }]);
    const id = created.promotion.tiers[0].id;
    const other = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Intruder', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const headers = t.serverHeaders(other.body.server_side_key);
    assert.equal((await t.request('GET', `/v1/promotions/tiers/${id}`, { headers })).status, 404);
    assert.equal((await t.request('PUT', `/v1/promotions/tiers/${id}`, { headers, json: { name: 'Stolen' } })).status, 404);
    assert.equal((await t.request('DELETE', `/v1/promotions/tiers/${id}`, { headers })).status, 404);
    assert.equal((await t.request('POST', `/v1/promotions/tiers/${id}/disable`, { headers, json: {} })).status, 404);
    assert.equal((await t.request('GET', `/v1/promotions/${created.id}/tiers`, { headers })).status, 404);
    assert.equal((await t.request('POST', `/v1/promotions/${created.id}/tiers`, { headers, json: { name: 'Planted' } })).status, 404);
    const list = await t.request('GET', '/v1/promotions/tiers', { headers });
    assert.equal(list.body.total, 0);
    const mine: Json = await t.sdk().promotions.tiers.get(id);
    assert.equal(mine.name, 'Mine');
    assert.equal(mine.active, true);
    assert.equal(await tierCount(created.id), 1);
  });
});
