import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deleteCampaignPromotions } from '../../src/store/promotion-tiers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Promotion stacks (promotions reference 4.3; seed part 6 `campaign.promotion_stack.*`).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const STACK_FIELDS = ['campaign_id', 'categories', 'category_id', 'created_at', 'id', 'name', 'object', 'tiers', 'updated_at'].sort();

describe('promotion stacks', () => {
  let t: TestApp;
  let campaign: Json;
  let tierIds: string[];
  let otherCampaign: Json;

  before(async () => {
    t = await startTestApp();
    campaign = await t.sdk().promotions.create({
      name: 'Stackable promo',
      campaign_type: 'PROMOTION',
      promotion: { tiers: Array.from({ length: 32 }, (_, i) => ({ name: `Tier ${i + 1}`, action: { discount: { type: 'AMOUNT', amount_off: 100 * (i + 1) } } })) },
    } as never);
    tierIds = campaign.promotion.tiers.map((tier: Json) => tier.id);
    otherCampaign = await t.sdk().promotions.create({ name: 'Other promo', campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'Foreign' }] } } as never);
  });
  after(async () => t.close());

  async function eventsOf(type: string, entityId: string): Promise<Json[]> {
    const rows = await t.deps.db.selectFrom('events').selectAll().where('type', '=', type).where('entity_id', '=', entityId).orderBy('seq').execute();
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
  }

  async function stackCount(): Promise<number> {
    const row = await t.deps.db.selectFrom('promotion_stacks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  test('create, get, list in campaign, update and delete through the SDK', async () => {
    const ids = [tierIds[2], tierIds[0], tierIds[1]] as string[];
    const created: Json = await t.sdk().promotions.stack.createInCampaign(campaign.id, { name: 'Three tiers', tiers: { ids, hierarchy_mode: 'MANUAL' } });
    assert.match(created.id, /^stack_/);
    assert.deepEqual(Object.keys(created).sort(), STACK_FIELDS);
    assert.equal(created.object, 'promotion_stack');
    assert.equal(created.campaign_id, campaign.id);
    // Application order is the order given, not the tiers' hierarchy.
    assert.deepEqual(created.tiers, { ids, hierarchy_mode: 'MANUAL' });
    assert.equal(created.category_id, null);
    assert.deepEqual(created.categories, []);
    assert.equal(created.updated_at, null);

    const fetched: Json = await t.sdk().promotions.stack.get(campaign.id, created.id);
    assert.deepEqual(fetched, created);
    const byName = await t.request('GET', `/v1/promotions/Stackable%20promo/stacks/${created.id}`);
    assert.equal(byName.body.id, created.id);

    const list: Json = await t.sdk().promotions.stack.listInCampaign(campaign.id);
    assert.equal(list.object, 'list');
    assert.equal(list.data_ref, 'data');
    assert.equal(list.total, 1);
    assert.equal(list.data[0].id, created.id);

    const category: Json = await t.sdk().categories.create({ name: 'Stacks', hierarchy: 2 } as never);
    const renamed: Json = await t.sdk().promotions.stack.update(campaign.id, created.id, { name: 'Renamed', category_id: category.id });
    assert.equal(renamed.name, 'Renamed');
    assert.deepEqual(renamed.tiers.ids, ids);
    assert.equal(renamed.category_id, category.id);
    assert.equal(renamed.categories[0].name, 'Stacks');
    assert.ok(renamed.updated_at);
    const retiered: Json = await t.sdk().promotions.stack.update(campaign.id, created.id, { name: 'Renamed', tiers: { ids: [tierIds[4] as string] } });
    assert.deepEqual(retiered.tiers, { ids: [tierIds[4]], hierarchy_mode: 'MANUAL' });

    const createdEvents = await eventsOf('campaign.promotion_stack.created', created.id);
    assert.equal(createdEvents.length, 1);
    assert.equal(createdEvents[0].data.promotion_stack.id, created.id);
    assert.equal(createdEvents[0].data.campaign.id, campaign.id);
    const updatedEvents = await eventsOf('campaign.promotion_stack.updated', created.id);
    assert.equal(updatedEvents.length, 2);
    assert.deepEqual(updatedEvents[1].data.promotion_stack.tiers.ids, [tierIds[4]]);

    assert.equal(await t.sdk().promotions.stack.delete(campaign.id, created.id), '');
    const gone = await t.request('GET', `/v1/promotions/${campaign.id}/stacks/${created.id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.resource_type, 'promotion_stack');
    assert.equal((await eventsOf('campaign.promotion_stack.deleted', created.id)).length, 1);
    assert.equal((await t.request('DELETE', `/v1/promotions/${campaign.id}/stacks/${created.id}`)).status, 404);
    const rows = await t.deps.db.selectFrom('promotion_stack_tiers').selectAll().where('stack_id', '=', created.id).execute();
    assert.equal(rows.length, 0);
  });

  test('tiers.ids holds 1 to 30 distinct tiers of the campaign; unknown campaign or tier is 404', async () => {
    const before = await stackCount();
    const thirty = await t.request('POST', `/v1/promotions/${campaign.id}/stacks`, { json: { name: 'Thirty', tiers: { ids: tierIds.slice(0, 30) } } });
    assert.equal(thirty.status, 200);
    assert.equal(thirty.body.tiers.ids.length, 30);

    const cases: Array<[string, Json, number, string, RegExp]> = [
      [campaign.id, { name: 'Too many', tiers: { ids: tierIds.slice(0, 31) } }, 400, 'invalid_payload', /tiers\.ids/],
      [campaign.id, { name: 'Empty', tiers: { ids: [] } }, 400, 'invalid_payload', /tiers\.ids/],
      [campaign.id, { name: 'Twice', tiers: { ids: [tierIds[0], tierIds[1], tierIds[0]] } }, 400, 'invalid_payload', /tiers\.ids\[2\].*twice/],
      [campaign.id, { name: 'Auto', tiers: { ids: [tierIds[0]], hierarchy_mode: 'AUTO' } }, 400, 'invalid_payload', /hierarchy_mode/],
      [campaign.id, { tiers: { ids: [tierIds[0]] } }, 400, 'invalid_payload', /name/],
      [campaign.id, { name: 'No tiers' }, 400, 'invalid_payload', /tiers/],
      [campaign.id, { name: 'Unknown tier', tiers: { ids: [tierIds[0], 'promo_missing'] } }, 404, 'not_found', /promo_missing/],
      [campaign.id, { name: 'Foreign tier', tiers: { ids: [otherCampaign.promotion.tiers[0].id] } }, 404, 'not_found', /promotion_tier/],
      [campaign.id, { name: 'Bad category', tiers: { ids: [tierIds[0]] }, category_id: 'cat_missing' }, 404, 'not_found', /category/],
      ['camp_missing', { name: 'No campaign', tiers: { ids: [tierIds[0]] } }, 404, 'not_found', /campaign/],
    ];
    for (const [campaignId, body, status, key, details] of cases) {
      const res = await t.request('POST', `/v1/promotions/${campaignId}/stacks`, { json: body });
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.match(res.body.details, details, res.text);
    }
    assert.equal(await stackCount(), before + 1);

    // A refused update changes nothing either.
    const badUpdate = await t.request('PUT', `/v1/promotions/${campaign.id}/stacks/${thirty.body.id}`, {
      json: { name: 'Changed', tiers: { ids: ['promo_missing'] } },
    });
    assert.equal(badUpdate.status, 404);
    const unchanged: Json = await t.sdk().promotions.stack.get(campaign.id, thirty.body.id);
    assert.equal(unchanged.name, 'Thirty');
    assert.equal(unchanged.tiers.ids.length, 30);
    // A stack is reached through its own campaign only.
    assert.equal((await t.request('GET', `/v1/promotions/${otherCampaign.id}/stacks/${thirty.body.id}`)).status, 404);
  });

  test('a tier a stack applies cannot be deleted until the stack lets it go', async () => {
    const stack: Json = await t.sdk().promotions.stack.createInCampaign(campaign.id, { name: 'Guarding', tiers: { ids: [tierIds[31] as string] } });
    const refused = await t.request('DELETE', `/v1/promotions/tiers/${tierIds[31]}`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'resource_in_use');
    assert.match(refused.body.details, new RegExp(stack.id));
    assert.equal((await t.request('GET', `/v1/promotions/tiers/${tierIds[31]}`)).status, 200);
    await t.sdk().promotions.stack.update(campaign.id, stack.id, { name: 'Guarding', tiers: { ids: [tierIds[30] as string] } });
    assert.equal((await t.request('DELETE', `/v1/promotions/tiers/${tierIds[31]}`)).status, 204);
  });

  test('GET /v1/promotions/stacks pages, orders by name or date, and filters by created_at and updated_at', async () => {
    const project = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Stack listing', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const sdk = t.sdk(project.body.server_side_key);
    const headers = t.serverHeaders(project.body.server_side_key);
    const promo: Json = await sdk.promotions.create({ name: 'P', campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'a' }, { name: 'b' }] } } as never);
    const ids = [promo.promotion.tiers[0].id];
    t.clock.set('2026-03-05T10:00:00.000Z');
    const banana: Json = await sdk.promotions.stack.createInCampaign(promo.id, { name: 'banana', tiers: { ids } });
    t.clock.set('2026-03-06T10:00:00.000Z');
    const apple: Json = await sdk.promotions.stack.createInCampaign(promo.id, { name: 'apple', tiers: { ids } });
    t.clock.set('2026-03-07T10:00:00.000Z');
    const cherry: Json = await sdk.promotions.stack.createInCampaign(promo.id, { name: 'Cherry', tiers: { ids } });
    t.clock.set('2026-03-08T10:00:00.000Z');
    await sdk.promotions.stack.update(promo.id, banana.id, { name: 'banana' });

    const newest: Json = await sdk.promotions.stack.list();
    assert.deepEqual(
      newest.data.map((s: Json) => s.name),
      ['Cherry', 'apple', 'banana'],
    );
    assert.equal(newest.total, 3);
    const byName: Json = await sdk.promotions.stack.list({ order: 'name' });
    // Names sort by their bytes: upper case first, on both databases.
    assert.deepEqual(
      byName.data.map((s: Json) => s.name),
      ['Cherry', 'apple', 'banana'],
    );
    const byNameDesc = await t.request('GET', '/v1/promotions/stacks?order=-name', { headers });
    assert.deepEqual(
      byNameDesc.body.data.map((s: Json) => s.name),
      ['banana', 'apple', 'Cherry'],
    );
    const lastChanged = await t.request('GET', '/v1/promotions/stacks?order=-updated_at&limit=1', { headers });
    assert.equal(lastChanged.body.data[0].id, banana.id);
    assert.equal(lastChanged.body.total, 3);
    const page = await t.request('GET', '/v1/promotions/stacks?order=created_at&limit=2&page=2', { headers });
    assert.deepEqual(
      page.body.data.map((s: Json) => s.id),
      [cherry.id],
    );
    const after: Json = await sdk.promotions.stack.list({ order: 'created_at', created_at: { after: '2026-03-05' } });
    assert.deepEqual(
      after.data.map((s: Json) => s.id),
      [banana.id, apple.id, cherry.id],
    );
    const window = await t.request('GET', '/v1/promotions/stacks?order=created_at&created_at[after]=2026-03-05T10:00:00.000Z&created_at[before]=2026-03-07T00:00:00Z', { headers });
    assert.deepEqual(
      window.body.data.map((s: Json) => s.id),
      [apple.id],
    );
    const updatedAfter = await t.request('GET', '/v1/promotions/stacks?updated_at[after]=2026-03-07T12:00:00Z', { headers });
    assert.deepEqual(
      updatedAfter.body.data.map((s: Json) => s.id),
      [banana.id],
    );
    for (const query of ['limit=0', 'limit=101', 'page=0', 'order=hierarchy', 'created_at[after]=yesterday']) {
      const bad = await t.request('GET', `/v1/promotions/stacks?${query}`, { headers });
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.key, 'invalid_query_params', query);
    }
    // The default project's stacks are not listed here.
    assert.ok(!newest.data.some((s: Json) => s.campaign_id === campaign.id));
  });

  test("another project's keys cannot see or change a stack", async () => {
    const stack: Json = await t.sdk().promotions.stack.createInCampaign(campaign.id, { name: 'Private stack', tiers: { ids: [tierIds[0] as string] } });
    const other = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Stack intruder', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const headers = t.serverHeaders(other.body.server_side_key);
    const path = `/v1/promotions/${campaign.id}/stacks/${stack.id}`;
    assert.equal((await t.request('GET', path, { headers })).status, 404);
    assert.equal((await t.request('PUT', path, { headers, json: { name: 'Stolen' } })).status, 404);
    assert.equal((await t.request('DELETE', path, { headers })).status, 404);
    assert.equal((await t.request('GET', `/v1/promotions/${campaign.id}/stacks`, { headers })).status, 404);
    assert.equal((await t.request('POST', `/v1/promotions/${campaign.id}/stacks`, { headers, json: { name: 'x', tiers: { ids: [tierIds[0]] } } })).status, 404);
    assert.equal((await t.request('GET', '/v1/promotions/stacks', { headers })).body.total, 0);
    // With their own campaign, our tiers are still unknown.
    const theirs: Json = await t.sdk(other.body.server_side_key).promotions.create({ name: 'Theirs', campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 't' }] } } as never);
    const planted = await t.request('POST', `/v1/promotions/${theirs.id}/stacks`, { headers, json: { name: 'x', tiers: { ids: [tierIds[0]] } } });
    assert.equal(planted.status, 404);
    assert.equal(planted.body.resource_type, 'promotion_tier');
    assert.equal((await t.sdk().promotions.stack.get(campaign.id, stack.id)).name, 'Private stack');
  });

  test('a deleted campaign takes its stacks out of every read', async () => {
    const promo: Json = await t.sdk().promotions.create({ name: 'Fleeting promo', campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'f' }] } } as never);
    const stack: Json = await t.sdk().promotions.stack.createInCampaign(promo.id, { name: 'Fleeting stack', tiers: { ids: [promo.promotion.tiers[0].id] } });
    await t.sdk().campaigns.delete(promo.id);
    assert.equal((await t.request('GET', `/v1/promotions/${promo.id}/stacks/${stack.id}`)).status, 404);
    const all: Json = await t.sdk().promotions.stack.list({ limit: 100 });
    assert.ok(!all.data.some((s: Json) => s.id === stack.id));
    // Deleting the campaign for good (the delete job) takes its tiers and stacks with it, nothing else.
    const count = async (table: 'promotion_tiers' | 'promotion_stacks' | 'promotion_stack_tiers') =>
      Number((await t.deps.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = { tiers: await count('promotion_tiers'), stacks: await count('promotion_stacks'), links: await count('promotion_stack_tiers') };
    assert.equal(await deleteCampaignPromotions(t.deps.db, t.projectId, promo.id), 1);
    assert.deepEqual(
      { tiers: await count('promotion_tiers'), stacks: await count('promotion_stacks'), links: await count('promotion_stack_tiers') },
      { tiers: before.tiers - 1, stacks: before.stacks - 1, links: before.links - 1 },
    );
    assert.equal((await t.sdk().promotions.tiers.get(tierIds[0] as string)).id, tierIds[0]);
  });
});
