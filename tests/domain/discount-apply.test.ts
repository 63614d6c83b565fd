import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyOrderAmount,
  applySpreadOverItems,
  applyUnitDiscount,
  applyValueDiscount,
  splitProportionally,
  startState,
  totalsOf,
  type DiscountState,
  type DiscountTarget,
} from '../../src/domain/discounts/apply.ts';
import type { OrderLine } from '../../src/domain/orders/order-math.ts';

// The reference's worked examples (promotions reference 3.4, 3.8–3.11) as table-driven cases.

function line(productId: string, price: number, quantity: number): OrderLine {
  return {
    product_id: productId,
    sku_id: null,
    related_object: null,
    source_id: null,
    quantity,
    discount_quantity: 0,
    initial_quantity: quantity,
    price,
    amount: price * quantity,
    initial_amount: price * quantity,
    discount_amount: 0,
    product: null,
    sku: null,
    metadata: {},
  };
}

const all = (state: DiscountState): DiscountTarget[] => state.lines.map((_, index) => ({ index }));
const lineDiscounts = (state: DiscountState) => state.lines.map((l) => l.discount_amount);

describe('discount arithmetic', () => {
  test('example A: AMOUNT 1500 to the order, then another 1000, then a too-large one', () => {
    let state = startState([line('prod_A', 2000, 2), line('prod_B', 3000, 1)], 0, null, null);
    state = applyValueDiscount(state, { type: 'AMOUNT', effect: 'APPLY_TO_ORDER' }, { amount_off: 1500 }, all(state)).state;
    const t = totalsOf(state);
    assert.deepEqual([t.amount, t.initial_amount, t.discount_amount, t.items_discount_amount, t.total_discount_amount, t.total_amount], [7000, 7000, 1500, 0, 1500, 5500]);
    assert.equal(state.applied.order, 1500);
    // A second request on the same order: cumulative discount grows, applied counts this request only.
    let second = startState(state.lines, state.orderDiscount, null, null);
    second = applyValueDiscount(second, { type: 'AMOUNT', effect: 'APPLY_TO_ORDER' }, { amount_off: 1000 }, all(second)).state;
    assert.equal(totalsOf(second).discount_amount, 2500);
    assert.equal(second.applied.order, 1000);
    assert.equal(totalsOf(second).total_amount, 4500);
    const huge = applyValueDiscount(startState(state.lines, 0, null, null), { type: 'AMOUNT', effect: 'APPLY_TO_ORDER' }, { amount_off: 9000 }, []).state;
    assert.equal(huge.applied.order, 7000);
    assert.equal(totalsOf(huge).total_amount, 0);
  });

  test('example B: PERCENT 10 to items of prod_A, with amount_limit and aggregated variants', () => {
    const base = startState([line('prod_A', 2000, 2), line('prod_B', 3000, 1)], 0, null, null);
    const onlyA: DiscountTarget[] = [{ index: 0 }];
    const b = applyValueDiscount(base, { type: 'PERCENT', effect: 'APPLY_TO_ITEMS' }, { percent_off: 10 }, onlyA).state;
    assert.deepEqual(lineDiscounts(b), [400, 0]);
    assert.equal(totalsOf(b).total_amount, 6600);
    assert.deepEqual(b.applied.items, [400, 0]);
    const limited = applyValueDiscount(base, { type: 'PERCENT', effect: 'APPLY_TO_ITEMS' }, { percent_off: 10, amount_limit: 300 }, onlyA).state;
    assert.equal(totalsOf(limited).total_amount, 6700);
    const both = applyValueDiscount(base, { type: 'PERCENT', effect: 'APPLY_TO_ITEMS' }, { percent_off: 10 }, all(base)).state;
    assert.deepEqual(lineDiscounts(both), [400, 300]);
    assert.equal(totalsOf(both).total_amount, 6300);
    const capped = applyValueDiscount(base, { type: 'PERCENT', effect: 'APPLY_TO_ITEMS' }, { percent_off: 10, aggregated_amount_limit: 500 }, all(base)).state;
    assert.deepEqual(lineDiscounts(capped), [400, 100], 'lines in selection order until the cap is used');
  });

  test('example C: the vendor stacked sequence on a 2700 order', () => {
    let s = startState([line('prod_1', 2000, 1), line('prod_2', 700, 1)], 0, null, null);
    s = applyValueDiscount(s, { type: 'AMOUNT', effect: 'APPLY_TO_ITEMS' }, { amount_off: 1000 }, all(s)).state;
    assert.deepEqual([totalsOf(s).discount_amount, totalsOf(s).items_discount_amount, totalsOf(s).total_amount], [0, 1700, 1000]);
    s = applyOrderAmount(s, 100).state; // gift credits 100
    assert.deepEqual([totalsOf(s).discount_amount, totalsOf(s).items_discount_amount, totalsOf(s).total_amount], [100, 1700, 900]);
    s = applyValueDiscount(s, { type: 'PERCENT', effect: 'APPLY_TO_ORDER' }, { percent_off: 40 }, []).state;
    assert.deepEqual([totalsOf(s).discount_amount, totalsOf(s).total_amount], [460, 540]);
    s = applyValueDiscount(s, { type: 'AMOUNT', effect: 'APPLY_TO_ORDER' }, { amount_off: 30 }, []).state;
    const t = totalsOf(s);
    assert.deepEqual([t.discount_amount, t.items_discount_amount, t.total_discount_amount, t.total_amount], [490, 1700, 2190, 510]);
    assert.deepEqual([s.applied.order, s.applied.items.reduce((a, b) => a + b, 0)], [490, 1700]);
  });

  test('example D: UNIT ADD_MANY_ITEMS (missing red, new blue)', () => {
    const s0 = startState([{ ...line('red', 2900, 1), sku_id: null }, line('blue', 3100, 1)], 0, null, null);
    const unit = (id: string, price: number) => ({ product_id: id, sku_id: null, price, product: null, sku: null });
    const s = applyUnitDiscount(s0, [
      { effect: 'ADD_MISSING_ITEMS', count: 1, unit: unit('red', 2900) },
      { effect: 'ADD_NEW_ITEMS', count: 1, unit: unit('blue', 3100) },
    ]).state;
    const [red, blue] = s.lines;
    assert.deepEqual([red?.quantity, red?.initial_quantity, red?.discount_quantity, red?.amount, red?.discount_amount], [1, 1, 1, 2900, 2900]);
    assert.deepEqual([blue?.quantity, blue?.initial_quantity, blue?.discount_quantity, blue?.amount, blue?.initial_amount, blue?.discount_amount], [2, 1, 1, 6200, 3100, 3100]);
    const t = totalsOf(s);
    assert.deepEqual([t.amount, t.initial_amount, t.items_discount_amount, t.total_amount], [9100, 6000, 6000, 3100]);
  });

  test('a unit effect adds a missing line (free shipping) without changing what is paid', () => {
    const s0 = startState([line('shoe', 5000, 1)], 0, null, null);
    const s = applyUnitDiscount(s0, [{ effect: 'ADD_MISSING_ITEMS', count: 1, unit: { product_id: 'prod_ship', sku_id: null, price: 990, product: null, sku: null } }]).state;
    assert.equal(s.lines.length, 2);
    assert.deepEqual([s.lines[1]?.initial_quantity, s.lines[1]?.quantity, s.lines[1]?.discount_amount], [0, 1, 990]);
    assert.equal(totalsOf(s).total_amount, 5000);
    assert.equal(s.applied.items.length, 2);
  });

  // Dashboard example: Mug $10×2, Poster $15×3, T-shirt $20×3 matched; Bottle $25×2 unmatched.
  const dashboard = () => startState([line('mug', 1000, 2), line('poster', 1500, 3), line('tshirt', 2000, 3), line('bottle', 2500, 2)], 0, null, null);
  const matched: DiscountTarget[] = [{ index: 0 }, { index: 1 }, { index: 2 }];
  const dashboardCases: Array<[string, Parameters<typeof applyValueDiscount>[1], Parameters<typeof applyValueDiscount>[2], number[]]> = [
    ['$10 to items', { type: 'AMOUNT', effect: 'APPLY_TO_ITEMS' }, { amount_off: 1000 }, [1000, 1000, 1000, 0]],
    ['$10 to items by quantity', { type: 'AMOUNT', effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }, { amount_off: 1000 }, [2000, 3000, 3000, 0]],
    ['$10 proportionally', { type: 'AMOUNT', effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }, { amount_off: 1000 }, [160, 360, 480, 0]],
    ['$10 proportionally by quantity', { type: 'AMOUNT', effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' }, { amount_off: 1000 }, [250, 375, 375, 0]],
    ['10% to items', { type: 'PERCENT', effect: 'APPLY_TO_ITEMS' }, { percent_off: 10 }, [200, 450, 600, 0]],
    ['new price $10', { type: 'FIXED', effect: 'APPLY_TO_ITEMS' }, { fixed_amount: 1000 }, [0, 1500, 3000, 0]],
  ];
  for (const [name, discount, values, expected] of dashboardCases) {
    test(`dashboard example: ${name}`, () => {
      const s = applyValueDiscount(dashboard(), discount, values, matched).state;
      assert.deepEqual(lineDiscounts(s), expected);
    });
  }

  test('vendor API example: 300 proportionally over 3300 and 3400 gives 148 and 152', () => {
    const s0 = startState([line('a', 3300, 1), line('b', 3400, 1)], 0, null, null);
    const s = applyValueDiscount(s0, { type: 'AMOUNT', effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }, { amount_off: 300 }, all(s0)).state;
    assert.deepEqual(lineDiscounts(s), [148, 152]);
  });

  test('vendor API example: FIXED items with entry prices', () => {
    const s0 = startState([line('a', 6500, 1), line('b', 5000, 2), line('ship', 2000, 1)], 0, null, null);
    const s = applyValueDiscount(s0, { type: 'FIXED', effect: 'APPLY_TO_ITEMS' }, {}, [
      { index: 0, price: 5200 },
      { index: 1, price: 4500 },
      { index: 2, price: 0 },
    ]).state;
    assert.deepEqual(lineDiscounts(s), [1300, 1000, 2000]);
  });

  test('clamping: an item discount never exceeds the line subtotal; order discounts never exceed the rest', () => {
    const s0 = startState([line('a', 700, 1)], 0, null, null);
    const s1 = applyValueDiscount(s0, { type: 'AMOUNT', effect: 'APPLY_TO_ITEMS' }, { amount_off: 1000 }, all(s0)).state;
    assert.deepEqual(lineDiscounts(s1), [700]);
    const s2 = applyOrderAmount(s1, 50).state;
    assert.equal(s2.applied.order, 0);
    const withoutLines = startState([], 9200, 10000, 10000);
    const s3 = applyValueDiscount(withoutLines, { type: 'AMOUNT', effect: 'APPLY_TO_ORDER' }, { amount_off: 1000 }, []).state;
    assert.equal(s3.applied.order, 800);
    assert.equal(totalsOf(s3).total_amount, 0);
  });

  test('PERCENT to order: discounted base by default, initial amount in INITIAL_AMOUNT mode, amount_limit', () => {
    // Vendor example: 100 gift credits on 200000, then 20 % takes 39980 (of 199900), then 8000 off → 151920.
    let s = startState([], 0, 200000, 200000);
    s = applyOrderAmount(s, 100).state;
    s = applyValueDiscount(s, { type: 'PERCENT', effect: 'APPLY_TO_ORDER' }, { percent_off: 20 }, []).state;
    assert.equal(s.applied.order, 100 + 39980);
    s = applyValueDiscount(s, { type: 'AMOUNT', effect: 'APPLY_TO_ORDER' }, { amount_off: 8000 }, []).state;
    assert.equal(totalsOf(s).total_amount, 151920);
    let initial = applyOrderAmount(startState([], 0, 200000, 200000), 100).state;
    initial = applyValueDiscount(initial, { type: 'PERCENT', effect: 'APPLY_TO_ORDER' }, { percent_off: 20 }, [], {}, 'INITIAL_AMOUNT').state;
    assert.equal(initial.applied.order, 100 + 40000);
    const capped = applyValueDiscount(startState([], 0, 200000, 200000), { type: 'PERCENT', effect: 'APPLY_TO_ORDER' }, { percent_off: 20, amount_limit: 5000 }, []).state;
    assert.equal(capped.applied.order, 5000);
  });

  test('FIXED to order makes the total the fixed amount', () => {
    const s = applyValueDiscount(startState([], 0, 12000, 12000), { type: 'FIXED', effect: 'APPLY_TO_ORDER' }, { fixed_amount: 9900 }, []).state;
    assert.equal(totalsOf(s).total_amount, 9900);
  });

  test('gift credits spread over items add up exactly', () => {
    const s0 = startState([line('a', 1000, 1), line('b', 1000, 1), line('c', 1000, 1)], 0, null, null);
    const s = applySpreadOverItems(s0, 100, all(s0)).state;
    assert.deepEqual(lineDiscounts(s), [34, 33, 33]);
  });

  test('largest remainder: parts add up, respect caps, and pass leftovers on', () => {
    assert.deepEqual(splitProportionally(10, [1, 1, 1], [100, 100, 100]), [4, 3, 3]);
    assert.deepEqual(splitProportionally(10, [1, 1], [2, 100]), [2, 8]);
    assert.deepEqual(splitProportionally(10, [1, 1], [2, 3]), [2, 3], 'never more than the caps allow');
    assert.deepEqual(splitProportionally(0, [1, 2], [5, 5]), [0, 0]);
  });
});
