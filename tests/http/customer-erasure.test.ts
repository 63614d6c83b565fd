import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Permanent deletion (GDPR erase) takes the customer's orders and every event naming them along, and
// leaves only the customer's id in the records of their redemptions (whose order copies lose their
// metadata) and in their publications.

describe('permanent customer deletion across areas', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('erases the orders and counts them and their events', async () => {
    const customer = await t.request('POST', '/v1/customers', { json: { source_id: 'to-erase', name: 'Erase me' } });
    for (const sourceId of ['o-1', 'o-2']) {
      const order = await t.request('POST', '/v1/orders', { json: { source_id: sourceId, amount: 1000, status: 'PAID', customer: { source_id: 'to-erase' } } });
      assert.equal(order.status, 200, order.text);
    }
    const keep = await t.request('POST', '/v1/orders', { json: { source_id: 'o-keep', amount: 500, customer: { source_id: 'someone-else' } } });
    assert.equal(keep.status, 200);

    const erased = await t.request('POST', `/v1/customers/${customer.body.id}/permanent-deletion`, { json: {} });
    assert.equal(erased.status, 200, erased.text);
    assert.equal(erased.body.object, 'pernament_deletion');
    assert.equal(erased.body.data_json.orders, 2);
    assert.ok(erased.body.data_json.order_events >= 2, JSON.stringify(erased.body.data_json));
    assert.equal(erased.body.data_json.customer, 1);

    assert.equal((await t.request('GET', '/v1/orders/o-1')).status, 404);
    assert.equal((await t.request('GET', '/v1/orders/o-2')).status, 404);
    assert.equal((await t.request('GET', '/v1/orders/o-keep')).status, 200, "another customer's order stays");
    const left = await t.deps.db.selectFrom('events').select('id').where('customer_id', '=', customer.body.id).execute();
    assert.equal(left.length, 0);
  });

  test("keeps the customer's redemption records but not the person in them", async () => {
    const redeemFor = async (sourceId: string, name: string) => {
      const voucher = await t.request('POST', '/v1/vouchers', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
      assert.equal(voucher.status, 200, voucher.text);
      const res = await t.request('POST', '/v1/redemptions', {
        json: {
          redeemables: [{ object: 'voucher', id: voucher.body.code }],
          order: { metadata: { ship_to: `${name}, 1 Main St` }, items: [{ sku_id: 'gift-box', price: 1000, quantity: 1, metadata: { gift_note: `for ${name}` } }] },
          customer: { source_id: sourceId, name, email: `${sourceId}@example.com` },
        },
      });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const erasedOnes = await redeemFor('erase-redeemer', 'Forget Me');
    const kept = await redeemFor('keep-redeemer', 'Keep Me');
    const customerId = erasedOnes.redemptions[0].customer.id as string;
    assert.equal(erasedOnes.redemptions[0].customer.name, 'Forget Me');
    const before = await t.request('GET', `/v1/redemptions/${erasedOnes.redemptions[0].id}`);
    assert.match(before.text, /Forget Me, 1 Main St/, 'the record holds the order metadata before the erase');
    assert.match(before.text, /for Forget Me/);

    const erased = await t.request('POST', `/v1/customers/${customerId}/permanent-deletion`, { json: {} });
    assert.equal(erased.status, 200, erased.text);

    for (const id of [erasedOnes.redemptions[0].id]) {
      const record = await t.request('GET', `/v1/redemptions/${id}`);
      assert.equal(record.status, 200, record.text);
      assert.equal(record.body.customer_id, customerId);
      assert.deepEqual(record.body.customer, { id: customerId, object: 'customer' });
      assert.doesNotMatch(record.text, /Forget Me|erase-redeemer/);
      assert.deepEqual(record.body.order.metadata, {});
      assert.deepEqual(record.body.order.items[0].metadata, {});
      assert.equal(record.body.order.amount, 1000, 'the amounts stay');
      assert.equal(record.body.order.items[0].sku_id, 'gift-box', 'the products stay');
    }
    const other = await t.request('GET', `/v1/redemptions/${kept.redemptions[0].id}`);
    assert.equal(other.body.customer.name, 'Keep Me', "another customer's records keep their snapshot");
    assert.deepEqual(other.body.order.metadata, { ship_to: 'Keep Me, 1 Main St' });
    assert.deepEqual(other.body.order.items[0].metadata, { gift_note: 'for Keep Me' });
  });

  test("keeps the customer's publications by id, without the source_id they were tracked under", async () => {
    const publishTo = async (sourceId: string) => {
      const voucher = await t.request('POST', '/v1/vouchers', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
      const res = await t.request('POST', '/v1/publications', { json: { voucher: voucher.body.code, customer: { source_id: sourceId, email: `${sourceId}@example.com` } } });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const gone = await publishTo('published-then-erased');
    const stays = await publishTo('published-and-kept');
    assert.equal(gone.tracking_id, 'published-then-erased');

    const erased = await t.request('POST', `/v1/customers/${gone.customer_id}/permanent-deletion`, { json: {} });
    assert.equal(erased.status, 200, erased.text);

    const list = await t.request('GET', '/v1/publications?limit=100');
    assert.equal(list.status, 200, list.text);
    assert.doesNotMatch(list.text, /published-then-erased/);
    type Publication = { id: string; customer_id: string; tracking_id: string | null };
    const byId = new Map((list.body.publications as Publication[]).map((p) => [p.id, p]));
    assert.equal(byId.get(gone.id)?.customer_id, gone.customer_id, 'the publication stays, naming the customer by id');
    assert.equal(byId.get(gone.id)?.tracking_id, null);
    assert.equal(byId.get(stays.id)?.tracking_id, 'published-and-kept', "another customer's publication keeps its tracking id");
  });
});
