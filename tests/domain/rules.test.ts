import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { selectItems, type SelectableLine } from '../../src/domain/rules/applicable-to.ts';
import { normaliseDefinition, referencedObjects, RuleDefinitionError, type ApplicableTo } from '../../src/domain/rules/definition.ts';
import { evaluateRule, factsNeeded, type RuleContext, type RuleOrderItem } from '../../src/domain/rules/evaluate.ts';
import { parseLogic } from '../../src/domain/rules/logic.ts';

// The validation-rule language (promotions reference 5.2–5.4, 5.8) and the applicable_to item selection
// (3.6), table-driven; cases quote the reference's and the vendor's examples where they give one.

const NOW = new Date('2026-03-10T12:00:00.000Z');

function line(partial: Partial<RuleOrderItem> & { productId?: string | null }): RuleOrderItem {
  return {
    productId: null,
    productSourceId: null,
    skuId: null,
    skuSourceId: null,
    quantity: 1,
    price: null,
    amount: null,
    collectionIds: [],
    metadata: {},
    ...partial,
  };
}

function context(partial: Partial<RuleContext> = {}): RuleContext {
  return {
    now: NOW,
    customer: { id: 'cust_1', metadata: {} },
    segmentIds: [],
    order: { amount: 10000, initialAmount: 10000, metadata: {}, items: [] },
    redemptionMetadata: {},
    customEventMetadata: null,
    counters: {},
    holderId: null,
    ...partial,
  };
}

/** A one-rule set: `{ "1": rule, logic: "1" }`. */
function one(rule: Record<string, unknown>) {
  return normaliseDefinition({ rules: { '1': rule, logic: '1' } });
}

function passes(rule: Record<string, unknown>, ctx: RuleContext): boolean {
  return evaluateRule(one(rule), ctx).passed;
}

function definitionError(input: Parameters<typeof normaliseDefinition>[0]): string {
  try {
    normaliseDefinition(input);
  } catch (error) {
    if (error instanceof RuleDefinitionError) return error.details;
    throw error;
  }
  throw new assert.AssertionError({ message: 'the definition was expected to be refused' });
}

describe('logic expressions', () => {
  const cases: Array<[string, string | null]> = [
    ['1', '1'],
    ['1 and 2', '(1 and 2)'],
    [' 1 AND 2 AND (  3 AND 4 )', '((1 and 2) and (3 and 4))'],
    ['(1 and 2) and (3)', '((1 and 2) and 3)'],
    ['1 or 2', '(1 or 2)'],
    ['1 Or 2 aNd 3', '(1 or (2 and 3))'],
    ['(1 or 2) and 3', '((1 or 2) and 3)'],
    ['', null],
  ];
  const show = (node: ReturnType<typeof parseLogic>): string | null =>
    node === null ? null : node.type === 'rule' ? node.key : `(${show(node.left)} ${node.type} ${show(node.right)})`;
  for (const [text, expected] of cases) {
    test(`parses ${JSON.stringify(text)}`, () => assert.equal(show(parseLogic(text)), expected));
  }
  for (const bad of ['1 xor 2', '1 and', '(1 or 2', '1 2', 'not 1', '1 & 2', ')']) {
    test(`refuses ${JSON.stringify(bad)}`, () => assert.throws(() => parseLogic(bad)));
  }

  test('and binds tighter than or', () => {
    const rules = {
      '1': { name: 'order.amount', conditions: { $more_than: [100] } },
      '2': { name: 'order.amount', conditions: { $less_than: [100] } },
      '3': { name: 'order.amount', conditions: { $less_than: [50] } },
    };
    // 1 holds, 2 and 3 do not: "1 or (2 and 3)" passes, "(1 or 2) and 3" would not.
    assert.equal(evaluateRule(normaliseDefinition({ rules: { ...rules, logic: '1 or 2 and 3' } }), context()).passed, true);
    assert.equal(evaluateRule(normaliseDefinition({ rules: { ...rules, logic: '(1 or 2) and 3' } }), context()).passed, false);
  });
});

