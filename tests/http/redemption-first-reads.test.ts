import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, type Json } from '../helpers/redemption-fixtures.ts';

// A redemption whose order names products (and no stored order) and whose customer is named by id or
// source_id reads the products and locks the customer in one statement on PostgreSQL
// (readCatalogAndCustomer, src/services/redemptions/request.ts). Each way that read can end answers as
// the separate reads did: a known customer, a new one, an unknown id, products by source_id, items that
// name SKUs or nothing of the catalog.

describe('the first reads of a redemption', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
  });
  after(async () => t.close());

  const redeem = (code: string, customer: Json, items: Json[]) =>
    t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: code }], customer, order: { items } } });

  test('a known customer by source_id or by id, with items priced from the catalog', async () => {
    const product = await f.product(2500);
    const customer = await f.customer();
    for (const ref of [{ source_id: customer.source_id }, { id: customer.id }]) {
      const voucher = await f.amountVoucher(100);
      const res = await redeem(voucher.code, ref, [{ product_id: product.id, quantity: 2 }]);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.redemptions[0].customer_id, customer.id);
      assert.equal(res.body.order.amount, 5000);
      assert.equal(res.body.order.items[0].price, 2500);
      assert.equal(res.body.order.items[0].product.name, 'Product');
    }
    assert.equal((await f.customerSummary(customer.id)).total_succeeded, 2);
  });

  test('a new source_id creates its customer; products named by source_id are found', async () => {
    const product = await f.product(1200);
    const voucher = await f.amountVoucher(100);
    const sourceId = f.unique('new-customer');
    const res = await redeem(voucher.code, { source_id: sourceId, name: 'New Customer' }, [{ source_id: product.source_id, quantity: 1 }]);
    assert.equal(res.status, 200, res.text);
    const created = await f.ok('GET', `/v1/customers/${encodeURIComponent(sourceId)}`);
    assert.equal(created.name, 'New Customer');
    assert.equal(res.body.redemptions[0].customer_id, created.id);
    assert.equal(res.body.order.items[0].product_id, product.id);
    assert.equal(res.body.order.amount, 1200);
  });

  test('an unknown customer id is a 404 and changes nothing', async () => {
    const product = await f.product(1000);
    const voucher = await f.amountVoucher(100);
    const [records, orders, customers] = [await f.redemptionRows(), await f.count('orders'), await f.count('customers')];
    const res = await redeem(voucher.code, { id: 'cust_unknown0000000000' }, [{ product_id: product.id, quantity: 1 }]);
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.key, 'not_found');
    assert.match(`${res.body.message} ${res.body.details}`, /customer/i);
    assert.deepEqual([await f.redemptionRows(), await f.count('orders'), await f.count('customers')], [records, orders, customers]);
    assert.equal((await f.voucherState(voucher.code)).redemption.redeemed_quantity, 0);
  });

  test('items naming a SKU, or nothing in the catalog, still resolve', async () => {
    const product = await f.product(3000);
    const sku = await f.ok('POST', `/v1/products/${product.id}/skus`, { source_id: f.unique('sku'), sku: 'Size M', price: 2000 });
    const customer = await f.customer();
    const withSku = await redeem((await f.amountVoucher(100)).code, { source_id: customer.source_id }, [{ sku_id: sku.id, quantity: 1 }]);
    assert.equal(withSku.status, 200, withSku.text);
    assert.equal(withSku.body.order.items[0].price, 2000);
    assert.equal(withSku.body.order.items[0].product_id, product.id);
    const adHoc = await redeem((await f.amountVoucher(100)).code, { source_id: customer.source_id }, [{ product_id: 'prod_not_in_catalog', quantity: 1, price: 700 }]);
    assert.equal(adHoc.status, 200, adHoc.text);
    assert.equal(adHoc.body.order.amount, 700);
  });
});
