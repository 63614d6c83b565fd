import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { listCustomers } from '../../src/store/customers.ts';
import { migrateToLatest, migratorFor } from '../../src/store/migrate.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { planOfStatements } from '../helpers/query-plans.ts';

// GET /v1/customers?q= (a Punchcard extension): prefix search by name word, e-mail, phone and source_id.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('customer search', () => {
  let t: TestApp;
  let other: { id: string; server: KeyPairOut };
  const ids: Record<string, string> = {};

  const search = async (q: string, extra = ''): Promise<{ status: number; body: Json; text: string }> =>
    t.request('GET', `/v1/customers?q=${encodeURIComponent(q)}&limit=100${extra}`);
  const found = async (q: string): Promise<string[]> => {
    const res = await search(q);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.total, res.body.customers.length, 'total counts the matches');
    return res.body.customers.map((c: Json) => c.source_id).sort();
  };

  before(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(created.status, 200, created.text);
    other = { id: created.body.id, server: created.body.server_side_key };
    const people = [
      { source_id: 'alice-1', name: 'Alice Smith', email: 'Alice.Smith@Example.com', phone: '+44 7700 900123' },
      { source_id: 'bob-1', name: 'Bob Alister-Jones', email: 'bob@example.org', phone: '+1 (555) 010-2000' },
      { source_id: 'zoe', name: 'Zoë Ålund', email: 'zoe@example.net', phone: null },
      { source_id: 'wild%_\\card', name: '100% Pure_Name', email: 'percent%@example.com', phone: null },
      { source_id: 'nobody', name: null, email: null, phone: null },
    ];
    for (const person of people) {
      const res = await t.request('POST', '/v1/customers', { json: person });
      assert.equal(res.status, 200, res.text);
      ids[person.source_id] = res.body.id;
    }
    // Another project's Alice must never show up in this project's search.
    const theirs = await t.request('POST', '/v1/customers', {
      headers: t.serverHeaders(other.server),
      json: { source_id: 'alice-other', name: 'Alice Other', email: 'alice@other.example', phone: '+44 7700 111111' },
    });
    assert.equal(theirs.status, 200, theirs.text);
  });
  after(async () => t.close());

  test('a name matches from the start of any word, ignoring case and accents', async () => {
    assert.deepEqual(await found('ali'), ['alice-1', 'bob-1']);
    assert.deepEqual(await found('ALICE'), ['alice-1']);
    assert.deepEqual(await found('smi'), ['alice-1']);
    assert.deepEqual(await found('alice sm'), ['alice-1']);
    assert.deepEqual(await found('jones'), ['bob-1']);
    assert.deepEqual(await found('zoe'), ['zoe']);
    assert.deepEqual(await found('alu'), ['zoe']);
    assert.deepEqual(await found('lice'), [], 'not from the middle of a word');
  });

  test('an e-mail, a phone number and a source_id match by prefix', async () => {
    assert.deepEqual(await found('alice.smith@'), ['alice-1']);
    assert.deepEqual(await found('BOB@EXAMPLE'), ['bob-1']);
    assert.deepEqual(await found('+44770'), ['alice-1']);
    assert.deepEqual(await found('+44 7700 9'), ['alice-1']);
    assert.deepEqual(await found('+1555'), ['bob-1']);
    assert.deepEqual(await found('nobo'), ['nobody']);
    assert.deepEqual(await found('NOBO'), [], 'source_ids match as written');
  });

  test("another project's customers never appear, and it finds its own", async () => {
    assert.deepEqual(await found('alice@other'), []);
    assert.deepEqual(await found('+447700111'), []);
    const theirs = await t.request('GET', '/v1/customers?q=ali', { headers: t.serverHeaders(other.server) });
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(
      theirs.body.customers.map((c: Json) => c.source_id),
      ['alice-other'],
    );
  });

  test('wildcard characters are literal, blank is no search, too long is refused', async () => {
    assert.deepEqual(await found('%'), []);
    assert.deepEqual(await found('_'), []);
    assert.deepEqual(await found('\\'), []);
    assert.deepEqual(await found('100%'), ['wild%_\\card']);
    assert.deepEqual(await found('100% pure_'), ['wild%_\\card']);
    assert.deepEqual(await found('percent%@'), ['wild%_\\card']);
    assert.deepEqual(await found('wild%_\\'), ['wild%_\\card']);
    assert.deepEqual(await found("'; drop table customers; --"), []);
    const blank = await search('   ');
    assert.equal(blank.status, 200, blank.text);
    assert.equal(blank.body.total, 5);
    const empty = await t.request('GET', '/v1/customers?q=');
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.total, 5);
    const long = await search('a'.repeat(256));
    assert.equal(long.status, 400, long.text);
    assert.equal(long.body.key, 'invalid_query_params');
    const longest = await search('a'.repeat(255));
    assert.equal(longest.status, 200, longest.text);
    assert.equal(longest.body.total, 0);
    for (const odd of ['\u{10FFFF}', '\u{1F600}', 'ß', '\u0000x', '\uffff']) {
      const res = await search(odd);
      assert.ok(res.status < 500, `${JSON.stringify(odd)}: ${res.status} ${res.text}`);
    }
  });

  test('it combines with the other filters, pages and sorts as the list does', async () => {
    const paged = await t.request('GET', '/v1/customers?q=ali&limit=1&order=source_id');
    assert.equal(paged.status, 200, paged.text);
    assert.equal(paged.body.total, 2);
    assert.equal(paged.body.has_more, true);
    assert.equal(paged.body.customers[0].source_id, 'alice-1');
    const second = await t.request('GET', '/v1/customers?q=ali&limit=1&page=2&order=source_id');
    assert.equal(second.body.customers[0].source_id, 'bob-1');
    const byEmail = await t.request('GET', `/v1/customers?q=ali&email=${encodeURIComponent('bob@example.org')}`);
    assert.deepEqual(byEmail.body.customers.map((c: Json) => c.source_id), ['bob-1']);
  });

  test('changes, deletion and erasure are followed', async () => {
    const renamed = await t.request('PUT', `/v1/customers/${ids['alice-1']}`, { json: { name: 'Alicia Brown', email: 'ab@example.com', phone: '0201' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(await found('smi'), []);
    assert.deepEqual(await found('bro'), ['alice-1']);
    assert.deepEqual(await found('alice.smith'), []);
    assert.deepEqual(await found('ab@'), ['alice-1']);
    assert.deepEqual(await found('+4477'), []);
    assert.deepEqual(await found('020'), ['alice-1']);
    const cleared = await t.request('PUT', `/v1/customers/${ids['alice-1']}`, { json: { name: null } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual(await found('bro'), []);
    const deleted = await t.request('DELETE', `/v1/customers/${ids['bob-1']}`);
    assert.equal(deleted.status, 204, deleted.text);
    assert.deepEqual(await found('jones'), []);
    const erased = await t.request('POST', `/v1/customers/${ids['zoe']}/permanent-deletion`);
    assert.equal(erased.status, 200, erased.text);
    assert.deepEqual(await found('zoe'), []);
    const parts = await t.db.db.selectFrom('customer_name_parts').select('name_part').where('project_id', '=', t.projectId).where('customer_id', '=', ids['zoe']!).execute();
    assert.deepEqual(parts, [], 'an erased customer leaves no name behind');
  });

  test('every branch reads an index, never a scan of the customers', async () => {
    const plans = await planOfStatements(t.db, (db) =>
      listCustomers(db, { projectId: t.projectId, limit: 10, offset: 0, sort: 'created_at', descending: true, search: '+44 ali' }),
    );
    for (const plan of plans) {
      if (t.db.dialect === 'sqlite') {
        assert.doesNotMatch(plan, /SCAN (customers|s|p|customer_name_parts)\b(?! USING)/, plan);
        // Led by what the search found, not by a walk through every customer of the project in list order.
        assert.doesNotMatch(plan, /customers_created|customers_last_change|customers_source_order/, plan);
        for (const index of [/customer_name_parts/, /customers_email_key/, /customers_phone_key/, /customers_source_id/]) assert.match(plan, index, plan);
      } else {
        // With a handful of rows PostgreSQL may read any index that starts with project_id and filter
        // the rest; what must never happen is a scan of a whole table.
        assert.doesNotMatch(plan, /Seq Scan/, plan);
        for (const key of [/name_part >=/, /email_key >=/, /phone_key >=/, /source_id\)::text >=/]) assert.match(plan, key, plan);
      }
    }
  });
});

describe('customers written before the search existed (migration 0044)', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
    // Back to the schema before the migration, customers written as they were then, and forward again.
    const down = await migratorFor(t.db.db).migrateTo('2026-12-07-0043-project-locale');
    if (down.error) throw down.error;
    const old = (id: string, sourceId: string, name: string | null, email: string | null, phone: string | null) =>
      sql`insert into customers (id, project_id, source_id, name, email, phone, metadata, system_metadata, created_at)
        values (${id}, ${t.projectId}, ${sourceId}, ${name}, ${email}, ${phone}, '{}', '{}', ${`2026-01-0${id.slice(-1)}T00:00:00.000Z`})`.execute(t.db.db);
    await old('cust_old1', 'old-1', 'Émile Zola', 'Emile@Example.com', '+33 1 23 45 67 89');
    await old('cust_old2', 'old-2', null, null, null);
    await migrateToLatest(t.db.db);
  });
  after(async () => t.close());

  test('they are found like any other', async () => {
    const found = async (q: string) => (await t.request('GET', `/v1/customers?q=${encodeURIComponent(q)}`)).body.customers.map((c: Json) => c.id);
    assert.deepEqual(await found('emile'), ['cust_old1']);
    assert.deepEqual(await found('zol'), ['cust_old1']);
    assert.deepEqual(await found('EMILE@'), ['cust_old1']);
    assert.deepEqual(await found('+331 23'), ['cust_old1']);
    assert.deepEqual(await found('old-2'), ['cust_old2']);
  });
});