describe('definitions that are refused (400 invalid_validation_rules)', () => {
  const rule = (r: Record<string, unknown>, logic = '1') => ({ rules: { '1': r, logic } });
  const cases: Array<[string, Parameters<typeof normaliseDefinition>[0], RegExp]> = [
    ['metadata rule without property (vendor wording)', rule({ name: 'custom_event.metadata', conditions: { $is: ['x'] } }), /^Rule 'custom_event\.metadata' must have a 'property'/],
    ['unknown rule name', rule({ name: 'order.colour', conditions: { $is: ['red'] } }), /Rule 1: unknown or unsupported rule name 'order\.colour'/],
    ['vendor name not evaluated here', rule({ name: 'order.total_amount', conditions: { $more_than: [1] } }), /unsupported rule name 'order\.total_amount'/],
    ['legacy metadata name not evaluated here', rule({ name: 'product_metadata', property: 'x', conditions: { $is: ['y'] } }), /unsupported rule name 'product_metadata'/],
    ['unknown operator', rule({ name: 'order.amount', conditions: { $bigger: [1] } }), /Rule 1 'order\.amount': unknown operator '\$bigger'/],
    ['time-window operator', rule({ name: 'redemption.metadata', property: 'at', conditions: { $timeframe: ['x'] } }), /operator '\$timeframe' is not supported/],
    ['operator the rule does not take', rule({ name: 'order.amount', conditions: { $contains: ['1'] } }), /operator '\$contains' cannot be used with this rule/],
    ['too many operands', rule({ name: 'order.amount', conditions: { $more_than: [1, 2] } }), /operator '\$more_than' takes exactly one number/],
    ['operand of the wrong type', rule({ name: 'order.amount', conditions: { $more_than: ['100'] } }), /takes exactly one number/],
    ['operand not an array', rule({ name: 'order.amount', conditions: { $more_than: 100 } }), /takes an array of values/],
    ['no condition', rule({ name: 'order.amount', conditions: {} }), /must have at least one condition/],
    ['property on a non-metadata rule', rule({ name: 'order.amount', property: 'x', conditions: { $is: [1] } }), /does not take a 'property'/],
    ['line sub-rule at the top level', rule({ name: 'order.items.quantity', conditions: { $more_than: [1] } }), /can only be a sub-rule of an order item rule/],
    ['logic naming a missing rule', rule({ name: 'order.amount', conditions: { $is: [1] } }, '1 and 2'), /names rule 2, which is not defined/],
    ['logic with a bad token', rule({ name: 'order.amount', conditions: { $is: [1] } }, '1 xor 1'), /unexpected token 'xor' at position 3/],
    ['a key that is not a number', { rules: { first: { name: 'order.amount', conditions: { $is: [1] } }, logic: '' } }, /'first' is neither a rule number nor 'logic'/],
    ['item reference without id', rule({ name: 'order.items.any', conditions: { $is: [{ object: 'product' }] } }), /needs an id or a source_id/],
    ['$from with a product', rule({ name: 'order.items.any', conditions: { $from: [{ id: 'prod_1', object: 'product' }] } }), /takes product collections only/],
    ['segment given as a number', rule({ name: 'customer.segment', conditions: { $in: [5] } }), /takes one or more segment ids/],
    ['flag that is not a boolean', rule({ name: 'publication.redeemable_by_linked_customer', conditions: { $is: ['yes'] } }), /takes exactly one boolean/],
    ['metadata date that is no date', rule({ name: 'customer.metadata', property: 'd', conditions: { $after: ['soon'] } }), /takes exactly one ISO 8601 date/],
    ['applicable_to effect unknown', { applicable_to: { included: [{ object: 'product', id: 'prod_1', effect: 'APPLY_TO_ALL' }] } }, /applicable_to\.included\[0\]\.effect/],
    ['applicable_to repeat zero', { applicable_to: { included: [{ object: 'product', id: 'prod_1', repeat: 0 }] } }, /repeat should be an integer >= 1/],
  ];
  for (const [name, input, pattern] of cases) {
    test(name, () => assert.match(definitionError(input), pattern));
  }

  test('sub-rules nest at least three levels, at most five', () => {
    const nest = (depth: number): Record<string, unknown> => {
      const leaf = { name: 'order.amount', conditions: { $more_than: [1] } };
      let rule: Record<string, unknown> = leaf;
      for (let level = 1; level < depth; level++) rule = { name: 'order.amount', conditions: { $more_than: [0] }, rules: { '1': rule, logic: '1' } };
      return rule;
    };
    assert.equal(evaluateRule(one(nest(3)), context()).passed, true);
    assert.equal(evaluateRule(one(nest(5)), context()).passed, true);
    assert.match(definitionError({ rules: { '1': nest(6), logic: '1' } }), /nest at most 5 levels/);
  });
});

describe('normalisation', () => {
  test('legacy snake_case names become dotted, $greater_than_or_equal becomes $more_than_or_equal', () => {
    const def = normaliseDefinition({
      rules: {
        '1': { name: 'customer_segment', conditions: { $in: ['seg_1'] } },
        '2': { name: 'order_metadata', property: 'channel', conditions: { $is: ['web'] } },
        '3': { name: 'order.amount', conditions: { $greater_than_or_equal: [1000] } },
        logic: '1 and 2 and 3',
      },
    });
    assert.deepEqual(def.rules, {
      '1': { name: 'customer.segment', property: null, conditions: { $in: ['seg_1'] }, rules: {} },
      '2': { name: 'order.metadata', property: 'channel', conditions: { $is: ['web'] }, rules: {} },
      '3': { name: 'order.amount', property: null, conditions: { $more_than_or_equal: [1000] }, rules: {} },
      logic: '1 and 2 and 3',
    });
  });

  test("the vendor's create example is accepted as sent (nested rules without logic must all hold)", () => {
    const def = normaliseDefinition({
      error: { message: 'Your order does not meet at least one of the required criteria.' },
      applicable_to: {
        included_all: false,
        excluded: [{ object: 'product', id: 'prod_0bae45ffc7003ffc52', source_id: 'second_product', effect: 'APPLY_TO_EVERY' }],
        included: [
          { object: 'product', id: 'prod_0b72b00ffed198e344', source_id: null, effect: 'APPLY_TO_MOST_EXPENSIVE', quantity_limit: 1 },
          { object: 'products_collection', id: 'pc_4ndRXAsTOzwSdHcQcxf489uU', source_id: null, effect: 'APPLY_TO_EVERY', quantity_limit: 5 },
        ],
      },
      rules: {
        '1': {
          name: 'order.metadata',
          property: 'location',
          rules: {},
          conditions: { $is: ['Santorini'] },
          error: { message: 'Your order must be placed at one of our Santorini shops.' },
        },
        '2': { name: 'custom_event.metadata', property: 'test', rules: {}, conditions: { $greater_than_or_equal: [1] } },
        '3': {
          name: 'order.items.every',
          rules: { '1': { name: 'order.items.metadata', property: 'test', rules: {}, conditions: { $greater_than_or_equal: [1] } } },
          conditions: { $is: [{ id: 'prod_X', effect: 'APPLY_TO_EVERY', object: 'product', source_id: 'src_X' }] },
        },
        logic: '1 or 2',
      },
    });
    assert.deepEqual(referencedObjects(def), { collections: ['pc_4ndRXAsTOzwSdHcQcxf489uU'], segments: [] });
    const outsideSantorini = context({ order: { amount: 1, initialAmount: 1, metadata: { location: 'Athens' }, items: [] } });
    const failed = evaluateRule(def, outsideSantorini);
    assert.equal(failed.passed, false);
    assert.deepEqual(!failed.passed && failed.failure, {
      key: 'order_rules_violated',
      message: 'order does not match validation rules',
      rule: '1',
      path: '1',
      name: 'order.metadata',
      error: 'Your order must be placed at one of our Santorini shops.',
    });
    assert.equal(evaluateRule(def, { ...outsideSantorini, customEventMetadata: { test: 2 } }).passed, true, 'rule 2 alone satisfies "1 or 2"');
  });
});

