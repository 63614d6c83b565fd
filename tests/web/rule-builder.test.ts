import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describe as describeRule, EMPTY_MODEL, fromApi, problemsOf, toApi, type RuleModel } from '../../web/src/rules/translate.ts';

// The console's validation-rule builder: what it sends is the API's rule object, and a stored rule reads
// back into the same model (or is reported as beyond the builder, never changed).

const minimumOrder: RuleModel = {
  combinator: 'AND',
  conditions: [
    { field: 'order.amount', property: '', operator: '$more_than_or_equal', value: '50.00' },
    { field: 'customer.metadata', property: 'tier', operator: '$in', value: 'gold, silver' },
  ],
  applicableTo: [{ object: 'products_collection', id: 'pc_shoes' }],
  excluded: [{ object: 'product', id: 'prod_gift_card' }],
};

describe('rule builder translation', () => {
  test('a minimum order amount in major units becomes minor units, joined by the logic', () => {
    assert.deepEqual(toApi(minimumOrder), {
      rules: {
        '1': { name: 'order.amount', property: null, conditions: { $more_than_or_equal: [5000] }, rules: {} },
        '2': { name: 'customer.metadata', property: 'tier', conditions: { $in: ['gold', 'silver'] }, rules: {} },
        logic: '1 AND 2',
      },
      applicable_to: { included: [{ object: 'products_collection', id: 'pc_shoes' }], excluded: [{ object: 'product', id: 'prod_gift_card' }] },
    });
  });

  test('reading the stored rule back gives the same model (round trip), OR included', () => {
    const stored = toApi(minimumOrder);
    assert.deepEqual(fromApi(stored), { ok: true, model: minimumOrder });
    const either = { ...minimumOrder, combinator: 'OR' as const, applicableTo: [], excluded: [] };
    assert.equal(toApi(either).rules.logic, '1 OR 2');
    assert.equal(toApi(either).applicable_to, undefined, 'no applicable_to: the whole order');
    assert.deepEqual(fromApi(toApi(either)), { ok: true, model: either });
  });

  test('amounts with cents survive the trip exactly', () => {
    const model: RuleModel = { ...EMPTY_MODEL, conditions: [{ field: 'order.amount', property: '', operator: '$less_than', value: '19.99' }] };
    assert.deepEqual(toApi(model).rules['1'], { name: 'order.amount', property: null, conditions: { $less_than: [1999] }, rules: {} });
    assert.equal(fromApi(toApi(model)).ok && (fromApi(toApi(model)) as { model: RuleModel }).model.conditions[0]?.value, '19.99');
  });

  test('rules beyond the builder are reported, not reshaped', () => {
    const mixed = fromApi({ rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] }, rules: {} }, '2': { name: 'order.amount', conditions: { $less_than: [9] }, rules: {} }, '3': { name: 'order.items.count', conditions: { $is: [2] }, rules: {} }, logic: '(1 AND 2) OR 3' } });
    assert.equal(mixed.ok, false);
    const unknownName = fromApi({ rules: { '1': { name: 'order.items.any', conditions: { $is: [1] }, rules: {} }, logic: '1' } });
    assert.equal(unknownName.ok, false);
    const nested = fromApi({ rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] }, rules: { '1': {} } }, logic: '1' } });
    assert.equal(nested.ok, false);
    const unnamed = fromApi({ rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] }, rules: {} }, '2': { name: 'order.amount', conditions: { $more_than: [1] }, rules: {} }, logic: '1' } });
    assert.equal(unnamed.ok, false, 'a condition the logic leaves out');
  });

  test('an empty rule set reads as no conditions; typing problems are named per condition', () => {
    assert.deepEqual(fromApi({ rules: { logic: '' } }), { ok: true, model: EMPTY_MODEL });
    const blank = toApi({ ...EMPTY_MODEL, conditions: [{ field: 'order.amount', property: '', operator: '$more_than', value: ' ' }] });
    assert.deepEqual((blank.rules['1'] as { conditions: unknown }).conditions, { $more_than: [] }, 'nothing typed yet is not a zero');
    assert.equal(describeRule(EMPTY_MODEL), 'No conditions: every order qualifies');
    assert.equal(describeRule(minimumOrder), 'Order amount at least 50.00 AND Customer metadata "tier" is one of gold, silver');
    assert.deepEqual(
      problemsOf({ ...EMPTY_MODEL, conditions: [{ field: 'order.amount', property: '', operator: '$more_than', value: 'fifty' }, { field: 'order.metadata', property: '', operator: '$is', value: 'x' }] }),
      [
        { index: 0, message: 'Enter an amount such as 50.00' },
        { index: 1, message: 'Name the metadata key' },
      ],
    );
  });
});
