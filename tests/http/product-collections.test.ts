import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { collectionMembership, collectionsOfLine } from '../../src/services/product-collections/product-collections.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Product collections (vendor OpenAPI product-collections; SDK productCollections.*): static and
// auto-update membership, the products list, the membership question rules ask, and in-use protection.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Sdk = ReturnType<TestApp['sdk']>;

interface SdkError {
  code: number;
  key: string;
  details?: string;
  resource_type?: string;
}

async function sdkError(call: Promise<unknown>): Promise<SdkError> {
  try {
    await call;
  } catch (error) {
    return error as SdkError;
  }
  throw new assert.AssertionError({ message: 'the call was expected to fail' });
}

describe('product collections', () => {
  let t: TestApp;
  let projects = 0;

  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function newProject(): Promise<{ keys: KeyPairOut; sdk: Sdk; id: string; headers: Record<string, string> }> {
    projects += 1;
    const res = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: `Collections ${projects}`, case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(res.status, 200);
    const keys = res.body.server_side_key as KeyPairOut;
    return { keys, sdk: t.sdk(keys), id: res.body.id as string, headers: t.serverHeaders(keys) };
  }

  /** A catalog: a shoe with a red SKU, a hat, a mug (prices in cents). */
  async function catalog(sdk: Sdk) {
    const shoe: Json = await sdk.products.create({ source_id: 'shoe', name: 'Shoe', price: 8000, metadata: { brand: 'Voucherify' } });
    const red: Json = await sdk.products.createSku(shoe.id, { source_id: 'shoe-red', sku: 'Red shoe', price: 8500 } as never);
    const hat: Json = await sdk.products.create({ source_id: 'hat', name: 'Hat', price: 2500, metadata: { brand: 'Voucherify' } });
    const mug: Json = await sdk.products.create({ source_id: 'mug', name: 'Mug', price: 900, metadata: { brand: 'Other' } });
    return { shoe, red, hat, mug };
  }

  test('a STATIC collection lists products and SKUs; its products list pages by creation time', async () => {
    const p = await newProject();
    const { shoe, red, hat, mug } = await catalog(p.sdk);
    const before = t.clock.now().toISOString();
    const created: Json = await p.sdk.productCollections.create({
      type: 'STATIC',
      name: 'Wearables',
      products: [
        { id: hat.id, object: 'product' },
        { id: 'shoe-red', object: 'sku' } as never,
        { id: 'mug', object: 'product' },
        { id: hat.id, object: 'product' },
      ],
    });
    assert.match(created.id, /^pc_/);
    assert.ok(created.created_at > before);
    const { id: _id, created_at: _at, ...rest } = created;
    assert.deepEqual(rest, {
      name: 'Wearables',
      type: 'STATIC',
      products: [
        { id: hat.id, object: 'product' },
        { id: red.id, product_id: shoe.id, object: 'sku' },
        { id: mug.id, object: 'product' },
      ],
      object: 'products_collection',
    });
    assert.deepEqual(await p.sdk.productCollections.get(created.id), created);

    const all: Json = await p.sdk.productCollections.listProducts(created.id);
    assert.equal(all.object, 'list');
    assert.equal(all.data_ref, 'data');
    assert.equal(all.total, 3);
    assert.deepEqual(
      all.data.map((m: Json) => [m.object, m.id]),
      [
        ['sku', red.id],
        ['product', hat.id],
        ['product', mug.id],
      ],
      'oldest member first (the SKU was created before the hat)',
    );
    const sku = all.data[0];
    assert.equal(sku.sku, 'Red shoe');
    assert.equal(sku.price, 8500);
    assert.deepEqual(sku.product, { id: shoe.id, source_id: 'shoe', name: 'Shoe', price: 8000, attributes: [], metadata: { brand: 'Voucherify' }, object: 'product' });

    const page2: Json = await p.sdk.productCollections.listProducts(created.id, { limit: 2, page: 2 });
    assert.deepEqual(
      page2.data.map((m: Json) => m.id),
      [mug.id],
    );
    assert.equal(page2.total, 3);
    const after = await t.request('GET', `/v1/product-collections/${created.id}/products?starting_after=${red.created_at}`, { headers: p.headers });
    assert.deepEqual(
      after.body.data.map((m: Json) => m.id),
      [hat.id, mug.id],
    );
    const newest = await t.request('GET', `/v1/product-collections/${created.id}/products?order=-created_at&limit=1`, { headers: p.headers });
    assert.deepEqual(
      newest.body.data.map((m: Json) => m.id),
      [mug.id],
    );

    await p.sdk.products.delete(mug.id);
    const binned: Json = await p.sdk.productCollections.listProducts(created.id);
    assert.deepEqual(
      binned.data.map((m: Json) => m.id),
      [red.id, hat.id],
      'a binned product is no member',
    );
    assert.equal(binned.total, 2);
  });

  test('an AUTO_UPDATE collection is the live products its filter matches now (vendor example filter)', async () => {
    const p = await newProject();
    const { shoe, hat } = await catalog(p.sdk);
    const created: Json = await p.sdk.productCollections.create({
      type: 'AUTO_UPDATE',
      name: 'Voucherify example collection',
      filter: { junction: 'and', 'metadata.brand': { conditions: { $is: ['Voucherify'] } }, price: { conditions: { $more_than: [5000] } } },
    });
    assert.deepEqual(created.filter, { junction: 'and', 'metadata.brand': { conditions: { $is: ['Voucherify'] } }, price: { conditions: { $more_than: [5000] } } });
    assert.equal(created.products, undefined);
    const ids = async (id: string) => ((await p.sdk.productCollections.listProducts(id)) as Json).data.map((m: Json) => m.id);
    assert.deepEqual(await ids(created.id), [shoe.id]);
    const boot: Json = await p.sdk.products.create({ source_id: 'boot', name: 'Boot', price: 12000, metadata: { brand: 'Voucherify' } });
    assert.deepEqual(await ids(created.id), [shoe.id, boot.id], 'a new matching product is a member at once');
    await p.sdk.products.update({ id: hat.id, price: 6000 } as never);
    await p.sdk.products.update({ id: shoe.id, metadata: { brand: 'Other' } } as never);
    assert.deepEqual(await ids(created.id), [hat.id, boot.id]);

    const recent: Json = await p.sdk.productCollections.create({
      type: 'AUTO_UPDATE',
      name: 'New this week',
      filter: { junction: 'or', created_at: { conditions: { $less_than_ago: [7] } }, name: { conditions: { $starts_with: ['Sh'] } } },
    });
    assert.equal(((await p.sdk.productCollections.listProducts(recent.id)) as Json).total, 4);
    t.clock.advance(8 * 86_400_000);
    assert.deepEqual(await ids(recent.id), [shoe.id], 'time-relative filters are evaluated when asked');
  });

  test('invalid collections are refused and create nothing', async () => {
    const p = await newProject();
    const { hat } = await catalog(p.sdk);
    const unknown = await sdkError(p.sdk.productCollections.create({ type: 'STATIC', name: 'x', products: [{ id: hat.id, object: 'product' }, { id: 'prod_none', object: 'product' }] }));
    assert.equal(unknown.code, 404);
    assert.equal(unknown.details, 'Cannot find product with id prod_none');
    const unknownSku = await t.request('POST', '/v1/product-collections', { headers: p.headers, json: { name: 'x', products: [{ id: hat.id, object: 'sku' }] } });
    assert.equal(unknownSku.status, 404);
    assert.equal(unknownSku.body.resource_type, 'sku');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ type: 'AUTO_UPDATE', name: 'x' }, /required property 'filter'/],
      [{ type: 'AUTO_UPDATE', name: 'x', filter: { colour: { conditions: { $is: ['red'] } } } }, /^Property \.filter\.colour cannot be used in this filter/],
      [{ type: 'AUTO_UPDATE', name: 'x', filter: { price: { conditions: { $contains: ['5'] } } } }, /cannot be used on field price/],
      [{ type: 'AUTO_UPDATE', name: 'x', filter: { price: { conditions: { $more_than: ['5'] } } } }, /should be an array of one number/],
      [{ type: 'STATIC', name: 'x', filter: { junction: 'and' } }, /only for AUTO_UPDATE collections/],
      [{ type: 'DYNAMIC', name: 'x' }, /^Property \.type should be equal to one of the allowed values/],
      [{ type: 'STATIC', products: [] }, /required property 'name'/],
      [{ name: 'x', products: [{ id: 'a', object: 'collection' }] }, /^Property \.products\[0\]\.object/],
    ];
    for (const [body, pattern] of cases) {
      const res = await t.request('POST', '/v1/product-collections', { headers: p.headers, json: body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.key, 'invalid_payload');
      assert.match(res.body.details, pattern);
    }
    assert.equal(((await p.sdk.productCollections.list()) as Json).total, 0);
  });

  test('list: oldest first by default, limits, pages and order', async () => {
    const p = await newProject();
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C']) ids.push(((await p.sdk.productCollections.create({ type: 'STATIC', name, products: [] })) as Json).id);
    const first: Json = await p.sdk.productCollections.list({ limit: 2 });
    assert.deepEqual({ ids: first.data.map((c: Json) => c.id), total: first.total, data_ref: first.data_ref }, { ids: ids.slice(0, 2), total: 3, data_ref: 'data' });
    const desc: Json = await p.sdk.productCollections.list({ limit: 2, page: 2, order: '-created_at' });
    assert.deepEqual(
      desc.data.map((c: Json) => c.id),
      [ids[0]],
    );
    assert.equal((await t.request('GET', '/v1/product-collections?page=0', { headers: p.headers })).status, 400);
  });

  test('a collection a validation rule uses cannot be deleted: 400 resource_in_use with the rule ids', async () => {
    const p = await newProject();
    const { hat } = await catalog(p.sdk);
    const collection: Json = await p.sdk.productCollections.create({ type: 'STATIC', name: 'Guarded', products: [{ id: hat.id, object: 'product' }] });
    const byTarget: Json = await p.sdk.validationRules.create({
      name: 'Targets the collection',
      applicable_to: { included: [{ object: 'products_collection', id: collection.id, effect: 'APPLY_TO_EVERY' }] },
    } as never);
    const byCondition: Json = await p.sdk.validationRules.create({
      name: 'Requires the collection',
      rules: { '1': { name: 'order.items.any', conditions: { $from: [{ id: collection.id, object: 'products_collection' }] } }, logic: '1' },
    });
    const res = await t.request('DELETE', `/v1/product-collections/${collection.id}`, { headers: p.headers });
    assert.equal(res.status, 400);
    assert.equal(res.body.key, 'resource_in_use');
    assert.equal(res.body.message, 'Resource in use');
    assert.deepEqual(res.body.related_object_ids, [byTarget.id, byCondition.id].sort());
    assert.equal(res.body.related_object_type, 'validation_rules');
    assert.equal(res.body.related_object_total, 2);
    assert.equal(res.body.details, `Resource products_collection with id ${collection.id} is in use by validation_rules with ids [${[byTarget.id, byCondition.id].sort().join(', ')}]`);
    assert.deepEqual(await p.sdk.productCollections.get(collection.id), collection);

    await p.sdk.validationRules.delete(byTarget.id);
    await p.sdk.validationRules.update({ id: byCondition.id, rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1' } });
    assert.deepEqual(await p.sdk.productCollections.delete(collection.id), '');
    assert.equal((await sdkError(p.sdk.productCollections.get(collection.id))).code, 404);
    const deleted = await t.deps.db.selectFrom('events').selectAll().where('type', '=', 'products_collection.deleted').where('entity_id', '=', collection.id).execute();
    assert.equal(deleted.length, 1);
    assert.equal((await t.request('DELETE', `/v1/product-collections/${collection.id}`, { headers: p.headers })).status, 404);
  });

  test('membership for rules: which of these products and SKUs belong to which collection', async () => {
    const p = await newProject();
    const { shoe, red, hat, mug } = await catalog(p.sdk);
    const blue: Json = await p.sdk.products.createSku(hat.id, { source_id: 'hat-blue', sku: 'Blue hat', price: 2500 } as never);
    const listsShoe: Json = await p.sdk.productCollections.create({ type: 'STATIC', name: 'Shoe', products: [{ id: shoe.id, object: 'product' }] });
    const listsBlue: Json = await p.sdk.productCollections.create({ type: 'STATIC', name: 'Blue', products: [{ id: blue.id, object: 'sku' } as never] });
    const pricey: Json = await p.sdk.productCollections.create({ type: 'AUTO_UPDATE', name: 'Pricey', filter: { price: { conditions: { $more_than_equal: [2500] } } } });
    const items = [
      { productId: shoe.id, skuId: red.id },
      { productId: hat.id, skuId: blue.id },
      { productId: hat.id, skuId: null },
      { productId: mug.id, skuId: null },
    ];
    const membership = await collectionMembership(t.deps.db, t.deps.dialect, p.id, [listsShoe.id, listsBlue.id, pricey.id, 'pc_unknown'], items, t.clock.now());
    const sorted = (id: string) => [...(membership.get(id) ?? [])].sort();
    assert.deepEqual(sorted(listsShoe.id), [shoe.id, red.id].sort(), 'a listed product brings its SKUs');
    assert.deepEqual(sorted(listsBlue.id), [blue.id], 'a listed SKU does not bring its product');
    assert.deepEqual(sorted(pricey.id), [shoe.id, red.id, hat.id, blue.id].sort(), 'a matching product brings its SKUs');
    assert.deepEqual(sorted('pc_unknown'), []);
    assert.deepEqual(collectionsOfLine(membership, hat.id, blue.id).sort(), [listsBlue.id, pricey.id].sort());
    assert.deepEqual(collectionsOfLine(membership, mug.id, null), []);

    await p.sdk.products.delete(shoe.id);
    const afterBin = await collectionMembership(t.deps.db, t.deps.dialect, p.id, [listsShoe.id, pricey.id], items, t.clock.now());
    assert.deepEqual([...(afterBin.get(listsShoe.id) ?? [])], [], 'binned products and their SKUs are no members');
    assert.ok(!afterBin.get(pricey.id)?.has(red.id));
    const foreign = await collectionMembership(t.deps.db, t.deps.dialect, t.projectId, [pricey.id], items, t.clock.now());
    assert.deepEqual([...(foreign.get(pricey.id) ?? [])], [], "another project's collection is unknown here");
  });

  test("another project's keys see none of it and cannot collect this project's products", async () => {
    const mine = await newProject();
    const theirs = await newProject();
    const { hat } = await catalog(mine.sdk);
    const collection: Json = await mine.sdk.productCollections.create({ type: 'STATIC', name: 'Mine', products: [{ id: hat.id, object: 'product' }] });
    assert.equal((await sdkError(theirs.sdk.productCollections.get(collection.id))).code, 404);
    assert.equal((await sdkError(theirs.sdk.productCollections.delete(collection.id))).code, 404);
    assert.equal((await sdkError(theirs.sdk.productCollections.listProducts(collection.id))).code, 404);
    const foreign = await sdkError(theirs.sdk.productCollections.create({ type: 'STATIC', name: 'Theirs', products: [{ id: hat.id, object: 'product' }] }));
    assert.equal(foreign.code, 404);
    assert.equal(((await theirs.sdk.productCollections.list()) as Json).total, 0);
    const usesForeign = await t.request('POST', '/v1/validation-rules', {
      headers: theirs.headers,
      json: { name: 'Foreign', applicable_to: { included: [{ object: 'products_collection', id: collection.id }] } },
    });
    assert.equal(usesForeign.status, 400, "a rule cannot name another project's collection");
    assert.deepEqual(await mine.sdk.productCollections.get(collection.id), collection);
  });
});