describe('rule names and operators', () => {
  const withCustomer = (metadata: Record<string, unknown>, segmentIds: string[] = []) => context({ customer: { id: 'cust_1', metadata }, segmentIds });
  const withOrder = (order: Partial<NonNullable<RuleContext['order']>>) =>
    context({ order: { amount: 10000, initialAmount: 10000, metadata: {}, items: [], ...order } });

  type Case = [string, Record<string, unknown>, RuleContext, boolean];
  const cases: Case[] = [
    // customer.segment ★
    ['segment $is member', { name: 'customer.segment', conditions: { $is: ['seg_a'] } }, withCustomer({}, ['seg_a']), true],
    ['segment $is non-member', { name: 'customer.segment', conditions: { $is: ['seg_a'] } }, withCustomer({}, ['seg_b']), false],
    ['segment $in any of', { name: 'customer.segment', conditions: { $in: ['seg_a', 'seg_b'] } }, withCustomer({}, ['seg_b']), true],
    ['segment $is_not', { name: 'customer.segment', conditions: { $is_not: ['seg_a'] } }, withCustomer({}, ['seg_b']), true],
    ['segment $is_not member', { name: 'customer.segment', conditions: { $is_not: ['seg_a'] } }, withCustomer({}, ['seg_a']), false],
    ['segment $not_in', { name: 'customer.segment', conditions: { $not_in: ['seg_a', 'seg_b'] } }, withCustomer({}, ['seg_c']), true],
    ['segment $not_in member', { name: 'customer.segment', conditions: { $not_in: ['seg_a', 'seg_b'] } }, withCustomer({}, ['seg_a']), false],
    // customer.metadata ★ and the metadata operators
    ['metadata $is', { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } }, withCustomer({ tier: 'gold' }), true],
    ['metadata $is loose number', { name: 'customer.metadata', property: 'age', conditions: { $is: [30] } }, withCustomer({ age: '30' }), true],
    ['metadata $is missing', { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } }, withCustomer({}), false],
    ['metadata $is_not missing', { name: 'customer.metadata', property: 'tier', conditions: { $is_not: ['gold'] } }, withCustomer({}), true],
    ['metadata $in', { name: 'customer.metadata', property: 'tier', conditions: { $in: ['gold', 'silver'] } }, withCustomer({ tier: 'silver' }), true],
    ['metadata $not_in', { name: 'customer.metadata', property: 'tier', conditions: { $not_in: ['gold', 'silver'] } }, withCustomer({ tier: 'silver' }), false],
    ['metadata $contains', { name: 'customer.metadata', property: 'email', conditions: { $contains: ['@shop'] } }, withCustomer({ email: 'a@shop.io' }), true],
    ['metadata $contains on a list', { name: 'customer.metadata', property: 'tags', conditions: { $contains: ['vip'] } }, withCustomer({ tags: ['new', 'vip'] }), true],
    ['metadata $starts_with', { name: 'customer.metadata', property: 'code', conditions: { $starts_with: ['EU-'] } }, withCustomer({ code: 'EU-7' }), true],
    ['metadata $ends_with', { name: 'customer.metadata', property: 'code', conditions: { $ends_with: ['-7'] } }, withCustomer({ code: 'EU-8' }), false],
    ['metadata $more_than', { name: 'customer.metadata', property: 'visits', conditions: { $more_than: [3] } }, withCustomer({ visits: 4 }), true],
    ['metadata $more_than_or_equal', { name: 'customer.metadata', property: 'visits', conditions: { $more_than_or_equal: [4] } }, withCustomer({ visits: 4 }), true],
    ['metadata $less_than', { name: 'customer.metadata', property: 'visits', conditions: { $less_than: [4] } }, withCustomer({ visits: 4 }), false],
    ['metadata $less_than_or_equal', { name: 'customer.metadata', property: 'visits', conditions: { $less_than_or_equal: [4] } }, withCustomer({ visits: '4' }), true],
    ['metadata $more_than on a date', { name: 'customer.metadata', property: 'since', conditions: { $more_than: ['2025-01-01'] } }, withCustomer({ since: '2025-06-01' }), true],
    ['metadata $after', { name: 'customer.metadata', property: 'since', conditions: { $after: ['2026-01-01T00:00:00Z'] } }, withCustomer({ since: '2025-12-31' }), false],
    ['metadata $before', { name: 'customer.metadata', property: 'since', conditions: { $before: ['2026-01-01'] } }, withCustomer({ since: '2025-12-31' }), true],
    ['metadata $count', { name: 'customer.metadata', property: 'tags', conditions: { $count: [2] } }, withCustomer({ tags: ['a', 'b'] }), true],
    ['metadata $count_more', { name: 'customer.metadata', property: 'tags', conditions: { $count_more: [2] } }, withCustomer({ tags: ['a', 'b'] }), false],
    ['metadata $count_less', { name: 'customer.metadata', property: 'tags', conditions: { $count_less: [3] } }, withCustomer({ tags: ['a', 'b'] }), true],
    ['metadata $not_differ', { name: 'customer.metadata', property: 'tags', conditions: { $not_differ: ['b', 'a'] } }, withCustomer({ tags: ['a', 'b'] }), true],
    ['metadata $not_intersect', { name: 'customer.metadata', property: 'tags', conditions: { $not_intersect: ['c'] } }, withCustomer({ tags: ['a', 'b'] }), true],
    ['metadata $not_intersect overlap', { name: 'customer.metadata', property: 'tags', conditions: { $not_intersect: ['b'] } }, withCustomer({ tags: ['a', 'b'] }), false],
    ['metadata $more_than_ago', { name: 'customer.metadata', property: 'joined', conditions: { $more_than_ago: [30] } }, withCustomer({ joined: '2026-01-01' }), true],
    ['metadata $less_than_ago', { name: 'customer.metadata', property: 'joined', conditions: { $less_than_ago: [30] } }, withCustomer({ joined: '2026-01-01' }), false],
    ['metadata $is_days_ago', { name: 'customer.metadata', property: 'joined', conditions: { $is_days_ago: [2] } }, withCustomer({ joined: '2026-03-08T23:59:00Z' }), true],
    ['metadata $more_than_future', { name: 'customer.metadata', property: 'renews', conditions: { $more_than_future: [10] } }, withCustomer({ renews: '2026-04-01' }), true],
    ['metadata $less_than_future', { name: 'customer.metadata', property: 'renews', conditions: { $less_than_future: [10] } }, withCustomer({ renews: '2026-04-01' }), false],
    ['metadata $is_days_in_future', { name: 'customer.metadata', property: 'renews', conditions: { $is_days_in_future: [1] } }, withCustomer({ renews: '2026-03-11' }), true],
    ['several operators are all required', { name: 'customer.metadata', property: 'visits', conditions: { $more_than: [1], $less_than: [3] } }, withCustomer({ visits: 5 }), false],
    // order.amount ★ (vendor guide: $more_than [10000] = more than $100; GET example: $less_than [4000])
    ['order.amount $more_than 10000 at 10001', { name: 'order.amount', conditions: { $more_than: [10000] } }, withOrder({ amount: 10001 }), true],
    ['order.amount $more_than 10000 at 10000', { name: 'order.amount', conditions: { $more_than: [10000] } }, withOrder({ amount: 10000 }), false],
    ['order.amount $less_than 4000', { name: 'order.amount', conditions: { $less_than: [4000] } }, withOrder({ amount: 3999 }), true],
    ['order.amount $more_than_or_equal', { name: 'order.amount', conditions: { $more_than_or_equal: [10000] } }, withOrder({ amount: 10000 }), true],
    ['order.amount $less_than_or_equal', { name: 'order.amount', conditions: { $less_than_or_equal: [9999] } }, withOrder({ amount: 10000 }), false],
    ['order.amount $is', { name: 'order.amount', conditions: { $is: [10000] } }, withOrder({ amount: 10000 }), true],
    ['order.amount $is_not', { name: 'order.amount', conditions: { $is_not: [10000] } }, withOrder({ amount: 10000 }), false],
    ['order.amount $in', { name: 'order.amount', conditions: { $in: [5000, 10000] } }, withOrder({ amount: 10000 }), true],
    ['order.amount $not_in', { name: 'order.amount', conditions: { $not_in: [5000, 10000] } }, withOrder({ amount: 10000 }), false],
    ['order.amount without an order', { name: 'order.amount', conditions: { $more_than: [0] } }, context({ order: null }), false],
    ['order.initial_amount ★ stays the initial value', { name: 'order.initial_amount', conditions: { $more_than_or_equal: [20000] } }, withOrder({ amount: 15000, initialAmount: 20000 }), true],
    [
      'order.items.count ★ sums quantities',
      { name: 'order.items.count', conditions: { $more_than_or_equal: [3] } },
      withOrder({ items: [line({ productId: 'prod_a', quantity: 2 }), line({ productId: 'prod_b', quantity: 1 })] }),
      true,
    ],
    ['order.metadata ★ (vendor example)', { name: 'order.metadata', property: 'location', conditions: { $is: ['Santorini'] } }, withOrder({ metadata: { location: 'Santorini' } }), true],
    [
      'order.items.price_any',
      { name: 'order.items.price_any', conditions: { $more_than: [1500] } },
      withOrder({ items: [line({ price: 1000 }), line({ price: 2000 })] }),
      true,
    ],
    [
      'order.items.price_each',
      { name: 'order.items.price_each', conditions: { $more_than: [1500] } },
      withOrder({ items: [line({ price: 1000 }), line({ price: 2000 })] }),
      false,
    ],
    [
      'order.items.metadata_any',
      { name: 'order.items.metadata_any', property: 'sale', conditions: { $is: [true] } },
      withOrder({ items: [line({ metadata: { sale: false } }), line({ metadata: { sale: true } })] }),
      true,
    ],
    [
      'order.items.metadata_each',
      { name: 'order.items.metadata_each', property: 'sale', conditions: { $is: [true] } },
      withOrder({ items: [line({ metadata: { sale: false } }), line({ metadata: { sale: true } })] }),
      false,
    ],
    // redemption, publication, custom event
    ['redemption.metadata ★', { name: 'redemption.metadata', property: 'channel', conditions: { $in: ['pos', 'web'] } }, context({ redemptionMetadata: { channel: 'pos' } }), true],
    ['custom_event.metadata', { name: 'custom_event.metadata', property: 'plan', conditions: { $is: ['pro'] } }, context({ customEventMetadata: { plan: 'basic' } }), false],
    ['publication holder redeems', { name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } }, context({ holderId: 'cust_1' }), true],
    ['publication someone else redeems', { name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } }, context({ holderId: 'cust_2' }), false],
    ['publication code without holder', { name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } }, context({ holderId: null }), false],
    ['publication rule switched off', { name: 'publication.redeemable_by_linked_customer', conditions: { $is: [false] } }, context({ holderId: 'cust_2' }), true],
  ];
  for (const [name, rule, ctx, expected] of cases) {
    test(name, () => assert.equal(passes(rule, ctx), expected));
  }

  const counterCases: Array<[string, number, boolean]> = [
    ['campaign.redemptions.count', 4, true],
    ['campaign.redemptions.count', 5, false],
    ['campaign.redemptions.count.daily', 4, true],
    ['campaign.redemptions.count.weekly', 5, false],
    ['campaign.redemptions.count.monthly', 0, true],
    ['campaign.orders.amount', 5, false],
    ['campaign.orders.amount_discounted', 1, true],
    ['redemption.count.daily', 4, true],
    ['redemption.count.weekly', 6, false],
    ['redemption.count.monthly', 4, true],
    ['redemption.count.per_customer', 4, true],
    ['redemption.count.per_customer', 5, false],
    ['redemption.count.per_customer.daily', 2, true],
    ['redemption.count.per_customer.weekly', 5, false],
    ['redemption.count.per_customer.monthly', 4, true],
  ];
  for (const [name, value, expected] of counterCases) {
    test(`${name} $less_than [5] with ${value} before this one`, () => {
      const rule = { name, conditions: { $less_than: [5] } };
      const result = evaluateRule(one(rule), context({ counters: { [name]: value } }));
      assert.equal(result.passed, expected);
      if (!result.passed) assert.equal(result.failure.key, 'redemption_rules_violated');
    });
  }

  test('a counter the caller did not look up is a programming error, not a silent pass', () => {
    assert.throws(() => evaluateRule(one({ name: 'campaign.redemptions.count', conditions: { $less_than: [5] } }), context()), /did not provide/);
  });
});

