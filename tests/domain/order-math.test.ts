import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainError } from '../../src/domain/errors.ts';
import {
  buildOrderLine,
  buildOrderLines,
  calculatedAmounts,
  lineProductIds,
  lineReferences,
  orderTotals,
  MAX_MONEY,
  type CatalogProduct,
  type CatalogSku,
  type LineCatalog,
  type OrderAmountsInput,
  type OrderLine,
  type OrderLineInput,
} from '../../src/domain/orders/order-math.ts';
import { statusEvents, summaryChanges, type SummaryFacts } from '../../src/domain/orders/order-status.ts';

const NO_CATALOG: LineCatalog = { product: null, sku: null };

const productA: CatalogProduct = { id: 'prod_A', source_id: 'A', name: 'Product A', price: 2000, metadata: { color: 'red' } };
const productB: CatalogProduct = { id: 'prod_B', source_id: 'B', name: 'Product B', price: 3000, metadata: {} };
const skuB1: CatalogSku = { id: 'sku_B1', source_id: 'B-1', product_id: 'prod_B', sku: 'B one', price: 3500, metadata: {} };
const skuNoPrice: CatalogSku = { id: 'sku_B2', source_id: 'B-2', product_id: 'prod_B', sku: 'B two', price: null, metadata: {} };

function line(input: OrderLineInput, catalog: LineCatalog = NO_CATALOG): OrderLine {
  return buildOrderLine(input, catalog, 0);
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.key, 'invalid_payload');
    return error.details ?? '';
  }
  throw new assert.AssertionError({ message: 'expected the input to be refused' });
}

describe('lineReferences', () => {
  const cases: Array<[string, OrderLineInput, ReturnType<typeof lineReferences>]> = [
    ['product_id', { product_id: 'prod_1' }, { product: { by: 'id', value: 'prod_1' }, sku: null }],
    ['sku_id', { sku_id: 'sku_1' }, { product: null, sku: { by: 'id', value: 'sku_1' } }],
    ['source_id without related_object names a product', { source_id: 'p1' }, { product: { by: 'source_id', value: 'p1' }, sku: null }],
    ['source_id of a sku', { related_object: 'sku', source_id: 's1' }, { product: null, sku: { by: 'source_id', value: 's1' } }],
    ['product object by id', { product: { id: 'prod_2' } }, { product: { by: 'id', value: 'prod_2' }, sku: null }],
    ['product object by source_id', { product: { source_id: 'p2' } }, { product: { by: 'source_id', value: 'p2' }, sku: null }],
    ['sku object by source_id', { sku: { source_id: 's2' } }, { product: null, sku: { by: 'source_id', value: 's2' } }],
    ['product_id wins over product.id', { product_id: 'prod_1', product: { id: 'prod_2' } }, { product: { by: 'id', value: 'prod_1' }, sku: null }],
    ['empty strings name nothing', { product_id: '', source_id: '' }, { product: null, sku: null }],
    ['nothing', {}, { product: null, sku: null }],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => assert.deepEqual(lineReferences(input), expected));
  }
});

