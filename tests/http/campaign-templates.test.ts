import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertVendorResponse, vendorRequestExamples, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// Campaign templates (vendor /v1/templates/campaigns…, management list and copy): a campaign's (or a
// promotion tier's) configuration with its validation rules, from which campaigns and promotion tiers
// are made again, each in one transaction with copies of the rules. No SDK call exists: plain fetch.

// Vendor schema defects the answers deliberately differ from:
// - the template list schema requires a member `campaign_template` that neither its `data` nor its example
//   (`campaign_templates`) has; the list answers `data` as the schema's members and data_ref say;
// - the tier-setup answer's schema requires `campaign` (copied from campaign-setup); the answer carries
//   `promotion_tier` as its members and example say.
const LIST_DEFECT = ["(answer) must have required property 'campaign_template'"];
const TIER_SETUP_DEFECT = ["(answer) must have required property 'campaign'"];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('campaign templates', () => {
  let t: TestApp;
  let other: { id: string; headers: Record<string, string> };
  let source: Json;
  let rule: Json;
  let promotion: Json;
  let template: Json;

  const checked = (method: string, path: string, body: unknown, ignoring: readonly string[] = []) => {
    if (vendorSchemasAvailable) assertVendorResponse(method, path, body, { ignoring });
  };
  const example = (method: string, path: string, fallback: Record<string, unknown>) => (vendorSchemasAvailable ? (vendorRequestExamples(method, path).Example as Json) : fallback);

  before(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    other = { id: created.body.id, headers: t.serverHeaders(created.body.server_side_key) };
    rule = await t.sdk().validationRules.create({
      name: 'Min order',
      type: 'basic',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [1000] }, rules: {} }, logic: '1' },
      error: { message: 'too small' },
    } as never);
    source = await t.sdk().campaigns.create({
      name: 'Winter',
      campaign_type: 'DISCOUNT_COUPONS',
      description: 'Winter 2024-25',
      vouchers_count: 1,
      validation_rules: [rule.id],
      metadata: { season: 'winter' },
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 2500 }, redemption: { quantity: 4 }, code_config: { pattern: 'W-####', charset: '0123456789' } },
    } as never);
    promotion = await t.sdk().promotions.create({
      name: 'Promo',
      campaign_type: 'PROMOTION',
      promotion: { tiers: [{ name: 'Ten off', banner: 'Ten off', action: { discount: { type: 'PERCENT', percent_off: 10 } }, validation_rules: [rule.id] }] },
    } as never);
  });
  after(async () => t.close());

  test('a template is made from a discount campaign (and from a promotion tier), in the vendor shape', async () => {
    const path = '/v1/templates/campaigns';
    const res = await t.request('POST', path, { json: { name: 'Winter template', description: 'New discount for Q4', campaign_id: source.id } });
    assert.equal(res.status, 200, res.text);
    checked('POST', path, res.body);
    template = res.body;
    assert.match(template.id, /^camp_tpl_/);
    assert.deepEqual(
      { name: template.name, description: template.description, campaign_type: template.campaign_type, object: template.object },
      { name: 'Winter template', description: 'New discount for Q4', campaign_type: 'DISCOUNT_COUPONS', object: 'campaign_template' },
    );
    const fromTier = await t.request('POST', path, { json: { name: 'Tier template', promotion_tier_id: promotion.promotion.tiers[0].id } });
    assert.equal(fromTier.status, 200, fromTier.text);
    assert.equal(fromTier.body.campaign_type, 'DISCOUNT_COUPONS');
    const gift: Json = await t.sdk().campaigns.create({ name: 'Gifts', campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } as never);
    const giftTemplate = await t.request('POST', path, { json: { name: 'Gift template', campaign_id: gift.name } });
    assert.equal(giftTemplate.body.campaign_type, 'GIFT_VOUCHERS', 'by campaign name too');
    const events = await t.deps.db.selectFrom('events').select('type').where('type', '=', 'campaign_template.created').execute();
    assert.equal(events.length, 3);
  });

  test('bad template requests: 400 / 404 / 409 in the standard body, nothing kept', async () => {
    const loyalty: Json = await t.sdk().loyalties.create({ name: 'Points', vouchers_count: 0, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    const theirs = await t.request('POST', '/v1/campaigns', {
      headers: other.headers,
      json: { name: 'Theirs', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } },
    });
    const count = async () => Number((await t.deps.db.selectFrom('campaign_templates').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const cases: Array<[unknown, number, string]> = [
      [{ name: 'No source' }, 400, 'invalid_payload'],
      [{ name: 'Both', campaign_id: source.id, promotion_tier_id: 'promo_x' }, 400, 'invalid_payload'],
      [{ campaign_id: source.id }, 400, 'invalid_payload'],
      [{ name: 'Loyal', campaign_id: loyalty.id }, 400, 'campaign_type_is_not_supported_by_campaign_template'],
      [{ name: 'Missing', campaign_id: 'camp_missing' }, 404, 'not_found'],
      [{ name: 'Foreign', campaign_id: theirs.body.id }, 404, 'not_found'],
      [{ name: 'Missing tier', promotion_tier_id: 'promo_missing' }, 404, 'not_found'],
      [{ name: 'Winter template', campaign_id: source.id }, 409, 'duplicate_found'],
    ];
    for (const [json, status, key] of cases) {
      const res = await t.request('POST', '/v1/templates/campaigns', { json });
      assert.equal(res.status, status, `${JSON.stringify(json)}: ${res.text}`);
      assert.equal(res.body.key, key);
      assert.equal(res.body.code, status);
      assert.ok(res.body.request_id);
    }
    assert.equal(await count(), before);
    assert.equal((await t.request('GET', `/v1/templates/campaigns/${template.id}`, { headers: other.headers })).status, 404);
  });

  test('the list pages by id, filters, counts on request; get, rename and delete', async () => {
    const path = '/v1/templates/campaigns';
    const first = await t.request('GET', `${path}?limit=2&include_total=true`);
    assert.equal(first.status, 200, first.text);
    checked('GET', path, first.body, LIST_DEFECT);
    assert.deepEqual(first.body.data.map((d: Json) => d.name), ['Winter template', 'Tier template']);
    assert.equal(first.body.total, 3);
    assert.equal(first.body.has_more, true);
    const rest = await t.request('GET', `${path}?starting_after_id=${first.body.more_starting_after}`);
    assert.deepEqual(rest.body.data.map((d: Json) => d.name), ['Gift template']);
    assert.equal(rest.body.total, undefined, 'no total unless asked');
    const gifts = await t.request('GET', `${path}?filters[campaign_type][conditions][$in][0]=GIFT_VOUCHERS`);
    assert.deepEqual(gifts.body.data.map((d: Json) => d.name), ['Gift template']);
    const newest = await t.request('GET', `${path}?order=-id&limit=1`);
    assert.equal(newest.body.data[0].name, 'Gift template');
    for (const query of ['?order=name', '?filters[vouchers][conditions][$is]=1', '?limit=101']) {
      assert.equal((await t.request('GET', `${path}${query}`)).body.key, 'invalid_query_params', query);
    }

    const got = await t.request('GET', `${path}/${template.id}`);
    checked('GET', '/v1/templates/campaigns/{campaignTemplateId}', got.body);
    assert.deepEqual(got.body, template);
    const renamed = await t.request('PUT', `${path}/${template.id}`, { json: { description: 'Renamed' } });
    checked('PUT', '/v1/templates/campaigns/{campaignTemplateId}', renamed.body);
    assert.deepEqual([renamed.body.name, renamed.body.description, typeof renamed.body.updated_at], ['Winter template', 'Renamed', 'string']);
    assert.equal((await t.request('PUT', `${path}/${template.id}`, { json: { name: 'Gift template' } })).status, 409);
    const gift = rest.body.data[0];
    assert.equal((await t.request('DELETE', `${path}/${gift.id}`)).status, 204);
    assert.equal((await t.request('GET', `${path}/${gift.id}`)).status, 404);
    assert.equal((await t.request('DELETE', `${path}/${gift.id}`)).status, 404);
  });

  test("campaign-setup with the vendor's example: a campaign with the template's configuration and a copy of its rule", async () => {
    const path = '/v1/templates/campaigns/{campaignTemplateId}/campaign-setup';
    const body = { ...example('POST', path, { name: 'Campaign-out-of-template', description: 'Created out of a template', auto_join: true, join_once: true }), vouchers_count: 3 };
    const res = await t.request('POST', `/v1/templates/campaigns/${template.id}/campaign-setup`, { json: body });
    assert.equal(res.status, 200, res.text);
    checked('POST', path, res.body);
    assert.equal(res.body.object, 'campaign_setup');
    const { campaign, created_resources: resources } = res.body;
    assert.equal(campaign.name, body.name);
    assert.equal(campaign.description, body.description, 'a member sent replaces the template');
    assert.equal(campaign.join_once, true);
    assert.deepEqual(campaign.metadata, { season: 'winter' }, 'the rest comes from the template');
    assert.equal(campaign.campaign_type, 'DISCOUNT_COUPONS');
    assert.deepEqual(campaign.voucher.discount, source.voucher.discount);
    assert.equal(campaign.voucher.redemption.quantity, 4);
    assert.equal(campaign.vouchers_count, 3);
    const codes: Json = await t.sdk().vouchers.list({ campaign: campaign.id } as never);
    assert.ok(codes.vouchers.every((v: Json) => /^W-\d{4}$/.test(v.code)), 'the code pattern comes from the template');
    assert.equal(resources.length, 1);
    assert.equal(resources[0].object, 'validation_rules');
    assert.notEqual(resources[0].id, rule.id, 'a copy, not the source campaign rule');
    assert.deepEqual(campaign.validation_rules_assignments.data.map((a: Json) => a.rule_id), [resources[0].id]);
    const copy: Json = await t.sdk().validationRules.get(resources[0].id);
    assert.deepEqual(copy.rules, rule.rules);
    assert.deepEqual(copy.error, rule.error);

    const override = await t.request('POST', `/v1/templates/campaigns/${template.id}/campaign-setup`, {
      json: { name: 'Overridden', voucher: { code_config: { pattern: 'O-##', charset: 'XY' }, redemption: { quantity: 1 } }, vouchers_count: 1 },
    });
    assert.equal(override.status, 200, override.text);
    assert.equal(override.body.campaign.voucher.redemption.quantity, 1);
    const [code] = ((await t.sdk().vouchers.list({ campaign: override.body.campaign.id } as never)) as Json).vouchers;
    assert.match(code.code, /^O-[XY]{2}$/);
  });

  test('campaign-setup with a taken name is 409 and leaves nothing behind; an unknown template is 404', async () => {
    const rulesBefore = Number((await t.deps.db.selectFrom('validation_rules').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const res = await t.request('POST', `/v1/templates/campaigns/${template.id}/campaign-setup`, { json: { name: 'Winter' } });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.key, 'duplicate_found');
    const rulesAfter = Number((await t.deps.db.selectFrom('validation_rules').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    assert.equal(rulesAfter, rulesBefore);
    assert.equal((await t.request('POST', '/v1/templates/campaigns/camp_tpl_missing/campaign-setup', { json: { name: 'X' } })).status, 404);
    assert.equal((await t.request('POST', `/v1/templates/campaigns/${template.id}/campaign-setup`, { json: { description: 'no name' } })).body.key, 'invalid_payload');
  });

  test("tier-setup: a promotion tier with the template's discount and a copy of its rule", async () => {
    const path = '/v1/templates/campaigns/{campaignTemplateId}/tier-setup';
    const res = await t.request('POST', `/v1/templates/campaigns/${template.id}/tier-setup`, { json: { campaign_id: promotion.id, name: 'From template', banner: 'Twenty-five off' } });
    assert.equal(res.status, 200, res.text);
    checked('POST', path, res.body, TIER_SETUP_DEFECT);
    assert.equal(res.body.object, 'promotion_tier_setup');
    const tier = res.body.promotion_tier;
    assert.equal(tier.name, 'From template');
    assert.equal(tier.banner, 'Twenty-five off');
    assert.deepEqual(tier.action.discount, source.voucher.discount);
    assert.equal(tier.campaign.id, promotion.id);
    assert.equal(res.body.created_resources.length, 1);
    const fetched: Json = await t.sdk().promotions.tiers.get(tier.id);
    assert.deepEqual(fetched.validation_rule_assignments.data.map((a: Json) => a.rule_id), [res.body.created_resources[0].id]);

    const giftTemplate = await t.request('POST', '/v1/templates/campaigns', { json: { name: 'Gift again', campaign_id: 'Gifts' } });
    const refused = await t.request('POST', `/v1/templates/campaigns/${giftTemplate.body.id}/tier-setup`, { json: { campaign_id: promotion.id, name: 'Nope' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'campaign_type_is_not_supported_by_campaign_template');
    assert.equal((await t.request('POST', `/v1/templates/campaigns/${template.id}/tier-setup`, { json: { campaign_id: source.id, name: 'Not a promotion' } })).status, 404);
    assert.equal((await t.request('POST', `/v1/templates/campaigns/${template.id}/tier-setup`, { json: { name: 'No campaign' } })).body.key, 'invalid_payload');
  });

  test('management: a project’s templates are listed, and a copy made in another project works there', async () => {
    const headers = t.managementHeaders();
    const listed = await t.request('GET', `/management/v1/projects/${t.projectId}/templates/campaigns?limit=1&include_total=true`, { headers });
    assert.equal(listed.status, 200, listed.text);
    checked('GET', '/management/v1/projects/{projectId}/templates/campaigns', listed.body, LIST_DEFECT);
    assert.equal(listed.body.data[0].id, template.id);
    const copyPath = '/management/v1/projects/{projectId}/templates/campaigns/{campaignTemplateId}/copy';
    const copied = await t.request('POST', `/management/v1/projects/${t.projectId}/templates/campaigns/${template.id}/copy`, {
      headers,
      json: { name: 'Their winter', destination_project_id: other.id },
    });
    assert.equal(copied.status, 200, copied.text);
    checked('POST', copyPath, copied.body);
    assert.equal(copied.body.description, 'Renamed', 'the description comes along unless sent');
    const theirs = await t.request('GET', `/v1/templates/campaigns/${copied.body.id}`, { headers: other.headers });
    assert.equal(theirs.status, 200);
    assert.equal((await t.request('GET', `/v1/templates/campaigns/${copied.body.id}`)).status, 404, 'not in the source project');
    const used = await t.request('POST', `/v1/templates/campaigns/${copied.body.id}/campaign-setup`, { headers: other.headers, json: { name: 'Their campaign' } });
    assert.equal(used.status, 200, used.text);
    assert.equal(used.body.created_resources.length, 1);
    for (const [path, status] of [
      [`/management/v1/projects/${t.projectId}/templates/campaigns/camp_tpl_missing/copy`, 404],
      [`/management/v1/projects/proj_missing/templates/campaigns/${template.id}/copy`, 404],
    ] as const) {
      assert.equal((await t.request('POST', path, { headers, json: { name: 'x', destination_project_id: other.id } })).status, status);
    }
    assert.equal((await t.request('POST', `/management/v1/projects/${t.projectId}/templates/campaigns/${template.id}/copy`, { headers, json: { name: 'x', destination_project_id: 'proj_missing' } })).status, 404);
    assert.equal((await t.request('POST', `/management/v1/projects/${t.projectId}/templates/campaigns/${template.id}/copy`, { headers, json: { name: 'x' } })).body.key, 'invalid_payload');
    assert.equal((await t.request('GET', '/management/v1/projects/proj_missing/templates/campaigns', { headers })).status, 404);
  });
});