describe('order item rules', () => {
  const order = (items: RuleOrderItem[]) => context({ order: { amount: 0, initialAmount: 0, metadata: {}, items } });
  const shoe = line({ productId: 'prod_shoe', productSourceId: 'shoe', quantity: 2, price: 5000, amount: 10000, collectionIds: ['pc_wear'] });
  const hat = line({ productId: 'prod_hat', skuId: 'sku_red_hat', skuSourceId: 'red-hat', quantity: 1, price: 1500, amount: 1500, collectionIds: ['pc_wear'] });
  const mug = line({ productId: 'prod_mug', quantity: 3, price: 800, amount: 2400, metadata: { fragile: true } });
  const product = (id: string) => ({ id, object: 'product' });

  type Case = [string, Record<string, unknown>, RuleOrderItem[], boolean];
  const cases: Case[] = [
    ['any: one listed product is in the order', { name: 'order.items.any', conditions: { $is: [product('prod_hat')] } }, [shoe, hat], true],
    ['any: by source_id', { name: 'order.items.any', conditions: { $in: [{ source_id: 'shoe', object: 'product' }] } }, [shoe], true],
    ['any: by SKU', { name: 'order.items.any', conditions: { $is: [{ id: 'sku_red_hat', object: 'sku' }] } }, [hat], true],
    ['any: a SKU line matches its product', { name: 'order.items.any', conditions: { $is: [product('prod_hat')] } }, [hat], true],
    ['any: by collection', { name: 'order.items.any', conditions: { $is: [{ id: 'pc_wear', object: 'products_collection' }] } }, [mug, hat], true],
    ['any: none listed', { name: 'order.items.any', conditions: { $is: [product('prod_lamp')] } }, [shoe, mug], false],
    ['any: $from restricts to a collection', { name: 'order.items.any', conditions: { $is: [product('prod_mug')], $from: [{ id: 'pc_wear' }] } }, [shoe, mug], false],
    ['every: all lines listed', { name: 'order.items.every', conditions: { $in: [product('prod_shoe'), product('prod_hat')] } }, [shoe, hat], true],
    ['every: one line not listed', { name: 'order.items.every', conditions: { $in: [product('prod_shoe'), product('prod_hat')] } }, [shoe, hat, mug], false],
    ['every: an empty order', { name: 'order.items.every', conditions: { $in: [product('prod_shoe')] } }, [], false],
    ['none: excluded product absent', { name: 'order.items.none', conditions: { $is: [product('prod_mug')] } }, [shoe, hat], true],
    ['none: excluded product present', { name: 'order.items.none', conditions: { $is: [product('prod_mug')] } }, [shoe, mug], false],
    ['cheapest: the cheapest line is listed', { name: 'order.items.cheapest', conditions: { $is: [product('prod_mug')] } }, [shoe, hat, mug], true],
    ['cheapest: the cheapest line is not listed', { name: 'order.items.cheapest', conditions: { $is: [product('prod_hat')] } }, [shoe, hat, mug], false],
    ['cheapest within a collection', { name: 'order.items.cheapest', conditions: { $is: [product('prod_hat')], $from: [{ id: 'pc_wear' }] } }, [shoe, hat, mug], true],
    ['most_expensive', { name: 'order.items.most_expensive', conditions: { $is: [product('prod_shoe')] } }, [shoe, hat, mug], true],
    ['product.id ★ (older form, object implied)', { name: 'product.id', conditions: { $in: [{ id: 'prod_mug' }] } }, [shoe, mug], true],
    ['sku.id (object implied)', { name: 'sku.id', conditions: { $is: [{ source_id: 'red-hat' }] } }, [hat], true],
    [
      'sub-rule order.items.quantity on the matched line',
      { name: 'order.items.any', conditions: { $is: [product('prod_mug')] }, rules: { '1': { name: 'order.items.quantity', conditions: { $more_than_or_equal: [3] } }, logic: '1' } },
      [shoe, mug],
      true,
    ],
    [
      'sub-rule order.items.quantity too low',
      { name: 'order.items.any', conditions: { $is: [product('prod_shoe')] }, rules: { '1': { name: 'order.items.quantity', conditions: { $more_than_or_equal: [3] } }, logic: '1' } },
      [shoe, mug],
      false,
    ],
    [
      'sub-rule order.items.price',
      { name: 'order.items.any', conditions: {}, rules: { '1': { name: 'order.items.price', conditions: { $more_than: [4000] } }, logic: '1' } },
      [hat, shoe],
      true,
    ],
    [
      'sub-rule order.items.aggregated_quantity over the matched lines',
      { name: 'order.items.any', conditions: { $is: [{ id: 'pc_wear', object: 'products_collection' }] }, rules: { '1': { name: 'order.items.aggregated_quantity', conditions: { $is: [3] } }, logic: '1' } },
      [shoe, hat, mug],
      true,
    ],
    [
      'sub-rule order.items.aggregated_amount over the matched lines',
      { name: 'order.items.any', conditions: { $is: [{ id: 'pc_wear', object: 'products_collection' }] }, rules: { '1': { name: 'order.items.aggregated_amount', conditions: { $more_than: [11500] } }, logic: '1' } },
      [shoe, hat, mug],
      false,
    ],
    [
      'sub-rule order.items.metadata',
      { name: 'order.items.any', conditions: {}, rules: { '1': { name: 'order.items.metadata', property: 'fragile', conditions: { $is: [true] } }, logic: '1' } },
      [shoe, mug],
      true,
    ],
    [
      'product.id with product.price and product.quantity',
      {
        name: 'product.id',
        conditions: { $is: [{ id: 'prod_shoe' }] },
        rules: { '1': { name: 'product.price', conditions: { $is: [5000] } }, '2': { name: 'product.quantity', conditions: { $more_than: [2] } }, logic: '1 and 2' },
      },
      [shoe],
      false,
    ],
    [
      'sku.id with sku.price and sku.quantity',
      {
        name: 'sku.id',
        conditions: { $is: [{ id: 'sku_red_hat' }] },
        rules: { '1': { name: 'sku.price', conditions: { $less_than: [2000] } }, '2': { name: 'sku.quantity', conditions: { $is: [1] } }, logic: '1 and 2' },
      },
      [hat],
      true,
    ],
    [
      'every with a sub-rule on every line (vendor example shape)',
      { name: 'order.items.every', conditions: { $is: [product('prod_mug')] }, rules: { '1': { name: 'order.items.metadata', property: 'fragile', conditions: { $is: [true] } } } },
      [mug],
      true,
    ],
  ];
  for (const [name, rule, items, expected] of cases) {
    test(name, () => assert.equal(passes(rule, order(items)), expected));
  }

  test('an item rule fails the order family', () => {
    const result = evaluateRule(one({ name: 'order.items.any', conditions: { $is: [product('prod_lamp')] } }), order([shoe]));
    assert.equal(!result.passed && result.failure.key, 'order_rules_violated');
  });
});

