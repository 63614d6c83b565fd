import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseDefinition } from '../../src/domain/rules/definition.ts';
import {
  describe as describeRule,
  EMPTY_MODEL,
  FIELDS,
  fromApi,
  LINE_FIELDS,
  newCondition,
  OPERATORS_BY_KIND,
  problemsOf,
  takesMany,
  toApi,
  type Condition,
  type FieldName,
  type LineFieldName,
  type Operator,
  type RuleModel,
} from '../../web/src/rules/translate.ts';

// The console's validation-rule builder: what it sends is the API's rule object (checked by the API's own
// definition check), and a stored rule reads back into the same model (or is reported as beyond the
// builder, never changed).

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
    const unknownName = fromApi({ rules: { '1': { name: 'product.metadata', property: 'x', conditions: { $is: ['1'] }, rules: {} }, logic: '1' } });
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
    assert.equal(
      describeRule(minimumOrder),
      'Order amount at least 50.00 AND Customer metadata "tier" is one of gold, silver. Discount applies to pc_shoes (collection), except prod_gift_card (product)',
    );
    assert.equal(describeRule({ ...minimumOrder, applicableTo: [], excluded: [] }), 'Order amount at least 50.00 AND Customer metadata "tier" is one of gold, silver');
    assert.deepEqual(
      problemsOf({ ...EMPTY_MODEL, conditions: [{ field: 'order.amount', property: '', operator: '$more_than', value: 'fifty' }, { field: 'order.metadata', property: '', operator: '$is', value: 'x' }] }),
      [
        { index: 0, message: 'Enter an amount such as 50.00' },
        { index: 1, message: 'Name the metadata key' },
      ],
    );
  });

  test('every field, with every operator the builder offers for it, round-trips through the stored rule', () => {
    const sample = (kind: string, operator: Operator): string => {
      if (kind === 'money') return takesMany(operator) ? '12.50, 3.00' : '12.50';
      if (kind === 'number') return takesMany(operator) ? '3, 4' : '3';
      if (kind === 'segment') return 'seg_gold, seg_silver';
      if (kind === 'flag') return 'false';
      if (['$more_than_ago', '$less_than_ago', '$is_days_ago', '$more_than_future', '$less_than_future', '$is_days_in_future', '$count', '$count_more', '$count_less'].includes(operator)) return '7';
      if (operator === '$after' || operator === '$before') return '2026-12-31';
      if (['$more_than', '$more_than_or_equal', '$less_than', '$less_than_or_equal'].includes(operator)) return '5';
      return takesMany(operator) ? 'gold, silver' : 'gold';
    };
    let checked = 0;
    for (const [name, field] of Object.entries(FIELDS)) {
      for (const operator of OPERATORS_BY_KIND[field.kind]) {
        const base = newCondition(name as FieldName);
        const condition: Condition =
          field.kind === 'items'
            ? {
                ...base,
                operator,
                items: operator === '$from' ? [{ object: 'products_collection', id: 'pc_hats' }] : [{ object: 'product', id: 'prod_shoe' }, { object: 'sku', id: 'sku_shoe_42' }],
                lines: (Object.keys(LINE_FIELDS) as LineFieldName[]).map((line) => ({ field: line, operator: '$more_than_or_equal', value: LINE_FIELDS[line].kind === 'money' ? '9.99' : '2' })),
              }
            : { ...base, operator, property: 'property' in field ? 'tier' : '', value: sample(field.kind, operator) };
        const model: RuleModel = { combinator: 'OR', conditions: [condition, newCondition('order.amount')], applicableTo: [], excluded: [] };
        model.conditions[1] = { ...model.conditions[1]!, value: '1.00' };
        assert.deepEqual(problemsOf(model), [], `${name} ${operator}: nothing to complete`);
        // What the API stores (its own check and normalisation) reads back as the same model.
        const stored = normaliseDefinition(JSON.parse(JSON.stringify(toApi(model))));
        assert.deepEqual(fromApi(stored), { ok: true, model }, `${name} ${operator}`);
        checked += 1;
      }
    }
    assert.ok(checked > 150, `every field and operator was tried (${checked})`);
  });

  test('a product in the cart with a quantity, and a per-customer limit, are the API rule names with nested line rules', () => {
    const model: RuleModel = {
      combinator: 'AND',
      conditions: [
        { ...newCondition('order.items.any'), items: [{ object: 'product', id: 'prod_shoe' }], lines: [{ field: 'order.items.quantity', operator: '$more_than_or_equal', value: '2' }] },
        { ...newCondition('redemption.count.per_customer'), operator: '$less_than', value: '3' },
      ],
      applicableTo: [{ object: 'sku', id: 'sku_shoe_42' }],
      excluded: [],
    };
    assert.deepEqual(toApi(model), {
      rules: {
        '1': {
          name: 'order.items.any',
          property: null,
          conditions: { $in: [{ object: 'product', id: 'prod_shoe' }] },
          rules: { '1': { name: 'order.items.quantity', property: null, conditions: { $more_than_or_equal: [2] }, rules: {} }, logic: '1' },
        },
        '2': { name: 'redemption.count.per_customer', property: null, conditions: { $less_than: [3] }, rules: {} },
        logic: '1 AND 2',
      },
      applicable_to: { included: [{ object: 'sku', id: 'sku_shoe_42' }], excluded: [] },
    });
    assert.equal(
      describeRule(model, { prod_shoe: 'Running shoe', sku_shoe_42: 'Running shoe – 42' }),
      'Cart contains Running shoe (product) with quantity at least 2 AND Redemptions by this customer less than 3. Discount applies to Running shoe – 42 (SKU)',
    );
    // As the API answers it: applicable_to entries carry the default effect, and included_all false.
    const stored = { ...toApi(model), applicable_to: { included: [{ object: 'sku', id: 'sku_shoe_42', effect: 'APPLY_TO_EVERY' }], excluded: [], included_all: false } };
    assert.deepEqual(fromApi(stored), { ok: true, model });
  });

  test('stored values the builder would change are reported, not reshaped', () => {
    const one = (rule: Record<string, unknown>, extra: Record<string, unknown> = {}) => fromApi({ rules: { '1': { property: null, rules: {}, ...rule }, logic: '1' }, ...extra });
    assert.equal(one({ name: 'order.amount', conditions: { $is: [12.5] } }).ok, false, 'a fraction of a cent');
    assert.equal(one({ name: 'customer.metadata', property: 'tier', conditions: { $in: ['a,b'] } }).ok, false, 'a value holding the comma the builder splits at');
    assert.equal(one({ name: 'customer.metadata', property: 'tier', conditions: { $is: [null] } }).ok, false, 'null');
    assert.equal(one({ name: 'order.items.any', conditions: { $in: [{ id: 'prod_1', object: 'product', quantity_limit: 1 }] } }).ok, false, 'an item reference with more than an id');
    assert.equal(one({ name: 'order.items.any', conditions: { $in: [{ id: 'prod_1', object: 'product' }] }, rules: { '1': { name: 'order.items.quantity', conditions: { $is: [1] }, rules: {} }, '2': { name: 'order.items.price', conditions: { $is: [1] }, rules: {} }, logic: '1 OR 2' } }).ok, false, 'line conditions joined by OR');
    assert.equal(one({ name: 'order.amount', conditions: { $is: [1] }, error: { message: 'Too small' } }).ok, false, 'a message of its own');
    assert.equal(one({ name: 'order.amount', conditions: { $is: [1] } }, { applicable_to: { included: [{ object: 'product', id: 'prod_1', effect: 'APPLY_TO_CHEAPEST' }], excluded: [] } }).ok, false, 'an effect');
    assert.equal(one({ name: 'order.amount', conditions: { $is: [1] } }, { applicable_to: { included: [], excluded: [], included_all: true } }).ok, false, 'included_all');
    const byId = one({ name: 'sku.id', conditions: { $is: ['sku_1'] } });
    assert.deepEqual(byId.ok && byId.model.conditions[0]?.items, [{ object: 'sku', id: 'sku_1' }], 'a bare id takes the object its rule names');
  });

  test('item conditions name what is missing: an item, collections for "from", a line value', () => {
    const items = newCondition('order.items.any');
    assert.deepEqual(problemsOf({ ...EMPTY_MODEL, conditions: [items] }), [{ index: 0, message: 'Pick a product, SKU or collection' }]);
    assert.deepEqual(problemsOf({ ...EMPTY_MODEL, conditions: [{ ...items, operator: '$from', items: [{ object: 'product', id: 'prod_1' }] }] }), [{ index: 0, message: 'Pick collections only' }]);
    assert.deepEqual(
      problemsOf({ ...EMPTY_MODEL, conditions: [{ ...items, items: [{ object: 'product', id: 'prod_1' }], lines: [{ field: 'order.items.price', operator: '$less_than', value: 'cheap' }] }] }),
      [{ index: 0, message: 'Unit price: enter an amount such as 50.00' }],
    );
    assert.deepEqual(problemsOf({ ...EMPTY_MODEL, conditions: [{ ...newCondition('customer.metadata'), property: 'joined', operator: '$after', value: 'yesterday' }] }), [{ index: 0, message: 'Enter a date such as 2026-12-31' }]);
    assert.deepEqual(problemsOf({ ...EMPTY_MODEL, conditions: [newCondition('customer.segment')] }), [{ index: 0, message: 'Pick a segment' }]);
  });
});
