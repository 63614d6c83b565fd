import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rulesFor } from '../../src/services/validation-rules/validation-rules.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Validation rules, their assignments and their events over HTTP (promotions reference 5; seed 2.10,
// 4.9; platform reference 6.4), through the official SDK where it has the call.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface SdkError {
  code: number;
  key: string;
  message: string;
  details?: string;
  resource_id?: string;
  resource_type?: string;
}

async function sdkError(call: Promise<unknown>): Promise<SdkError> {
  try {
    await call;
  } catch (error) {
    return error as SdkError;
  }
  throw new assert.AssertionError({ message: 'the call was expected to fail' });
}

/** The validationRules.create body exactly as the SDK's captured call sends it (sdk-wire.md). */
const SDK_RULE = {
  name: 'Min order',
  type: 'basic',
  rules: { '1': { name: 'order.amount', conditions: { $more_than: [1000] }, rules: {} }, logic: '1' },
  error: { message: 'too small' },
  applicable_to: { excluded: [], included: [{ object: 'product', id: 'prod_1', effect: 'APPLY_TO_EVERY' }], included_all: false },
};

describe('validation rules', () => {
  let t: TestApp;
  let campaignId: string;
  let voucherCode: string;
  let voucherId: string;

  before(async () => {
    t = await startTestApp();
    const campaign: Json = await t.sdk().campaigns.create({
      name: 'Rules campaign',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
    } as never);
    campaignId = campaign.id;
    const voucher: Json = await t.sdk().campaigns.addCertainVoucher(campaignId, 'RULED-1', {} as never);
    voucherCode = voucher.code;
    voucherId = voucher.id;
  });
  after(async () => t.close());

  async function otherProject(): Promise<KeyPairOut> {
    const res = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: `Other ${Math.random()}`, case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(res.status, 200);
    return res.body.server_side_key as KeyPairOut;
  }

  async function eventsOf(type: string, entityId: string): Promise<Json[]> {
    const rows = await t.deps.db
      .selectFrom('events')
      .selectAll()
      .where('project_id', '=', t.projectId)
      .where('type', '=', type)
      .where('entity_id', '=', entityId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
  }

  async function ruleCount(): Promise<number> {
    const res = await t.request('GET', '/v1/validation-rules?limit=1');
    return res.body.total as number;
  }

  test('create answers the rule object and records business_validation_rule.created', async () => {
    const before = t.clock.now().toISOString();
    const rule: Json = await t.sdk().validationRules.create(SDK_RULE as never);
    assert.match(rule.id, /^val_/);
    assert.ok(rule.created_at > before);
    const { id: _id, created_at: _at, ...rest } = rule;
    assert.deepEqual(rest, {
      name: 'Min order',
      rules: { '1': { name: 'order.amount', property: null, conditions: { $more_than: [1000] }, rules: {} }, logic: '1' },
      error: { message: 'too small' },
      applicable_to: { included: [{ object: 'product', id: 'prod_1', effect: 'APPLY_TO_EVERY' }], excluded: [], included_all: false },
      type: 'basic',
      context_type: 'global',
      updated_at: null,
      assignments_count: 0,
      object: 'validation_rules',
    });
    const [event] = await eventsOf('business_validation_rule.created', rule.id);
    assert.deepEqual(event.data.rule, rule);
    assert.equal(event.data.created_at, rule.created_at);
    assert.match(event.id, /^evval_/);
  });

  test('defaults, legacy names and the $greater_than_or_equal alias are answered normalised', async () => {
    const rule: Json = await t.sdk().validationRules.create({
      name: 'Legacy',
      rules: {
        '1': { name: 'customer_metadata', property: 'tier', conditions: { $is: ['gold'] } },
        '2': { name: 'order.amount', conditions: { $greater_than_or_equal: [500] } },
        logic: '1 AND 2',
      },
    });
    assert.equal(rule.type, 'expression');
    assert.equal(rule.context_type, 'global');
    assert.equal(rule.error, undefined, 'no error member without a message');
    assert.deepEqual(rule.rules, {
      '1': { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] }, rules: {} },
      '2': { name: 'order.amount', property: null, conditions: { $more_than_or_equal: [500] }, rules: {} },
      logic: '1 AND 2',
    });
  });

  test('an invalid definition is 400 invalid_validation_rules with details, and nothing is stored', async () => {
    const count = await ruleCount();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ '1': { name: 'custom_event.metadata', conditions: { $is: [1] } }, logic: '1' }, /Rule 'custom_event\.metadata' must have a 'property'/],
      [{ '1': { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1 and 2' }, /names rule 2, which is not defined/],
      [{ '1': { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1 nand 1' }, /unexpected token 'nand'/],
      [{ '1': { name: 'order.weight', conditions: { $more_than: [1] } }, logic: '1' }, /unknown or unsupported rule name 'order\.weight'/],
      [{ '1': { name: 'order.amount', conditions: { $dow: [1] } }, logic: '1' }, /operator '\$dow' is not supported/],
      [{ '1': { name: 'order.amount', conditions: { $less_than: [1, 2] } }, logic: '1' }, /takes exactly one number/],
    ];
    for (const [rules, pattern] of cases) {
      const error = await sdkError(t.sdk().validationRules.create({ name: `Bad ${String(pattern)}`, rules }));
      assert.equal(error.code, 400);
      assert.equal(error.key, 'invalid_validation_rules');
      assert.equal(error.message, 'Invalid Validation Rule Definition');
      assert.match(String(error.details), pattern);
    }
    const bundle = await t.request('POST', '/v1/validation-rules', { json: { name: 'Bundle', bundle_rules: { '1': { name: 'order.items.any' } } } });
    assert.equal(bundle.status, 400);
    assert.equal(bundle.body.key, 'invalid_validation_rules');
    const unknownCollection = await t.request('POST', '/v1/validation-rules', {
      json: { name: 'Ghost collection', applicable_to: { included: [{ object: 'products_collection', id: 'pc_ghost' }] } },
    });
    assert.equal(unknownCollection.status, 400);
    assert.match(unknownCollection.body.details, /products_collection pc_ghost, which does not exist/);
    assert.equal(await ruleCount(), count);
  });

  test('shape errors are 400 invalid_payload in the vendor wording', async () => {
    const noName = await t.request('POST', '/v1/validation-rules', { json: { rules: { logic: '' } } });
    assert.equal(noName.status, 400);
    assert.equal(noName.body.key, 'invalid_payload');
    assert.equal(noName.body.details, "Payload should have required property 'name'");
    const badType = await t.request('POST', '/v1/validation-rules', { json: { name: 'x', type: 'fancy' } });
    assert.equal(badType.status, 400);
    assert.match(badType.body.details, /^Property \.type should be equal to one of the allowed values/);
    const badEffect = await t.request('POST', '/v1/validation-rules', {
      json: { name: 'x', applicable_to: { included: [{ object: 'product', id: 'prod_1', effect: 'APPLY_SOMEWHERE' }] } },
    });
    assert.equal(badEffect.status, 400);
    assert.match(badEffect.body.details, /^Property \.applicable_to\.included\[0\]\.effect/);
  });

  test('the name is unique within a project: 409 duplicate_found, also on rename', async () => {
    await t.sdk().validationRules.create({ name: 'Unique rule' });
    const dup = await sdkError(t.sdk().validationRules.create({ name: 'Unique rule' }));
    assert.equal(dup.code, 409);
    assert.equal(dup.key, 'duplicate_found');
    assert.equal(dup.details, 'Duplicated validation_rules exists with name Unique rule');
    const other: Json = await t.sdk().validationRules.create({ name: 'Other unique rule' });
    const rename = await sdkError(t.sdk().validationRules.update({ id: other.id, name: 'Unique rule' }));
    assert.equal(rename.code, 409);
    assert.equal((await t.sdk().validationRules.get(other.id)).name, 'Other unique rule');
  });

  test('get, and 404 for an unknown rule', async () => {
    const rule: Json = await t.sdk().validationRules.create({ ...SDK_RULE, name: 'Gettable' } as never);
    assert.deepEqual(await t.sdk().validationRules.get(rule.id), rule);
    const missing = await sdkError(t.sdk().validationRules.get('val_missing'));
    assert.equal(missing.code, 404);
    assert.equal(missing.key, 'not_found');
    assert.equal(missing.details, 'Cannot find validation_rules with id val_missing');
    assert.equal(missing.resource_type, 'validation_rules');
  });

  test('update replaces the members sent and keeps the others; an invalid update changes nothing', async () => {
    const rule: Json = await t.sdk().validationRules.create({ ...SDK_RULE, name: 'Updatable' } as never);
    const renamed: Json = await t.sdk().validationRules.update({ id: rule.id, name: 'Updated name' });
    assert.equal(renamed.name, 'Updated name');
    assert.deepEqual(renamed.rules, rule.rules);
    assert.deepEqual(renamed.applicable_to, rule.applicable_to);
    assert.deepEqual(renamed.error, { message: 'too small' });
    assert.ok(renamed.updated_at > rule.created_at);

    const rewritten = await t.request('PUT', `/v1/validation-rules/${rule.id}`, {
      json: { rules: { '1': { name: 'order.items.count', conditions: { $more_than: [2] } }, logic: '1' }, error: null },
    });
    assert.equal(rewritten.status, 200);
    assert.equal(rewritten.body.rules['1'].name, 'order.items.count');
    assert.equal(rewritten.body.error, undefined, 'error: null clears the message');
    assert.equal(rewritten.body.name, 'Updated name');

    const invalid = await t.request('PUT', `/v1/validation-rules/${rule.id}`, { json: { rules: { '1': { name: 'order.amount' }, logic: '1' } } });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.key, 'invalid_validation_rules');
    assert.deepEqual(await t.sdk().validationRules.get(rule.id), rewritten.body);
    const events = await eventsOf('business_validation_rule.updated', rule.id);
    assert.equal(events.length, 2);
    assert.equal(events[1].data.updated_at, rewritten.body.updated_at);
    const missing = await t.request('PUT', '/v1/validation-rules/val_missing', { json: { name: 'x' } });
    assert.equal(missing.status, 404);
  });

  test('list: pages, limits, orders and creation-date bounds', async () => {
    const keys = await otherProject();
    const sdk = t.sdk(keys);
    const created: Json[] = [];
    for (const name of ['Charlie', 'alpha', 'Bravo']) {
      created.push(await sdk.validationRules.create({ name }));
      t.clock.advance(60_000);
    }
    const page1: Json = await sdk.validationRules.list({ limit: 2, page: 1 });
    assert.equal(page1.object, 'list');
    assert.equal(page1.data_ref, 'data');
    assert.equal(page1.total, 3);
    assert.deepEqual(
      page1.data.map((r: Json) => r.name),
      ['Bravo', 'alpha'],
      'newest first by default',
    );
    const page2: Json = await sdk.validationRules.list({ limit: 2, page: 2 });
    assert.deepEqual(
      page2.data.map((r: Json) => r.name),
      ['Charlie'],
    );
    const byName = await t.request('GET', '/v1/validation-rules?order=name', { headers: t.serverHeaders(keys) });
    assert.deepEqual(
      byName.body.data.map((r: Json) => r.name),
      ['Bravo', 'Charlie', 'alpha'],
      'byte order of the names',
    );
    const window = await t.request('GET', `/v1/validation-rules?order=created_at&start_date=${created[1].created_at}&end_date=${created[2].created_at}`, {
      headers: t.serverHeaders(keys),
    });
    assert.deepEqual(
      window.body.data.map((r: Json) => r.name),
      ['alpha', 'Bravo'],
    );
    assert.equal(window.body.total, 2);
    for (const query of ['limit=0', 'limit=101', 'page=0', 'page=101', 'order=size']) {
      const bad = await t.request('GET', `/v1/validation-rules?${query}`, { headers: t.serverHeaders(keys) });
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.key, 'invalid_query_params');
    }
  });

  describe('assignments', () => {
    test('the SDK shorthand and related_object_type/id both assign; codes and names resolve to ids', async () => {
      const rule: Json = await t.sdk().validationRules.create({ name: 'Assignable' });
      const toCampaign: Json = await t.sdk().validationRules.createAssignment(rule.id, { campaign: campaignId });
      assert.match(toCampaign.id, /^asgm_/);
      const { id: _a, created_at: _c, ...campaignRest } = toCampaign;
      assert.deepEqual(campaignRest, { rule_id: rule.id, related_object_id: campaignId, related_object_type: 'campaign', object: 'validation_rules_assignment' });
      const toVoucher = await t.request('POST', `/v1/validation-rules/${rule.id}/assignments`, {
        json: { related_object_type: 'voucher', related_object_id: voucherCode },
      });
      assert.equal(toVoucher.status, 200);
      assert.equal(toVoucher.body.related_object_id, voucherId, 'a voucher code is stored as the voucher id');
      const byName = await t.request('POST', `/v1/validation-rules/${rule.id}/assignments?force=true`, { json: { related_object_type: 'campaign', related_object_id: 'Rules campaign' } });
      assert.equal(byName.status, 200);
      assert.equal(byName.body.related_object_id, campaignId, 'a campaign name is stored as the campaign id');
      assert.equal((await t.sdk().validationRules.get(rule.id)).assignments_count, 2);

      const [created] = await eventsOf('business_validation_rule.assignment.created', toVoucher.body.id);
      assert.deepEqual(created.data.assignment, toVoucher.body);
      assert.equal(created.data.rule.id, rule.id);
      assert.equal(created.data.voucher.code, voucherCode);
      assert.equal(created.data.campaign, null);
      assert.equal(created.data.promotion_tier, null);
    });

    test('the same rule and object twice is 409 with the existing id; force replaces it', async () => {
      const rule: Json = await t.sdk().validationRules.create({ name: 'Assigned once' });
      const first: Json = await t.sdk().validationRules.createAssignment(rule.id, { voucher: voucherCode });
      const dup = await sdkError(t.sdk().validationRules.createAssignment(rule.id, { voucher: voucherId }));
      assert.equal(dup.code, 409);
      assert.equal(dup.key, 'duplicate_found');
      assert.equal(dup.resource_id, first.id);
      assert.equal(dup.resource_type, 'validation_rules_assignment');
      const forced = await t.request('POST', `/v1/validation-rules/${rule.id}/assignments?force=true`, { json: { voucher: voucherCode } });
      assert.equal(forced.status, 200);
      assert.notEqual(forced.body.id, first.id);
      const list: Json = await t.sdk().validationRules.listAssignments(rule.id);
      assert.deepEqual(
        list.data.map((a: Json) => a.id),
        [forced.body.id],
      );
      assert.equal((await eventsOf('business_validation_rule.assignment.deleted', first.id)).length, 1);
    });

    test('unknown rules, objects and unsupported types are refused and assign nothing', async () => {
      const rule: Json = await t.sdk().validationRules.create({ name: 'Picky' });
      const noRule = await sdkError(t.sdk().validationRules.createAssignment('val_missing', { campaign: campaignId }));
      assert.equal(noRule.code, 404);
      assert.equal(noRule.resource_type, 'validation_rules');
      const noCampaign = await sdkError(t.sdk().validationRules.createAssignment(rule.id, { campaign: 'camp_missing' }));
      assert.equal(noCampaign.code, 404);
      assert.equal(noCampaign.details, 'Cannot find campaign with id camp_missing');
      const noVoucher = await t.request('POST', `/v1/validation-rules/${rule.id}/assignments`, { json: { related_object_id: 'NO-SUCH-CODE' } });
      assert.equal(noVoucher.status, 404);
      assert.equal(noVoucher.body.resource_type, 'voucher', 'related_object_type defaults to voucher');
      const tier = await sdkError(t.sdk().validationRules.createAssignment(rule.id, { promotion_tier: 'promo_missing' }));
      assert.equal(tier.code, 404);
      assert.equal(tier.resource_type, 'promotion_tier');
      const nothing = await t.request('POST', `/v1/validation-rules/${rule.id}/assignments`, { json: {} });
      assert.equal(nothing.status, 400);
      assert.equal(nothing.body.details, "Payload should have required property 'related_object_id'");
      const both = await t.request('POST', `/v1/validation-rules/${rule.id}/assignments`, { json: { related_object_id: campaignId, campaign: campaignId } });
      assert.equal(both.status, 400);
      const badType = await t.request('POST', `/v1/validation-rules/${rule.id}/assignments`, { json: { related_object_type: 'order', related_object_id: 'x' } });
      assert.equal(badType.status, 400);
      assert.equal(badType.body.key, 'invalid_payload');
      assert.equal((await t.sdk().validationRules.listAssignments(rule.id)).total, 0);
    });

    test('seed 4.9: list a rule’s assignments with limit, page and order; unknown rule is an empty 200', async () => {
      const rule: Json = await t.sdk().validationRules.create({ name: 'Listed' });
      const other: Json = await t.sdk().campaigns.create({
        name: 'Second campaign',
        campaign_type: 'DISCOUNT_COUPONS',
        vouchers_count: 0,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      } as never);
      const ids: string[] = [];
      for (const body of [{ campaign: campaignId }, { voucher: voucherCode }, { campaign: other.id }]) {
        ids.push(((await t.sdk().validationRules.createAssignment(rule.id, body)) as Json).id);
      }
      const newest: Json = await t.sdk().validationRules.listAssignments(rule.id, { limit: 2, page: 1 });
      assert.deepEqual(
        { object: newest.object, data_ref: newest.data_ref, total: newest.total, ids: newest.data.map((a: Json) => a.id) },
        { object: 'list', data_ref: 'data', total: 3, ids: [ids[2], ids[1]] },
      );
      const second: Json = await t.sdk().validationRules.listAssignments(rule.id, { limit: 2, page: 2 });
      assert.deepEqual(
        second.data.map((a: Json) => a.id),
        [ids[0]],
      );
      const oldest = await t.request('GET', `/v1/validation-rules/${rule.id}/assignments?order=created_at`);
      assert.deepEqual(
        oldest.body.data.map((a: Json) => a.id),
        ids,
      );
      const defaults = await t.request('GET', `/v1/validation-rules/${rule.id}/assignments`);
      assert.equal(defaults.body.data.length, 3, 'default limit 10');
      const unknown = await t.request('GET', '/v1/validation-rules/val_unknown/assignments');
      assert.equal(unknown.status, 200);
      assert.deepEqual(unknown.body, { object: 'list', data_ref: 'data', data: [], total: 0 });
      for (const query of ['limit=0', 'limit=101', 'page=0', 'page=101', 'order=-updated_at']) {
        const bad = await t.request('GET', `/v1/validation-rules/${rule.id}/assignments?${query}`);
        assert.equal(bad.status, 400, query);
        assert.equal(bad.body.key, 'invalid_query_params');
      }
      const sdkAll: Json = await t.sdk().validationRules.listRulesAssignments({ related_object_id: campaignId, rule: rule.id, limit: 5 });
      assert.deepEqual(
        sdkAll.data.map((a: Json) => a.id),
        [ids[0]],
      );
      const everyRuleForCampaign = await t.request('GET', `/v1/validation-rules-assignments?related_object_id=${campaignId}&order=created_at`);
      assert.ok(everyRuleForCampaign.body.total >= 2);
      assert.ok(everyRuleForCampaign.body.data.every((a: Json) => a.related_object_id === campaignId));
    });

    test('rulesFor answers the rules guarding a voucher and its campaign, for the redemption engine', async () => {
      const onCampaign: Json = await t.sdk().validationRules.create({
        name: 'Campaign guard',
        rules: { '1': { name: 'order.amount', conditions: { $more_than: [100] } }, logic: '1' },
      });
      const onVoucher: Json = await t.sdk().validationRules.create({ name: 'Voucher guard' });
      await t.sdk().validationRules.createAssignment(onCampaign.id, { campaign: campaignId });
      await t.sdk().validationRules.createAssignment(onVoucher.id, { voucher: voucherCode });
      const assigned = await rulesFor(t.deps.db, t.projectId, [
        { type: 'voucher', id: voucherId },
        { type: 'campaign', id: campaignId },
      ]);
      const names = assigned.map((a) => a.name);
      assert.ok(names.includes('Campaign guard') && names.includes('Voucher guard'));
      const guard = assigned.find((a) => a.ruleId === onCampaign.id);
      assert.deepEqual(guard?.definition.rules, onCampaign.rules);
      assert.equal(guard?.assignment.related_object_type, 'campaign');
      assert.deepEqual(await rulesFor(t.deps.db, t.projectId, [{ type: 'campaign', id: voucherId }]), [], 'type and id must both match');
    });

    test('delete an assignment: 204, then 404; deleting a rule removes its assignments', async () => {
      const rule: Json = await t.sdk().validationRules.create({ name: 'Short-lived' });
      const a: Json = await t.sdk().validationRules.createAssignment(rule.id, { campaign: campaignId });
      const b: Json = await t.sdk().validationRules.createAssignment(rule.id, { voucher: voucherCode });
      assert.equal(await t.sdk().validationRules.deleteAssignment(rule.id, a.id), '');
      const again = await sdkError(t.sdk().validationRules.deleteAssignment(rule.id, a.id));
      assert.equal(again.code, 404);
      assert.equal(again.resource_type, 'validation_rules_assignment');
      assert.equal((await eventsOf('business_validation_rule.assignment.deleted', a.id)).length, 1);

      assert.equal(await t.sdk().validationRules.delete(rule.id), '');
      assert.equal((await t.request('GET', `/v1/validation-rules/${rule.id}`)).status, 404);
      assert.equal((await t.sdk().validationRules.listAssignments(rule.id)).total, 0);
      const count = await t.deps.db.selectFrom('validation_rule_assignments').select((eb) => eb.fn.countAll<number>().as('n')).where('id', '=', b.id).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
      assert.equal((await eventsOf('business_validation_rule.assignment.deleted', b.id)).length, 1);
      const [deleted] = await eventsOf('business_validation_rule.deleted', rule.id);
      assert.equal(deleted.data.rule.id, rule.id);
      assert.ok(deleted.data.deleted_at);
      assert.equal((await t.request('DELETE', `/v1/validation-rules/${rule.id}`)).status, 404);
    });
  });

  test('a rule deleted while it is being assigned, or a collection deleted while a rule names it, leaves nothing dangling', async () => {
    for (let round = 0; round < 4; round++) {
      const rule: Json = await t.sdk().validationRules.create({ name: `Racing rule ${round}` });
      const outcomes = await Promise.allSettled([
        t.sdk().validationRules.createAssignment(rule.id, { campaign: campaignId }),
        t.sdk().validationRules.delete(rule.id),
        t.sdk().validationRules.createAssignment(rule.id, { voucher: voucherCode }),
      ]);
      assert.equal(outcomes[1]?.status, 'fulfilled');
      const orphans = await t.deps.db.selectFrom('validation_rule_assignments').select('id').where('rule_id', '=', rule.id).execute();
      assert.deepEqual(orphans, [], `round ${round}`);

      const collection: Json = await t.sdk().productCollections.create({ type: 'STATIC', name: `Racing ${round}`, products: [] });
      const [created, deleted] = await Promise.allSettled([
        t.request('POST', '/v1/validation-rules', {
          json: { name: `Uses racing ${round}`, applicable_to: { included: [{ object: 'products_collection', id: collection.id }] } },
        }),
        t.request('DELETE', `/v1/product-collections/${collection.id}`),
      ]);
      const ruleStatus = created?.status === 'fulfilled' ? created.value.status : 0;
      const deleteStatus = deleted?.status === 'fulfilled' ? deleted.value.status : 0;
      assert.ok(
        (ruleStatus === 200 && deleteStatus === 400) || (ruleStatus === 400 && deleteStatus === 204),
        `exactly one wins (round ${round}: rule ${ruleStatus}, delete ${deleteStatus})`,
      );
    }
  });

  test("another project's keys see none of it (404), and cannot assign this project's objects", async () => {
    const rule: Json = await t.sdk().validationRules.create({ name: 'Private rule' });
    const assignment: Json = await t.sdk().validationRules.createAssignment(rule.id, { campaign: campaignId });
    const keys = await otherProject();
    const other = t.sdk(keys);
    assert.equal((await sdkError(other.validationRules.get(rule.id))).code, 404);
    assert.equal((await sdkError(other.validationRules.update({ id: rule.id, name: 'Stolen' }))).code, 404);
    assert.equal((await sdkError(other.validationRules.delete(rule.id))).code, 404);
    assert.equal((await sdkError(other.validationRules.deleteAssignment(rule.id, assignment.id))).code, 404);
    assert.equal((await sdkError(other.validationRules.createAssignment(rule.id, { campaign: campaignId }))).code, 404);
    const ownRule: Json = await other.validationRules.create({ name: 'Private rule' });
    const foreignCampaign = await sdkError(other.validationRules.createAssignment(ownRule.id, { campaign: campaignId }));
    assert.equal(foreignCampaign.code, 404);
    assert.equal(foreignCampaign.resource_type, 'campaign');
    assert.equal((await other.validationRules.listAssignments(rule.id)).total, 0);
    assert.equal(((await other.validationRules.listRulesAssignments({ related_object_id: campaignId })) as Json).total, 0);
    assert.equal(((await other.validationRules.list()) as Json).total, 1);
    assert.equal((await t.sdk().validationRules.get(rule.id)).name, 'Private rule');
  });
});
