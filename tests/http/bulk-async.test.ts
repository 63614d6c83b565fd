import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction } from '../../src/services/context.ts';
import { recordJobProgress } from '../../src/store/jobs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Bulk and metadata updates as async actions (platform reference 3.1, 4.1, 8): 202 with the action id,
// the worker applies every item, the async action reports done/failed counts and errors.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('bulk and metadata async updates', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/metadata-schemas`, {
      headers: t.managementHeaders(),
      json: { related_object: 'customer', properties: { level: { type: 'number' } } },
    });
    assert.equal(schema.status, 200);
  });
  after(async () => t.close());

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      /* until the queue is empty */
    }
  }

  async function action(id: string): Promise<Json> {
    const res = await t.request('GET', `/v1/async-actions/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  test('customers in bulk: existing ones updated, unknown ones created, a bad item reported and skipped', async () => {
    const sdk = t.sdk();
    await sdk.customers.create({ source_id: 'b-1', name: 'Before', email: 'keep@example.com' });
    const started: Json = await sdk.customers.updateInBulk([
      { source_id: 'b-1', name: 'After' },
      { source_id: 'b-2', name: 'New', metadata: { level: 2 } },
      { source_id: 'b-3', metadata: { level: 'high' } },
    ] as never);
    assert.match(started.async_action_id, /^aa_/);
    const queued = await action(started.async_action_id);
    assert.equal(queued.status, 'ENQUEUED');
    assert.equal(queued.type, 'CUSTOMERS.BULK_UPDATE');

    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.status, 'DONE');
    assert.equal(done.progress, 100);
    assert.deepEqual(done.result, {
      done_count: 2,
      failed_count: 1,
      reports: [],
      reports_available_till: null,
      errors: [
        {
          key: 'metadata_validation_failed',
          message: 'Metadata validation failed',
          details: "level: must be a number (actual value is 'high')",
          source_id: 'b-3',
        },
      ],
      operation_status: 'FAILED',
    });
    const updated: Json = await sdk.customers.get('b-1');
    assert.equal(updated.name, 'After');
    assert.equal(updated.email, 'keep@example.com', 'members not sent stay');
    const created: Json = await sdk.customers.get('b-2');
    assert.deepEqual(created.metadata, { level: 2 });
    assert.equal((await t.request('GET', '/v1/customers/b-3')).status, 404);
    const activity = await t.request('GET', '/v1/customers/b-1/activities?order=created_at');
    assert.deepEqual(
      activity.body.data.map((a: Json) => a.type),
      ['customer.created', 'customer.updated'],
    );
  });

  test('customer metadata in bulk merges into each customer; an unknown source_id is created', async () => {
    const sdk = t.sdk();
    await sdk.customers.create({ source_id: 'mm-1', metadata: { keep: 'yes', level: 1 } });
    const started: Json = await sdk.customers.updateMetadataInBulk({ source_ids: ['mm-1', 'mm-2'], metadata: { level: 5, campaign: 'spring' } } as never);
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.type, 'CUSTOMERS.METADATA_UPDATE');
    assert.equal(done.result.done_count, 2);
    assert.equal(done.result.failed_count, 0);
    assert.equal(done.result.operation_status, 'SUCCESS');
    assert.deepEqual(((await sdk.customers.get('mm-1')) as Json).metadata, { keep: 'yes', level: 5, campaign: 'spring' });
    assert.deepEqual(((await sdk.customers.get('mm-2')) as Json).metadata, { level: 5, campaign: 'spring' });

    const bad: Json = await sdk.customers.updateMetadataInBulk({ source_ids: ['mm-1'], metadata: { level: 'x' } } as never);
    await runJobs();
    const refused = await action(bad.async_action_id);
    assert.equal(refused.result.failed_count, 1);
    assert.equal(refused.result.errors[0].source_id, 'mm-1');
    assert.equal(((await sdk.customers.get('mm-1')) as Json).metadata.level, 5, 'the failed item changed nothing');
  });

  test('products in bulk and product metadata in bulk', async () => {
    const sdk = t.sdk();
    await sdk.products.create({ source_id: 'pb-1', name: 'Shoe', price: 1000, metadata: { color: 'red' } });
    const bulk: Json = await sdk.products.bulkUpdate([
      { source_id: 'pb-1', price: 1200 },
      { source_id: 'pb-2', name: 'Sock', price: 300 },
    ] as never);
    await runJobs();
    const bulkDone = await action(bulk.async_action_id);
    assert.equal(bulkDone.type, 'PRODUCTS.BULK_UPDATE');
    assert.deepEqual([bulkDone.result.done_count, bulkDone.result.failed_count, bulkDone.result.operation_status], [2, 0, 'SUCCESS']);
    const shoe: Json = await sdk.products.get('pb-1');
    assert.deepEqual([shoe.name, shoe.price, shoe.metadata], ['Shoe', 1200, { color: 'red' }]);
    const sock: Json = await sdk.products.get('pb-2');
    assert.deepEqual([sock.name, sock.price], ['Sock', 300]);

    const meta: Json = await sdk.products.bulkUpdateMetadata({ source_ids: ['pb-1', 'pb-3'], metadata: { season: 'summer' } } as never);
    await runJobs();
    const metaDone = await action(meta.async_action_id);
    assert.equal(metaDone.type, 'PRODUCTS.METADATA_UPDATE');
    assert.equal(metaDone.result.done_count, 2);
    assert.deepEqual(((await sdk.products.get('pb-1')) as Json).metadata, { color: 'red', season: 'summer' });
    assert.deepEqual(((await sdk.products.get('pb-3')) as Json).metadata, { season: 'summer' });
  });

  test('bad requests are precise 400s and enqueue nothing', async () => {
    const before = (await t.request('GET', '/v1/async-actions?limit=100')).body.async_actions.length;
    const cases: Array<[string, unknown, string]> = [
      ['/v1/customers/bulk/async', [{ name: 'no id' }], "Property [0] should have required property 'source_id'"],
      ['/v1/customers/bulk/async', { source_id: 'x' }, 'Payload should be array'],
      ['/v1/products/bulk/async', [{ source_id: 'p', price: -1 }], 'Property [0].price must be >= 0'],
      ['/v1/customers/metadata/async', { source_ids: 'a' }, 'Property .source_ids should be array'],
      ['/v1/products/metadata/async', { product_ids: [''], metadata: {} }, 'Property .product_ids[0] must NOT have fewer than 1 characters'],
    ];
    for (const [path, json, details] of cases) {
      const res = await t.request('POST', path, { json });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(json)}`);
      assert.equal(res.body.key, 'invalid_payload');
      assert.equal(res.body.details, details);
    }
    assert.equal((await t.request('GET', '/v1/async-actions?limit=100')).body.async_actions.length, before);
  });

  // The vendor's schemas require no member of these bodies (issue 19): nothing named updates nothing.
  test('empty updates are accepted and finish at once with nothing done', async () => {
    const cases: Array<[string, unknown]> = [
      ['/v1/customers/bulk/async', []],
      ['/v1/products/bulk/async', []],
      ['/v1/vouchers/bulk/async', []],
      ['/v1/customers/metadata/async', {}],
      ['/v1/products/metadata/async', { metadata: { a: 1 } }],
      ['/v1/vouchers/metadata/async', { codes: [] }],
    ];
    for (const [path, json] of cases) {
      const res = await t.request('POST', path, { json });
      assert.equal(res.status, 202, `${path} ${JSON.stringify(json)}: ${res.text}`);
      await runJobs();
      const done = await action(res.body.async_action_id);
      assert.equal(done.status, 'DONE', path);
      assert.equal(done.result.done_count, 0, path);
      assert.equal(done.result.failed_count, 0, path);
    }
  });

  test('product metadata by product id, as the newer client sends it: merged into existing products, an unknown id reported', async () => {
    const sdk = t.sdk();
    const product: Json = await sdk.products.create({ source_id: 'pid-1', name: 'By id', metadata: { keep: 1 } });
    const res = await t.request('POST', '/v1/products/metadata/async', { json: { product_ids: [product.id, 'prod_unknown'], metadata: { color: 'red' } } });
    assert.equal(res.status, 202, res.text);
    await runJobs();
    const done = await action(res.body.async_action_id);
    assert.equal(done.result.done_count, 1);
    assert.equal(done.result.failed_count, 1);
    assert.equal(done.result.errors[0].id, 'prod_unknown');
    assert.equal(done.result.errors[0].key, 'not_found');
    assert.deepEqual(((await sdk.products.get(product.id)) as Json).metadata, { keep: 1, color: 'red' });
    const rows = await t.deps.db.selectFrom('products').select('id').execute();
    assert.ok(!rows.some((r) => r.id === 'prod_unknown'), 'an id never creates a product');
  });

  test('a job resumed after a crash continues with the next item and applies none twice', async () => {
    const sdk = t.sdk();
    const started: Json = await sdk.customers.updateInBulk([
      { source_id: 'r-1', name: 'first' },
      { source_id: 'r-2', name: 'second' },
    ] as never);
    // What an earlier attempt committed before it died: the first item and the progress that says so.
    await sdk.customers.create({ source_id: 'r-1', name: 'first' });
    await inTransaction(t.deps, (tx) =>
      recordJobProgress(tx, started.async_action_id, { done_count: 1, failed_count: 0, errors: [], next_index: 1 }, 50, t.clock.now().toISOString()),
    );
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.result.done_count, 2);
    const activity = await t.request('GET', '/v1/customers/r-1/activities');
    assert.deepEqual(
      activity.body.data.map((a: Json) => a.type),
      ['customer.created'],
      'the first item was not applied again',
    );
    assert.equal(((await sdk.customers.get('r-2')) as Json).name, 'second');
  });

  test('bulk endpoints count against the bulk rate limit, not the normal one', async () => {
    const limited = await t.request('PUT', `/management/v1/projects/${t.projectId}`, {
      headers: t.managementHeaders(),
      json: { limits: { bulk_api_calls: [{ value: 1, duration: 'PT1H' }] } },
    });
    assert.equal(limited.status, 200, limited.text);
    const first = await t.request('POST', '/v1/products/metadata/async', { json: { source_ids: ['rl-1'], metadata: { a: 1 } } });
    assert.equal(first.status, 202);
    assert.equal(first.headers.get('x-rate-limit-limit'), '1');
    const second = await t.request('POST', '/v1/customers/metadata/async', { json: { source_ids: ['rl-1'], metadata: { a: 1 } } });
    assert.equal(second.status, 429);
    assert.equal(second.headers.get('x-rate-limit-type'), 'bulk_api_calls');
    const normal = await t.request('GET', '/v1/customers/b-1');
    assert.equal(normal.status, 200, 'other calls are not limited by the bulk limit');
    await t.request('PUT', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders(), json: { limits: null } });
  });
});
