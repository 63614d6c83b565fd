import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  earnedPoints,
  eventKind,
  mappedLoyalty,
  mapPoints,
  normalizeLoyalty,
  type EarningFacts,
  type EarningLine,
  type EarningLoyalty,
  type LoyaltyInput,
} from '../../src/domain/loyalty/earning.ts';

function line(over: Partial<EarningLine>): EarningLine {
  return { productId: null, skuId: null, collectionIds: [], quantity: 1, discountQuantity: 0, amount: null, subtotal: null, metadata: {}, ...over };
}

const order: EarningFacts = {
  order: {
    amount: 45000,
    totalAmount: 40000,
    metadata: { visits: 7, note: 'x' },
    lines: [
      line({ productId: 'prod_a', quantity: 3, amount: 30000, subtotal: 27000, collectionIds: ['pc_shoes'] }),
      line({ productId: 'prod_b', skuId: 'sku_b1', quantity: 2, discountQuantity: 1, amount: 15000, subtotal: 13000, collectionIds: ['pc_shoes', 'pc_sale'] }),
      line({ productId: 'prod_c', quantity: 5, amount: 0, subtotal: 0 }),
    ],
  },
  customerMetadata: { age: '42', tier: 'gold' },
  eventMetadata: { minutes: 95 },
};

function rule(input: LoyaltyInput, event = 'order.paid'): EarningLoyalty {
  const checked = normalizeLoyalty(input, event);
  assert.ok(checked.ok, checked.ok ? '' : checked.error);
  return checked.value;
}

describe('earning rule points (loyalty reference 4.5)', () => {
  const cases: Array<{ name: string; loyalty: LoyaltyInput; event?: string; points: number }> = [
    { name: 'FIXED gives its points', loyalty: { type: 'FIXED', points: 10 }, points: 10 },
    { name: 'FIXED points sent as a string are read as a number', loyalty: { type: 'FIXED', points: '5' }, points: 5 },
    // Vendor example: total 45000, every 500, 10 points → 900 (here on the pre-discount amount).
    { name: 'ORDER_AMOUNT: points for every whole `every` of the amount', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 500, points: 10 } } }, points: 900 },
    { name: 'ORDER_TOTAL_AMOUNT uses the amount after discounts', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT', order: { total_amount: { every: 1000, points: 1 } } }, points: 40 },
    { name: 'partial increments earn nothing', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT', order: { total_amount: { every: 30000, points: 7 } } }, points: 7 },
    { name: 'the calculation follows from the one member sent', loyalty: { type: 'PROPORTIONAL', order: { amount: { every: 1000, points: 2 } } }, points: 90 },
    { name: 'ORDER_METADATA reads a numeric property', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_METADATA', order: { metadata: { every: 2, points: 3, property: 'visits' } } }, points: 9 },
    { name: 'a non-numeric metadata value gives 0', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_METADATA', order: { metadata: { every: 1, points: 3, property: 'note' } } }, points: 0 },
    {
      name: 'ORDER_ITEMS_QUANTITY counts matching units, free units excluded',
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_QUANTITY', order_items: { quantity: { every: 1, points: 2, object: 'products_collection', id: 'pc_shoes' } } },
      points: 8,
    },
    {
      name: 'a line in two selected collections counts once',
      loyalty: {
        type: 'PROPORTIONAL',
        calculation_type: 'ORDER_ITEMS_AMOUNT',
        order_items: { amount: { every: 1000, points: 1, applicable_to: [{ object: 'products_collection', id: 'pc_shoes' }, { object: 'products_collection', id: 'pc_sale' }] } },
      },
      points: 45,
    },
    {
      name: 'ORDER_ITEMS_SUBTOTAL_AMOUNT sums post-discount amounts of matching SKUs',
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_SUBTOTAL_AMOUNT', order_items: { subtotal_amount: { every: 1000, points: 1, object: 'sku', id: 'sku_b1' } } },
      points: 13,
    },
    { name: 'CUSTOMER_METADATA reads numeric strings', loyalty: { type: 'PROPORTIONAL', calculation_type: 'CUSTOMER_METADATA', customer: { metadata: { every: 10, points: 1, property: 'age' } } }, points: 4 },
    {
      name: 'CUSTOM_EVENT_METADATA reads the event metadata',
      event: 'watched_video',
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'CUSTOM_EVENT_METADATA', custom_event: { metadata: { every: 30, points: 5, property: 'minutes' } } },
      points: 15,
    },
    { name: 'a points formula replaces the figure (money in major units)', loyalty: { type: 'FIXED', points: 1, points_formula: 'ORDER_AMOUNT / 10' }, points: 45 },
    { name: 'a formula that cannot be evaluated falls back to the static points', loyalty: { type: 'FIXED', points: 3, points_formula: 'CUSTOMER_METADATA("missing") * 2' }, points: 3 },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(earnedPoints(rule(c.loyalty, c.event), order), c.points);
    });
  }

  test('an order rule without an order gives nothing', () => {
    assert.equal(earnedPoints(rule({ type: 'PROPORTIONAL', order: { amount: { every: 1, points: 1 } } }), { ...order, order: null }), 0);
  });
});

