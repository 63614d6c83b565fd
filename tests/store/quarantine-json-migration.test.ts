import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { writtenBefore } from '../helpers/database.ts';

// JSON the API accepted before free-form values had limits can break every reader of a column: SQLite's
// JSON functions refuse nesting deeper than 1000 levels, PostgreSQL's jsonb refuses NUL and lone
// surrogate escapes. Migration 0026 quarantines such documents (and free-form ones over 64 KiB); readers
// also skip a document their database cannot read, so a row written any other way is not fatal either.

const BEFORE = '2026-11-22-0025-redemption-counts';
const NOW = '2026-03-02T10:00:00.000Z';

function nested(levels: number, leaf: unknown): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('unreadable JSON written before the limits', () => {
  let t: TestApp;
  const dialect = () => t.db.dialect;
  /** A metadata document this database's JSON functions cannot read; `x: 1` so a filter would match it. */
  const poison = () => JSON.stringify({ x: 1, deep: dialect() === 'sqlite' ? nested(1100, 1) : nested(70, 'a\u0000b') });
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startTestApp({ clockStart: NOW });
  });
  after(async () => t.close());

  async function ok(method: string, path: string, json?: unknown): Promise<Record<string, unknown> & { id: string }> {
    const res = await t.request(method, path, json === undefined ? {} : { json });
    assert.equal(res.status, 200, `${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.body;
  }

  /** Two customers, two vouchers, a redemption of each: one set to be poisoned, one healthy. */
  async function seed(tag: string): Promise<void> {
    for (const name of ['bad', 'good']) {
      const customer = await ok('POST', '/v1/customers', { source_id: `${tag}-${name}`, metadata: { x: 1 } });
      ids[`${tag}-${name}-customer`] = customer.id;
      await ok('POST', `/v1/vouchers/${`${tag}-${name}`.toUpperCase()}`, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata: { x: 1 } });
      const redeemed = await ok('POST', '/v1/redemptions', {
        redeemables: [{ object: 'voucher', id: `${tag}-${name}`.toUpperCase() }],
        order: { amount: 1000 },
        customer: { id: customer.id },
        metadata: { x: 1 },
      });
      ids[`${tag}-${name}-redemption`] = (redeemed.redemptions as Array<{ id: string }>)[0]?.id as string;
    }
  }

  /** Writes the poison straight into the rows of the `bad` set, as an older version would have stored it. */
  async function poisonRows(tag: string): Promise<void> {
    const db = t.db.db;
    const text = poison();
    await sql`update vouchers set metadata = ${text} where code = ${`${tag}-bad`.toUpperCase()}`.execute(db);
    await sql`update customers set metadata = ${text} where id = ${ids[`${tag}-bad-customer`]}`.execute(db);
    await sql`update redemptions set metadata = ${text} where id = ${ids[`${tag}-bad-redemption`]}`.execute(db);
    await sql`update redemption_snapshots set customer_snapshot = ${text} where redemption_id = ${ids[`${tag}-bad-redemption`]}`.execute(db);
  }

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      // until no job is due
    }
  }

  /** Every reader the attack broke answers, and a metadata filter finds exactly the healthy rows. */
  async function readersWork(tag: string): Promise<void> {
    const vouchers = await ok('GET', '/v1/vouchers?filters[metadata.x][conditions][$is]=1&limit=100');
    const codes = (vouchers.vouchers as Array<{ code: string }>).map((v) => v.code).filter((c) => c.startsWith(tag.toUpperCase()));
    assert.deepEqual(codes, [`${tag}-good`.toUpperCase()]);
    const redemptions = await ok('GET', '/v1/redemptions?filters[metadata.x][conditions][$is]=1&limit=100');
    const found = (redemptions.redemptions as Array<{ id: string }>).map((r) => r.id);
    assert.ok(found.includes(ids[`${tag}-good-redemption`] as string));
    assert.ok(!found.includes(ids[`${tag}-bad-redemption`] as string));
    await ok('GET', '/v1/customers?limit=100');
    await ok('GET', `/v1/customers/${ids[`${tag}-bad-customer`]}/activity`);
    await ok('GET', `/v1/customers/${ids[`${tag}-bad-customer`]}/activities`);
    await ok('GET', `/v1/redemptions/${ids[`${tag}-bad-redemption`]}`);
    for (const exported of ['voucher', 'customer', 'redemption']) {
      const fields = exported === 'redemption' ? ['id', 'customer_name', 'metadata.x'] : ['id', 'metadata.x'];
      const created = await ok('POST', '/v1/exports', { exported_object: exported, parameters: { fields, filters: { 'metadata.x': { conditions: { $is: [1] } } } } });
      await runJobs();
      const done = await ok('GET', `/v1/exports/${created.id}`);
      assert.equal(done.status, 'DONE', `${exported} export: ${JSON.stringify(done)}`);
    }
  }

  test('the migration quarantines the originals, leaves readable rows, and every reader works again', async () => {
    await seed('old');
    const big = JSON.stringify({ x: 1, pad: 'p'.repeat(70_000) });
    const loneSurrogate = JSON.stringify({ city: 'a\udc00b' });
    const healthyEvents = await t.db.db.selectFrom('events').select(['id', 'data']).where('customer_id', '=', ids['old-bad-customer'] as string).execute();
    const poisonedEvent = healthyEvents[0] as { id: string; data: string };
    await writtenBefore(t.db, BEFORE, async () => {
      await poisonRows('old');
      await sql`update customers set metadata = ${big}, address = ${loneSurrogate} where id = ${ids['old-good-customer']}`.execute(t.db.db);
      // A log row keeps its shape: only the unreadable part goes.
      const data = JSON.parse(poisonedEvent.data) as Record<string, unknown>;
      await sql`update events set data = ${JSON.stringify({ ...data, note: 'x\u0000y', deep: nested(1100, 'end') })} where id = ${poisonedEvent.id}`.execute(t.db.db);
    });

    const quarantined = await sql<{ table_name: string; row_id: string; column_name: string; reason: string; original: string }>`
      select table_name, row_id, column_name, reason, original from quarantined_json where project_id = ${t.projectId} order by table_name, column_name, row_id`.execute(t.db.db);
    const summary = quarantined.rows.map((r) => `${r.table_name}.${r.column_name} ${r.row_id}`);
    const badVoucher = await t.db.db.selectFrom('vouchers').select(['id', 'metadata']).where('code', '=', 'OLD-BAD').executeTakeFirstOrThrow();
    assert.deepEqual(
      summary,
      [
        `customers.address ${ids['old-good-customer']}`,
        `customers.metadata ${ids['old-bad-customer']}`,
        `customers.metadata ${ids['old-good-customer']}`,
        `events.data ${poisonedEvent.id}`,
        `redemption_snapshots.customer_snapshot ${ids['old-bad-redemption']}`,
        `redemptions.metadata ${ids['old-bad-redemption']}`,
        `vouchers.metadata ${badVoucher.id}`,
      ].sort(),
    );
    const reasonOf = (table: string, column: string, id: string) => quarantined.rows.find((r) => r.table_name === table && r.column_name === column && r.row_id === id) as { reason: string; original: string };
    assert.match(reasonOf('customers', 'metadata', ids['old-good-customer'] as string).reason, /^\d+ bytes, more than the 65536 allowed$/);
    assert.match(reasonOf('customers', 'address', ids['old-good-customer'] as string).reason, /lone UTF-16 surrogate/);
    assert.match(reasonOf('vouchers', 'metadata', badVoucher.id).reason, dialect() === 'sqlite' ? /nested 1101 levels deep/ : /NUL character/);
    // The original is kept byte for byte; the row holds a readable replacement.
    assert.equal(reasonOf('vouchers', 'metadata', badVoucher.id).original, poison());
    assert.equal(badVoucher.metadata, '{}');
    const goodCustomer = await ok('GET', `/v1/customers/${ids['old-good-customer']}`);
    assert.deepEqual([goodCustomer.metadata, goodCustomer.address], [{}, null]);
    const event = await t.db.db.selectFrom('events').select('data').where('id', '=', poisonedEvent.id).executeTakeFirstOrThrow();
    const repaired = JSON.parse(event.data) as Record<string, unknown>;
    assert.equal(repaired.note, 'xy');
    assert.deepEqual({ ...repaired, note: undefined, deep: undefined }, { ...JSON.parse(poisonedEvent.data), note: undefined, deep: undefined });
    // Healthy rows are untouched.
    const goodVoucher = await ok('GET', '/v1/vouchers/OLD-GOOD');
    assert.deepEqual(goodVoucher.metadata, { x: 1 });

    await readersWork('old');
  });

  test('lists and exports skip a row their database cannot read, written after the migration', async () => {
    await seed('new');
    await poisonRows('new');
    await readersWork('new');
  });
});
