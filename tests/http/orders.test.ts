import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp, type TestResponse } from '../helpers/app.ts';

type Sdk = ReturnType<TestApp['sdk']>;

interface Item {
  object: string;
  product_id: string | null;
  sku_id: string | null;
  related_object: string | null;
  source_id: string | null;
  quantity: number;
  discount_quantity: number;
  initial_quantity: number;
  amount: number | null;
  discount_amount: number;
  initial_amount: number | null;
  applied_discount_amount: number;
  price: number | null;
  subtotal_amount: number | null;
  product?: Record<string, unknown>;
  sku?: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

interface Order {
  id: string;
  source_id: string | null;
  created_at: string;
  updated_at: string | null;
  status: string;
  amount: number;
  initial_amount: number;
  discount_amount: number;
  items_discount_amount: number;
  total_discount_amount: number;
  total_amount: number;
  applied_discount_amount: number;
  items_applied_discount_amount: number;
  total_applied_discount_amount: number;
  items: Item[];
  metadata: Record<string, unknown>;
  customer: { id: string; object: string } | null;
  customer_id: string | null;
  referrer: { id: string; object: string } | null;
  referrer_id: string | null;
  object: string;
  redemptions: Record<string, unknown>;
}

interface OrdersSummary {
  total_amount: number;
  total_count: number;
  average_amount: number;
  last_order_amount: number;
  last_order_date: string | null;
}

interface Activity {
  id: string;
  type: string;
  data: { data: { customer: { id: string } | null; order: Order } };
}

describe('orders', () => {
  let t: TestApp;
  let sdk: Sdk;
  let projects = 0;

  before(async () => {
    t = await startTestApp();
    sdk = t.sdk();
  });
  after(async () => t.close());

  async function newProject(): Promise<{ keys: KeyPairOut; headers: Record<string, string> }> {
    projects += 1;
    const res = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: `Other ${projects}`, case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(res.status, 200);
    const keys = res.body.server_side_key as KeyPairOut;
    return { keys, headers: t.serverHeaders(keys) };
  }

  async function post(json: unknown, headers?: Record<string, string>): Promise<TestResponse> {
    return t.request('POST', '/v1/orders', { json, ...(headers ? { headers } : {}) });
  }

  async function create(json: Record<string, unknown>, headers?: Record<string, string>): Promise<Order> {
    const res = await post(json, headers);
    assert.equal(res.status, 200, res.text);
    return res.body as Order;
  }

  async function put(orderId: string, json: Record<string, unknown>): Promise<Order> {
    const res = await t.request('PUT', `/v1/orders/${encodeURIComponent(orderId)}`, { json });
    assert.equal(res.status, 200, res.text);
    return res.body as Order;
  }

  async function orderCount(headers?: Record<string, string>): Promise<number> {
    const res = await t.request('GET', '/v1/orders?limit=1', headers ? { headers } : {});
    assert.equal(res.status, 200);
    return res.body.total as number;
  }

  async function customerCount(): Promise<number> {
    const res = await t.request('GET', '/v1/customers?limit=1');
    assert.equal(res.status, 200);
    return res.body.total as number;
  }

  async function summary(customerId: string): Promise<OrdersSummary> {
    const res = await t.request('GET', `/v1/customers/${encodeURIComponent(customerId)}`);
    assert.equal(res.status, 200);
    return res.body.summary.orders as OrdersSummary;
  }

  async function activities(customerId: string, query = ''): Promise<Activity[]> {
    const res = await t.request('GET', `/v1/customers/${encodeURIComponent(customerId)}/activities?limit=100&order=created_at${query}`);
    assert.equal(res.status, 200);
    return res.body.data as Activity[];
  }

  const orderTypes = async (customerId: string) =>
    (await activities(customerId)).map((a) => a.type).filter((type) => type.startsWith('customer.order.'));

  async function newCustomer(sourceId: string): Promise<string> {
    const res = await t.request('POST', '/v1/customers', { json: { source_id: sourceId, name: sourceId } });
    assert.equal(res.status, 200);
    return res.body.id as string;
  }

  describe('the order object and its arithmetic', () => {
    let mug = { id: '', source_id: '' };
    let tee = { id: '' };
    let teeRed = { id: '' };

    before(async () => {
      const m = await t.request('POST', '/v1/products', { json: { source_id: 'mug-1', name: 'Mug', price: 1000, metadata: { kind: 'kitchen' } } });
      assert.equal(m.status, 200);
      mug = m.body;
      const p = await t.request('POST', '/v1/products', { json: { source_id: 'tee-1', name: 'T-shirt', price: 2500 } });
      assert.equal(p.status, 200);
      tee = p.body;
      const s = await t.request('POST', `/v1/products/${tee.id}/skus`, { json: { source_id: 'tee-1-red', sku: 'Red', price: 2900 } });
      assert.equal(s.status, 200, s.text);
      teeRed = s.body;
    });

    test('a created order has every member, CREATED status, catalog prices and computed totals', async () => {
      const before = t.clock.now().toISOString();
      const order = await create({
        source_id: 'shape-1',
        metadata: { channel: 'web' },
        items: [
          { product_id: mug.id, quantity: 2 },
          { sku_id: teeRed.id, quantity: 1, metadata: { gift: true } },
        ],
      });
      assert.match(order.id, /^ord_[0-9a-f]{20}$/);
      assert.ok(order.created_at > before);
      const { id: _id, created_at: _createdAt, ...rest } = order;
      assert.deepEqual(rest, {
        source_id: 'shape-1',
        updated_at: null,
        status: 'CREATED',
        amount: 4900,
        initial_amount: 4900,
        discount_amount: 0,
        items_discount_amount: 0,
        total_discount_amount: 0,
        total_amount: 4900,
        applied_discount_amount: 0,
        items_applied_discount_amount: 0,
        total_applied_discount_amount: 0,
        items: [
          {
            object: 'order_item',
            product_id: mug.id,
            sku_id: null,
            related_object: null,
            source_id: null,
            quantity: 2,
            discount_quantity: 0,
            initial_quantity: 2,
            amount: 2000,
            discount_amount: 0,
            initial_amount: 2000,
            applied_discount_amount: 0,
            price: 1000,
            subtotal_amount: 2000,
            product: { id: mug.id, source_id: 'mug-1', name: 'Mug', price: 1000, metadata: { kind: 'kitchen' } },
            metadata: {},
          },
          {
            object: 'order_item',
            product_id: tee.id,
            sku_id: teeRed.id,
            related_object: null,
            source_id: null,
            quantity: 1,
            discount_quantity: 0,
            initial_quantity: 1,
            amount: 2900,
            discount_amount: 0,
            initial_amount: 2900,
            applied_discount_amount: 0,
            price: 2900,
            subtotal_amount: 2900,
            product: { id: tee.id, source_id: 'tee-1', name: 'T-shirt', price: 2500, metadata: {} },
            sku: { id: teeRed.id, source_id: 'tee-1-red', sku: 'Red', price: 2900, metadata: {} },
            metadata: { gift: true },
          },
        ],
        metadata: { channel: 'web' },
        customer_id: null,
        referrer_id: null,
        object: 'order',
        redemptions: {},
      });
      const fetched = await t.request('GET', `/v1/orders/${order.id}`);
      assert.deepEqual(fetched.body, order);
    });

    test('items name catalog entries by source_id, and a price sent on the item wins over the catalog', async () => {
      const order = await create({
        items: [
          { related_object: 'product', source_id: 'mug-1', quantity: '3' },
          { related_object: 'sku', source_id: 'tee-1-red', quantity: 2, price: 2000 },
          { product: { source_id: 'tee-1' }, quantity: 1 },
        ],
      });
      const lines = order.items.map((i) => [i.product_id, i.sku_id, i.related_object, i.source_id, i.quantity, i.price, i.amount]);
      assert.deepEqual(lines, [
        [mug.id, null, 'product', 'mug-1', 3, 1000, 3000],
        [tee.id, teeRed.id, 'sku', 'tee-1-red', 2, 2000, 4000],
        [tee.id, null, null, null, 1, 2500, 2500],
      ]);
      assert.equal(order.amount, 9500);
      assert.equal(order.total_amount, 9500);
    });

    test('an item the catalog does not know keeps what was sent; without any price its amount is unknown', async () => {
      const order = await create({
        amount: 5000,
        items: [
          { source_id: 'ship-1', related_object: 'product', product: { name: 'Shipping' }, quantity: 1 },
          { product_id: mug.id, quantity: 1 },
        ],
      });
      const [shipping, mugLine] = order.items as [Item, Item];
      assert.equal(shipping.product_id, null);
      assert.deepEqual(shipping.product, { id: null, source_id: 'ship-1', name: 'Shipping', price: null, metadata: {} });
      assert.equal(shipping.price, null);
      assert.equal(shipping.amount, null);
      assert.equal(shipping.subtotal_amount, null);
      assert.equal(mugLine.amount, 1000);
      // A line without an amount would make the sum understate the order, so the amount sent stands.
      assert.equal(order.amount, 5000);
      const priced = await create({ items: [{ source_id: 'ship-2', product: { name: 'Shipping', price: 700.4 } }] });
      assert.equal(priced.items[0]?.price, 700, 'a catalog-style price is rounded to whole minor units');
      assert.equal(priced.items[0]?.quantity, 1, 'a line without quantity is one unit');
      assert.equal(priced.amount, 700);
    });

    test('the item amount sent is kept; the order amount is the sum of item amounts, not the amount sent', async () => {
      const order = await create({ amount: 99999, items: [{ product_id: mug.id, quantity: 2, amount: 1500 }] });
      assert.equal(order.items[0]?.amount, 1500);
      assert.equal(order.items[0]?.price, 1000);
      assert.equal(order.amount, 1500);
    });

    test('without items the amount sent is the order amount; discounts already on the order reduce the total', async () => {
      const order = await create({ amount: 10000, discount_amount: 2500 });
      assert.deepEqual(
        [order.amount, order.initial_amount, order.discount_amount, order.total_discount_amount, order.total_amount],
        [10000, 10000, 2500, 2500, 7500],
      );
      const items = await create({ items: [{ product_id: mug.id, quantity: 4, discount_amount: 1000 }], discount_amount: 500 });
      assert.equal(items.items[0]?.subtotal_amount, 3000);
      assert.deepEqual(
        [items.amount, items.discount_amount, items.items_discount_amount, items.total_discount_amount, items.total_amount],
        [4000, 500, 1000, 1500, 2500],
      );
      const empty = await create({});
      assert.deepEqual([empty.amount, empty.total_amount, empty.items], [0, 0, []]);
    });

    test("another project's catalog is invisible to order lines", async () => {
      const other = await newProject();
      const order = await create({ items: [{ product_id: mug.id, quantity: 1 }, { related_object: 'product', source_id: 'mug-1' }] }, other.headers);
      for (const item of order.items) {
        assert.equal(item.price, null);
        assert.equal(item.product, undefined);
      }
      assert.equal(order.items[0]?.product_id, mug.id, 'the id sent is echoed, nothing more');
    });

    test('a SKU that belongs to another product than the one named is refused', async () => {
      const before = await orderCount();
      const res = await post({ items: [{ product_id: mug.id, sku_id: teeRed.id }] });
      assert.equal(res.status, 400);
      assert.equal(res.body.key, 'invalid_payload');
      assert.match(res.body.details, /items\[0\]/);
      assert.equal(await orderCount(), before);
    });
  });

  describe('upsert, read, update and list', () => {
    test('POST with a known source_id updates that order; with a known id too; an unknown id is 404', async () => {
      const first = await create({ source_id: 'up-1', amount: 1000, metadata: { a: 1 } });
      const second = await create({ source_id: 'up-1', amount: 2000 });
      assert.equal(second.id, first.id);
      assert.equal(second.amount, 2000);
      assert.deepEqual(second.metadata, { a: 1 }, 'members not sent are kept');
      assert.equal(second.created_at, first.created_at);
      assert.ok(second.updated_at !== null && second.updated_at > first.created_at);

      const third = await create({ id: first.id, status: 'FULFILLED' });
      assert.equal(third.id, first.id);
      assert.equal(third.status, 'FULFILLED');
      assert.equal(third.source_id, 'up-1');

      const before = await orderCount();
      const missing = await post({ id: 'ord_doesnotexist', amount: 5 });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.key, 'not_found');
      assert.equal(missing.body.resource_type, 'order');
      assert.equal(missing.body.resource_id, 'ord_doesnotexist');
      assert.equal(await orderCount(), before);
    });

    test('GET answers an order by id or source_id; an unknown one is 404', async () => {
      const order = await create({ source_id: 'get-1', amount: 300 });
      const byId = await t.request('GET', `/v1/orders/${order.id}`);
      const bySource = await t.request('GET', '/v1/orders/get-1');
      assert.equal(byId.status, 200);
      assert.deepEqual(bySource.body, byId.body);
      const missing = await t.request('GET', '/v1/orders/nope-1');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.details, 'Cannot find order with id nope-1');
    });

    test('PUT changes only the members sent; items sent replace the lines', async () => {
      const order = await create({ source_id: 'put-1', items: [{ price: 500, quantity: 2 }], metadata: { a: 1 }, status: 'CREATED' });
      const paid = await put('put-1', { source_id: 'put-1', status: 'PAID' });
      assert.equal(paid.status, 'PAID');
      assert.equal(paid.amount, 1000);
      assert.deepEqual(paid.items, order.items);
      assert.deepEqual(paid.metadata, { a: 1 });
      const replaced = await put(order.id, { items: [{ price: 300, quantity: 1 }, { price: 50, quantity: 4 }], metadata: { b: 2 } });
      assert.equal(replaced.items.length, 2);
      assert.equal(replaced.amount, 500);
      assert.deepEqual(replaced.metadata, { b: 2 });
      assert.equal(replaced.status, 'PAID');
      const cleared = await put(order.id, { items: [], amount: 42 });
      assert.deepEqual([cleared.items, cleared.amount, cleared.initial_amount], [[], 42, 42]);

      const missing = await t.request('PUT', '/v1/orders/ord_missing', { json: { status: 'PAID' } });
      assert.equal(missing.status, 404);
    });

    test("PUT cannot take a source_id another order holds (409) and then changes nothing", async () => {
      await create({ source_id: 'taken-1' });
      const order = await create({ source_id: 'free-1', amount: 10 });
      const res = await t.request('PUT', `/v1/orders/${order.id}`, { json: { source_id: 'taken-1', amount: 20 } });
      assert.equal(res.status, 409);
      assert.equal(res.body.key, 'duplicate_found');
      const after = await t.request('GET', `/v1/orders/${order.id}`);
      assert.deepEqual(after.body, order);
    });

    test('the list is oldest first by default, pages, orders by updated_at, and counts every order', async () => {
      const other = await newProject();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create({ source_id: `list-${i}`, amount: i }, other.headers)).id);
      // Touching the second order makes it the most recently changed.
      const touched = await t.request('PUT', `/v1/orders/${ids[1]}`, { headers: other.headers, json: { amount: 100 } });
      assert.equal(touched.status, 200);
      const page = async (query: string) => {
        const res = await t.request('GET', `/v1/orders${query}`, { headers: other.headers });
        assert.equal(res.status, 200);
        assert.equal(res.body.object, 'list');
        assert.equal(res.body.data_ref, 'orders');
        assert.equal(res.body.total, 5);
        return (res.body.orders as Order[]).map((o) => o.id);
      };
      assert.deepEqual(await page(''), ids);
      assert.deepEqual(await page('?order=-created_at'), [...ids].reverse());
      assert.deepEqual(await page('?limit=2&page=2'), ids.slice(2, 4));
      assert.deepEqual(await page('?limit=2&page=4'), []);
      assert.deepEqual(await page('?order=updated_at'), [ids[0], ids[2], ids[3], ids[4], ids[1]]);
      assert.deepEqual(await page('?order=-updated_at'), [ids[1], ids[4], ids[3], ids[2], ids[0]]);
      for (const bad of ['limit=0', 'limit=101', 'page=0', 'page=101', 'order=amount']) {
        const res = await t.request('GET', `/v1/orders?${bad}`, { headers: other.headers });
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.key, 'invalid_query_params', bad);
      }
    });

    test('the list filters by status, customer (id or source_id) and creation time, and counts what matches', async () => {
      const other = await newProject();
      const ada = await create({ source_id: 'flt-1', amount: 100, status: 'PAID', customer: { source_id: 'flt-ada', name: 'Ada' }, created_at: '2025-03-01T10:00:00Z' }, other.headers);
      const bob = await create({ source_id: 'flt-2', amount: 200, status: 'CREATED', customer: { source_id: 'flt-bob' }, created_at: '2025-03-02T10:00:00Z' }, other.headers);
      const ada2 = await create({ source_id: 'flt-3', amount: 300, status: 'CANCELED', customer_id: ada.customer_id, created_at: '2025-03-03T10:00:00Z' }, other.headers);
      const nobody = await create({ source_id: 'flt-4', amount: 400, status: 'PAID', created_at: '2025-03-04T10:00:00Z' }, other.headers);
      const list = async (query: string) => {
        const res = await t.request('GET', `/v1/orders?${query}`, { headers: other.headers });
        assert.equal(res.status, 200, res.text);
        const ids = (res.body.orders as Order[]).map((o) => o.id);
        assert.equal(res.body.total, ids.length, query);
        return ids;
      };
      assert.deepEqual(await list('status=PAID'), [ada.id, nobody.id]);
      assert.deepEqual(await list('status=PAID&status=CANCELED'), [ada.id, ada2.id, nobody.id]);
      assert.deepEqual(await list(`customer=${ada.customer_id}`), [ada.id, ada2.id]);
      assert.deepEqual(await list('customer=flt-bob'), [bob.id]);
      assert.deepEqual(await list('customer=flt-nobody'), []);
      assert.deepEqual(await list('start_date=2025-03-02&end_date=2025-03-03'), [bob.id, ada2.id], 'a bare end date takes in that whole day');
      assert.deepEqual(await list('start_date=2025-03-02T10:00:00Z&end_date=2025-03-02T10:00:00Z'), [bob.id], 'bounds are inclusive');
      assert.deepEqual(await list(`customer=flt-ada&status=PAID&order=-created_at`), [ada.id]);
      const paged = await t.request('GET', '/v1/orders?limit=1&page=2&status=PAID', { headers: other.headers });
      assert.deepEqual((paged.body.orders as Order[]).map((o) => o.id), [nobody.id]);
      assert.equal(paged.body.total, 2, 'total counts every match, not the page');
      for (const bad of ['status=SHIPPED', 'start_date=yesterday', 'customer=']) {
        const res = await t.request('GET', `/v1/orders?${bad}`, { headers: other.headers });
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.key, 'invalid_query_params', bad);
      }
    });

    test('created_at can be given and is stored as UTC with milliseconds', async () => {
      const order = await create({ created_at: '2025-01-02T03:04:05+02:00', amount: 1 });
      assert.equal(order.created_at, '2025-01-02T01:04:05.000Z');
    });

    test('the official SDK creates, reads, updates and lists orders', async () => {
      const other = await newProject();
      const client = t.sdk(other.keys);
      const created = await client.orders.create({
        source_id: 'sdk-1',
        amount: 1000,
        status: 'PAID',
        items: [{ product_id: 'prod_1', quantity: 1, price: 1000 }],
        customer: { source_id: 'sdk-cust-1' },
        metadata: { m: 1 },
      });
      assert.equal(created.status, 'PAID');
      assert.equal(created.total_amount, 1000);
      assert.equal(created.object, 'order');
      const got = await client.orders.get('sdk-1');
      assert.equal(got.id, created.id);
      const updated = await client.orders.update({ id: created.id, source_id: 'sdk-1', status: 'FULFILLED' });
      assert.equal(updated.status, 'FULFILLED');
      assert.equal(updated.id, created.id);
      const list = await client.orders.list({ limit: 5, page: 1 });
      assert.equal(list.total, 1);
      assert.equal(list.data_ref, 'orders');
      assert.deepEqual(
        list.orders.map((o) => o.id),
        [created.id],
      );
    });
  });

  describe('customers, summaries and events', () => {
    test('a customer named by source_id is created in the same transaction; customer_id must exist', async () => {
      const order = await create({ customer: { source_id: 'buyer-1', name: 'Buyer One', email: 'b1@x.io' }, amount: 100 });
      assert.ok(order.customer_id);
      assert.deepEqual(order.customer, { id: order.customer_id, object: 'customer' });
      const customer = await t.request('GET', '/v1/customers/buyer-1');
      assert.equal(customer.body.id, order.customer_id);
      assert.equal(customer.body.name, 'Buyer One');
      assert.deepEqual(await orderTypes(order.customer_id), ['customer.order.created']);

      const again = await create({ customer: { source_id: 'buyer-1' }, customer_id: order.customer_id, amount: 5 });
      assert.equal(again.customer_id, order.customer_id);

      const [orders, customers] = [await orderCount(), await customerCount()];
      const unknownId = await post({ customer_id: 'cust_unknown', amount: 1 });
      assert.equal(unknownId.status, 404);
      assert.equal(unknownId.body.resource_type, 'customer');
      const mismatch = await post({ customer: { source_id: 'buyer-new' }, customer_id: order.customer_id, amount: 1 });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.key, 'invalid_payload');
      // Neither id nor source_id: a new customer is made from the members sent (customer-references.test.ts);
      // with no member at all there is nothing to make one from.
      const anonymous = await post({ customer: {}, amount: 1 });
      assert.equal(anonymous.status, 400);
      assert.match(anonymous.body.details, /\.customer/);
      assert.deepEqual([await orderCount(), await customerCount()], [orders, customers], 'failed requests created nothing');
      assert.equal((await t.request('GET', '/v1/customers/buyer-new')).status, 404);
    });

    test('a referrer is named like a customer', async () => {
      const referrerId = await newCustomer('ref-1');
      const order = await create({ customer: { source_id: 'referred-1' }, referrer: { source_id: 'ref-1' }, amount: 1 });
      assert.equal(order.referrer_id, referrerId);
      assert.deepEqual(order.referrer, { id: referrerId, object: 'customer' });
      const byId = await create({ referrer_id: referrerId, amount: 1 });
      assert.equal(byId.referrer_id, referrerId);
      const created = await create({ referrer: { source_id: 'ref-new-1' }, amount: 1 });
      assert.equal((await t.request('GET', '/v1/customers/ref-new-1')).body.id, created.referrer_id);
      const missing = await post({ referrer_id: 'cust_nobody' });
      assert.equal(missing.status, 404);
      const cleared = await put(order.id, { referrer: null });
      assert.deepEqual([cleared.referrer, cleared.referrer_id], [undefined, null]);
      assert.ok(!('referrer' in cleared));
    });

    test('the customer summary counts PAID and FULFILLED orders only, through every status change', async () => {
      const customerId = await newCustomer('sum-1');
      const empty = { total_amount: 0, total_count: 0, average_amount: 0, last_order_amount: 0, last_order_date: null };
      const a = await create({ customer: { id: customerId }, amount: 1000 });
      assert.deepEqual(await summary(customerId), empty, 'a CREATED order does not count');

      await put(a.id, { status: 'PAID' });
      assert.deepEqual(await summary(customerId), { total_amount: 1000, total_count: 1, average_amount: 1000, last_order_amount: 1000, last_order_date: a.created_at });

      const b = await create({ customer_id: customerId, amount: 3000, discount_amount: 1000, status: 'FULFILLED' });
      assert.deepEqual(await summary(customerId), {
        total_amount: 3000,
        total_count: 2,
        average_amount: 1500,
        last_order_amount: 2000,
        last_order_date: b.created_at,
      });

      await put(b.id, { amount: 5000 });
      assert.deepEqual(await summary(customerId), {
        total_amount: 5000,
        total_count: 2,
        average_amount: 2500,
        last_order_amount: 4000,
        last_order_date: b.created_at,
      });

      await put(b.id, { status: 'CANCELED' });
      assert.deepEqual(await summary(customerId), { total_amount: 1000, total_count: 1, average_amount: 1000, last_order_amount: 1000, last_order_date: a.created_at });

      await put(a.id, { status: 'FULFILLED' });
      assert.equal((await summary(customerId)).total_count, 1, 'PAID to FULFILLED still counts once');

      await put(a.id, { status: 'CREATED' });
      assert.deepEqual(await summary(customerId), empty);
    });

    test('moving a counted order to another customer moves its contribution', async () => {
      const first = await newCustomer('move-1');
      const second = await newCustomer('move-2');
      const order = await create({ customer_id: first, amount: 700, status: 'PAID' });
      assert.equal((await summary(first)).total_amount, 700);
      await put(order.id, { customer: { id: second } });
      assert.deepEqual(await summary(first), { total_amount: 0, total_count: 0, average_amount: 0, last_order_amount: 0, last_order_date: null });
      assert.deepEqual(await summary(second), { total_amount: 700, total_count: 1, average_amount: 700, last_order_amount: 700, last_order_date: order.created_at });
      await put(order.id, { customer: null });
      assert.equal((await summary(second)).total_count, 0);
    });

    test('the latest counted order is the one created last, whatever the order of payment', async () => {
      const customerId = await newCustomer('latest-1');
      const older = await create({ customer_id: customerId, amount: 100, created_at: '2026-01-01T00:00:00.000Z' });
      const newer = await create({ customer_id: customerId, amount: 200, created_at: '2026-02-01T00:00:00.000Z' });
      await put(newer.id, { status: 'PAID' });
      await put(older.id, { status: 'PAID' });
      const s = await summary(customerId);
      assert.equal(s.last_order_amount, 200);
      assert.equal(s.last_order_date, '2026-02-01T00:00:00.000Z');
      assert.equal(s.total_amount, 300);
    });

    test('an order stored by a redemption becomes the latest one only when it was created last', async () => {
      const customerId = await newCustomer('latest-2');
      await create({ customer_id: customerId, amount: 500, status: 'PAID', created_at: '2026-03-01T00:00:00.000Z' });
      const redeem = async (code: string, order: Record<string, unknown>) => {
        const made = await t.request('POST', `/v1/vouchers/${code}`, { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
        assert.equal(made.status, 200, made.text);
        const res = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: code }], customer: { id: customerId }, order } });
        assert.equal(res.status, 200, res.text);
      };
      // Sent with an earlier date: counted, but the March order stays the latest.
      await redeem('LATEST-2-A', { amount: 1000, created_at: '2026-01-15T00:00:00.000Z' });
      let s = await summary(customerId);
      assert.deepEqual([s.total_count, s.total_amount, s.last_order_amount, s.last_order_date], [2, 1400, 500, '2026-03-01T00:00:00.000Z']);
      // Created now: the latest.
      await redeem('LATEST-2-B', { amount: 2000 });
      s = await summary(customerId);
      assert.equal(s.total_count, 3);
      assert.equal(s.last_order_amount, 1900);
      assert.ok(s.last_order_date !== null && s.last_order_date > '2026-03-01T00:00:00.000Z', String(s.last_order_date));
    });

    test('each change appends its events with the order, the customer and the product ids', async () => {
      const product = await t.request('POST', '/v1/products', { json: { name: 'Lamp', price: 4000 } });
      const customerId = await newCustomer('events-1');
      const order = await create({ customer_id: customerId, items: [{ product_id: product.body.id, quantity: 1 }] });
      await put(order.id, { status: 'PAID' });
      await put(order.id, { status: 'FULFILLED' });
      await put(order.id, { status: 'CANCELED' });
      await put(order.id, { status: 'PAID' });
      assert.deepEqual(await orderTypes(customerId), [
        'customer.order.created',
        'customer.order.updated',
        'customer.order.paid',
        'customer.order.updated',
        'customer.order.fulfilled',
        'customer.order.updated',
        'customer.order.canceled',
        'customer.order.updated',
      ]);
      const list = await activities(customerId);
      const paid = list.find((a) => a.type === 'customer.order.paid');
      assert.ok(paid);
      assert.equal(paid.data.data.order.id, order.id);
      assert.equal(paid.data.data.order.status, 'PAID');
      assert.equal(paid.data.data.customer?.id, customerId);
      assert.equal((paid.data.data.customer as unknown as { summary: { orders: OrdersSummary } }).summary.orders.total_count, 1);

      const byProduct = await activities(customerId, `&product_id=${product.body.id}`);
      assert.equal(byProduct.filter((a) => a.type.startsWith('customer.order.')).length, 8);
      assert.equal((await activities(customerId, '&product_id=prod_other')).length, 0);

      // The events of one write (updated, then paid or fulfilled) show the same order, stored once.
      for (const [i, activity] of list.entries()) {
        const next = list[i + 1];
        if (activity.type !== 'customer.order.updated' || !next) continue;
        assert.deepEqual(next.data.data.order, activity.data.data.order, `${next.type} after ${activity.type}`);
        assert.equal(next.data.data.customer?.id, customerId);
      }
    });

    test('an order created PAID shows the same order in its created and paid activities', async () => {
      const customerId = await newCustomer('paid-copy-1');
      const order = await create({ customer_id: customerId, amount: 2500, status: 'PAID', metadata: { channel: 'shop' } });
      const list = await activities(customerId);
      const created = list.find((a) => a.type === 'customer.order.created');
      const paid = list.find((a) => a.type === 'customer.order.paid');
      assert.ok(created && paid);
      assert.equal(paid.data.data.order.id, order.id);
      assert.equal(paid.data.data.order.amount, 2500);
      assert.deepEqual(paid.data.data.order, created.data.data.order);
      assert.equal(paid.data.data.customer?.id, customerId);
    });

    test('an order created PAID is paid once; paid, cancelled and paid again is still paid once', async () => {
      const customerId = await newCustomer('paid-once-1');
      const order = await create({ customer_id: customerId, amount: 100, status: 'PAID' });
      await put(order.id, { status: 'CANCELED' });
      await put(order.id, { status: 'PAID' });
      await create({ id: order.id, status: 'PAID' });
      assert.deepEqual(await orderTypes(customerId), [
        'customer.order.created',
        'customer.order.paid',
        'customer.order.updated',
        'customer.order.canceled',
        'customer.order.updated',
        'customer.order.updated',
      ]);
    });

    test('ten concurrent PUTs to PAID pay the order exactly once and count it once', async () => {
      const customerId = await newCustomer('race-paid-1');
      const order = await create({ customer_id: customerId, amount: 2500 });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => t.request('PUT', `/v1/orders/${order.id}`, { json: { status: 'PAID' } })),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        Array.from({ length: 10 }, () => 200),
      );
      const types = await orderTypes(customerId);
      assert.equal(types.filter((type) => type === 'customer.order.paid').length, 1);
      assert.equal(types.filter((type) => type === 'customer.order.updated').length, 10);
      assert.deepEqual(await summary(customerId), {
        total_amount: 2500,
        total_count: 1,
        average_amount: 2500,
        last_order_amount: 2500,
        last_order_date: order.created_at,
      });
    });

    test('ten concurrent creates with one source_id end as one order, counted once', async () => {
      const other = await newProject();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          post({ source_id: 'race-1', amount: 900, status: 'PAID', customer: { source_id: 'race-buyer' }, metadata: { n: i } }, other.headers),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        Array.from({ length: 10 }, () => 200),
      );
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      assert.equal(await orderCount(other.headers), 1);
      const customer = await t.request('GET', '/v1/customers/race-buyer', { headers: other.headers });
      assert.equal(customer.status, 200);
      assert.equal(customer.body.summary.orders.total_count, 1);
      assert.equal(customer.body.summary.orders.total_amount, 900);
      const acts = await t.request('GET', `/v1/customers/${customer.body.id}/activities?limit=100`, { headers: other.headers });
      const types = (acts.body.data as Activity[]).map((a) => a.type);
      assert.equal(types.filter((type) => type === 'customer.order.created').length, 1);
      assert.equal(types.filter((type) => type === 'customer.order.paid').length, 1);
      assert.equal(types.filter((type) => type === 'customer.created').length, 1);
    });
  });

  describe('tenancy and bad input', () => {
    test("another project's orders are 404 by id and by source_id, and its source_ids are free here", async () => {
      const mine = await create({ source_id: 'tenant-1', amount: 10 });
      const other = await newProject();
      for (const path of [`/v1/orders/${mine.id}`, '/v1/orders/tenant-1']) {
        const get = await t.request('GET', path, { headers: other.headers });
        assert.equal(get.status, 404, path);
        const put = await t.request('PUT', path, { headers: other.headers, json: { status: 'PAID' } });
        assert.equal(put.status, 404, path);
      }
      const byId = await post({ id: mine.id, status: 'PAID' }, other.headers);
      assert.equal(byId.status, 404);
      const theirs = await create({ source_id: 'tenant-1', amount: 99 }, other.headers);
      assert.notEqual(theirs.id, mine.id);
      const unchanged = await t.request('GET', `/v1/orders/${mine.id}`);
      assert.deepEqual(unchanged.body, mine);
      const customerId = await newCustomer('tenant-cust-1');
      const foreign = await post({ customer_id: customerId, amount: 1 }, other.headers);
      assert.equal(foreign.status, 404, "another project's customer is unknown here");
    });

    test('bad bodies are 400 invalid_payload naming the member, and change nothing', async () => {
      const before = [await orderCount(), await customerCount()];
      const tooMany = Array.from({ length: 501 }, () => ({ price: 1, quantity: 1 }));
      const cases: Array<[unknown, RegExp]> = [
        [{ items: tooMany, customer: { source_id: 'bad-1' } }, /\.items/],
        [{ amount: -1, customer: { source_id: 'bad-2' } }, /\.amount/],
        [{ amount: 1.5 }, /\.amount/],
        [{ amount: '100' }, /\.amount/],
        [{ status: 'PROCESSING' }, /\.status/],
        [{ items: [{ quantity: 'two' }] }, /\.items\[0\]\.quantity/],
        [{ items: [{ price: 100, quantity: 1, discount_amount: 200 }], customer: { source_id: 'bad-3' } }, /\.items\[0\]\.discount_amount/],
        [{ items: [{ price: 10_000_000_000_000, quantity: 2 }] }, /\.items\[0\]\.amount/],
        [{ items: [{ related_object: 'voucher', source_id: 'x' }] }, /\.items\[0\]\.related_object/],
        [{ created_at: 'yesterday' }, /\.created_at/],
        [{ created_at: '2026-06-30T23:59:60Z', customer: { source_id: 'bad-5' } }, /\.created_at/],
        [{ created_at: '9999-12-31T23:59:59-23:59' }, /\.created_at/],
        [{ metadata: 'text' }, /\.metadata/],
        [{ customer: { source_id: 'bad-4', email: 42 } }, /\.customer\.email/],
        [[], /Payload/],
      ];
      for (const [body, details] of cases) {
        const res = await post(body);
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(res.body.key, 'invalid_payload');
        assert.match(res.body.details, details);
      }
      assert.deepEqual([await orderCount(), await customerCount()], before);
      for (const sourceId of ['bad-1', 'bad-2', 'bad-3', 'bad-4', 'bad-5']) {
        assert.equal((await t.request('GET', `/v1/customers/${sourceId}`)).status, 404, sourceId);
      }
    });

    test('500 items are accepted', async () => {
      const items = Array.from({ length: 500 }, (_, i) => ({ source_id: `bulk-${i}`, price: 100, quantity: 1 }));
      const order = await create({ items });
      assert.equal(order.items.length, 500);
      assert.equal(order.amount, 50000);
    });

    test('requests without keys are 401', async () => {
      const res = await t.request('GET', '/v1/orders', { headers: {} });
      assert.equal(res.status, 401);
    });
  });
});