describe('failures: keys, rule numbers and messages', () => {
  const rules = {
    '1': { name: 'customer.segment', conditions: { $in: ['seg_vip'] }, error: { message: 'VIPs only' } },
    '2': { name: 'order.amount', conditions: { $more_than: [5000] } },
    '3': { name: 'redemption.count.per_customer', conditions: { $less_than: [1] } },
    logic: '2 and 1 and 3',
  };

  test('the first failing rule of an "and" is reported, with its own message', () => {
    const def = normaliseDefinition({ rules, error: { message: 'Not eligible' } });
    const result = evaluateRule(def, context({ counters: { 'redemption.count.per_customer': 0 } }));
    assert.equal(result.passed, false);
    assert.deepEqual(!result.passed && result.failure, {
      key: 'customer_rules_violated',
      message: 'customer does not match segment rules',
      rule: '1',
      path: '1',
      name: 'customer.segment',
      error: 'VIPs only',
    });
  });

  test("a rule without its own message falls back to the rule set's", () => {
    const def = normaliseDefinition({ rules, error: { message: 'Not eligible' } });
    const result = evaluateRule(def, context({ segmentIds: ['seg_vip'], counters: { 'redemption.count.per_customer': 1 } }));
    assert.equal(!result.passed && result.failure.rule, '3');
    assert.equal(!result.passed && result.failure.key, 'redemption_rules_violated');
    assert.equal(!result.passed && result.failure.error, 'Not eligible');
  });

  test('no configured message at all means no error message', () => {
    const def = normaliseDefinition({ rules: { '1': rules['2'], logic: '1' } });
    const result = evaluateRule(def, context({ order: { amount: 1, initialAmount: 1, metadata: {}, items: [] } }));
    assert.equal(!result.passed && result.failure.error, null);
  });

  test('customer rules without a customer fail with missing_customer', () => {
    const def = normaliseDefinition({ rules: { '1': rules['1'], logic: '1' } });
    const result = evaluateRule(def, context({ customer: null }));
    assert.equal(!result.passed && result.failure.key, 'missing_customer');
    assert.equal(!result.passed && result.failure.message, 'Customer is required to validate rules');
    const perCustomer = evaluateRule(normaliseDefinition({ rules: { '1': rules['3'], logic: '1' } }), context({ customer: null, counters: { 'redemption.count.per_customer': 0 } }));
    assert.equal(!perCustomer.passed && perCustomer.failure.key, 'missing_customer');
  });

  test('a customer rule in an "or" with a passing alternative does not need a customer', () => {
    const def = normaliseDefinition({ rules: { ...rules, logic: '1 or 2' } });
    assert.equal(evaluateRule(def, context({ customer: null })).passed, true);
  });

  test('both sides of a failing "or": the first is reported', () => {
    const def = normaliseDefinition({ rules: { ...rules, logic: '(2 or 1)' } });
    const result = evaluateRule(def, context({ order: { amount: 1, initialAmount: 1, metadata: {}, items: [] } }));
    assert.equal(!result.passed && result.failure.rule, '2');
  });

  test('a nested failure reports its path, its own message, else the nearest enclosing one', () => {
    const nested = {
      name: 'order.amount',
      conditions: { $more_than: [0] },
      error: { message: 'outer' },
      rules: {
        '1': {
          name: 'order.amount',
          conditions: { $more_than: [0] },
          rules: { '1': { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } }, logic: '1' },
        },
        logic: '1',
      },
    };
    const result = evaluateRule(normaliseDefinition({ rules: { '1': nested, logic: '1' }, error: { message: 'set' } }), context());
    assert.equal(result.passed, false);
    assert.equal(!result.passed && result.failure.path, '1.1.1');
    assert.equal(!result.passed && result.failure.rule, '1');
    assert.equal(!result.passed && result.failure.key, 'customer_rules_violated', 'the family of the rule that failed');
    assert.equal(!result.passed && result.failure.error, 'outer');
  });
});