describe('buildOrderLine', () => {
  const cases: Array<{ name: string; input: OrderLineInput; catalog?: LineCatalog; expect: Partial<OrderLine> }> = [
    {
      name: 'catalog product price × quantity',
      input: { product_id: 'prod_A', quantity: 2 },
      catalog: { product: productA, sku: null },
      expect: { product_id: 'prod_A', price: 2000, quantity: 2, amount: 4000, initial_amount: 4000, initial_quantity: 2, discount_amount: 0 },
    },
    {
      name: 'the SKU price wins over the product price, and the SKU decides the product',
      input: { sku_id: 'sku_B1', quantity: 1 },
      catalog: { product: productB, sku: skuB1 },
      expect: { product_id: 'prod_B', sku_id: 'sku_B1', price: 3500, amount: 3500 },
    },
    {
      name: 'a SKU without a price falls back to its product price',
      input: { sku_id: 'sku_B2', quantity: 3 },
      catalog: { product: productB, sku: skuNoPrice },
      expect: { price: 3000, amount: 9000 },
    },
    {
      name: 'the item price wins over the catalog',
      input: { product_id: 'prod_A', quantity: 2, price: 1500 },
      catalog: { product: productA, sku: null },
      expect: { price: 1500, amount: 3000 },
    },
    {
      name: 'a sent amount is kept even when inconsistent',
      input: { product_id: 'prod_A', quantity: 2, amount: 100 },
      catalog: { product: productA, sku: null },
      expect: { price: 2000, amount: 100, initial_amount: 100 },
    },
    { name: 'no price anywhere: amount unknown', input: { source_id: 'x', quantity: 2 }, expect: { price: null, amount: null, initial_amount: null } },
    { name: 'quantity defaults to 1', input: { price: 700 }, expect: { quantity: 1, amount: 700 } },
    { name: 'quantity as a numeric string', input: { price: 10, quantity: '12' }, expect: { quantity: 12, amount: 120 } },
    { name: 'zero quantity', input: { price: 10, quantity: 0 }, expect: { quantity: 0, amount: 0 } },
    {
      name: 'unit-effect bookkeeping sent back is kept (vendor example D, blue line)',
      input: { price: 3100, quantity: 2, initial_quantity: 1, initial_amount: 3100, discount_quantity: 1, discount_amount: 3100 },
      expect: { amount: 6200, initial_amount: 3100, initial_quantity: 1, discount_quantity: 1, discount_amount: 3100 },
    },
    {
      name: 'a catalog-style fractional price is rounded half up',
      input: { product: { name: 'Shipping', price: 699.5 } },
      expect: { price: 700, amount: 700 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const built = line(c.input, c.catalog);
      for (const [key, value] of Object.entries(c.expect)) assert.deepEqual(built[key as keyof OrderLine], value, key);
    });
  }

  test('a known product is described by the catalog; what was sent only fills gaps', () => {
    const built = line({ product: { id: 'prod_A', name: 'Other name', price: 1, metadata: { x: 1 } } }, { product: productA, sku: null });
    assert.deepEqual(built.product, { id: 'prod_A', source_id: 'A', name: 'Product A', price: 2000, metadata: { color: 'red' } });
    assert.equal(built.price, 2000);
    const gaps = line({ product: { id: 'prod_B', metadata: { x: 1 } } }, { product: { ...productB, name: null }, sku: null });
    assert.deepEqual(gaps.product, { id: 'prod_B', source_id: 'B', name: null, price: 3000, metadata: { x: 1 } });
  });

  test('an unknown product is described by what was sent, and not at all when nothing was', () => {
    const sent = line({ related_object: 'product', source_id: 'ship', product: { name: 'Shipping' } });
    assert.deepEqual(sent.product, { id: null, source_id: 'ship', name: 'Shipping', price: null, metadata: {} });
    assert.equal(sent.product_id, null);
    const bare = line({ product_id: 'prod_gone', quantity: 1 });
    assert.equal(bare.product, null);
    assert.equal(bare.product_id, 'prod_gone', 'the id sent is echoed');
    const sku = line({ sku: { source_id: 'sku-x', sku: 'X', price: 5 } });
    assert.deepEqual(sku.sku, { id: null, source_id: 'sku-x', sku: 'X', price: 5, metadata: {} });
    assert.equal(sku.price, 5);
  });

  test('a SKU of another product than the one named is refused', () => {
    const catalog = { product: productB, sku: skuB1 };
    assert.match(refusal(() => line({ product_id: 'prod_A', sku_id: 'sku_B1' }, catalog)), /sku_B1.*prod_A/);
    assert.match(refusal(() => line({ product: { source_id: 'A' }, sku_id: 'sku_B1' }, catalog)), /\.items\[0\]/);
    assert.equal(line({ product_id: 'prod_B', sku_id: 'sku_B1' }, catalog).sku_id, 'sku_B1');
    assert.equal(line({ product: { source_id: 'B' }, sku_id: 'sku_B1' }, catalog).product_id, 'prod_B');
  });

  test('a line discount above the line amount is refused', () => {
    assert.match(refusal(() => line({ price: 100, discount_amount: 101 })), /\.items\[0\]\.discount_amount/);
    assert.equal(line({ price: 100, discount_amount: 100 }).discount_amount, 100);
  });

  test('amounts beyond the money limit are refused rather than losing precision', () => {
    assert.match(refusal(() => line({ price: MAX_MONEY, quantity: 2 })), /\.items\[0\]\.amount/);
    assert.equal(line({ price: MAX_MONEY, quantity: 1 }).amount, MAX_MONEY);
  });

  test('more than 500 lines are refused; errors name the failing line', () => {
    assert.match(refusal(() => buildOrderLines(Array.from({ length: 501 }, () => ({ price: 1 })), [])), /\.items/);
    assert.match(
      refusal(() => buildOrderLines([{ price: 1 }, { price: 1, discount_amount: 5 }], [])),
      /\.items\[1\]\.discount_amount/,
    );
  });
});

