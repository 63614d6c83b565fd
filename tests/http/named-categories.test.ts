import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadVendorOpenApi, vendorOpenApiPath } from '../../scripts/lib/vendor-openapi.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// A category named by name (`category` in voucher, campaign, promotion tier and import bodies) is a
// free-form category: a name the project does not have yet creates it, once, in the transaction of the
// request that names it (with its `category.created` event); `category_id` names an existing category
// and stays 404 when unknown. Driven by the SDK where it has the call.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function rejection(call: Promise<unknown>): Promise<Json> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  return assert.fail('expected the call to fail');
}

const discount = { type: 'AMOUNT', amount_off: 100 };

describe('categories named by name', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function categoriesNamed(name: string): Promise<Array<{ id: string; hierarchy: number }>> {
    return t.deps.db.selectFrom('categories').select(['id', 'hierarchy']).where('project_id', '=', t.projectId).where('name', '=', name).execute();
  }

  async function createdEvents(name: string): Promise<Array<{ entity_id: string | null; group_id: string }>> {
    return t.deps.db.selectFrom('events').select(['entity_id', 'group_id']).where('type', '=', 'category.created').where('category_name', '=', name).orderBy('seq').execute();
  }

  async function categoryCount(): Promise<number> {
    return (await t.sdk().categories.list()).total;
  }

  test("the vendor's create-voucher examples, as they are, create each category they name once and share it", { skip: vendorOpenApiPath() === null && 'the vendor OpenAPI document is not on this machine' }, async () => {
    const vendor = loadVendorOpenApi();
    const examplesOf = (path: string): Json[] =>
      Object.values(vendor.paths[path]?.post?.requestBody?.content?.['application/json']?.examples ?? {}).map((example) => example.value);
    const standalone = (body: Json) => body.campaign === undefined && body.campaign_id === undefined && body.validation_rules === undefined;
    const generated = examplesOf('/v1/vouchers');
    const withCode = examplesOf('/v1/vouchers/{code}');
    assert.ok(generated.filter(standalone).length >= 2 && withCode.filter(standalone).length >= 2, 'the vendor document has examples naming no campaign and no rule');
    const names = [...new Set([...generated, ...withCode].map((body) => body.category as string))];
    for (const name of names) assert.deepEqual(await categoriesNamed(name), [], `${name} does not exist yet`);

    const made: Array<[string, Json]> = [];
    for (const body of generated.filter(standalone)) made.push([body.category, await t.sdk().vouchers.create(body)]);
    for (const [i, body] of withCode.filter(standalone).entries()) {
      const res = await t.request('POST', `/v1/vouchers/EXAMPLE-${i}`, { json: body });
      assert.equal(res.status, 200, res.text);
      made.push([body.category, res.body]);
    }
    for (const name of names) {
      const [category, ...more] = await categoriesNamed(name);
      assert.ok(category, `${name} exists`);
      assert.deepEqual(more, [], `${name} exists once`);
      assert.equal(category.hierarchy, 1);
      const events = await createdEvents(name);
      assert.deepEqual(events.map((e) => e.entity_id), [category.id]);
      for (const [named, voucher] of made.filter(([named]) => named === name)) {
        assert.equal(voucher.category, named);
        assert.equal(voucher.category_id, category.id);
        assert.deepEqual(voucher.categories.map((c: Json) => [c.id, c.name, c.hierarchy, c.object]), [[category.id, name, 1, 'category']]);
      }
    }

    // The example that adds a voucher to a campaign with a rule, both of the vendor's own project: 404 for
    // the campaign and nothing created; with this project's campaign and rule instead, it is created.
    const withCampaign = generated.find((body) => body.campaign_id !== undefined && body.type === 'DISCOUNT_VOUCHER');
    assert.ok(withCampaign, 'an example adds a discount voucher to a campaign');
    const count = await categoryCount();
    const missing = await rejection(t.sdk().vouchers.create(withCampaign));
    assert.equal(missing.code, 404);
    assert.equal(missing.resource_type, 'campaign');
    assert.equal(await categoryCount(), count);
    const campaign: Json = await t.sdk().campaigns.create({ name: 'Examples campaign', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 0, voucher: { type: 'DISCOUNT_VOUCHER', discount } } as never);
    const rule: Json = await t.sdk().validationRules.create({ name: 'Examples rule', rules: { 1: { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1' } } as never);
    const joined: Json = await t.sdk().vouchers.create({ ...withCampaign, campaign_id: campaign.id, validation_rules: [rule.id] });
    assert.equal(joined.campaign_id, campaign.id);
    assert.equal(joined.category_id, (await categoriesNamed(withCampaign.category))[0]?.id);
    assert.equal(await categoryCount(), count);
  });

  test('a new name creates the category with the voucher; the answer shows its name, id and object; the next voucher reuses it', async () => {
    const before = await categoryCount();
    const first: Json = await t.sdk().vouchers.create({ code: 'NAMED-1', type: 'DISCOUNT_VOUCHER', discount, category: 'Weekend' } as never);
    const [category] = await categoriesNamed('Weekend');
    assert.ok(category);
    assert.equal(first.category, 'Weekend');
    assert.equal(first.category_id, category.id);
    assert.deepEqual(Object.keys(first.categories[0]).sort(), ['created_at', 'hierarchy', 'id', 'name', 'object']);
    assert.deepEqual(await t.sdk().categories.get(category.id), first.categories[0]);
    assert.equal(await categoryCount(), before + 1);

    const second: Json = await t.sdk().vouchers.create({ code: 'NAMED-2', type: 'DISCOUNT_VOUCHER', discount, category: 'Weekend' } as never);
    assert.equal(second.category_id, category.id);
    assert.equal(await categoryCount(), before + 1);

    // The category.created event belongs to the request that named the category, beside its voucher.created.
    const [event] = await createdEvents('Weekend');
    const voucherCreated = await t.deps.db.selectFrom('events').select('group_id').where('type', '=', 'voucher.created').where('entity_id', '=', first.id).executeTakeFirstOrThrow();
    assert.equal(event?.group_id, voucherCreated.group_id);
    assert.equal((await createdEvents('Weekend')).length, 1);

    // Update: a new name creates it too; the voucher moves to it.
    const moved: Json = await t.sdk().vouchers.update({ code: 'NAMED-2', category: 'Weekday' } as never);
    const [weekday] = await categoriesNamed('Weekday');
    assert.equal(moved.category_id, weekday?.id);
    assert.equal(moved.category, 'Weekday');
    // A name that is another category's id is taken as that category.
    const byId: Json = await t.sdk().vouchers.update({ code: 'NAMED-2', category: category.id } as never);
    assert.equal(byId.category_id, category.id);
    assert.deepEqual(await categoriesNamed(category.id), []);
  });

  test('ten vouchers and campaigns created at once naming one new category end with one category', async () => {
    const vouchers = Array.from({ length: 6 }, (_, i) =>
      t.sdk().vouchers.create({ code: `RUSH-${i}`, type: 'DISCOUNT_VOUCHER', discount, category: 'Rush hour' } as never),
    );
    const campaigns = Array.from({ length: 4 }, (_, i) =>
      t.sdk().campaigns.create({ name: `Rush ${i}`, campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 1, voucher: { type: 'DISCOUNT_VOUCHER', discount }, category: 'Rush hour' } as never),
    );
    const answers: Json[] = await Promise.all([...vouchers, ...campaigns]);
    const rows = await categoriesNamed('Rush hour');
    assert.equal(rows.length, 1);
    assert.deepEqual(new Set(answers.map((a) => a.category_id)), new Set([rows[0]?.id]));
    assert.equal((await createdEvents('Rush hour')).length, 1);
  });

  test('campaigns, their vouchers and promotion tiers take a new name too', async () => {
    const campaign: Json = await t.sdk().campaigns.create({
      name: 'Spring sale',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 2,
      voucher: { type: 'DISCOUNT_VOUCHER', discount },
      category: 'Spring',
    } as never);
    const [spring] = await categoriesNamed('Spring');
    assert.ok(spring);
    assert.equal(campaign.category, 'Spring');
    assert.equal(campaign.category_id, spring.id);
    assert.deepEqual(campaign.categories.map((c: Json) => c.name), ['Spring']);
    const generated: Json = await t.sdk().vouchers.list({ campaign_id: campaign.id } as never);
    assert.deepEqual(generated.vouchers.map((v: Json) => v.category), ['Spring', 'Spring']);

    const updated: Json = await t.sdk().campaigns.update(campaign.id, { category: 'Summer' } as never);
    assert.equal(updated.category_id, (await categoriesNamed('Summer'))[0]?.id);

    const added: Json = await t.sdk().campaigns.addCertainVoucher(campaign.id, 'SPRING-EXTRA', { category: 'Extras' } as never);
    assert.equal(added.category, 'Extras');
    assert.equal((await categoriesNamed('Extras')).length, 1);

    const promotion: Json = await t.sdk().promotions.create({
      name: 'Tiered',
      campaign_type: 'PROMOTION',
      promotion: { tiers: [{ name: 'Gold', action: { discount }, category: 'Tiers' }, { name: 'Silver', action: { discount }, category: 'Tiers' }] },
    } as never);
    const [tiersCategory] = await categoriesNamed('Tiers');
    assert.ok(tiersCategory);
    assert.deepEqual(promotion.promotion.tiers.map((tier: Json) => tier.category_id), [tiersCategory.id, tiersCategory.id]);
    const tier: Json = await t.sdk().promotions.tiers.create(promotion.id, { name: 'Bronze', action: { discount }, category: 'Bronze tier' } as never);
    assert.equal(tier.category_id, (await categoriesNamed('Bronze tier'))[0]?.id);
    assert.deepEqual(tier.categories.map((c: Json) => c.name), ['Bronze tier']);
    assert.equal((await createdEvents('Tiers')).length, 1);
  });

  test('an unknown category_id is still 404, also beside a name (category_id wins), and creates nothing', async () => {
    const before = await categoryCount();
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['voucher', () => t.sdk().vouchers.create({ code: 'NO-CAT', type: 'DISCOUNT_VOUCHER', discount, category_id: 'cat_missing' } as never)],
      ['voucher beside a name', () => t.sdk().vouchers.create({ code: 'NO-CAT', type: 'DISCOUNT_VOUCHER', discount, category_id: 'cat_missing', category: 'Beside' } as never)],
      ['campaign', () => t.sdk().campaigns.create({ name: 'No cat', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount }, category_id: 'cat_missing', category: 'Beside' } as never)],
    ];
    for (const [what, call] of cases) {
      const error = await rejection(call());
      assert.equal(error.code, 404, what);
      assert.equal(error.key, 'not_found', what);
      assert.equal(error.resource_type, 'category', what);
      assert.equal(error.resource_id, 'cat_missing', what);
    }
    const imported = await t.request('POST', '/v1/vouchers/import', { json: [{ code: 'NO-CAT-IMP', gift: { amount: 1 }, category_id: 'cat_missing' }] });
    assert.equal(imported.status, 404, imported.text);
    assert.equal(await categoryCount(), before);
    assert.deepEqual(await categoriesNamed('Beside'), []);
    assert.equal((await t.request('GET', '/v1/vouchers/NO-CAT')).status, 404);
  });

  test('a request that fails after naming a new category leaves no category and no event', async () => {
    await t.sdk().vouchers.create({ code: 'TAKEN', type: 'DISCOUNT_VOUCHER', discount } as never);
    await t.sdk().campaigns.create({ name: 'Taken name', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 0, voucher: { type: 'DISCOUNT_VOUCHER', discount } } as never);
    // A voucher metadata schema, so that an update fails on its metadata, which is checked after its category.
    const schemas = `/management/v1/projects/${t.projectId}/metadata-schemas`;
    const schema = await t.request('POST', schemas, { headers: t.managementHeaders(), json: { related_object: 'voucher', properties: { batch: { type: 'number', optional: true } } } });
    assert.equal(schema.status, 200, schema.text);
    const before = await categoryCount();
    const failures: Array<[string, () => Promise<unknown>, number]> = [
      ['unknown validation rule', () => t.sdk().vouchers.create({ code: 'RB-1', type: 'DISCOUNT_VOUCHER', discount, category: 'Rolled back', validation_rules: ['val_missing'] } as never), 404],
      ['code in use', () => t.sdk().vouchers.create({ code: 'TAKEN', type: 'DISCOUNT_VOUCHER', discount, category: 'Rolled back' } as never), 409],
      ['campaign name in use', () => t.sdk().campaigns.create({ name: 'Taken name', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount }, category: 'Rolled back' } as never), 409],
      ['metadata the schema refuses', () => t.sdk().vouchers.update({ code: 'TAKEN', category: 'Rolled back', metadata: { batch: 'first' } } as never), 400],
    ];
    for (const [what, call, status] of failures) {
      const error = await rejection(call());
      assert.equal(error.code, status, `${what}: ${JSON.stringify(error)}`);
    }
    assert.equal((await t.request('DELETE', `${schemas}/${schema.body.id}`, { headers: t.managementHeaders() })).status, 204);
    assert.equal(await categoryCount(), before);
    assert.deepEqual(await categoriesNamed('Rolled back'), []);
    assert.deepEqual(await createdEvents('Rolled back'), []);
    assert.equal((await t.request('GET', '/v1/vouchers/RB-1')).status, 404);
  });

  test('a name longer than a category name may be is 400 and creates nothing', async () => {
    const before = await categoryCount();
    const long = 'x'.repeat(201);
    const res = await t.request('POST', '/v1/vouchers/LONG-NAME', { json: { type: 'DISCOUNT_VOUCHER', discount, category: long } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.key, 'invalid_payload');
    assert.match(res.body.details, /\.category/);
    assert.equal(await categoryCount(), before);
  });

  test('voucher imports create a category named by a new name once, as their chunk is imported', async () => {
    const res = await t.request('POST', '/v1/vouchers/import', {
      json: [
        { code: 'IMP-CAT-1', gift: { amount: 100 }, category: 'Imported' },
        { code: 'IMP-CAT-2', gift: { amount: 100 }, category: 'Imported' },
        { code: 'IMP-CAT-3', gift: { amount: 100 } },
      ],
    });
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(await categoriesNamed('Imported'), [], 'nothing is created before the job runs');
    while (await t.worker.runOnce()) {
      // run the import
    }
    const done = await t.request('GET', `/v1/async-actions/${res.body.async_action_id}`);
    assert.equal(done.body.result.done_count, 3, done.text);
    const [imported] = await categoriesNamed('Imported');
    assert.ok(imported);
    const codes = await Promise.all(['IMP-CAT-1', 'IMP-CAT-2', 'IMP-CAT-3'].map((code) => t.sdk().vouchers.get(code)));
    assert.deepEqual(codes.map((v: Json) => v.category_id), [imported.id, imported.id, null]);
    assert.equal((await createdEvents('Imported')).length, 1);
  });
});
