import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INLINE_SYNC_BATCHES, SEGMENT_SYNC_JOB } from '../../src/services/segments/segments.ts';
import { SYNC_BATCH } from '../../src/services/segments/membership.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Customer segments (vendor Segment objects; platform reference 7.4 for the filter grammar): static and
// auto-update membership, the customer hooks, segment activities, the customer list's segment_id filter,
// and the background initial sync of large projects.

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

describe('segments', () => {
  let t: TestApp;
  let projects = 0;

  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  /** A fresh project, so membership tests control every customer the project has. */
  async function newProject(): Promise<{ keys: KeyPairOut; sdk: Sdk; id: string; headers: Record<string, string> }> {
    projects += 1;
    const res = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: `Segments ${projects}`, case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(res.status, 200);
    const keys = res.body.server_side_key as KeyPairOut;
    return { keys, sdk: t.sdk(keys), id: res.body.id as string, headers: t.serverHeaders(keys) };
  }

  async function segmentIdsOf(sdk: Sdk, customerId: string): Promise<string[]> {
    const list: Json = await sdk.segments.list(customerId);
    return list.data.map((s: Json) => s.id).sort();
  }

  async function membersOf(segmentId: string): Promise<string[]> {
    const rows = await t.deps.db.selectFrom('segment_members').select('customer_id').where('segment_id', '=', segmentId).orderBy('customer_id').execute();
    return rows.map((r) => r.customer_id);
  }

  async function activityTypes(headers: Record<string, string>, customerId: string): Promise<Json[]> {
    const res = await t.request('GET', `/v1/customers/${customerId}/activities?limit=100&order=created_at`, { headers });
    assert.equal(res.status, 200);
    return res.body.data.filter((a: Json) => a.type.startsWith('customer.segment.'));
  }

  test('a static segment holds the customers listed (by id or source_id), with entered activities', async () => {
    const p = await newProject();
    const alice: Json = await p.sdk.customers.create({ source_id: 'alice', name: 'Alice' });
    const bob: Json = await p.sdk.customers.create({ source_id: 'bob', name: 'Bob' });
    await p.sdk.customers.create({ source_id: 'carol' });
    const before = t.clock.now().toISOString();
    const segment: Json = await p.sdk.segments.create({ name: 'Friends', type: 'static', customers: [alice.id, 'bob', 'bob'] });
    assert.match(segment.id, /^seg_/);
    assert.ok(segment.created_at > before);
    const { id: _id, created_at: _at, ...rest } = segment;
    assert.deepEqual(rest, { name: 'Friends', updated_at: null, type: 'static', filter: null, initial_sync_status: 'DONE', object: 'segment' });
    assert.deepEqual(await p.sdk.segments.get(segment.id), segment);
    assert.deepEqual(await membersOf(segment.id), [alice.id, bob.id].sort());
    assert.deepEqual(await p.sdk.segments.list(alice.id), { object: 'list', data_ref: 'data', data: [{ id: segment.id, name: 'Friends', object: 'segment' }], total: 1 });
    const [entered] = await activityTypes(p.headers, bob.id);
    assert.equal(entered.type, 'customer.segment.entered');
    assert.deepEqual(entered.data.data.segment, { id: segment.id, name: 'Friends', object: 'segment' });
    assert.equal(entered.data.data.customer.id, bob.id);
    assert.equal((await activityTypes(p.headers, bob.id)).length, 1, 'listed twice, entered once');
  });

  test('a static segment naming an unknown customer is 404 and is not created', async () => {
    const p = await newProject();
    const alice: Json = await p.sdk.customers.create({ source_id: 'alice' });
    const error = await sdkError(p.sdk.segments.create({ name: 'Ghosts', type: 'static', customers: [alice.id, 'nobody'] }));
    assert.equal(error.code, 404);
    assert.equal(error.details, 'Cannot find customer with id nobody');
    const list = await t.request('GET', '/v1/segments', { headers: p.headers });
    assert.equal(list.body.total, 0);
    assert.deepEqual(await segmentIdsOf(p.sdk, alice.id), []);
  });

  test('an auto-update segment holds the matching customers and follows creates, updates and deletes', async () => {
    const p = await newProject();
    const gold: Json = await p.sdk.customers.create({ source_id: 'gold-1', metadata: { tier: 'gold' } });
    const silver: Json = await p.sdk.customers.create({ source_id: 'silver-1', metadata: { tier: 'silver' } });
    const segment: Json = await p.sdk.segments.create({
      name: 'Gold members',
      type: 'auto-update',
      filter: { junction: 'AND', 'metadata.tier': { conditions: { $in: ['gold', 'platinum'] } } },
    });
    assert.equal(segment.initial_sync_status, 'DONE');
    assert.deepEqual(segment.filter, { junction: 'and', 'metadata.tier': { conditions: { $in: ['gold', 'platinum'] } } }, 'the junction is answered in lower case');
    assert.deepEqual(await membersOf(segment.id), [gold.id]);

    const platinum: Json = await p.sdk.customers.create({ source_id: 'plat-1', metadata: { tier: 'platinum' } });
    assert.deepEqual(await segmentIdsOf(p.sdk, platinum.id), [segment.id], 'a new matching customer enters');
    await p.sdk.customers.update({ id: gold.id, metadata: { tier: 'bronze' } } as never);
    assert.deepEqual(await segmentIdsOf(p.sdk, gold.id), [], 'an update that no longer matches leaves');
    await p.sdk.customers.update({ id: silver.id, metadata: { tier: 'gold' } } as never);
    assert.deepEqual(await segmentIdsOf(p.sdk, silver.id), [segment.id], 'an update that now matches enters');
    await p.sdk.customers.update({ id: silver.id, name: 'Still gold' } as never);
    assert.deepEqual(
      (await activityTypes(p.headers, silver.id)).map((a: Json) => a.type),
      ['customer.segment.entered'],
      'an update that keeps matching appends nothing',
    );
    assert.deepEqual(
      (await activityTypes(p.headers, gold.id)).map((a: Json) => a.type),
      ['customer.segment.entered', 'customer.segment.left'],
    );
    const left = (await activityTypes(p.headers, gold.id))[1];
    assert.equal(left.data.data.customer.metadata.tier, 'bronze');

    const listed: Json = await p.sdk.segments.create({ name: 'Listed', type: 'static', customers: [platinum.id] });
    await p.sdk.customers.delete(platinum.id);
    assert.deepEqual(await membersOf(segment.id), [silver.id]);
    assert.deepEqual(await membersOf(listed.id), [], 'a deleted customer leaves static segments too');
    const events = await t.deps.db
      .selectFrom('events')
      .select(['type', 'entity_id'])
      .where('customer_id', '=', platinum.id)
      .where('type', '=', 'customer.segment.left')
      .orderBy('seq')
      .execute();
    assert.deepEqual(events.map((e) => e.entity_id).sort(), [segment.id, listed.id].sort());
  });

  test('filters: fields, operators, junctions — decided the same way on every database', async () => {
    const p = await newProject();
    const make = async (sourceId: string, body: Record<string, unknown>) => ((await p.sdk.customers.create({ source_id: sourceId, ...body } as never)) as Json).id as string;
    const ann = await make('ann', { name: 'Ann', email: 'ann@shop.io', birthdate: '1990-05-01', address: { city: 'Paris', country: 'France' }, metadata: { visits: 12, vip: true, code: 'A_1' } });
    const ben = await make('ben', { name: 'Ben', email: 'ben@mail.com', birthdate: '2001-01-01', address: { city: 'Berlin' }, metadata: { visits: 3, code: 'A%1' } });
    const cid = await make('cid', { name: 'Cid', email: null, metadata: { visits: '12' } });
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['$is on a text field', { email: { conditions: { $is: ['ann@shop.io'] } } }, [ann]],
      ['$is_not matches the missing value too', { email: { conditions: { $is_not: ['ann@shop.io'] } } }, [ben, cid]],
      ['$in', { name: { conditions: { $in: ['Ann', 'Cid'] } } }, [ann, cid]],
      ['$not_in', { name: { conditions: { $not_in: ['Ann', 'Cid'] } } }, [ben]],
      ['$contains', { email: { conditions: { $contains: ['@shop'] } } }, [ann]],
      ['$not_contain', { email: { conditions: { $not_contain: ['@shop'] } } }, [ben, cid]],
      ['$starts_with', { name: { conditions: { $starts_with: ['B'] } } }, [ben]],
      ['$ends_with', { email: { conditions: { $ends_with: ['.com'] } } }, [ben]],
      ['% and _ are literal characters', { 'metadata.code': { conditions: { $contains: ['%'] } } }, [ben]],
      ['$has_value', { email: { conditions: { $has_value: [] } } }, [ann, ben]],
      ['$is_unknown', { 'address.country': { conditions: { $is_unknown: [] } } }, [ben, cid]],
      ['city and address members', { city: { conditions: { $is: ['Berlin'] } } }, [ben]],
      ['a bare value means a one-value array (vendor example)', { 'address.country': { conditions: { $is: 'France' } } }, [ann]],
      ['metadata numbers compare numerically', { 'metadata.visits': { conditions: { $more_than: [5] } } }, [ann]],
      ['$less_than_equal', { 'metadata.visits': { conditions: { $less_than_equal: [3] } } }, [ben]],
      ['$is with a number matches the number and its text', { 'metadata.visits': { conditions: { $is: [12] } } }, [ann, cid]],
      ['$is with a boolean', { 'metadata.vip': { conditions: { $is: [true] } } }, [ann]],
      ['dates: $before', { birthdate: { conditions: { $before: ['2000-01-01'] } } }, [ann]],
      ['dates: $after with a date-time', { birthdate: { conditions: { $after: ['1995-01-01T10:00:00Z'] } } }, [ben]],
      ['several operators on one field are all required', { 'metadata.visits': { conditions: { $more_than: [2], $less_than: [10] } } }, [ben]],
      ['junction and', { junction: 'and', name: { conditions: { $in: ['Ann', 'Ben'] } }, city: { conditions: { $is: ['Paris'] } } }, [ann]],
      ['junction OR (any case)', { junction: 'OR', name: { conditions: { $is: ['Cid'] } }, city: { conditions: { $is: ['Paris'] } } }, [ann, cid]],
      ['an empty filter matches everyone', { junction: 'and' }, [ann, ben, cid]],
    ];
    for (const [name, filter, expected] of cases) {
      const segment: Json = await p.sdk.segments.create({ name, type: 'auto-update', filter });
      assert.deepEqual(await membersOf(segment.id), [...expected].sort(), name);
    }
  });

  test('filters that cannot be kept true, or are malformed, are 400 invalid_payload and create nothing', async () => {
    const p = await newProject();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'x', type: 'auto-update', filter: { 'summary.orders.total_amount': { conditions: { $more_than: [1] } } } }, /^Property \.filter\.summary\.orders\.total_amount cannot be used in this filter/],
      [{ name: 'x', type: 'auto-update', filter: { created_at: { conditions: { $is_days_ago: [3] } } } }, /relative to the current time/],
      [{ name: 'x', type: 'auto-update', filter: { name: { conditions: { $more_than: [3] } } } }, /cannot be used on field name/],
      [{ name: 'x', type: 'auto-update', filter: { name: { conditions: { $is: ['a', 'b'] } } } }, /should be an array of one/],
      [{ name: 'x', type: 'auto-update', filter: { name: { conditions: { $regex: ['a'] } } } }, /is not a known filter operator/],
      [{ name: 'x', type: 'auto-update', filter: { junction: 'xor' } }, /junction should be equal to one of the allowed values/],
      [{ name: 'x', type: 'auto-update', filter: { name: { $is: ['a'] } } }, /should have required property 'conditions'/],
      [{ name: 'x', type: 'auto-update' }, /required property 'filter'/],
      [{ name: 'x', type: 'static' }, /required property 'customers'/],
      [{ name: 'x', type: 'static', customers: [], filter: {} }, /only for auto-update segments/],
      [{ name: 'x', type: 'passive', filter: {} }, /^Property \.type should be equal to one of the allowed values/],
    ];
    for (const [body, pattern] of cases) {
      const res = await t.request('POST', '/v1/segments', { headers: p.headers, json: body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.key, 'invalid_payload');
      assert.match(res.body.details, pattern);
    }
    assert.equal((await t.request('GET', '/v1/segments', { headers: p.headers })).body.total, 0);
  });

  test('`filters` is accepted as another name for `filter`', async () => {
    const p = await newProject();
    const res = await t.request('POST', '/v1/segments', {
      headers: p.headers,
      json: { name: 'Plural', type: 'auto-update', filters: { junction: 'and', name: { conditions: { $is: ['Zed'] } } } },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.filter, { junction: 'and', name: { conditions: { $is: ['Zed'] } } });
    const zed: Json = await p.sdk.customers.create({ name: 'Zed' });
    assert.deepEqual(await segmentIdsOf(p.sdk, zed.id), [res.body.id]);
  });

  test('GET /v1/customers?segment_id= lists the members, with the other filters and the total', async () => {
    const p = await newProject();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) ids.push(((await p.sdk.customers.create({ name, metadata: { group: name < 'c' ? 'one' : 'two' } })) as Json).id);
    const segment: Json = await p.sdk.segments.create({ name: 'Group one', type: 'auto-update', filter: { 'metadata.group': { conditions: { $is: ['one'] } } } });
    const list = await t.request('GET', `/v1/customers?segment_id=${segment.id}&order=created_at`, { headers: p.headers });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.customers.map((c: Json) => c.id),
      ids.slice(0, 2),
    );
    assert.equal(list.body.total, 2);
    const filtered = await t.request('GET', `/v1/customers?segment_id=${segment.id}&name=b`, { headers: p.headers });
    assert.deepEqual(
      filtered.body.customers.map((c: Json) => c.id),
      [ids[1]],
    );
    const unknown = await t.request('GET', '/v1/customers?segment_id=seg_unknown', { headers: p.headers });
    assert.equal(unknown.body.total, 0);
  });

  test('a large project: the first batches run in the request, the rest as a job; status reports it honestly', async () => {
    const p = await newProject();
    const inline = SYNC_BATCH * INLINE_SYNC_BATCHES;
    const total = inline + 150;
    const createdAt = (i: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString();
    const rows = Array.from({ length: total }, (_, i) => ({
      id: `cust_bulk${String(i).padStart(6, '0')}`,
      project_id: p.id,
      source_id: `bulk-${i}`,
      name: null,
      email: null,
      metadata: JSON.stringify({ n: i, even: i % 2 === 0 }),
      system_metadata: '{}',
      created_at: createdAt(i),
      updated_at: null,
      deleted_at: null,
    }));
    for (let start = 0; start < rows.length; start += 200) await t.deps.db.insertInto('customers').values(rows.slice(start, start + 200)).execute();

    const segment: Json = await p.sdk.segments.create({ name: 'Everyone', type: 'auto-update', filter: { junction: 'AND' } });
    assert.equal(segment.initial_sync_status, 'IN_PROGRESS');
    assert.equal((await membersOf(segment.id)).length, inline, 'the request checked its share only');
    // Meanwhile customer writes keep memberships true on their own.
    const late: Json = await p.sdk.customers.create({ source_id: 'late' });
    assert.deepEqual(await segmentIdsOf(p.sdk, late.id), [segment.id]);

    // Run whatever is due (other job kinds may share the worker) until the queue is empty.
    while (await t.worker.runOnce()) continue;
    const done: Json = await p.sdk.segments.get(segment.id);
    assert.equal(done.initial_sync_status, 'DONE');
    assert.ok(done.updated_at >= done.created_at);
    assert.equal((await membersOf(segment.id)).length, total + 1);
    const entered = await t.deps.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', p.id)
      .where('type', '=', 'customer.segment.entered')
      .where('entity_id', '=', segment.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(entered.n), total + 1, 'one entered event per member, none twice');
    const job = await t.deps.db.selectFrom('jobs').selectAll().where('project_id', '=', p.id).where('kind', '=', SEGMENT_SYNC_JOB).executeTakeFirstOrThrow();
    assert.equal(job.status, 'DONE');
    assert.equal(JSON.parse(job.result ?? '{}').status, 'DONE');

    // Batches count matching customers: half of this project fits in the request's share.
    const evens: Json = await p.sdk.segments.create({ name: 'Evens', type: 'auto-update', filter: { 'metadata.even': { conditions: { $is: [true] } } } });
    assert.equal(evens.initial_sync_status, 'DONE');
    assert.equal((await membersOf(evens.id)).length, Math.ceil(total / 2));
    const jobs = await t.deps.db.selectFrom('jobs').select('id').where('project_id', '=', p.id).where('kind', '=', SEGMENT_SYNC_JOB).execute();
    assert.equal(jobs.length, 1, 'no second job was needed');
  });

  test('customers written while segments are created end up exactly where their filters put them', async () => {
    const p = await newProject();
    for (let round = 0; round < 3; round++) {
      const writes: Array<Promise<unknown>> = [];
      for (let i = 0; i < 12; i++) writes.push(p.sdk.customers.create({ source_id: `race-${round}-${i}`, metadata: { round, odd: i % 2 === 1 } }));
      const segment = p.sdk.segments.create({ name: `Round ${round} odd`, type: 'auto-update', filter: { 'metadata.odd': { conditions: { $is: [true] } } } });
      writes.splice(6, 0, segment);
      const results = (await Promise.all(writes)) as Json[];
      const created: Json = results[6];
      const expected = await t.deps.db
        .selectFrom('customers')
        .select('id')
        .where('project_id', '=', p.id)
        .where('deleted_at', 'is', null)
        .where('metadata', 'like', '%"odd":true%')
        .orderBy('id')
        .execute();
      assert.deepEqual(await membersOf(created.id), expected.map((r) => r.id), `round ${round}`);
    }
  });

  test('delete: 204, memberships go; a segment a validation rule uses is 400 resource_in_use', async () => {
    const p = await newProject();
    const c: Json = await p.sdk.customers.create({ name: 'Member' });
    const segment: Json = await p.sdk.segments.create({ name: 'Temp', type: 'static', customers: [c.id] });
    const used: Json = await p.sdk.segments.create({ name: 'Used', type: 'static', customers: [c.id] });
    const rule: Json = await p.sdk.validationRules.create({ name: 'Needs segment', rules: { '1': { name: 'customer.segment', conditions: { $in: [used.id] } }, logic: '1' } });
    const inUse = await t.request('DELETE', `/v1/segments/${used.id}`, { headers: p.headers });
    assert.equal(inUse.status, 400);
    assert.equal(inUse.body.key, 'resource_in_use');
    assert.deepEqual(inUse.body.related_object_ids, [rule.id]);
    assert.equal(inUse.body.related_object_type, 'validation_rules');
    assert.equal(inUse.body.details, `Resource segment with id ${used.id} is in use by validation_rules with ids [${rule.id}]`);

    assert.equal(await p.sdk.segments.delete(segment.id), '');
    assert.equal((await sdkError(p.sdk.segments.get(segment.id))).code, 404);
    assert.deepEqual(await membersOf(segment.id), []);
    assert.deepEqual(await segmentIdsOf(p.sdk, c.id), [used.id]);
    const deleted = await t.deps.db.selectFrom('events').selectAll().where('type', '=', 'segment.deleted').where('entity_id', '=', segment.id).execute();
    assert.equal(deleted.length, 1);
    assert.equal((await t.request('DELETE', `/v1/segments/${segment.id}`, { headers: p.headers })).status, 404);

    await p.sdk.validationRules.delete(rule.id);
    assert.equal((await t.request('DELETE', `/v1/segments/${used.id}`, { headers: p.headers })).status, 204);
  });

  test('list: newest first, pages and total', async () => {
    const p = await newProject();
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) ids.push(((await p.sdk.segments.create({ name, type: 'static', customers: [] })) as Json).id);
    const first = await t.request('GET', '/v1/segments?limit=2', { headers: p.headers });
    assert.deepEqual(
      { ids: first.body.data.map((s: Json) => s.id), total: first.body.total, data_ref: first.body.data_ref },
      { ids: [ids[2], ids[1]], total: 3, data_ref: 'data' },
    );
    const second = await t.request('GET', '/v1/segments?limit=2&page=2&order=-created_at', { headers: p.headers });
    assert.deepEqual(
      second.body.data.map((s: Json) => s.id),
      [ids[0]],
    );
    assert.equal((await t.request('GET', '/v1/segments?limit=101', { headers: p.headers })).status, 400);
  });

  test('permanent deletion of a customer removes its memberships and counts them', async () => {
    const p = await newProject();
    const c: Json = await p.sdk.customers.create({ name: 'Erased', metadata: { a: 1 } });
    await p.sdk.segments.create({ name: 'S1', type: 'static', customers: [c.id] });
    await p.sdk.segments.create({ name: 'S2', type: 'auto-update', filter: { 'metadata.a': { conditions: { $is: [1] } } } });
    const record: Json = await p.sdk.customers.deletePermanently(c.id);
    assert.equal(record.data_json.segments, 2);
    const left = await t.deps.db.selectFrom('segment_members').select('segment_id').where('customer_id', '=', c.id).execute();
    assert.deepEqual(left, []);
  });

  test("another project's keys see none of it; its customers cannot be listed in this project's segments", async () => {
    const mine = await newProject();
    const theirs = await newProject();
    const c: Json = await mine.sdk.customers.create({ source_id: 'shared-source' });
    const segment: Json = await mine.sdk.segments.create({ name: 'Mine', type: 'static', customers: [c.id] });
    assert.equal((await sdkError(theirs.sdk.segments.get(segment.id))).code, 404);
    assert.equal((await sdkError(theirs.sdk.segments.delete(segment.id))).code, 404);
    assert.equal((await sdkError(theirs.sdk.segments.list(c.id))).code, 404);
    const foreign = await sdkError(theirs.sdk.segments.create({ name: 'Theirs', type: 'static', customers: [c.id] }));
    assert.equal(foreign.code, 404);
    assert.equal(foreign.resource_type, 'customer');
    const theirCustomer: Json = await theirs.sdk.customers.create({ source_id: 'shared-source' });
    const theirSegment: Json = await theirs.sdk.segments.create({ name: 'Theirs', type: 'auto-update', filter: { source_id: { conditions: { $is: ['shared-source'] } } } });
    assert.deepEqual(await membersOf(theirSegment.id), [theirCustomer.id], 'the same source_id in another project is not a member');
    const list = await t.request('GET', `/v1/customers?segment_id=${segment.id}`, { headers: theirs.headers });
    assert.equal(list.body.total, 0);
    assert.equal((await t.request('GET', '/v1/segments', { headers: theirs.headers })).body.total, 1);
    assert.deepEqual(await membersOf(segment.id), [c.id]);
  });
});