describe('orderTotals and calculatedAmounts', () => {
  // Vendor worked example A (promotions reference 3.8): prod_A 2000 × 2, prod_B 3000 × 1.
  const exampleA = buildOrderLines(
    [
      { product_id: 'prod_A', quantity: 2 },
      { product_id: 'prod_B', quantity: 1 },
    ],
    [
      { product: productA, sku: null },
      { product: productB, sku: null },
    ],
  );

  const cases: Array<{
    name: string;
    lines: OrderLine[];
    sent: OrderAmountsInput;
    applied?: { order: number; items: number[] };
    expect: Record<string, number>;
    lineFigures?: Array<[number | null, number, number, number | null]>;
  }> = [
    {
      name: 'example A before any discount',
      lines: exampleA,
      sent: {},
      expect: { amount: 7000, initial_amount: 7000, discount_amount: 0, items_discount_amount: 0, total_discount_amount: 0, total_amount: 7000 },
      lineFigures: [
        [4000, 0, 0, 4000],
        [3000, 0, 0, 3000],
      ],
    },
    {
      name: 'example A with 1500 off the order applied now',
      lines: exampleA,
      sent: { discount_amount: 1500 },
      applied: { order: 1500, items: [] },
      expect: {
        amount: 7000,
        initial_amount: 7000,
        discount_amount: 1500,
        items_discount_amount: 0,
        total_discount_amount: 1500,
        total_amount: 5500,
        applied_discount_amount: 1500,
        items_applied_discount_amount: 0,
        total_applied_discount_amount: 1500,
      },
      lineFigures: [
        [4000, 0, 0, 4000],
        [3000, 0, 0, 3000],
      ],
    },
    {
      name: 'example A, a second redemption adds 1000 to the order discount',
      lines: exampleA,
      sent: { discount_amount: 2500 },
      applied: { order: 1000, items: [] },
      expect: { discount_amount: 2500, total_discount_amount: 2500, total_amount: 4500, applied_discount_amount: 1000, total_applied_discount_amount: 1000 },
    },
    {
      name: 'example A with the whole order discounted (9000 off clamps to 7000)',
      lines: exampleA,
      sent: { discount_amount: 7000 },
      expect: { total_discount_amount: 7000, total_amount: 0 },
    },
    {
      name: 'a discount above the amount never takes the total below zero',
      lines: exampleA,
      sent: { discount_amount: 9000 },
      expect: { total_discount_amount: 9000, total_amount: 0 },
    },
    {
      name: 'example B: 10 % off line 0 only',
      lines: [{ ...(exampleA[0] as OrderLine), discount_amount: 400 }, exampleA[1] as OrderLine],
      sent: {},
      applied: { order: 0, items: [400, 0] },
      expect: {
        discount_amount: 0,
        items_discount_amount: 400,
        total_discount_amount: 400,
        total_amount: 6600,
        applied_discount_amount: 0,
        items_applied_discount_amount: 400,
        total_applied_discount_amount: 400,
      },
      lineFigures: [
        [4000, 400, 400, 3600],
        [3000, 0, 0, 3000],
      ],
    },
    {
      name: 'example D: free units raise the amount and the item discounts alike',
      lines: buildOrderLines(
        [
          { price: 2900, quantity: 1, initial_quantity: 1, discount_quantity: 1, discount_amount: 2900 },
          { price: 3100, quantity: 2, initial_quantity: 1, initial_amount: 3100, discount_quantity: 1, discount_amount: 3100 },
        ],
        [],
      ),
      sent: {},
      expect: { amount: 9100, initial_amount: 6000, items_discount_amount: 6000, total_discount_amount: 6000, total_amount: 3100 },
      lineFigures: [
        [2900, 2900, 0, 0],
        [6200, 3100, 0, 3100],
      ],
    },
    {
      name: 'no lines: the amount sent',
      lines: [],
      sent: { amount: 1200, discount_amount: 200 },
      expect: { amount: 1200, initial_amount: 1200, total_amount: 1000 },
    },
    { name: 'no lines and no amount: zero', lines: [], sent: {}, expect: { amount: 0, initial_amount: 0, total_amount: 0 } },
    {
      name: 'no lines, initial amount sent',
      lines: [],
      sent: { amount: 1200, initial_amount: 1500 },
      expect: { amount: 1200, initial_amount: 1500 },
    },
    {
      name: 'lines win over the amount sent when every amount is known',
      lines: exampleA,
      sent: { amount: 1, initial_amount: 1 },
      expect: { amount: 7000, initial_amount: 7000 },
    },
    {
      name: 'a line without an amount: the amount sent stands',
      lines: buildOrderLines([{ price: 500 }, { source_id: 'unknown' }], []),
      sent: { amount: 2000 },
      expect: { amount: 2000, initial_amount: 2000, total_amount: 2000 },
    },
    {
      name: 'a line without an amount and no amount sent: the known part',
      lines: buildOrderLines([{ price: 500 }, { source_id: 'unknown' }], []),
      sent: {},
      expect: { amount: 500, initial_amount: 500 },
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const totals = orderTotals(c.lines, c.sent);
      const calculated = calculatedAmounts(totals, c.lines, c.applied);
      for (const [key, value] of Object.entries(c.expect)) {
        assert.equal(calculated[key as keyof typeof calculated], value, key);
      }
      if (c.lineFigures) {
        assert.deepEqual(
          calculated.items.map((i) => [i.amount, i.discount_amount, i.applied_discount_amount, i.subtotal_amount]),
          c.lineFigures,
        );
      }
    });
  }

  test('calculated lines carry object order_item and embed only known product and SKU', () => {
    const [first] = calculatedAmounts(orderTotals(exampleA, {}), exampleA).items;
    assert.equal(first?.object, 'order_item');
    assert.deepEqual(first?.product, { id: 'prod_A', source_id: 'A', name: 'Product A', price: 2000, metadata: { color: 'red' } });
    assert.equal('sku' in (first ?? {}), false);
  });

  test('lineProductIds lists each product once in line order', () => {
    const lines = buildOrderLines([{ product_id: 'p2' }, { product_id: 'p1' }, { product_id: 'p2' }, { price: 1 }], []);
    assert.deepEqual(lineProductIds(lines), ['p2', 'p1']);
  });
});

