import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { assertVendorResponse, vendorRequestExamples, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// `POST /v1/orders/import` (vendor import-orders): historical orders written by the worker as the async
// action ORDERS.IMPORT. As the vendor documents it, an import triggers nothing — no earning rules, no
// order activities or webhooks — but the orders, their customers and the customers' order counters are
// there afterwards, and the log holds one `order.imported` event per order.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('order imports', () => {
  let t: TestApp;
  let other: KeyPairOut;
  before(async () => {
    t = await startTestApp();
    other = (
      await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      })
    ).body.server_side_key;
  });
  after(async () => t.close());

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      // Until no job is due.
    }
  }

  const vendorExample = (): Json[] =>
    vendorSchemasAvailable
      ? (vendorRequestExamples('POST', '/v1/orders/import').Example as Json[])
      : [
          { source_id: 'orderImport14', status: 'PAID', customer: { source_id: 'bob2.smith@email.com', name: 'Bob Smith' }, items: [{ source_id: 'prod_1', related_object: 'product', quantity: 2, product: { name: 'Phone', price: 70000 } }] },
          { source_id: 'orderImport15', status: 'CREATED', amount: 1000 },
        ];

  test("the vendor's example through the SDK: orders and customers written, no activities, no earning", async () => {
    const program: Json = await t.sdk().loyalties.create({ name: 'Earning', vouchers_count: 0, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    await t.sdk().loyalties.createEarningRule(program.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 10 }, source: { banner: 'b' } }] as never);
    const example = vendorExample();
    const customerSourceId: string = example[0].customer.source_id;
    await t.sdk().loyalties.createMember(program.id, { customer: { source_id: customerSourceId } } as never);

    const started: Json = await t.sdk().orders.import(example as never);
    if (vendorSchemasAvailable) assertVendorResponse('POST', '/v1/orders/import', started);
    assert.match(started.async_action_id, /^aa_/);
    await runJobs();
    const done = (await t.request('GET', `/v1/async-actions/${started.async_action_id}`)).body;
    assert.equal(done.type, 'ORDERS.IMPORT');
    assert.equal(done.status, 'DONE');
    // The example names customers by ids of the vendor's own project: here they are unknown, so those orders are reported.
    const naming = (o: Json) => Boolean(o.customer?.id || o.referrer?.id || o.customer_id || o.referrer_id);
    const refused = example.filter(naming);
    const written = example.filter((o) => !naming(o));
    assert.deepEqual(done.result, {
      message: `${written.length} order(s) imported successfully, ${refused.length} failed.`,
      done_count: written.length,
      failed_count: refused.length,
      failed: refused.map((o) => ({ source_id: o.source_id, reason: `Cannot find customer with id ${o.customer?.id ?? o.customer_id}` })),
    });
    for (const order of refused) assert.equal((await t.request('GET', `/v1/orders/${order.source_id}`)).status, 404);

    for (const order of written) {
      const stored: Json = await t.sdk().orders.get(order.source_id);
      assert.equal(stored.status, order.status);
      assert.equal(stored.items.length, order.items?.length ?? 0);
    }
    const customer: Json = await t.sdk().customers.get(customerSourceId);
    assert.equal(customer.summary.orders.total_count, written.filter((o) => o.customer?.source_id === customerSourceId && o.status !== 'CANCELED').length);
    const activities = await t.request('GET', `/v1/customers/${customer.id}/activities`);
    assert.deepEqual(
      activities.body.data.filter((a: Json) => a.type.startsWith('customer.order.')),
      [],
      'an import records no order activities',
    );
    const member: Json = await t.sdk().loyalties.getMember(program.id, ((await t.sdk().loyalties.listMembers(program.id)) as Json).vouchers[0].code);
    assert.equal(member.loyalty_card.points, 0, 'order-paid earning rules are not triggered');
    const imported = await t.deps.db.selectFrom('events').select(['type', 'entity_id']).where('type', 'like', 'order.%').execute();
    assert.deepEqual(
      imported.map((e) => e.type),
      written.map(() => 'order.imported'),
    );
  });

  test('an order that cannot be written is reported with its source_id (or its position) and the others go in', async () => {
    const started: Json = await t.sdk().orders.import([
      { source_id: 'imp-ok', amount: 100 },
      { source_id: 'imp-bad', amount: 100, customer_id: 'cust_missing' },
      { amount: 5, customer_id: 'cust_missing_too' },
    ] as never);
    await runJobs();
    const done = (await t.request('GET', `/v1/async-actions/${started.async_action_id}`)).body;
    assert.equal(done.result.done_count, 1);
    assert.equal(done.result.failed_count, 2);
    assert.deepEqual(
      done.result.failed.map((f: Json) => [f.source_id ?? f.row, typeof f.reason]),
      [
        ['imp-bad', 'string'],
        [2, 'string'],
      ],
    );
    assert.equal((await t.request('GET', '/v1/orders/imp-ok')).status, 200);
    assert.equal((await t.request('GET', '/v1/orders/imp-bad')).status, 404);
  });

  test("an import names customers of its own project only: another project's customer id is unknown", async () => {
    const theirs: Json = await t.sdk(other).customers.create({ source_id: 'their-customer' } as never);
    const started: Json = await t.sdk().orders.import([{ source_id: 'imp-foreign', amount: 1, customer_id: theirs.id }] as never);
    await runJobs();
    const done = (await t.request('GET', `/v1/async-actions/${started.async_action_id}`)).body;
    assert.equal(done.result.failed_count, 1);
    assert.equal((await t.request('GET', '/v1/orders/imp-foreign')).status, 404);
    const theirsAfter: Json = await t.sdk(other).customers.get(theirs.id);
    assert.equal(theirsAfter.summary.orders.total_count, 0);
  });

  test('bad bodies are 400 invalid_payload and enqueue nothing', async () => {
    const jobs = async () => Number((await t.deps.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await jobs();
    for (const json of [[], {}, [{ amount: -1 }], [{ status: 'SHIPPED' }], Array.from({ length: 2001 }, () => ({ amount: 1 }))]) {
      const res = await t.request('POST', '/v1/orders/import', { json });
      assert.equal(res.status, 400, `${JSON.stringify(json).slice(0, 80)}: ${res.text}`);
      assert.equal(res.body.key, 'invalid_payload');
    }
    assert.equal(await jobs(), before);
  });
});
