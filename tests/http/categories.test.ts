import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Categories (platform reference 4.5): names unique per project, hierarchy an integer ≥ 0.

async function rejection(call: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await call;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  return assert.fail('expected the call to fail');
}

describe('categories', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function eventTypes(id: string): Promise<string[]> {
    const rows = await t.db.db.selectFrom('events').select('type').where('entity_id', '=', id).orderBy('seq').execute();
    return rows.map((r) => r.type);
  }

  async function categoryCount(): Promise<number> {
    return (await t.sdk().categories.list()).total;
  }

  test('create answers the category object; get answers the same', async () => {
    const created = await t.sdk().categories.create({ name: 'First', hierarchy: 1 });
    assert.deepEqual(Object.keys(created).sort(), ['created_at', 'hierarchy', 'id', 'name', 'object']);
    assert.match(created.id, /^cat_[0-9a-z]+$/);
    assert.equal(created.name, 'First');
    assert.equal(created.hierarchy, 1);
    assert.equal(created.object, 'category');
    assert.equal(new Date(created.created_at).toISOString(), created.created_at);
    assert.deepEqual(await t.sdk().categories.get(created.id), created);
    assert.deepEqual(await eventTypes(created.id), ['category.created']);
  });

  test('update replaces name and hierarchy and sets updated_at', async () => {
    const created = await t.sdk().categories.create({ name: 'To update', hierarchy: 3 });
    const updated = await t.sdk().categories.update(created.id, { name: 'Updated', hierarchy: 0 });
    assert.equal(updated.id, created.id);
    assert.equal(updated.name, 'Updated');
    assert.equal(updated.hierarchy, 0);
    assert.equal(updated.created_at, created.created_at);
    assert.ok(updated.updated_at > created.created_at);
    assert.deepEqual(await t.sdk().categories.get(created.id), updated);
    assert.deepEqual(await eventTypes(created.id), ['category.created', 'category.updated']);

    const partial = await t.request('PUT', `/v1/categories/${created.id}`, { json: { name: 'Only name' } });
    assert.equal(partial.status, 400);
    assert.equal(partial.body.details, "Payload should have required property 'hierarchy'");
    assert.equal((await t.sdk().categories.get(created.id)).name, 'Updated');
  });

  test('a duplicate name is 409 duplicate_found, on create and on rename, and changes nothing', async () => {
    await t.sdk().categories.create({ name: 'Unique', hierarchy: 2 });
    const count = await categoryCount();
    const dup = await rejection(t.sdk().categories.create({ name: 'Unique', hierarchy: 5 }));
    assert.equal(dup.code, 409);
    assert.equal(dup.key, 'duplicate_found');
    assert.equal(dup.details, 'Duplicated category exists with name Unique');
    assert.equal(await categoryCount(), count);

    const other = await t.sdk().categories.create({ name: 'Other name', hierarchy: 2 });
    const rename = await t.request('PUT', `/v1/categories/${other.id}`, { json: { name: 'Unique', hierarchy: 9 } });
    assert.equal(rename.status, 409);
    assert.equal(rename.body.key, 'duplicate_found');
    const still = await t.sdk().categories.get(other.id);
    assert.equal(still.name, 'Other name');
    assert.equal(still.hierarchy, 2);
    assert.deepEqual(await eventTypes(other.id), ['category.created']);
  });

  test('concurrent creates of one name end as one category and 409s', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.request('POST', '/v1/categories', { json: { name: 'Raced', hierarchy: 1 } })),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409, 409, 409]);
    const rows = await t.db.db.selectFrom('categories').select('id').where('project_id', '=', t.projectId).where('name', '=', 'Raced').execute();
    assert.equal(rows.length, 1);
  });

  test('bad input is 400 invalid_payload with vendor wording and creates nothing', async () => {
    const count = await categoryCount();
    const cases: Array<[unknown, string | RegExp]> = [
      [{ hierarchy: 1 }, "Payload should have required property 'name'"],
      [{ name: 'No hierarchy' }, "Payload should have required property 'hierarchy'"],
      [{ name: 'Negative', hierarchy: -1 }, 'Property .hierarchy must be >= 0'],
      [{ name: 'Fraction', hierarchy: 1.5 }, 'Property .hierarchy should be integer'],
      [{ name: 'Text', hierarchy: '1' }, 'Property .hierarchy should be integer'],
      [{ name: '', hierarchy: 1 }, /\.name/],
      [{ name: 'Huge', hierarchy: 2 ** 40 }, /\.hierarchy must be <=/],
    ];
    for (const [json, details] of cases) {
      const res = await t.request('POST', '/v1/categories', { json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.key, 'invalid_payload');
      if (typeof details === 'string') assert.equal(res.body.details, details);
      else assert.match(res.body.details, details);
    }
    assert.equal(await categoryCount(), count);
  });

  test('list is newest first with a total, and pages with starting_after_id', async () => {
    const list = await t.sdk().categories.list();
    assert.equal(list.object, 'list');
    assert.equal(list.data_ref, 'data');
    assert.equal(list.total, list.data.length);
    assert.equal(list.has_more, false);
    const times = list.data.map((c) => c.created_at);
    assert.deepEqual(times, [...times].sort().reverse());

    const first = await t.request('GET', '/v1/categories?limit=2');
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.total, list.total);
    assert.equal(first.body.more_starting_after, first.body.data[1].id);
    const second = await t.request('GET', `/v1/categories?limit=2&starting_after_id=${first.body.more_starting_after}`);
    assert.deepEqual(
      second.body.data.map((c: { id: string }) => c.id),
      list.data.slice(2, 4).map((c) => c.id),
    );
    const unknownCursor = await t.request('GET', '/v1/categories?starting_after_id=cat_nope');
    assert.equal(unknownCursor.status, 400);
    assert.equal(unknownCursor.body.key, 'invalid_query_params');
    const badLimit = await t.request('GET', '/v1/categories?limit=0');
    assert.equal(badLimit.status, 400);
  });

  test('delete answers 204; the category is then 404 with the vendor body', async () => {
    const created = await t.sdk().categories.create({ name: 'Doomed', hierarchy: 4 });
    const deleted = await t.request('DELETE', `/v1/categories/${created.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    const gone = await t.request('GET', `/v1/categories/${created.id}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(
      { code: gone.body.code, key: gone.body.key, message: gone.body.message, details: gone.body.details, resource_id: gone.body.resource_id, resource_type: gone.body.resource_type },
      { code: 404, key: 'not_found', message: 'Resource not found', details: `Cannot find category with id ${created.id}`, resource_id: created.id, resource_type: 'category' },
    );
    const again = await rejection(t.sdk().categories.delete(created.id));
    assert.equal(again.code, 404);
    assert.deepEqual(await eventTypes(created.id), ['category.created', 'category.deleted']);
    // The name is free again.
    const reborn = await t.sdk().categories.create({ name: 'Doomed', hierarchy: 4 });
    assert.notEqual(reborn.id, created.id);
  });

  test("another project's keys get 404 for this project's categories; names are per project", async () => {
    const project = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    const keys = project.body.server_side_key as KeyPairOut;
    const other = t.sdk(keys);
    const mine = await t.sdk().categories.create({ name: 'Tenant', hierarchy: 1 });
    const calls: Array<() => Promise<unknown>> = [
      () => other.categories.get(mine.id),
      () => other.categories.update(mine.id, { name: 'Stolen', hierarchy: 1 }),
      () => other.categories.delete(mine.id),
    ];
    for (const call of calls) assert.equal((await rejection(call())).code, 404);
    assert.equal((await other.categories.list()).total, 0);
    const theirs = await other.categories.create({ name: 'Tenant', hierarchy: 1 });
    assert.notEqual(theirs.id, mine.id);
    assert.equal((await t.sdk().categories.get(mine.id)).name, 'Tenant');
  });
});
