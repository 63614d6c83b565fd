import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createWorker } from '../../src/jobs/registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { customerRow as sharedCustomerRow } from '../helpers/rows.ts';

// Bulk jobs work in slices (src/services/bulk/bulk.ts, src/lib/slices.ts): each slice commits a few items
// with the job's progress, then the job gives the event loop back. On SQLite every database call is
// synchronous, so a job that never gave it back held every request until it ended. The event an item
// writes records what changed, not a copy of the object.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const CUSTOMERS = 1200;
const sourceIdOf = (i: number) => `slice-${i}`;
const nextPass = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('bulk jobs in slices', () => {
  let t: TestApp;
  const sourceIds = Array.from({ length: CUSTOMERS }, (_, i) => sourceIdOf(i));

  const customerRow = (id: string, sourceId: string, metadata: Record<string, unknown>) =>
    sharedCustomerRow(t.projectId, id, sourceId, { metadata, createdAt: '2026-03-01T00:00:00.000Z' });

  before(async () => {
    t = await startTestApp();
    // Written straight into the table: creating thousands through the API would make the file slow.
    const rows = sourceIds.map((sourceId, i) => customerRow(`cust_slice_${String(i).padStart(5, '0')}`, sourceId, { level: 1 }));
    for (let i = 0; i < rows.length; i += 500) await t.db.db.insertInto('customers').values(rows.slice(i, i + 500)).execute();
  });
  after(async () => t.close());

  async function job(id: string): Promise<{ status: string; request_id: string; result: Json }> {
    const row = await t.db.db.selectFrom('jobs').select(['status', 'request_id', 'result']).where('id', '=', id).executeTakeFirstOrThrow();
    return { status: row.status, request_id: row.request_id ?? '', result: row.result === null ? null : JSON.parse(row.result) };
  }

  async function enqueueMetadata(metadata: Record<string, unknown>, ids: string[] = sourceIds): Promise<string> {
    const res = await t.request('POST', '/v1/customers/metadata/async', { json: { source_ids: ids, metadata } });
    assert.equal(res.status, 202, res.text);
    return res.body.async_action_id as string;
  }

  async function updatedEventsOf(requestId: string): Promise<Array<{ customer_id: string | null; data: string }>> {
    return t.db.db
      .selectFrom('events')
      .select(['customer_id', 'data'])
      .where('project_id', '=', t.projectId)
      .where('type', '=', 'customer.updated')
      .where('group_id', '=', requestId)
      .execute();
  }

  test('an HTTP request sent after a large job started is answered before the job ends', async () => {
    const id = await enqueueMetadata({ wave: 'first' });
    let finished = false;
    const running = t.worker.runOnce().then((ran) => {
      finished = true;
      return ran;
    });
    // On SQLite the old loop never gave the event loop back: both answers came after the last item.
    const [api, health] = await Promise.all([
      t.request('GET', `/v1/customers/${sourceIdOf(0)}`).then((res) => ({ status: res.status, duringJob: !finished })),
      fetch(`${t.url}/health`).then((res) => ({ status: res.status, duringJob: !finished })),
    ]);
    assert.equal(api.status, 200);
    assert.equal(health.status, 200);
    assert.equal(await running, true);
    assert.ok(api.duringJob, 'the API request waited for the whole job');
    assert.ok(health.duringJob, 'the health probe waited for the whole job');
    const done = await job(id);
    assert.equal(done.status, 'DONE');
    assert.deepEqual([done.result.done_count, done.result.failed_count], [CUSTOMERS, 0]);
  });

  test('a worker whose claim ran out stops at its next slice; the one that took the job over applies each item exactly once', async () => {
    // One customer breaks the project's metadata schema: its item fails alone, inside a slice of others.
    const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/metadata-schemas`, {
      headers: t.managementHeaders(),
      json: { related_object: 'customer', properties: { level: { type: 'number' } } },
    });
    assert.equal(schema.status, 200, schema.text);
    await t.db.db.updateTable('customers').set({ metadata: JSON.stringify({ level: 'high' }) }).where('source_id', '=', sourceIdOf(600)).execute();

    const id = await enqueueMetadata({ wave: 'second' });
    let finished = false;
    const first = t.worker.runOnce().then(() => {
      finished = true;
    });
    // Wait between slices until the first worker has committed part of the job.
    let doneAtTakeover = 0;
    while (!finished && doneAtTakeover < 300) {
      await nextPass();
      doneAtTakeover = (await job(id)).result?.done_count ?? 0;
    }
    assert.equal(finished, false, 'the job ran to its end without a pause between slices');
    // Its claim runs out (say it stalled) and another worker's claim expires too, so a third takes over.
    await t.db.db.updateTable('jobs').set({ locked_by: 'w-stalled', locked_until: '2000-01-01T00:00:00.000Z' }).where('id', '=', id).execute();
    const second = createWorker(t.deps, t.app.log);
    assert.equal(await second.runOnce(), true);
    await first;

    const done = await job(id);
    assert.equal(done.status, 'DONE');
    assert.ok(doneAtTakeover < CUSTOMERS, `the takeover came after the last item (${doneAtTakeover})`);
    assert.deepEqual([done.result.done_count, done.result.failed_count], [CUSTOMERS - 1, 1]);
    assert.equal(done.result.errors[0].source_id, sourceIdOf(600));
    const events = await updatedEventsOf(done.request_id);
    assert.equal(events.length, CUSTOMERS - 1, 'one customer.updated per applied item, none twice');
    const updated = new Set(events.map((e) => e.customer_id));
    assert.equal(updated.size, CUSTOMERS - 1);
    const failed = await t.db.db.selectFrom('customers').select(['id', 'metadata']).where('source_id', '=', sourceIdOf(600)).executeTakeFirstOrThrow();
    assert.ok(!updated.has(failed.id), 'the failed item wrote nothing');
    assert.deepEqual(JSON.parse(failed.metadata), { level: 'high' });
    const merged = await t.db.db.selectFrom('customers').select('metadata').where('source_id', '=', sourceIdOf(CUSTOMERS - 1)).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(merged.metadata), { level: 1, wave: 'second' });
    await t.db.db.updateTable('customers').set({ metadata: JSON.stringify({ level: 1 }) }).where('source_id', '=', sourceIdOf(600)).execute();
  });

  test('a bulk update records what changed, not a copy of the customer; activities still carry the customer', async () => {
    const large = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`note_${i}`, 'x'.repeat(1000)]));
    await t.db.db.insertInto('customers').values(customerRow('cust_slice_large', 'slice-large', large)).execute();
    const customerBytes = JSON.stringify(large).length;
    assert.ok(customerBytes > 100_000);

    const id = await enqueueMetadata({ flag: true }, ['slice-large']);
    assert.equal(await t.worker.runOnce(), true);
    const [event] = await updatedEventsOf((await job(id)).request_id);
    assert.ok(event, 'the job recorded customer.updated');
    assert.ok(event.data.length < 1_000, `the event holds ${event.data.length} bytes`);
    assert.deepEqual(JSON.parse(event.data), { customer_id: 'cust_slice_large', changes: { metadata: { flag: true } }, metadata_merged: true });

    // The activity carries the customer (the vendor's `customer` member), as it is now.
    const customer = await t.request('GET', '/v1/customers/slice-large');
    assert.equal(customer.body.metadata.flag, true);
    // Less its cockpit links: an activity never carries them (src/services/cockpit/links.ts).
    delete customer.body.assets;
    const listed = await t.request('GET', '/v1/customers/slice-large/activities');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((a: Json) => a.type), ['customer.updated']);
    assert.deepEqual(listed.body.data[0].data.data, { customer: customer.body });
    const current = await t.request('GET', '/v1/customers/slice-large/activity?type=customer.updated');
    assert.deepEqual(current.body.data[0].data.data, { customer: customer.body });

    // An event written before the change holds a copy of the customer and is shown as stored.
    const old = { ...customer.body, name: 'Name back then' };
    await t.db.db
      .insertInto('events')
      .values({
        id: 'evcus_old_copy',
        project_id: t.projectId,
        type: 'customer.updated',
        activity_type: 'customer.updated',
        activity_category: 'ACTION',
        customer_id: 'cust_slice_large',
        campaign_id: null,
        campaign_type: null,
        campaign_name: null,
        voucher_code: null,
        category_name: null,
        product_ids: null,
        entity_id: 'cust_slice_large',
        data: JSON.stringify({ customer: old }),
        source: JSON.stringify({ channel: 'API' }),
        group_id: 'v-old',
        created_at: '2026-03-01T12:00:00.000Z',
      })
      .execute();
    const both = await t.request('GET', '/v1/customers/slice-large/activities?order=created_at');
    assert.deepEqual(
      both.body.data.map((a: Json) => [a.id, a.data.data.customer.name]),
      [
        ['evcus_old_copy', 'Name back then'],
        [listed.body.data[0].id, null],
      ],
    );

    // A single update records only what it sent, too.
    const renamed = await t.request('PUT', '/v1/customers/slice-large', { json: { name: 'Renamed' } });
    assert.equal(renamed.status, 200);
    const [single] = await updatedEventsOf(renamed.headers.get('x-request-id') ?? '');
    assert.deepEqual(JSON.parse(single?.data ?? '{}'), { customer_id: 'cust_slice_large', changes: { name: 'Renamed' } });
  });

  test('a bulk product update records what changed, not a copy of the product', async () => {
    const large = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`spec_${i}`, 'y'.repeat(1000)]));
    const created = await t.request('POST', '/v1/products', { json: { source_id: 'slice-product', name: 'Big', metadata: large } });
    assert.equal(created.status, 200, created.text);
    const res = await t.request('POST', '/v1/products/metadata/async', { json: { source_ids: ['slice-product'], metadata: { on_sale: true } } });
    assert.equal(res.status, 202);
    assert.equal(await t.worker.runOnce(), true);
    const events = await t.db.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('project_id', '=', t.projectId)
      .where('entity_id', '=', created.body.id)
      .orderBy('seq')
      .execute();
    assert.deepEqual(events.map((e) => e.type), ['product.created', 'product.updated']);
    const updated = events[1]?.data ?? '';
    assert.ok(updated.length < 1_000, `the event holds ${updated.length} bytes`);
    assert.deepEqual(JSON.parse(updated), { product_id: created.body.id, changes: { metadata: { on_sale: true } }, metadata_merged: true });
    const product = await t.request('GET', '/v1/products/slice-product');
    assert.deepEqual(product.body.metadata, { ...large, on_sale: true });
  });
});
