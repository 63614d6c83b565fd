import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Customers named the vendor's ways in every request that carries one (issue 19): by `id`, by
// `source_id`, or by neither, when a new customer is made from the members sent (only `email` and
// `name`, say). Nothing else identifies a customer: two such requests make two customers (no match by
// email: README, compatibility notes). Driven by the SDK where it has the call.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('customers referenced by id, by source_id, or by neither', () => {
  let t: TestApp;
  let campaignName: string;
  let loyaltyId: string;
  before(async () => {
    t = await startTestApp();
    campaignName = 'Welcome';
    await t.sdk().campaigns.create({
      name: campaignName,
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 5,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    } as never);
    const loyalty: Json = await t.sdk().loyalties.create({ name: 'Club', vouchers_count: 3, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    loyaltyId = loyalty.id;
    const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/custom-event-schemas`, {
      headers: t.managementHeaders(),
      json: { name: 'signed_up', schema: { properties: {} } },
    });
    assert.equal(schema.status, 200, schema.text);
  });
  after(async () => t.close());

  async function customersWithEmail(email: string): Promise<Json[]> {
    return t.deps.db.selectFrom('customers').selectAll().where('email', '=', email).where('project_id', '=', t.projectId).execute();
  }

  async function expectCreated(email: string, name: string | null, customerId: string): Promise<void> {
    const rows = await customersWithEmail(email);
    assert.equal(rows.length, 1, `one customer with ${email}`);
    assert.equal(rows[0].id, customerId);
    assert.equal(rows[0].source_id, null);
    assert.equal(rows[0].name, name);
    const fetched: Json = await t.sdk().customers.get(customerId);
    assert.equal(fetched.email, email);
  }

  test('a publication for a customer given only by email and name creates that customer', async () => {
    const published: Json = await t.sdk().distributions.publications.create({ campaign: { name: campaignName }, customer: { email: 'pub@example.com', name: 'Pub' } } as never);
    assert.match(published.customer_id, /^cust_/);
    await expectCreated('pub@example.com', 'Pub', published.customer_id);
    assert.equal(published.voucher.holder_id, published.customer_id);
  });

  test('an order for a customer given only by email creates that customer', async () => {
    const order: Json = await t.sdk().orders.create({ amount: 2500, customer: { email: 'order@example.com' } } as never);
    assert.match(order.customer_id, /^cust_/);
    await expectCreated('order@example.com', null, order.customer_id);
  });

  test('a validation reads a customer given only by email (metadata included) and creates nothing; a redemption creates it', async () => {
    await t.sdk().vouchers.create({ code: 'BY-EMAIL', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
    const body = { redeemables: [{ object: 'voucher', id: 'BY-EMAIL' }], order: { amount: 1000 }, customer: { email: 'redeem@example.com', name: 'Red', metadata: { tier: 'gold' } } };
    const validation: Json = await t.sdk().validations.validateStackable(body as never);
    assert.equal(validation.valid, true);
    assert.equal((await customersWithEmail('redeem@example.com')).length, 0, 'a validation creates no customer');

    const redeemed: Json = await t.sdk().redemptions.redeemStackable(body as never);
    assert.equal(redeemed.redemptions[0].result, 'SUCCESS');
    const customerId = redeemed.redemptions[0].customer_id;
    assert.match(customerId, /^cust_/);
    await expectCreated('redeem@example.com', 'Red', customerId);
    const rows = await customersWithEmail('redeem@example.com');
    assert.deepEqual(JSON.parse(rows[0].metadata), { tier: 'gold' });
  });

  test('a qualification takes a customer given only by email', async () => {
    const answer: Json = await t.sdk().qualifications.checkEligibility({ customer: { email: 'qual@example.com' }, order: { amount: 1000 } } as never);
    assert.equal(answer.redeemables.object, 'list');
    assert.equal((await customersWithEmail('qual@example.com')).length, 0, 'a qualification creates no customer');
  });

  test('a custom event for a customer given only by email creates that customer', async () => {
    const tracked = await t.request('POST', '/v1/events', { json: { event: 'signed_up', customer: { email: 'event@example.com', name: 'Eve' } } });
    assert.equal(tracked.status, 200, tracked.text);
    const rows = await customersWithEmail('event@example.com');
    assert.equal(rows.length, 1);
    assert.equal(rows[0].name, 'Eve');
  });

  test('a loyalty member given only by email: a new customer holds the card', async () => {
    const card: Json = await t.sdk().loyalties.createMember(loyaltyId, { customer: { email: 'member@example.com', name: 'Mem' } } as never);
    assert.match(card.holder_id, /^cust_/);
    await expectCreated('member@example.com', 'Mem', card.holder_id);
  });

  test('neither id nor source_id is never matched: the same email twice makes two customers', async () => {
    const first: Json = await t.sdk().orders.create({ amount: 100, customer: { email: 'twice@example.com' } } as never);
    const second: Json = await t.sdk().orders.create({ amount: 100, customer: { email: 'twice@example.com' } } as never);
    assert.notEqual(first.customer_id, second.customer_id);
    assert.equal((await customersWithEmail('twice@example.com')).length, 2);
  });

  test('by id and by source_id as before; a customer object with no member at all is a 400', async () => {
    const known: Json = await t.sdk().customers.create({ source_id: 'known-1', email: 'known@example.com' });
    const byId: Json = await t.sdk().orders.create({ amount: 100, customer: { id: known.id } } as never);
    assert.equal(byId.customer_id, known.id);
    const bySource: Json = await t.sdk().orders.create({ amount: 100, customer: { source_id: 'known-1', email: 'ignored-on-match@example.com' } } as never);
    assert.equal(bySource.customer_id, known.id);
    const missing = await t.request('POST', '/v1/orders', { json: { amount: 100, customer: { id: 'cust_missing' } } });
    assert.equal(missing.status, 404, missing.text);

    const before = await t.deps.db.selectFrom('customers').select('id').execute();
    for (const [path, json] of [
      ['/v1/orders', { amount: 100, customer: {} }],
      ['/v1/publications', { campaign: { name: campaignName }, customer: {} }],
      ['/v1/events', { event: 'signed_up', customer: {} }],
      ['/v1/redemptions', { redeemables: [{ object: 'voucher', id: 'BY-EMAIL' }], customer: {} }],
    ] as const) {
      const res = await t.request('POST', path, { json });
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.equal(res.body.key, 'invalid_payload');
      assert.match(res.body.details, /customer should have required property 'id' or 'source_id', or members to create a customer from/);
    }
    assert.equal((await t.deps.db.selectFrom('customers').select('id').execute()).length, before.length);
  });
});
