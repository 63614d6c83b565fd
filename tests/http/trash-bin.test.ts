import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// The bin (platform reference 4.4, DECISIONS 9): listing with filters and keyset paging, and permanent
// deletion of entries. The SDK has no bin calls, so these go over plain HTTP.

interface Entry {
  id: string;
  created_at: string;
  deleted_by_user_id: string | null;
  resource_id: string;
  resource_type: string;
  resource_name: string | null;
  resource_parent_id: string | null;
  object: string;
}

describe('trash bin', () => {
  let t: TestApp;
  // Binned in setup: SKU s2 of p1 alone, then p1 (with s1), p2, p3 (no name), and SKU s3 of the live p4.
  const ids = { p1: '', p2: '', p3: '', p4: '', s1: '', s2: '', s3: '' };

  before(async () => {
    t = await startTestApp();
    const sdk = t.sdk();
    const p1 = await sdk.products.create({ source_id: 'p1', name: 'Alpha Shoe' });
    const p2 = await sdk.products.create({ source_id: 'p2', name: 'Beta Hat' });
    const p3 = await t.request('POST', '/v1/products', { json: { source_id: 'p3' } });
    const p4 = await sdk.products.create({ source_id: 'p4', name: 'Gamma' });
    const s1 = await sdk.products.createSku(p1.id, { sku: 'Red', source_id: 's1' });
    const s2 = await sdk.products.createSku(p1.id, { sku: 'Blue', source_id: 's2' });
    const s3 = await sdk.products.createSku(p4.id, { sku: 'Green', source_id: 's3' });
    Object.assign(ids, { p1: p1.id, p2: p2.id, p3: p3.body.id, p4: p4.id, s1: s1.id, s2: s2.id, s3: s3.id });
    await sdk.products.deleteSku(p1.id, s2.id);
    await sdk.products.delete(p1.id);
    await sdk.products.delete(p2.id);
    await sdk.products.delete(p3.body.id as string);
    await sdk.products.deleteSku(p4.id, s3.id);
  });
  after(async () => t.close());

  async function list(query: string, keys?: KeyPairOut): Promise<{ status: number; body: { data: Entry[]; total: number; has_more: boolean; more_starting_after?: string; key?: string; details?: string } }> {
    return t.request('GET', `/v1/trash-bin${query === '' ? '' : `?${query}`}`, { headers: t.serverHeaders(keys) });
  }

  async function resources(query: string): Promise<string[]> {
    const res = await list(query);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data.map((e) => e.resource_id).sort();
  }

  const sorted = (...values: string[]) => [...values].sort();

  test('binned products and SKUs are listed as entries with every field', async () => {
    const res = await list('limit=100');
    assert.equal(res.status, 200);
    assert.equal((res.body as unknown as { object: string }).object, 'list');
    assert.equal((res.body as unknown as { data_ref: string }).data_ref, 'data');
    assert.equal(res.body.total, 5);
    assert.equal(res.body.has_more, false);
    assert.equal(res.body.more_starting_after, undefined);
    const byResource = new Map(res.body.data.map((e) => [e.resource_id, e]));
    assert.deepEqual([...byResource.keys()].sort(), sorted(ids.p1, ids.p2, ids.p3, ids.s2, ids.s3), 'a product’s own SKUs go inside its entry');
    const p1 = byResource.get(ids.p1);
    assert.ok(p1);
    assert.deepEqual(Object.keys(p1).sort(), [
      'created_at',
      'deleted_by_user_id',
      'id',
      'object',
      'resource_id',
      'resource_name',
      'resource_parent_id',
      'resource_type',
    ]);
    assert.match(p1.id, /^tbe_/);
    assert.deepEqual(
      { type: p1.resource_type, object: p1.object, name: p1.resource_name, parent: p1.resource_parent_id, user: p1.deleted_by_user_id },
      { type: 'product', object: 'product', name: 'Alpha Shoe', parent: null, user: null },
    );
    const s3 = byResource.get(ids.s3);
    assert.deepEqual(
      { type: s3?.resource_type, object: s3?.object, name: s3?.resource_name, parent: s3?.resource_parent_id },
      { type: 'sku', object: 'sku', name: 'Green', parent: ids.p4 },
    );
    assert.equal(byResource.get(ids.p3)?.resource_name, null);
  });

  test('pages by entry id with has_more and more_starting_after, in both orders', async () => {
    const all = (await list('limit=100')).body.data.map((e) => e.id);
    assert.deepEqual(all, [...all].sort(), 'default order is by id');
    const first = await list('limit=2');
    assert.deepEqual(first.body.data.map((e) => e.id), all.slice(0, 2));
    assert.equal(first.body.total, 2, 'total counts this page');
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.more_starting_after, all[1]);
    const second = await list(`limit=2&starting_after_id=${first.body.more_starting_after}`);
    assert.deepEqual(second.body.data.map((e) => e.id), all.slice(2, 4));
    const last = await list(`limit=2&starting_after_id=${second.body.more_starting_after}`);
    assert.deepEqual(last.body.data.map((e) => e.id), all.slice(4));
    assert.equal(last.body.has_more, false);

    const desc = await list('limit=100&order=-id');
    assert.deepEqual(desc.body.data.map((e) => e.id), [...all].reverse());
    const descPage = await list(`limit=2&order=-id&starting_after_id=${all[3]}`);
    assert.deepEqual(descPage.body.data.map((e) => e.id), [all[2], all[1]]);
  });

  test('resource_type conditions', async () => {
    assert.deepEqual(await resources('filters[resource_type][conditions][$in][0]=product'), sorted(ids.p1, ids.p2, ids.p3));
    assert.deepEqual(await resources('filters[resource_type][conditions][$is]=sku'), sorted(ids.s2, ids.s3));
    assert.deepEqual(await resources('filters[resource_type][conditions][$not_in][0]=product&filters[resource_type][conditions][$not_in][1]=campaign'), sorted(ids.s2, ids.s3));
    assert.deepEqual(await resources('filters[resource_type][conditions][$is_not]=sku'), sorted(ids.p1, ids.p2, ids.p3));
    assert.deepEqual(await resources('filters[resource_type][conditions][$starts_with]=pro'), sorted(ids.p1, ids.p2, ids.p3));
    assert.deepEqual(await resources('filters[resource_type][conditions][$ends_with]=ku'), sorted(ids.s2, ids.s3));
    assert.deepEqual(await resources('filters[resource_type][conditions][$has_value]=true'), sorted(ids.p1, ids.p2, ids.p3, ids.s2, ids.s3));
    assert.deepEqual(await resources('filters[resource_type][conditions][$is_unknown]=true'), []);
    assert.deepEqual(await resources('filters[resource_type][conditions][$in][0]=voucher'), []);
  });

  test('resource_name conditions are exact and case-sensitive', async () => {
    assert.deepEqual(await resources('filters[resource_name][conditions][$starts_with]=Al'), [ids.p1]);
    assert.deepEqual(await resources('filters[resource_name][conditions][$starts_with]=al'), []);
    assert.deepEqual(await resources('filters[resource_name][conditions][$starts_with]=Alpha Shoe and more'), []);
    assert.deepEqual(await resources('filters[resource_name][conditions][$ends_with]=Hat'), [ids.p2]);
    assert.deepEqual(await resources('filters[resource_name][conditions][$ends_with]=a Beta Hat'), []);
    assert.deepEqual(await resources('filters[resource_name][conditions][$contains]=et'), [ids.p2]);
    assert.deepEqual(await resources('filters[resource_name][conditions][$contains]=%'), [], 'no wildcard meaning');
    assert.deepEqual(await resources('filters[resource_name][conditions][$not_contain]=a'), sorted(ids.p3, ids.s2, ids.s3));
    assert.deepEqual(await resources('filters[resource_name][conditions][$is]=Blue'), [ids.s2]);
    assert.deepEqual(await resources('filters[resource_name][conditions][$is_not]=Blue'), sorted(ids.p1, ids.p2, ids.p3, ids.s3));
    assert.deepEqual(await resources('filters[resource_name][conditions][$in][0]=Red&filters[resource_name][conditions][$in][1]=Blue'), [ids.s2]);
    assert.deepEqual(await resources('filters[resource_name][conditions][$not_in][0]=Blue&filters[resource_name][conditions][$not_in][1]=Green'), sorted(ids.p1, ids.p2, ids.p3));
    assert.deepEqual(await resources('filters[resource_name][conditions][$is_unknown]='), [ids.p3]);
    assert.deepEqual(await resources('filters[resource_name][conditions][$has_value]='), sorted(ids.p1, ids.p2, ids.s2, ids.s3));
  });

  test('id and resource_id conditions, and the junction', async () => {
    assert.deepEqual(await resources(`filters[resource_id][conditions][$in][0]=${ids.p1}&filters[resource_id][conditions][$in][1]=${ids.s3}`), sorted(ids.p1, ids.s3));
    assert.deepEqual(await resources(`filters[resource_id][conditions][$in]=${ids.p2}`), [ids.p2], 'a single value counts as a list');
    assert.deepEqual(await resources('filters[resource_id][conditions][$starts_with]=sku_'), sorted(ids.s2, ids.s3));
    const entry = (await list(`filters[resource_id][conditions][$is]=${ids.p2}`)).body.data[0];
    assert.ok(entry);
    assert.deepEqual(await resources(`filters[id][conditions][$is]=${entry.id}`), [ids.p2]);
    assert.deepEqual(await resources(`filters[id][conditions][$contains]=${entry.id.slice(-8)}`), [ids.p2]);

    const both = 'filters[resource_type][conditions][$is]=product&filters[resource_name][conditions][$starts_with]=B';
    assert.deepEqual(await resources(both), [ids.p2], 'conditions combine with and by default');
    assert.deepEqual(await resources(`filters[junction]=and&${both}`), [ids.p2]);
    assert.deepEqual(
      await resources('filters[junction]=or&filters[resource_type][conditions][$is]=sku&filters[resource_name][conditions][$is]=Beta Hat'),
      sorted(ids.s2, ids.s3, ids.p2),
    );
  });

  test('unknown filter fields, operators and values are 400 invalid_query_params', async () => {
    const bad = [
      'filters[resource_parent_id][conditions][$is]=x',
      'filters[resource_name][conditions][$like]=x',
      'filters[resource_type][conditions][$contains]=prod',
      'filters[resource_type][conditions][$in][0]=order',
      'filters[resource_type][conditions][$is]=customer',
      'filters[junction]=xor',
      'filters[resource_name][where]=x',
      'filters=abc',
      'order=created_at',
      'limit=0',
      'limit=101',
    ];
    for (const query of bad) {
      const res = await list(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.key, 'invalid_query_params', query);
      assert.ok(res.body.details, query);
    }
    const unknownTopLevel = await list('something_else=1');
    assert.equal(unknownTopLevel.status, 200, 'unknown top-level query keys are ignored');
  });

  test("another project's keys see an empty bin and cannot delete this project's entries", async () => {
    const project = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const keys = project.body.server_side_key as KeyPairOut;
    const theirs = await list('limit=100', keys);
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.body.data, []);
    const entry = (await list(`filters[resource_id][conditions][$is]=${ids.p2}`)).body.data[0];
    assert.ok(entry);
    const res = await t.request('DELETE', `/v1/trash-bin/${entry.id}`, { headers: t.serverHeaders(keys) });
    assert.equal(res.status, 404);
    assert.equal((await list(`filters[id][conditions][$is]=${entry.id}`)).body.data.length, 1);
  });

  test('deleting a product entry removes the product and all its SKUs for good', async () => {
    const entry = (await list(`filters[resource_id][conditions][$is]=${ids.p1}`)).body.data[0];
    assert.ok(entry);
    const res = await t.request('DELETE', `/v1/trash-bin/${entry.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');

    const products = await t.db.db.selectFrom('products').select('id').where('id', '=', ids.p1).execute();
    assert.deepEqual(products, []);
    const skus = await t.db.db.selectFrom('skus').select('id').where('id', 'in', [ids.s1, ids.s2]).execute();
    assert.deepEqual(skus, []);
    // The separately binned SKU's entry went with its product.
    assert.deepEqual(await resources('limit=100'), sorted(ids.p2, ids.p3, ids.s3));
    const events = await t.db.db.selectFrom('events').select(['type', 'data']).where('entity_id', '=', ids.p1).orderBy('seq').execute();
    assert.deepEqual(events.map((e) => e.type), ['product.created', 'product.deleted', 'product.deleted']);
    assert.equal(JSON.parse(events[2]?.data ?? '{}').permanent, true);

    const again = await t.request('DELETE', `/v1/trash-bin/${entry.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.key, 'not_found');
    assert.equal(again.body.resource_id, entry.id);
    assert.equal(again.body.details, `Cannot find bin_entry with id ${entry.id}`);
  });

  test('deleting a SKU entry removes only that SKU for good', async () => {
    const entry = (await list(`filters[resource_id][conditions][$is]=${ids.s3}`)).body.data[0];
    assert.ok(entry);
    assert.equal((await t.request('DELETE', `/v1/trash-bin/${entry.id}`)).status, 204);
    assert.deepEqual(await t.db.db.selectFrom('skus').select('id').where('id', '=', ids.s3).execute(), []);
    const parent = await t.sdk().products.get(ids.p4);
    assert.equal(parent.id, ids.p4, 'the parent product stays');
    assert.deepEqual(await resources('limit=100'), sorted(ids.p2, ids.p3));
  });

  test('an unknown entry is 404', async () => {
    const res = await t.request('DELETE', '/v1/trash-bin/tbe_unknown');
    assert.equal(res.status, 404);
    assert.equal(res.body.key, 'not_found');
    assert.equal(res.body.message, 'Resource not found');
  });
});