describe('tier mappings', () => {
  test('MULTIPLY multiplies what the rule gives and rounds half away from zero', () => {
    const loyalty = rule({ type: 'PROPORTIONAL', order: { amount: { every: 1000, points: 1 } } });
    assert.equal(earnedPoints(loyalty, order, { type: 'MULTIPLY', multiplier: 1.5 }), 68); // 45 × 1.5 = 67.5
    assert.equal(earnedPoints(rule({ type: 'FIXED', points: 10 }), order, { type: 'MULTIPLY', multiplier: 2 }), 20);
  });
  test('CUSTOM replaces the rule figure: the fixed points, or the points per increment', () => {
    assert.equal(earnedPoints(rule({ type: 'FIXED', points: 10 }), order, { type: 'CUSTOM', points: 25 }), 25);
    assert.equal(earnedPoints(rule({ type: 'PROPORTIONAL', order: { amount: { every: 1000, points: 1 } } }), order, { type: 'CUSTOM', points: 3 }), 135);
  });
  test('the tier listing shows the mapped figure', () => {
    assert.deepEqual(mappedLoyalty(rule({ type: 'FIXED', points: 10 }), { type: 'MULTIPLY', multiplier: 3 }), { type: 'FIXED', points: 30 });
    const proportional = mappedLoyalty(rule({ type: 'PROPORTIONAL', order: { amount: { every: 100, points: 2 } } }), { type: 'CUSTOM', points: 7 });
    assert.deepEqual(proportional, { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 100, points: 7 } } });
    assert.equal(mapPoints(5, null), 5);
  });
});

describe('earning rule definitions', () => {
  const refusals: Array<{ name: string; loyalty: LoyaltyInput; event?: string; error: RegExp }> = [
    { name: 'FIXED without points', loyalty: { type: 'FIXED' }, error: /loyalty\.points is required/ },
    { name: 'negative points', loyalty: { type: 'FIXED', points: -1 }, error: /whole number/ },
    { name: 'a proportional rule without its member', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT' }, error: /must contain the property 'order.total_amount'/ },
    { name: 'every of 0', loyalty: { type: 'PROPORTIONAL', order: { amount: { every: 0, points: 1 } } }, error: /every must be a whole number from 1/ },
    { name: 'metadata calculation without property', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_METADATA', order: { metadata: { every: 1, points: 1 } } }, error: /property is required/ },
    { name: 'an order calculation on a segment rule', event: 'customer.segment.entered', loyalty: { type: 'PROPORTIONAL', order: { amount: { every: 1, points: 1 } } }, error: /cannot be used by customer.segment.entered/ },
    { name: 'items rule without targets', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_QUANTITY', order_items: { quantity: { every: 1, points: 1 } } }, error: /needs 'object' and 'id'/ },
    { name: 'a formula that does not parse', loyalty: { type: 'FIXED', points: 1, points_formula: 'ORDER_AMOUNT +' }, error: /not a valid formula/ },
    { name: 'ambiguous proportional without calculation_type', loyalty: { type: 'PROPORTIONAL', order: { amount: { every: 1, points: 1 }, total_amount: { every: 1, points: 1 } } }, error: /calculation_type is required/ },
  ];
  for (const r of refusals) {
    test(`refuses ${r.name}`, () => {
      const checked = normalizeLoyalty(r.loyalty, r.event ?? 'order.paid');
      assert.equal(checked.ok, false);
      if (!checked.ok) assert.match(checked.error, r.error);
    });
  }

  test('events are classified', () => {
    assert.equal(eventKind('order.paid'), 'order');
    assert.equal(eventKind('customer.segment.entered'), 'segment');
    assert.equal(eventKind('customer.loyalty.tier.upgraded'), 'tier');
    assert.equal(eventKind('signed_up'), 'custom');
  });

  test('items targets are echoed with the first as object/id', () => {
    const loyalty = rule({
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_QUANTITY',
      order_items: { quantity: { every: 1, points: 1, applicable_to: [{ object: 'product', id: 'prod_a' }, { object: 'sku', id: 'sku_b1' }] } },
    });
    assert.deepEqual(loyalty, {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_QUANTITY',
      order_items: { quantity: { every: 1, points: 1, object: 'product', id: 'prod_a', applicable_to: [{ object: 'product', id: 'prod_a' }, { object: 'sku', id: 'sku_b1' }] } },
    });
  });
});