describe('applicable_to item selection', () => {
  const lineOf = (productId: string, price: number, quantity = 1, collectionIds: string[] = []): SelectableLine => ({
    productId,
    productSourceId: null,
    skuId: null,
    skuSourceId: null,
    quantity,
    price,
    amount: price * quantity,
    collectionIds,
  });
  const applicable = (partial: Partial<ApplicableTo>): ApplicableTo => ({ included: [], excluded: [], included_all: false, ...partial });

  test('vendor example: from most expensive, skip 1, repeat 2 over $20, $15, $10, $5 takes $15 and $5', () => {
    const lines = [lineOf('prod_mug', 1000), lineOf('prod_tshirt', 2000), lineOf('prod_socks', 500), lineOf('prod_poster', 1500)];
    const result = selectItems(
      applicable({
        included: [{ object: 'products_collection', id: 'pc_all', effect: 'APPLY_FROM_MOST_EXPENSIVE', skip_initially: 1, repeat: 2 }],
      }),
      [],
      lines.map((l) => ({ ...l, collectionIds: ['pc_all'] })),
    );
    assert.deepEqual(
      result.targets.map((t) => lines[t.index]?.productId),
      ['prod_poster', 'prod_socks'],
    );
    assert.deepEqual(result.applicable_to.data[0]?.order_item_indices, [3, 2]);
  });

  test('vendor example: 10 units, skip 1, repeat 3 covers units 2, 5, 8', () => {
    const result = selectItems(
      applicable({ included: [{ object: 'product', id: 'prod_a', effect: 'APPLY_TO_EVERY', target: 'UNIT', skip_initially: 1, repeat: 3 }] }),
      [],
      [lineOf('prod_a', 100, 10)],
    );
    assert.deepEqual(result.targets, [{ index: 0, units: 3, unitNumbers: [2, 5, 8], entry: result.targets[0]?.entry ?? null }]);
    assert.deepEqual(result.applicable_to.data[0]?.order_item_units, [{ index: 0, units: [2, 5, 8] }]);
  });

  // Dashboard example (reference 3.4): Mug $10×2, Poster $15×3, T-shirt $20×3 matched; Bottle $25×2 not.
  const cart = [lineOf('prod_mug', 1000, 2, ['pc_m']), lineOf('prod_poster', 1500, 3, ['pc_m']), lineOf('prod_tshirt', 2000, 3, ['pc_m']), lineOf('prod_bottle', 2500, 2)];
  const entry = (effect: 'APPLY_TO_EVERY' | 'APPLY_TO_CHEAPEST' | 'APPLY_TO_MOST_EXPENSIVE' | 'APPLY_FROM_CHEAPEST', extra: Record<string, unknown> = {}) => ({
    object: 'products_collection' as const,
    id: 'pc_m',
    effect,
    ...extra,
  });
  const selections: Array<[string, ApplicableTo, Array<[number, number]>]> = [
    ['every matched line, all its units', applicable({ included: [entry('APPLY_TO_EVERY')] }), [[0, 2], [1, 3], [2, 3]]],
    ['only the cheapest line', applicable({ included: [entry('APPLY_TO_CHEAPEST')] }), [[0, 2]]],
    ['only the most expensive line', applicable({ included: [entry('APPLY_TO_MOST_EXPENSIVE')] }), [[2, 3]]],
    ['the cheapest unit only', applicable({ included: [entry('APPLY_TO_CHEAPEST', { target: 'UNIT' })] }), [[0, 1]]],
    ['from cheapest, units, every second', applicable({ included: [entry('APPLY_FROM_CHEAPEST', { target: 'UNIT', repeat: 2 })] }), [[0, 1], [1, 2], [2, 1]]],
    ['quantity_limit per line', applicable({ included: [entry('APPLY_TO_EVERY', { quantity_limit: 1 })] }), [[0, 1], [1, 1], [2, 1]]],
    ['aggregated_quantity_limit across lines', applicable({ included: [entry('APPLY_TO_EVERY', { aggregated_quantity_limit: 4 })] }), [[0, 2], [1, 2]]],
    ['excluded lines are never targets', applicable({ included: [entry('APPLY_TO_EVERY')], excluded: [{ object: 'product', id: 'prod_poster', effect: 'APPLY_TO_EVERY' }] }), [[0, 2], [2, 3]]],
    ['included_all with an exclusion', applicable({ included_all: true, excluded: [{ object: 'product', id: 'prod_bottle', effect: 'APPLY_TO_EVERY' }] }), [[0, 2], [1, 3], [2, 3]]],
    ['no targets named: every line', applicable({}), [[0, 2], [1, 3], [2, 3], [3, 2]]],
    [
      'a line taken by an earlier entry is not taken again',
      applicable({ included: [{ object: 'product', id: 'prod_tshirt', effect: 'APPLY_TO_EVERY', quantity_limit: 1 }, entry('APPLY_TO_EVERY')] }),
      [[2, 1], [0, 2], [1, 3]],
    ],
  ];
  for (const [name, rules, expected] of selections) {
    test(name, () => {
      const result = selectItems(rules, [], cart);
      assert.deepEqual(
        result.targets.map((t) => [t.index, t.units]),
        expected,
      );
    });
  }

  test('restricted only when the rule names targets; exclusions are echoed in inapplicable_to', () => {
    assert.equal(selectItems(applicable({}), [], cart).restricted, false);
    const excluded = selectItems(applicable({ excluded: [{ object: 'product', id: 'prod_bottle', effect: 'APPLY_TO_EVERY' }] }), [], cart);
    assert.equal(excluded.restricted, true);
    assert.deepEqual(excluded.inapplicable_to.data.map((e) => e.order_item_indices), [[3]]);
    assert.equal(excluded.inapplicable_to.total, 1);
  });

  test('more than 1000 units: counts stay exact, unit numbers give way to units_limit_exceeded', () => {
    const result = selectItems(applicable({ included: [{ object: 'product', id: 'prod_a', effect: 'APPLY_TO_EVERY', target: 'UNIT', repeat: 2 }] }), [], [lineOf('prod_a', 1, 1001)]);
    assert.equal(result.targets[0]?.units, 501);
    assert.deepEqual(result.applicable_to.data[0]?.order_item_units, [{ index: 0, units_limit_exceeded: true }]);
  });

  test('product.discount_applicable ★ makes the rule’s products discount targets', () => {
    const def = normaliseDefinition({
      rules: {
        '1': {
          name: 'product.id',
          conditions: { $is: [{ id: 'prod_poster' }] },
          rules: { '1': { name: 'product.discount_applicable', conditions: { $is: [true] } }, logic: '1' },
        },
        logic: '1',
      },
    });
    const items = cart.map((l) => ({ ...l, metadata: {} }));
    const result = evaluateRule(def, context({ order: { amount: 0, initialAmount: 0, metadata: {}, items } }));
    assert.equal(result.passed, true);
    assert.equal(result.selection.restricted, true);
    assert.deepEqual(
      result.selection.targets.map((t) => t.index),
      [1],
    );
    const sku = normaliseDefinition({
      rules: { '1': { name: 'sku.id', conditions: { $is: [{ id: 'sku_x' }] }, rules: { '1': { name: 'sku.discount_applicable', conditions: { $is: [false] } } } }, logic: '1' },
    });
    assert.equal(evaluateRule(sku, context()).selection.restricted, false, 'discount_applicable: false marks nothing');
  });
});

