import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DEFINITION_TABLES } from '../../src/store/migrations/2026-11-26-0037-definitions-version.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, type Json } from '../helpers/redemption-fixtures.ts';

// Definitions are cached per process and valid for one projects.definitions_version, which triggers move
// with every change of a definition table (migration 0037, src/store/definitions.ts). Each test warms the
// cache with a validation, changes one definition through the API, and checks the very next validation or
// redemption sees the change: a committed change is never missed.

describe('definitions cache: every change is seen by the next request', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
  });
  after(async () => t.close());

  const validate = (body: Record<string, unknown>): Promise<Json> => t.sdk().validations.validateStackable(body as never);
  const version = async (): Promise<number> =>
    Number((await t.db.db.selectFrom('projects').select('definitions_version').where('id', '=', t.projectId).executeTakeFirstOrThrow()).definitions_version);

  test('a disabled campaign, a disabled tier and a changed tier discount', async () => {
    const promo = await f.promotion([{ name: 'Ten off', action: { discount: { type: 'AMOUNT', amount_off: 10 } } }]);
    const tier = promo.promotion.tiers[0];
    const body = { redeemables: [{ object: 'promotion_tier', id: tier.id }], order: { amount: 100 } };
    assert.equal((await validate(body)).valid, true);
    assert.equal((await validate(body)).order.total_discount_amount, 10, 'cached now');

    await f.ok('PUT', `/v1/promotions/tiers/${tier.id}`, { action: { discount: { type: 'AMOUNT', amount_off: 25 } } });
    assert.equal((await validate(body)).order.total_discount_amount, 25, 'the new discount');

    await f.ok('POST', `/v1/promotions/tiers/${tier.id}/disable`);
    assert.equal((await validate(body)).valid, false, 'the disabled tier');
    await f.ok('POST', `/v1/promotions/tiers/${tier.id}/enable`);
    assert.equal((await validate(body)).valid, true);

    await f.ok('POST', `/v1/campaigns/${promo.id}/disable`);
    assert.equal((await validate(body)).valid, false, 'the disabled campaign');
    const refused = await t.request('POST', '/v1/redemptions', { json: body });
    assert.equal(refused.status, 400, 'and a redemption of it is refused');
  });

  test('a tightened validation rule on a campaign', async () => {
    const campaign = await f.ok('POST', '/v1/campaigns', {
      name: f.unique('Coupons'),
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 5 } },
    });
    const [voucher] = (await f.ok('GET', `/v1/vouchers?campaign=${encodeURIComponent(campaign.name)}`)).vouchers as Json[];
    const body = { redeemables: [{ object: 'voucher', id: voucher.code }], order: { amount: 1000 } };
    assert.equal((await validate(body)).valid, true);
    assert.equal((await validate(body)).valid, true, 'cached now');
    const rule = await f.rule({ rules: { 1: { name: 'order.amount', conditions: { $more_than: [5000] } }, logic: '1' } });
    await f.assign(rule.id, { campaign: campaign.id });
    assert.equal((await validate(body)).valid, false, 'the new rule');
    await f.ok('PUT', `/v1/validation-rules/${rule.id}`, { rules: { 1: { name: 'order.amount', conditions: { $more_than: [500] } }, logic: '1' } });
    assert.equal((await validate(body)).valid, true, 'the loosened rule');
  });

  test('stacking rules, categories and metadata schemas', async () => {
    const a = await f.amountVoucher(10);
    const b = await f.amountVoucher(20);
    const body = { redeemables: [{ object: 'voucher', id: a.code }, { object: 'voucher', id: b.code }], order: { amount: 1000 } };
    assert.equal((await validate(body)).order.total_discount_amount, 30);
    const mgmt = t.managementHeaders();
    const set = await t.request('POST', `/management/v1/projects/${t.projectId}/stacking-rules`, { headers: mgmt, json: { applicable_redeemables_limit: 1 } });
    assert.equal(set.status, 200, set.text);
    assert.equal((await validate(body)).order.total_discount_amount, 10, 'the new limit');
    await t.request('DELETE', `/management/v1/projects/${t.projectId}/stacking-rules/${set.body.id}`, { headers: mgmt });
    assert.equal((await validate(body)).order.total_discount_amount, 30, 'the defaults again');

    const redeemWithMetadata = (metadata: Record<string, unknown>) =>
      t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: (a as Json).code }], order: { amount: 100 }, metadata } });
    const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/metadata-schemas`, {
      headers: mgmt,
      json: { related_object: 'redemption', properties: { channel: { type: 'string', optional: false } } },
    });
    assert.equal(schema.status, 200, schema.text);
    const refused = await redeemWithMetadata({});
    assert.equal(refused.status, 400, 'the new required metadata');
    assert.equal(refused.body.key, 'metadata_validation_failed');
  });

  test('every definition table moves the version (its trigger exists)', async () => {
    const triggers =
      t.db.dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'trigger'`.execute(t.db.db)).rows.map((r) => r.name)
        : (await sql<{ name: string }>`select tgname as name from pg_trigger where not tgisinternal`.execute(t.db.db)).rows.map((r) => r.name);
    for (const table of DEFINITION_TABLES) {
      assert.ok(triggers.some((name) => name.startsWith(`${table}_definitions`)), `${table} has its trigger`);
    }
    const before = await version();
    await f.category();
    assert.ok((await version()) > before, 'creating a category moved it');
    const settings = await version();
    const updated = await t.request('PUT', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders(), json: { timezone: 'Europe/Warsaw' } });
    assert.equal(updated.status, 200, updated.text);
    assert.ok((await version()) > settings, 'changing the project settings moved it');
  });
});
