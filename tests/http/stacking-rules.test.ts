import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { fixtures, type Json } from '../helpers/redemption-fixtures.ts';

// Stacking rules (promotions reference 6.6): managed per project through the management API (one set,
// 409 stacking_rules_exist), echoed in responses, and applied by the engine — the applied limit, per
// category limits, exclusive and joint categories, category hierarchy order, products application mode
// ONCE and the initial-amount calculation mode.

describe('stacking rules', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  let projectId: string;
  let keys: KeyPairOut;

  const mgmt = (method: string, path: string, json?: unknown) => t.request(method, `/management/v1/projects/${projectId}/stacking-rules${path}`, { headers: t.managementHeaders(), ...(json !== undefined ? { json } : {}) });

  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
    const project = await f.ok('POST', '/management/v1/projects', { name: 'Stacking', case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' }, t.managementHeaders());
    projectId = project.id;
    keys = project.server_side_key;
  });
  after(async () => t.close());

  const inProject = (method: string, path: string, json?: unknown) => t.request(method, path, { headers: t.serverHeaders(keys), ...(json !== undefined ? { json } : {}) });

  test('CRUD: defaults until set; one set per project; update merges; delete restores the defaults', async () => {
    const empty = await mgmt('GET', '');
    assert.deepEqual([empty.status, empty.body.total, empty.body.data], [200, 0, []]);
    const created = await mgmt('POST', '', { applicable_redeemables_limit: 2, exclusive_categories: ['cat_x'] });
    assert.equal(created.status, 200, created.text);
    assert.match(created.body.id, /^str_/);
    assert.equal(created.body.applicable_redeemables_limit, 2);
    assert.equal(created.body.redeemables_limit, 30);
    assert.equal(created.body.redeemables_application_mode, 'ALL');
    assert.deepEqual(created.body.exclusive_categories, ['cat_x']);
    const second = await mgmt('POST', '', {});
    assert.equal(second.status, 409);
    assert.equal(second.body.key, 'stacking_rules_exist');
    const updated = await mgmt('PUT', `/${created.body.id}`, { redeemables_sorting_rule: 'CATEGORY_HIERARCHY', exclusive_categories: null });
    assert.equal(updated.body.applicable_redeemables_limit, 2, 'members not sent stay');
    assert.deepEqual(updated.body.exclusive_categories, [], 'null restores the default');
    assert.equal(updated.body.redeemables_sorting_rule, 'CATEGORY_HIERARCHY');
    assert.equal((await mgmt('GET', `/${created.body.id}`)).body.redeemables_sorting_rule, 'CATEGORY_HIERARCHY');
    const echoed = await inProject('POST', '/v1/validations', { redeemables: [{ object: 'voucher', id: 'X' }] });
    assert.equal(echoed.body.stacking_rules.applicable_redeemables_limit, 2);
    const bad = await mgmt('PUT', `/${created.body.id}`, { applicable_redeemables_limit: 31 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_payload');
    const clash = await mgmt('PUT', `/${created.body.id}`, { no_effect_skip_categories: ['a'], no_effect_redeem_anyway_categories: ['a'] });
    assert.equal(clash.status, 400);
    assert.equal((await mgmt('GET', '/str_unknown')).status, 404);
    assert.equal((await t.request('GET', '/management/v1/projects/proj_unknown/stacking-rules', { headers: t.managementHeaders() })).status, 404);
    assert.equal((await t.request('GET', `/management/v1/projects/${projectId}/stacking-rules`, { headers: t.serverHeaders(keys) })).status, 401, 'project keys do not open the management API');
    assert.equal((await mgmt('DELETE', `/${created.body.id}`)).status, 204);
    assert.equal((await mgmt('GET', '')).body.total, 0);
    const defaults = await inProject('POST', '/v1/validations', { redeemables: [{ object: 'voucher', id: 'X' }] });
    assert.equal(defaults.body.stacking_rules.applicable_redeemables_limit, 5);
  });

  describe('applied by the engine', () => {
    let rulesId: string;
    const setRules = async (rules: Record<string, unknown>) => {
      const res = rulesId ? await mgmt('PUT', `/${rulesId}`, rules) : await mgmt('POST', '', rules);
      assert.equal(res.status, 200, res.text);
      rulesId = res.body.id;
    };
    const voucher = async (code: string, amountOff: number, extra: Record<string, unknown> = {}) => {
      const res = await inProject('POST', `/v1/vouchers/${code}`, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: amountOff }, ...extra });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const category = async (name: string, hierarchy: number) => (await inProject('POST', '/v1/categories', { name, hierarchy })).body;
    const validate = async (codes: string[], order: Record<string, unknown> = { amount: 10000 }) =>
      (await t.sdk(keys).validations.validateStackable({ redeemables: codes.map((id) => ({ object: 'voucher', id })), order } as never)) as Json;

    test('applicable_redeemables_limit and per-category limits skip the extras', async () => {
      await setRules({ applicable_redeemables_limit: 2, applicable_redeemables_per_category_limit: 1, redeemables_application_mode: 'ALL' });
      await voucher('LIM-1', 10);
      await voucher('LIM-2', 10);
      await voucher('LIM-3', 10);
      const res = await validate(['LIM-1', 'LIM-2', 'LIM-3']);
      assert.deepEqual(res.redeemables.map((r: Json) => r.status), ['APPLICABLE', 'APPLICABLE', 'SKIPPED']);
      assert.equal(res.redeemables[2].result.details.key, 'applicable_redeemables_limit_exceeded');
      assert.equal(res.valid, true, 'skipped ones do not make the request invalid');
      const food = await category('food', 1);
      await voucher('CAT-1', 10, { category_id: food.id });
      await voucher('CAT-2', 10, { category_id: food.id });
      const perCategory = await validate(['CAT-1', 'CAT-2']);
      assert.equal(perCategory.redeemables[1].result.details.key, 'applicable_redeemables_per_category_limit_exceeded');
      assert.equal(perCategory.redeemables[0].categories[0].id, food.id);
      const redeemed = (await t.sdk(keys).redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'CAT-1' }, { object: 'voucher', id: 'CAT-2' }], order: { amount: 1000 } } as never)) as Json;
      assert.equal(redeemed.redemptions.length, 1);
      assert.equal(redeemed.skipped_redeemables[0].id, 'CAT-2');
      assert.equal(redeemed.order.total_amount, 990);
    });

    test('exclusive categories block common ones; joint ones stack with everything; stacking type shown', async () => {
      const never = await category('never', 1);
      const always = await category('always', 1);
      await setRules({ applicable_redeemables_limit: 5, exclusive_categories: [never.id], joint_categories: [always.id] });
      await voucher('EXC-1', 10, { category_id: never.id });
      await voucher('COMMON-1', 10);
      await voucher('JOINT-1', 10, { category_id: always.id });
      const res = await validate(['EXC-1', 'COMMON-1', 'JOINT-1']);
      assert.deepEqual(res.redeemables.map((r: Json) => r.status), ['APPLICABLE', 'SKIPPED', 'APPLICABLE']);
      assert.equal(res.redeemables[1].result.details.key, 'exclusion_rules_not_met');
      assert.equal(res.redeemables[0].categories[0].stacking_rules_type, 'EXCLUSIVE');
      assert.equal(res.redeemables[2].categories[0].stacking_rules_type, 'JOINT');
    });

    test('CATEGORY_HIERARCHY applies higher-priority categories first', async () => {
      const first = await category('first', 0);
      const second = await category('second', 5);
      await setRules({ redeemables_sorting_rule: 'CATEGORY_HIERARCHY', exclusive_categories: [], joint_categories: [], applicable_redeemables_per_category_limit: 5 });
      await inProject('POST', '/v1/vouchers/ORD-PCT', { type: 'DISCOUNT_VOUCHER', category_id: second.id, discount: { type: 'PERCENT', percent_off: 50 } });
      await voucher('ORD-AMT', 100, { category_id: first.id });
      const res = await validate(['ORD-PCT', 'ORD-AMT'], { amount: 1000 });
      // The amount (hierarchy 0) applies before the percentage: (1000 − 100) × 50 % = 450 off.
      assert.equal(res.redeemables[0].order.total_applied_discount_amount, 450);
      assert.equal(res.order.total_amount, 450);
    });

    test('ONCE: a line discounted by one redeemable gets no second item discount; INITIAL_AMOUNT mode', async () => {
      await setRules({ redeemables_sorting_rule: 'REQUESTED_ORDER', redeemables_products_application_mode: 'ONCE', discount_calculation_mode: 'INITIAL_AMOUNT' });
      await voucher('ITEM-1', 100, { discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' } });
      await voucher('ITEM-2', 100, { discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' } });
      const res = await validate(['ITEM-1', 'ITEM-2'], { items: [{ source_id: 'line', price: 1000, quantity: 1 }] });
      assert.equal(res.order.items[0].discount_amount, 100, 'the second item discount found no line left');
      await inProject('POST', '/v1/vouchers/INIT-A', { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } });
      await inProject('POST', '/v1/vouchers/INIT-P', { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } });
      const initial = await validate(['INIT-A', 'INIT-P'], { amount: 2000 });
      assert.equal(initial.redeemables[1].order.applied_discount_amount, 200, '10 % of the initial 2000, not of 1500');
    });
  });
});