describe('facts a caller must look up', () => {
  test('lists customers, segments, collections, counters and the other facts the rules read', () => {
    const def = normaliseDefinition({
      rules: {
        '1': { name: 'customer.segment', conditions: { $in: ['seg_a'] } },
        '2': { name: 'order.items.any', conditions: { $is: [{ id: 'pc_one' }], $from: [{ id: 'pc_two', object: 'products_collection' }] } },
        '3': { name: 'campaign.redemptions.count.daily', conditions: { $less_than: [10] } },
        '4': { name: 'redemption.metadata', property: 'x', conditions: { $is: ['y'] } },
        '5': { name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } },
        logic: '1 and 2 and 3 and 4 and 5',
      },
      applicable_to: { included: [{ object: 'products_collection', id: 'pc_three', effect: 'APPLY_TO_EVERY' }] },
    });
    const facts = factsNeeded(def);
    assert.deepEqual(facts, {
      customer: true,
      segments: true,
      order: true,
      collections: ['pc_one', 'pc_two', 'pc_three'],
      counters: ['campaign.redemptions.count.daily'],
      redemptionMetadata: true,
      customEventMetadata: false,
      holder: true,
    });
    assert.deepEqual(referencedObjects(def), { collections: ['pc_one', 'pc_two', 'pc_three'], segments: ['seg_a'] });
  });

  test('a rule set with no rules and no targets passes without any fact', () => {
    const def = normaliseDefinition({ rules: { logic: '' } });
    assert.deepEqual(def.rules, { logic: '' });
    assert.equal(evaluateRule(def, context({ customer: null, order: null })).passed, true);
  });
});
