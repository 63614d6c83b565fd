import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Products and SKUs (platform reference 4.1–4.4, seed 4.10 and part 7, DECISIONS 9).

const PRODUCT_KEYS = ['attributes', 'created_at', 'id', 'image_url', 'metadata', 'name', 'object', 'price', 'source_id', 'updated_at'];
const SKU_KEYS = [
  'attributes',
  'created_at',
  'currency',
  'id',
  'image_url',
  'metadata',
  'object',
  'price',
  'product_id',
  'sku',
  'source_id',
  'updated_at',
];

/** The error object the SDK throws for a non-2xx answer (fields copied from the body). */
async function rejection(call: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await call;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  return assert.fail('expected the call to fail');
}

describe('products and SKUs', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function eventsOf(entityId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const rows = await t.db.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('project_id', '=', t.projectId)
      .where('entity_id', '=', entityId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) as Record<string, unknown> }));
  }

  async function liveProductCount(keys?: KeyPairOut): Promise<number> {
    const list = await t.request('GET', '/v1/products?limit=1', { headers: t.serverHeaders(keys) });
    assert.equal(list.status, 200);
    return list.body.total as number;
  }

  test('create answers the full product object and records product.created', async () => {
    const created = await t.sdk().products.create({
      source_id: 'shoe-1',
      name: 'Shoe',
      price: 2000,
      attributes: ['color', 'size'],
      metadata: { brand: 'x' },
      image_url: 'https://img.example.com/shoe.png',
    });
    assert.deepEqual(Object.keys(created).sort(), PRODUCT_KEYS);
    assert.match(created.id, /^prod_[0-9a-z]+$/);
    assert.equal(created.object, 'product');
    assert.equal(created.source_id, 'shoe-1');
    assert.equal(created.name, 'Shoe');
    assert.equal(created.price, 2000);
    assert.deepEqual(created.attributes, ['color', 'size']);
    assert.deepEqual(created.metadata, { brand: 'x' });
    assert.equal(created.image_url, 'https://img.example.com/shoe.png');
    assert.equal(new Date(created.created_at).toISOString(), created.created_at);
    assert.equal((created as { updated_at?: unknown }).updated_at, null);

    const events = await eventsOf(created.id);
    assert.deepEqual(events.map((e) => e.type), ['product.created']);
    assert.deepEqual(events[0]?.data.product, created);
  });

  test('a product without optional members has nulls and empty collections', async () => {
    const res = await t.request('POST', '/v1/products', { json: {} });
    assert.equal(res.status, 200);
    assert.deepEqual(
      { source_id: res.body.source_id, name: res.body.name, price: res.body.price, attributes: res.body.attributes, metadata: res.body.metadata, image_url: res.body.image_url },
      { source_id: null, name: null, price: null, attributes: [], metadata: {}, image_url: null },
    );
  });

  test('POST with an existing source_id updates that product (upsert), keeping members not sent', async () => {
    const first = await t.sdk().products.create({ source_id: 'upsert-1', name: 'Original', price: 100, metadata: { a: 1 } });
    const count = await liveProductCount();
    const second = await t.sdk().products.create({ source_id: 'upsert-1', price: 150 });
    assert.equal(second.id, first.id);
    assert.equal(second.price, 150);
    assert.equal(second.name, 'Original');
    assert.deepEqual(second.metadata, { a: 1 });
    assert.ok((second as { updated_at?: string }).updated_at);
    assert.equal(await liveProductCount(), count, 'no second product');
    assert.deepEqual((await eventsOf(first.id)).map((e) => e.type), ['product.created', 'product.updated']);
  });

  test('POST with an existing id updates that product; an unknown id is 404', async () => {
    const first = await t.sdk().products.create({ name: 'By id', price: 1 });
    const res = await t.request('POST', '/v1/products', { json: { id: first.id, name: 'Renamed', source_id: 'by-id-now' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, first.id);
    assert.equal(res.body.name, 'Renamed');
    assert.equal(res.body.source_id, 'by-id-now');
    assert.equal(res.body.price, 1);

    const unknown = await t.request('POST', '/v1/products', { json: { id: 'prod_doesnotexist', name: 'x' } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.key, 'not_found');
    assert.equal(unknown.body.resource_type, 'product');
    assert.equal(unknown.body.resource_id, 'prod_doesnotexist');
  });

  test('renaming a product to a source_id another product holds is 409 and changes nothing', async () => {
    await t.sdk().products.create({ source_id: 'taken-1', name: 'Holder' });
    const other = await t.sdk().products.create({ source_id: 'free-1', name: 'Other' });
    const res = await t.request('POST', '/v1/products', { json: { id: other.id, source_id: 'taken-1', name: 'Changed' } });
    assert.equal(res.status, 409);
    assert.equal(res.body.key, 'duplicate_found');
    assert.equal(res.body.resource_type, 'product');
    const after = await t.sdk().products.get(other.id);
    assert.equal(after.source_id, 'free-1');
    assert.equal(after.name, 'Other');
  });

  test('concurrent creates with one source_id end as one product, never two', async () => {
    const calls = Array.from({ length: 8 }, (_, i) => t.request('POST', '/v1/products', { json: { source_id: 'race-1', price: i } }));
    const answers = await Promise.all(calls);
    for (const a of answers) assert.equal(a.status, 200, a.text);
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
    const rows = await t.db.db
      .selectFrom('products')
      .select('id')
      .where('project_id', '=', t.projectId)
      .where('source_id', '=', 'race-1')
      .execute();
    assert.equal(rows.length, 1);
  });

  test('get by id or by source_id answers the product with its SKU list', async () => {
    const created = await t.sdk().products.create({ source_id: 'get-1', name: 'Gettable', attributes: ['color'] });
    const sku = await t.sdk().products.createSku(created.id, { sku: 'Red', source_id: 'get-1-red', attributes: { color: 'red' } });
    for (const key of [created.id, 'get-1']) {
      const got = await t.sdk().products.get(key);
      assert.equal(got.id, created.id);
      assert.deepEqual(got.skus, { object: 'list', data_ref: 'data', data: [sku], total: 1 });
    }
  });

  test('unknown product is 404 with the seed part 7 body', async () => {
    const res = await t.request('GET', '/v1/products/prod_missing');
    assert.equal(res.status, 404);
    assert.deepEqual(
      {
        code: res.body.code,
        key: res.body.key,
        message: res.body.message,
        details: res.body.details,
        resource_id: res.body.resource_id,
        resource_type: res.body.resource_type,
      },
      {
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find product with id prod_missing',
        resource_id: 'prod_missing',
        resource_type: 'product',
      },
    );
    assert.match(res.body.request_id, /^v-[0-9a-f]{18}$/);

    const viaSdk = await rejection(t.sdk().products.delete('no-such-source-id'));
    assert.equal(viaSdk.code, 404);
    assert.equal(viaSdk.key, 'not_found');
    assert.equal(viaSdk.details, 'Cannot find product with id no-such-source-id');
    assert.equal(viaSdk.resource_type, 'product');
  });

  test('update changes only the members sent, addressed by source_id as the SDK does', async () => {
    const created = await t.sdk().products.create({ source_id: 'upd-1', name: 'Before', price: 2000, metadata: { k: 'v' }, attributes: ['a'] });
    // The SDK puts the source id in the path and keeps `source_id` in the body.
    const updated = await t.sdk().products.update({ source_id: 'upd-1', price: 2100 });
    assert.equal(updated.id, created.id);
    assert.equal(updated.price, 2100);
    assert.equal(updated.name, 'Before');
    assert.deepEqual(updated.metadata, { k: 'v' });
    assert.deepEqual(updated.attributes, ['a']);
    assert.equal(updated.source_id, 'upd-1');
    const updatedAt = (updated as { updated_at?: string }).updated_at;
    assert.ok(updatedAt && updatedAt > created.created_at);

    const cleared = await t.sdk().products.update({ id: created.id, image_url: 'http://cdn.example.com/a.jpg', metadata: {} } as never);
    assert.equal(cleared.image_url, 'http://cdn.example.com/a.jpg');
    assert.deepEqual(cleared.metadata, {});
    assert.equal(cleared.price, 2100);
    assert.deepEqual((await eventsOf(created.id)).map((e) => e.type), ['product.created', 'product.updated', 'product.updated']);

    const missing = await t.request('PUT', '/v1/products/prod_missing', { json: { name: 'x' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.resource_type, 'product');
  });

  test('bad product input is 400 with details and changes nothing', async () => {
    const existing = await t.sdk().products.create({ source_id: 'bad-1', name: 'Stable', price: 500 });
    const count = await liveProductCount();
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', price: 'ten' }, /\.price should be integer,null/],
      [{ name: 'x', price: 10.5 }, /\.price should be integer,null/],
      [{ name: 'x', price: -1 }, /\.price must be >= 0/],
      [{ name: 'x', attributes: 'color' }, /\.attributes should be array,null/],
      [{ name: 'x', attributes: [1] }, /\.attributes\[0\]/],
      [{ name: 'x', metadata: [1, 2] }, /\.metadata/],
      [{ name: 'x', image_url: 'ftp://files.example.com/a.png' }, /\.image_url/],
      [{ name: 'x', image_url: 'not a url' }, /\.image_url/],
      [{ name: 'x', source_id: '' }, /\.source_id/],
      [{ name: 'x', source_id: 12 }, /\.source_id should be string,null/],
      [[{ name: 'x' }], /Payload should be object/],
    ];
    for (const [json, details] of cases) {
      const res = await t.request('POST', '/v1/products', { json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.key, 'invalid_payload');
      assert.match(res.body.details, details, JSON.stringify(json));
    }
    const malformed = await t.request('POST', '/v1/products', { headers: { ...t.serverHeaders(), 'content-type': 'application/json' }, body: '{"name":' });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.key, 'malformed_json');

    const badUpdate = await t.request('PUT', `/v1/products/${existing.id}`, { json: { name: 'Changed', price: 'x' } });
    assert.equal(badUpdate.status, 400);
    assert.equal(await liveProductCount(), count);
    const after = await t.sdk().products.get(existing.id);
    assert.equal(after.name, 'Stable');
    assert.equal(after.price, 500);
    assert.deepEqual((await eventsOf(existing.id)).map((e) => e.type), ['product.created']);
  });

  test('list pages, orders and filters by creation date', async () => {
    // A day of its own, so products of other tests stay out of the window.
    t.clock.set('2030-05-01T08:00:00.000Z');
    const made = [];
    for (const n of [1, 2, 3, 4, 5]) made.push(await t.sdk().products.create({ source_id: `list-${n}`, name: `List ${n}` }));
    t.clock.set('2031-01-01T00:00:00.000Z');
    const ids = made.map((p) => p.id);
    const window = 'start_date=2030-05-01&end_date=2030-05-01';

    const all = await t.request('GET', `/v1/products?${window}&limit=100`);
    assert.equal(all.status, 200);
    assert.equal(all.body.object, 'list');
    assert.equal(all.body.data_ref, 'products');
    assert.equal(all.body.total, 5);
    assert.deepEqual(all.body.products.map((p: { id: string }) => p.id), ids, 'oldest first by default');
    assert.deepEqual(all.body.products[0].skus, { object: 'list', data_ref: 'data', data: [], total: 0 });

    const page2 = await t.request('GET', `/v1/products?${window}&limit=2&page=2`);
    assert.deepEqual(page2.body.products.map((p: { id: string }) => p.id), ids.slice(2, 4));
    assert.equal(page2.body.total, 5);
    const past = await t.request('GET', `/v1/products?${window}&limit=2&page=4`);
    assert.deepEqual(past.body.products, []);

    const desc = await t.request('GET', `/v1/products?${window}&order=-created_at&limit=100`);
    assert.deepEqual(desc.body.products.map((p: { id: string }) => p.id), [...ids].reverse());

    // updated_at orders by last change; never-updated products count from their creation.
    t.clock.set('2031-01-02T00:00:00.000Z');
    await t.sdk().products.update({ id: ids[1], price: 1 } as never);
    const byChange = await t.request('GET', `/v1/products?${window}&order=-updated_at&limit=100`);
    assert.deepEqual(byChange.body.products.map((p: { id: string }) => p.id), [ids[1], ids[4], ids[3], ids[2], ids[0]]);
    const byChangeAsc = await t.request('GET', `/v1/products?${window}&order=updated_at&limit=100`);
    assert.deepEqual(byChangeAsc.body.products.map((p: { id: string }) => p.id), [ids[0], ids[2], ids[3], ids[4], ids[1]]);

    const narrow = await t.request('GET', `/v1/products?start_date=${made[1]?.created_at}&end_date=${made[3]?.created_at}&limit=100`);
    assert.deepEqual(narrow.body.products.map((p: { id: string }) => p.id), ids.slice(1, 4), 'bounds are inclusive');

    const viaSdk = await t.sdk().products.list({ limit: 2, page: 1 });
    assert.equal(viaSdk.data_ref, 'products');
    assert.equal(viaSdk.products.length, 2);
    const defaults = await t.request('GET', '/v1/products');
    assert.equal(defaults.body.products.length, 10, 'default limit is 10');

    for (const query of ['limit=0', 'limit=101', 'page=0', 'page=101', 'order=name', 'start_date=yesterday', 'limit=abc']) {
      const res = await t.request('GET', `/v1/products?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.key, 'invalid_query_params', query);
    }
  });

  test('name finds products whose name contains the text, whatever the case of A–Z, with % and _ read literally', async () => {
    t.clock.set('2032-02-01T08:00:00.000Z');
    const names = ['Blue Mug', 'blue plate', 'Red mug', '100% Cotton_Tee', 'Nameless'];
    const made = [];
    for (const [i, name] of names.entries()) made.push(await t.sdk().products.create({ source_id: `find-${i}`, ...(name === 'Nameless' ? {} : { name }) }));
    t.clock.set('2032-03-01T00:00:00.000Z');
    const found = async (name: string) => {
      const res = await t.request('GET', `/v1/products?start_date=2032-02-01&end_date=2032-02-01&limit=100&name=${encodeURIComponent(name)}`);
      assert.equal(res.status, 200, res.text);
      const ids = res.body.products.map((p: { id: string }) => p.id);
      assert.equal(res.body.total, ids.length, name);
      return ids;
    };
    const [blueMug, bluePlate, redMug, tee] = made.map((p) => p.id);
    assert.deepEqual(await found('mug'), [blueMug, redMug]);
    assert.deepEqual(await found('BLUE'), [blueMug, bluePlate]);
    assert.deepEqual(await found('0% c'), [tee]);
    assert.deepEqual(await found('e_m'), [], 'an underscore is no wildcard ("Blue Mug" has "e m")');
    assert.deepEqual(await found('n_t'), [tee]);
    assert.deepEqual(await found('%'), [tee], 'a percent sign is no wildcard');
    assert.deepEqual(await found('plate mug'), []);
    for (const query of ['name=', `name=${'x'.repeat(201)}`]) {
      const res = await t.request('GET', `/v1/products?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.key, 'invalid_query_params', query);
    }
  });

  test('SKU create, get by id or source_id, update, list', async () => {
    const product = await t.sdk().products.create({ source_id: 'tee', name: 'Tee', attributes: ['color', 'size'] });
    const red = await t.sdk().products.createSku('tee', {
      sku: 'Red M',
      source_id: 'tee-red-m',
      price: 1300,
      currency: 'USD',
      attributes: { color: 'red', size: 'M' },
      metadata: { imported: true },
      image_url: 'https://img.example.com/red.png',
    });
    assert.deepEqual(Object.keys(red).sort(), SKU_KEYS);
    assert.match(red.id, /^sku_/);
    assert.equal(red.object, 'sku');
    assert.equal((red as { product_id?: string }).product_id, product.id);
    assert.equal(red.sku, 'Red M');
    assert.equal(red.price, 1300);
    assert.equal(red.currency, 'USD');
    assert.deepEqual(red.attributes, { color: 'red', size: 'M' });
    assert.equal(red.updated_at, null);
    assert.deepEqual((await eventsOf(red.id)).map((e) => e.type), ['sku.created']);

    assert.deepEqual(await t.sdk().products.getSku(red.id), red);
    assert.deepEqual(await t.sdk().products.getSku('tee-red-m'), red);

    // Upsert by source_id updates the same SKU.
    const again = await t.sdk().products.createSku(product.id, { sku: 'Red M', source_id: 'tee-red-m', price: 1350 });
    assert.equal(again.id, red.id);
    assert.equal(again.price, 1350);
    assert.equal(again.currency, 'USD');

    const updated = await t.sdk().products.updateSku(product.id, { source_id: 'tee-red-m', price: 1400 } as never);
    assert.equal(updated.id, red.id);
    assert.equal(updated.price, 1400);
    assert.deepEqual(updated.attributes, { color: 'red', size: 'M' });
    assert.ok(updated.updated_at);

    const blue = await t.sdk().products.createSku(product.id, { sku: 'Blue M', attributes: { color: 'blue', size: 'M' } });
    assert.equal(blue.source_id, null);
    const list = await t.sdk().products.listSkus('tee');
    assert.deepEqual(list, { object: 'list', data_ref: 'skus', skus: [updated, blue], total: 2 } as never);
    const paged = await t.request('GET', `/v1/products/${product.id}/skus?limit=1&page=2`);
    assert.deepEqual(paged.body.skus.map((s: { id: string }) => s.id), [blue.id]);
    assert.equal(paged.body.total, 2);

    const got = await t.sdk().products.get(product.id);
    assert.deepEqual(got.skus?.data?.map((s) => s.id), [red.id, blue.id]);
    assert.equal(got.skus?.total, 2);
  });

  test('SKU errors: unknown product or SKU is 404; a source_id held by another product is 409', async () => {
    const a = await t.sdk().products.create({ source_id: 'sku-err-a' });
    const b = await t.sdk().products.create({ source_id: 'sku-err-b' });
    const skuA = await t.sdk().products.createSku(a.id, { sku: 'A1', source_id: 'sku-err-a1' });

    const noProduct = await rejection(t.sdk().products.createSku('prod_missing', { sku: 'x' }));
    assert.equal(noProduct.code, 404);
    assert.equal(noProduct.resource_type, 'product');
    const noSku = await rejection(t.sdk().products.getSku('sku_missing'));
    assert.equal(noSku.code, 404);
    assert.equal(noSku.resource_type, 'sku');
    assert.equal(noSku.details, 'Cannot find sku with id sku_missing');

    // A SKU is addressed through its own product only.
    const wrongParent = await t.request('PUT', `/v1/products/${b.id}/skus/${skuA.id}`, { json: { price: 1 } });
    assert.equal(wrongParent.status, 404);
    assert.equal(wrongParent.body.resource_type, 'sku');
    const wrongParentDelete = await t.request('DELETE', `/v1/products/${b.id}/skus/${skuA.id}`);
    assert.equal(wrongParentDelete.status, 404);

    const taken = await t.request('POST', `/v1/products/${b.id}/skus`, { json: { sku: 'B1', source_id: 'sku-err-a1' } });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.key, 'duplicate_found');
    assert.equal(taken.body.resource_type, 'sku');
    const listB = await t.sdk().products.listSkus(b.id);
    assert.equal(listB.total, 0);

    const badSku = await t.request('POST', `/v1/products/${a.id}/skus`, { json: { sku: 'x', currency: 'dollars' } });
    assert.equal(badSku.status, 400);
    assert.match(badSku.body.details, /\.currency/);
    const badPrice = await t.request('PUT', `/v1/products/${a.id}/skus/${skuA.id}`, { json: { price: 9.99 } });
    assert.equal(badPrice.status, 400);
    assert.equal((await t.sdk().products.getSku(skuA.id)).price, null);
  });

  test('deleting a SKU without force bins it and frees its source_id; force removes it for good', async () => {
    const product = await t.sdk().products.create({ source_id: 'sku-del' });
    const sku = await t.sdk().products.createSku(product.id, { sku: 'Binned', source_id: 'sku-del-1' });
    assert.equal(await t.sdk().products.deleteSku(product.id, 'sku-del-1'), '');
    assert.equal((await rejection(t.sdk().products.getSku(sku.id))).code, 404);
    assert.equal((await t.sdk().products.listSkus(product.id)).total, 0);
    const entries = await t.request('GET', `/v1/trash-bin?filters[resource_id][conditions][$is]=${sku.id}`);
    assert.equal(entries.body.data.length, 1);
    assert.equal(entries.body.data[0].resource_type, 'sku');
    assert.equal(entries.body.data[0].resource_parent_id, product.id);

    const reused = await t.sdk().products.createSku(product.id, { sku: 'Reborn', source_id: 'sku-del-1' });
    assert.notEqual(reused.id, sku.id);
    await t.sdk().products.deleteSku(product.id, reused.id, { force: true });
    assert.equal((await rejection(t.sdk().products.getSku(reused.id))).code, 404);
    const row = await t.db.db.selectFrom('skus').select('id').where('id', '=', reused.id).executeTakeFirst();
    assert.equal(row, undefined, 'force leaves no row');
    const none = await t.request('GET', `/v1/trash-bin?filters[resource_id][conditions][$is]=${reused.id}`);
    assert.equal(none.body.data.length, 0);
    assert.deepEqual((await eventsOf(sku.id)).map((e) => e.type), ['sku.created', 'sku.deleted']);
  });

  test('deleting a product without force bins it with its SKUs; its source_id is free at once', async () => {
    const product = await t.sdk().products.create({ source_id: 'bin-me', name: 'Binned product' });
    const sku = await t.sdk().products.createSku(product.id, { sku: 'S', source_id: 'bin-me-s' });
    assert.equal(await t.sdk().products.delete('bin-me'), '');

    for (const key of [product.id, 'bin-me']) {
      const res = await t.request('GET', `/v1/products/${key}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.details, `Cannot find product with id ${key}`);
    }
    assert.equal((await rejection(t.sdk().products.getSku(sku.id))).code, 404, 'the SKU went to the bin too');
    assert.equal((await t.request('PUT', `/v1/products/${product.id}`, { json: { name: 'x' } })).status, 404);
    assert.equal((await t.request('GET', `/v1/products/${product.id}/skus`)).status, 404);
    assert.equal((await t.request('DELETE', `/v1/products/${product.id}`)).status, 404, 'a binned product cannot be deleted again');
    const listed = await t.request('GET', '/v1/products?limit=100&order=-created_at');
    assert.ok(!listed.body.products.some((p: { id: string }) => p.id === product.id));

    // Rows stay, marked, until the bin entry is deleted.
    const row = await t.db.db.selectFrom('products').select('binned_at').where('id', '=', product.id).executeTakeFirstOrThrow();
    assert.ok(row.binned_at);
    const skuRow = await t.db.db.selectFrom('skus').select('binned_at').where('id', '=', sku.id).executeTakeFirstOrThrow();
    assert.ok(skuRow.binned_at);
    const entries = await t.request('GET', `/v1/trash-bin?filters[resource_id][conditions][$in][0]=${product.id}`);
    assert.equal(entries.body.data.length, 1);
    assert.equal(entries.body.data[0].object, 'product');
    assert.equal(entries.body.data[0].resource_name, 'Binned product');

    const successor = await t.sdk().products.create({ source_id: 'bin-me', name: 'Successor' });
    assert.notEqual(successor.id, product.id);
    assert.equal((await t.sdk().products.get('bin-me')).id, successor.id);
    const successorSku = await t.sdk().products.createSku(successor.id, { sku: 'S2', source_id: 'bin-me-s' });
    assert.notEqual(successorSku.id, sku.id);

    const events = await eventsOf(product.id);
    assert.deepEqual(events.map((e) => e.type), ['product.created', 'product.deleted']);
    assert.equal(events[1]?.data.permanent, false);
    assert.equal(events[1]?.data.bin_entry_id, entries.body.data[0].id);
  });

  test('deleting a product with force removes it and its SKUs permanently', async () => {
    const product = await t.sdk().products.create({ source_id: 'force-me' });
    const live = await t.sdk().products.createSku(product.id, { sku: 'Live' });
    const binned = await t.sdk().products.createSku(product.id, { sku: 'Binned first' });
    await t.sdk().products.deleteSku(product.id, binned.id);
    await t.sdk().products.delete(product.id, { force: true });

    assert.equal((await t.request('GET', `/v1/products/${product.id}`)).status, 404);
    const rows = await t.db.db.selectFrom('skus').select('id').where('product_id', '=', product.id).execute();
    assert.deepEqual(rows, []);
    assert.equal(await t.db.db.selectFrom('products').select('id').where('id', '=', product.id).executeTakeFirst(), undefined);
    const entries = await t.request('GET', `/v1/trash-bin?filters[resource_id][conditions][$in][0]=${binned.id}&filters[resource_id][conditions][$in][1]=${product.id}`);
    assert.deepEqual(entries.body.data, [], 'the separately binned SKU left the bin too');
    assert.equal((await rejection(t.sdk().products.getSku(live.id))).code, 404);
    const events = await eventsOf(product.id);
    assert.equal(events.at(-1)?.type, 'product.deleted');
    assert.equal(events.at(-1)?.data.permanent, true);

    const badForce = await t.request('DELETE', `/v1/products/${product.id}?force=maybe`);
    assert.equal(badForce.status, 400);
    assert.equal(badForce.body.key, 'invalid_query_params');
  });

  test('concurrent deletes of one product bin it once: one 204, the rest 404, one bin entry', async () => {
    const product = await t.sdk().products.create({ source_id: 'del-race', name: 'Raced delete' });
    await t.sdk().products.createSku(product.id, { sku: 'R' });
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => t.request('DELETE', `/v1/products/${product.id}`)),
      t.request('DELETE', `/v1/products/${product.id}?force=true`),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [204, 404, 404, 404, 404], JSON.stringify(answers.map((a) => a.text)));
    const entries = await t.request('GET', `/v1/trash-bin?filters[resource_id][conditions][$is]=${product.id}`);
    const row = await t.db.db.selectFrom('products').select('binned_at').where('id', '=', product.id).executeTakeFirst();
    if (answers[4]?.status === 204) {
      assert.equal(row, undefined, 'force won: gone for good');
      assert.equal(entries.body.data.length, 0);
    } else {
      assert.ok(row?.binned_at, 'a bin delete won: binned');
      assert.equal(entries.body.data.length, 1);
    }
    const deletions = (await eventsOf(product.id)).filter((e) => e.type === 'product.deleted');
    assert.equal(deletions.length, 1);
  });

  test("another project's keys cannot see or change this project's products", async () => {
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const keys = created.body.server_side_key as KeyPairOut;
    const mine = await t.sdk().products.create({ source_id: 'tenant-1', name: 'Mine', price: 10 });
    const mySku = await t.sdk().products.createSku(mine.id, { sku: 'M', source_id: 'tenant-1-sku' });
    const other = t.sdk(keys);

    const calls: Array<() => Promise<unknown>> = [
      () => other.products.get(mine.id),
      () => other.products.get('tenant-1'),
      () => other.products.update({ id: mine.id, name: 'Stolen' } as never),
      () => other.products.delete(mine.id, { force: true }),
      () => other.products.getSku(mySku.id),
      () => other.products.listSkus(mine.id),
      () => other.products.createSku(mine.id, { sku: 'x' }),
      () => other.products.deleteSku(mine.id, mySku.id),
    ];
    for (const call of calls) {
      const error = await rejection(call());
      assert.equal(error.code, 404);
    }
    const upsertById = await t.request('POST', '/v1/products', { headers: t.serverHeaders(keys), json: { id: mine.id, name: 'Stolen' } });
    assert.equal(upsertById.status, 404);
    assert.equal(await liveProductCount(keys), 0);

    // The same source_id is a different product in the other project.
    const theirs = await other.products.create({ source_id: 'tenant-1', name: 'Theirs' });
    assert.notEqual(theirs.id, mine.id);
    const still = await t.sdk().products.get('tenant-1');
    assert.equal(still.name, 'Mine');
    assert.equal(still.price, 10);
    assert.equal(still.skus?.total, 1);
  });
});