describe('order status and the customer summary', () => {
  const fact = (customer_id: string | null, status: SummaryFacts['status'], total_amount: number): SummaryFacts => ({
    customer_id,
    status,
    total_amount,
  });
  const cases: Array<[string, SummaryFacts | null, SummaryFacts, ReturnType<typeof summaryChanges>]> = [
    ['created CREATED: nothing counts', null, fact('c1', 'CREATED', 100), []],
    ['created PAID', null, fact('c1', 'PAID', 100), [{ customerId: 'c1', countDelta: 1, amountDelta: 100 }]],
    ['created FULFILLED', null, fact('c1', 'FULFILLED', 100), [{ customerId: 'c1', countDelta: 1, amountDelta: 100 }]],
    ['created PAID without a customer', null, fact(null, 'PAID', 100), []],
    ['CREATED → PAID', fact('c1', 'CREATED', 100), fact('c1', 'PAID', 100), [{ customerId: 'c1', countDelta: 1, amountDelta: 100 }]],
    ['PAID → FULFILLED: still counted once', fact('c1', 'PAID', 100), fact('c1', 'FULFILLED', 100), [{ customerId: 'c1', countDelta: 0, amountDelta: 0 }]],
    ['PAID → CANCELED', fact('c1', 'PAID', 100), fact('c1', 'CANCELED', 100), [{ customerId: 'c1', countDelta: -1, amountDelta: -100 }]],
    ['CANCELED → CREATED', fact('c1', 'CANCELED', 100), fact('c1', 'CREATED', 100), []],
    ['a counted order changes amount', fact('c1', 'PAID', 100), fact('c1', 'PAID', 250), [{ customerId: 'c1', countDelta: 0, amountDelta: 150 }]],
    [
      'a counted order changes customer (ids sorted)',
      fact('c2', 'PAID', 100),
      fact('c1', 'PAID', 300),
      [
        { customerId: 'c1', countDelta: 1, amountDelta: 300 },
        { customerId: 'c2', countDelta: -1, amountDelta: -100 },
      ],
    ],
    ['a counted order loses its customer', fact('c1', 'FULFILLED', 100), fact(null, 'FULFILLED', 100), [{ customerId: 'c1', countDelta: -1, amountDelta: -100 }]],
    ['an uncounted order changes customer', fact('c1', 'CREATED', 100), fact('c2', 'CREATED', 100), []],
  ];
  for (const [name, before, after, expected] of cases) {
    test(name, () => assert.deepEqual(summaryChanges(before, after), expected));
  }

  const events: Array<[string | null, SummaryFacts['status'], { paidCandidate: boolean; others: string[] }]> = [
    [null, 'CREATED', { paidCandidate: false, others: [] }],
    [null, 'PAID', { paidCandidate: true, others: [] }],
    [null, 'CANCELED', { paidCandidate: false, others: ['canceled'] }],
    ['CREATED', 'FULFILLED', { paidCandidate: false, others: ['fulfilled'] }],
    ['PAID', 'PAID', { paidCandidate: true, others: [] }],
    ['CANCELED', 'CANCELED', { paidCandidate: false, others: [] }],
    ['FULFILLED', 'FULFILLED', { paidCandidate: false, others: [] }],
  ];
  for (const [before, after, expected] of events) {
    test(`status events ${before ?? 'new'} → ${after}`, () =>
      assert.deepEqual(statusEvents(before as SummaryFacts['status'] | null, after), expected));
  }
});
