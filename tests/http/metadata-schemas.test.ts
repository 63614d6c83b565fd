import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Metadata schemas (platform reference 5.3): management CRUD, the /v1 read endpoints, and enforcement on
// customer and product writes (400 metadata_validation_failed, nothing changed).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('metadata schemas', () => {
  let t: TestApp;
  let customerSchemaId: string;
  const base = () => `/management/v1/projects/${t.projectId}/metadata-schemas`;
  const mgmt = (json?: unknown) => ({ headers: t.managementHeaders(), ...(json === undefined ? {} : { json }) });

  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('create answers the schema with defaults filled in; one schema per related object (409)', async () => {
    const address = await t.request('POST', base(), mgmt({ related_object: 'address', allow_defined_only: true, properties: { zip: { type: 'string', exact_length: 5, optional: false } } }));
    assert.equal(address.status, 200, address.text);
    const res = await t.request(
      'POST',
      base(),
      mgmt({
        related_object: 'customer',
        properties: {
          tier: { type: 'string', optional: false, eq: ['gold', 'silver'] },
          age: { type: 'number', gte: 0, lt: 150 },
          tags: { type: 'string', array: true, max_length: 10 },
          home: { type: 'object', object_type: 'address' },
        },
      }),
    );
    assert.equal(res.status, 200, res.text);
    customerSchemaId = res.body.id;
    assert.match(res.body.id, /^ms_/);
    assert.deepEqual(res.body, {
      id: res.body.id,
      related_object: 'customer',
      properties: {
        tier: { type: 'string', optional: false, array: false, object_type: null, eq: ['gold', 'silver'] },
        age: { type: 'number', optional: true, array: false, object_type: null, lt: 150, gte: 0 },
        tags: { type: 'string', optional: true, array: true, object_type: null, max_length: 10 },
        home: { type: 'object', optional: true, array: false, object_type: 'address' },
      },
      allow_defined_only: false,
      created_at: res.body.created_at,
      updated_at: null,
      object: 'metadata_schema',
    });
    const dup = await t.request('POST', base(), mgmt({ related_object: 'customer', properties: {} }));
    assert.equal(dup.status, 409);
    assert.equal(dup.body.key, 'duplicate_found');
    assert.equal(dup.body.details, 'Duplicated metadata schema exists with related_object customer');

    const list = await t.request('GET', base(), mgmt());
    assert.equal(list.body.total, 2);
    assert.deepEqual(list.body.data.map((s: Json) => s.related_object), ['address', 'customer']);
    assert.deepEqual((await t.request('GET', `${base()}/${res.body.id}`, mgmt())).body, res.body);
  });

  test('definitions that cannot work are precise 400s and create nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ x: { optional: true } }, "Property .properties.x should have required property 'type'"],
      [{ x: { type: 'number', min_length: 2 } }, 'Property .properties.x.min_length applies to type string only, not number'],
      [{ x: { type: 'string', gt: 2 } }, 'Property .properties.x.gt applies to type number only, not string'],
      [{ x: { type: 'number', eq: [1, 'two'] } }, 'Property .properties.x.eq[1] should be number'],
      [{ x: { type: 'boolean', eq: ['yes'] } }, 'Property .properties.x.eq applies to types string and number only, not boolean'],
      [{ x: { type: 'string', min_length: 5, max_length: 2 } }, 'Property .properties.x.min_length (5) must be <= max_length (2)'],
      [{ x: { type: 'object', object_type: 'nowhere' } }, 'Property .properties.x.object_type names no metadata schema of this project: nowhere'],
      [{ x: { type: 'string', object_type: 'address' } }, 'Property .properties.x.object_type applies to type object only, not string'],
      [{ x: { type: 'colour' } }, 'Property .properties.x.type should be equal to one of the allowed values [ string, number, object, date, datetime, geopoint, boolean, image_url ]'],
    ];
    for (const [properties, details] of cases) {
      const res = await t.request('POST', base(), mgmt({ related_object: 'product', properties }));
      assert.equal(res.status, 400, JSON.stringify(properties));
      assert.equal(res.body.key, 'invalid_payload');
      assert.equal(res.body.details, details);
    }
    const noRelated = await t.request('POST', base(), mgmt({ properties: {} }));
    assert.equal(noRelated.body.details, "Payload should have required property 'related_object'");
    assert.equal((await t.request('GET', '/v1/metadata-schemas/product')).status, 404);
  });

  test('customer writes follow the schema: 400 metadata_validation_failed with the vendor wording, nothing stored', async () => {
    const bad = await t.request('POST', '/v1/customers', { json: { source_id: 'm-1', metadata: { tier: 'bronze', age: -1, tags: ['ok', 'much-too-long'] } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'metadata_validation_failed');
    assert.equal(bad.body.message, 'Metadata validation failed');
    assert.equal(
      bad.body.details,
      "tier: must be one of [gold, silver] (actual value is 'bronze'); age: must be greater than or equal to 0 (actual value is '-1'); tags[1]: must be at most 10 characters long (actual value is 'much-too-long')",
    );
    assert.equal((await t.request('GET', '/v1/customers/m-1')).status, 404);

    const missingRequired = await t.request('POST', '/v1/customers', { json: { source_id: 'm-1' } });
    assert.equal(missingRequired.status, 400);
    assert.match(missingRequired.body.details, /^tier: must be defined/);

    const nested = await t.request('POST', '/v1/customers', { json: { source_id: 'm-1', metadata: { tier: 'gold', home: { zip: '123', note: 'x' } } } });
    assert.equal(nested.status, 400);
    assert.match(nested.body.details, /home\.zip: must be exactly 5 characters long/);
    assert.match(nested.body.details, /home\.note: must be a property defined in the address metadata schema/);

    const created: Json = await t.sdk().customers.create({ source_id: 'm-1', metadata: { tier: 'gold', age: 30, home: { zip: '12345' }, extra: 'allowed' } });
    assert.equal(created.metadata.tier, 'gold');

    const badUpdate = await t.request('PUT', '/v1/customers/m-1', { json: { metadata: { tier: 'gold', age: 'old' } } });
    assert.equal(badUpdate.status, 400);
    assert.equal(badUpdate.body.key, 'metadata_validation_failed');
    const badUpsert = await t.request('POST', '/v1/customers', { json: { source_id: 'm-1', metadata: { age: 3 } } });
    assert.equal(badUpsert.status, 400);
    assert.deepEqual(((await t.sdk().customers.get('m-1')) as Json).metadata, { tier: 'gold', age: 30, home: { zip: '12345' }, extra: 'allowed' });
    const nameOnly = await t.request('PUT', '/v1/customers/m-1', { json: { name: 'Only the name' } });
    assert.equal(nameOnly.status, 200, 'an update without metadata is not checked');

    // Customers created implicitly (here by a custom event) follow the schema too.
    await t.request('POST', `/management/v1/projects/${t.projectId}/custom-event-schemas`, mgmt({ name: 'ping', schema: { properties: {} } }));
    const implicit = await t.request('POST', '/v1/events', { json: { event: 'ping', customer: { source_id: 'm-2' } } });
    assert.equal(implicit.status, 400);
    assert.equal(implicit.body.key, 'metadata_validation_failed');
    const implicitOk = await t.request('POST', '/v1/events', { json: { event: 'ping', customer: { source_id: 'm-2', metadata: { tier: 'silver' } } } });
    assert.equal(implicitOk.status, 200, implicitOk.text);
  });

  test('PUT adds and replaces definitions, keeps types, soft-removes with deleted:true', async () => {
    const path = `${base()}/${customerSchemaId}`;
    const changeType = await t.request('PUT', path, mgmt({ properties: { age: { type: 'string' } } }));
    assert.equal(changeType.status, 400);
    assert.equal(changeType.body.details, 'Property .properties.age.type cannot change from number to string; define a new property instead');
    const updated = await t.request('PUT', path, mgmt({ properties: { tier: { deleted: true }, vip: { type: 'boolean' } }, allow_defined_only: true }));
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.body.properties.tier, { type: 'string', optional: false, array: false, object_type: null, deleted: true, eq: ['gold', 'silver'] });
    assert.deepEqual(updated.body.properties.vip, { type: 'boolean', optional: true, array: false, object_type: null });
    assert.equal(updated.body.allow_defined_only, true);
    assert.ok(updated.body.updated_at);

    // tier is no longer required, and allow_defined_only now refuses members not defined.
    const ok = await t.request('POST', '/v1/customers', { json: { source_id: 'm-3', metadata: { vip: true } } });
    assert.equal(ok.status, 200, ok.text);
    const undefinedMember = await t.request('POST', '/v1/customers', { json: { source_id: 'm-4', metadata: { vip: true, color: 'red' } } });
    assert.equal(undefinedMember.status, 400);
    assert.equal(
      undefinedMember.body.details,
      "color: must be a property defined in the customer metadata schema, which allows defined properties only (actual value is 'red')",
    );
  });

  test('/v1/metadata-schemas answers the vendor shapes; unknown resources are 404', async () => {
    const sdk = t.sdk();
    const list: Json = await sdk.metadataSchemas.list();
    assert.equal(list.object, 'list');
    assert.equal(list.data_ref, 'schemas');
    assert.equal(list.total, 2);
    const customer: Json = await sdk.metadataSchemas.get('customer');
    assert.equal(customer.id, customerSchemaId);
    assert.deepEqual(customer.properties.tags, { type: 'string', array: true, optional: true, objectType: null, maxLength: 10 });
    assert.deepEqual(customer.properties.home, { type: 'object', array: false, optional: true, objectType: 'address' });
    const address: Json = await sdk.metadataSchemas.get('address');
    assert.deepEqual(address.properties.zip, { type: 'string', array: false, optional: false, objectType: null, exactLength: 5 });
    const missing = await t.request('GET', '/v1/metadata-schemas/voucher');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.resource_type, 'metadata schema');
  });

  test('product writes follow the product schema', async () => {
    const created = await t.request('POST', base(), mgmt({ related_object: 'product', properties: { brand: { type: 'string', optional: false }, launched: { type: 'datetime' } } }));
    assert.equal(created.status, 200, created.text);
    const bad = await t.request('POST', '/v1/products', { json: { source_id: 'p-1', metadata: { launched: '2026-01-01T10:00:00Z' } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details, "brand: must be defined, the property is required (actual value is 'undefined')");
    assert.equal((await t.request('GET', '/v1/products/p-1')).status, 404);
    const ok = await t.request('POST', '/v1/products', { json: { source_id: 'p-1', name: 'Shoe', metadata: { brand: 'x', launched: '2026-01-01T10:00:00Z' } } });
    assert.equal(ok.status, 200, ok.text);
    const badUpdate = await t.request('PUT', '/v1/products/p-1', { json: { metadata: { brand: 'x', launched: 'yesterday' } } });
    assert.equal(badUpdate.status, 400);
    assert.equal(badUpdate.body.details, "launched: must be an ISO 8601 date-time (actual value is 'yesterday')");
    const priceOnly = await t.request('PUT', '/v1/products/p-1', { json: { price: 100 } });
    assert.equal(priceOnly.status, 200);
    assert.deepEqual(priceOnly.body.metadata, { brand: 'x', launched: '2026-01-01T10:00:00Z' });
  });

  test('delete removes the schema: writes are free again; unknown ids and projects are 404', async () => {
    const list = await t.request('GET', base(), mgmt());
    const product = list.body.data.find((s: Json) => s.related_object === 'product');
    assert.equal((await t.request('DELETE', `${base()}/${product.id}`, mgmt())).status, 204);
    const free = await t.request('POST', '/v1/products', { json: { source_id: 'p-2', metadata: { anything: 1 } } });
    assert.equal(free.status, 200);
    const unknown = await t.request('GET', `${base()}/ms_missing`, mgmt());
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.details, 'Cannot find metadata schema with id ms_missing');
    assert.equal((await t.request('GET', '/management/v1/projects/proj_missing/metadata-schemas', mgmt())).status, 404);
    assert.equal((await t.request('DELETE', `${base()}/${product.id}`, mgmt())).status, 404);
  });
});
