import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Permanent deletion (GDPR erase) takes the customer's orders and every event naming them along.

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
});
