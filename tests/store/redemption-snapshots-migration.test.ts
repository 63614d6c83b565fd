import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { findRedemption } from '../../src/store/redemption-records.ts';
import { redemptionCounts } from '../../src/store/redemption-facts.ts';
import { createTestDatabase, writtenBefore, type TestDatabase } from '../helpers/database.ts';

// Migration 0023 moves the records' JSON snapshots to redemption_snapshots and keeps the order amounts
// as columns. Records written before it must read back the same, and their amounts must still count.

const BEFORE = '2026-11-21-0022-redemption-list-indexes';
const ORDER = { id: 'ord_1', amount: 12000, total_discount_amount: 1500, total_applied_discount_amount: 1200, items: [] };
const CUSTOMER = { id: 'cust_1', source_id: 'then', name: 'Then Name', object: 'customer' };

describe('migration 0023: redemption snapshots in a side table', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    await writtenBefore(handle, BEFORE, async () => {
      // A record as the engine wrote it before the migration: snapshots in the row.
      await sql`insert into redemptions (id, project_id, object, result, status, customer_id, metadata, related_object_type, related_object_id,
          campaign_id, channel, order_snapshot, customer_snapshot, voucher_snapshot, promotion_tier_snapshot, reward_snapshot, created_at)
        values ('r_old', 'proj_m', 'redemption', 'SUCCESS', 'SUCCEEDED', 'cust_1', '{}', 'voucher', 'v_1',
          'camp_1', '{"channel_type":"API"}', ${JSON.stringify(ORDER)}, ${JSON.stringify(CUSTOMER)}, '{"code":"OLD"}', null, null, '2026-01-01T00:00:00.000Z')`.execute(handle.db);
    });
  });
  after(async () => handle.close());

  test('a record written before reads back whole, snapshots included', async () => {
    const row = await findRedemption(handle.db, 'proj_m', 'r_old');
    assert.ok(row);
    assert.deepEqual(JSON.parse(row.order_snapshot ?? 'null'), ORDER);
    assert.deepEqual(JSON.parse(row.customer_snapshot ?? 'null'), CUSTOMER);
    assert.deepEqual(JSON.parse(row.voucher_snapshot ?? 'null'), { code: 'OLD' });
    assert.equal(row.promotion_tier_snapshot, null);
    assert.equal(row.order_amount, 12000);
    assert.equal(row.order_total_discount_amount, 1500);
    assert.equal(row.order_total_applied_discount_amount, 1200);
  });

  test('its order amounts count in the rule facts', async () => {
    assert.deepEqual(await redemptionCounts(handle.db, { projectId: 'proj_m', campaignId: 'camp_1' }), { count: 1, amount: 12000, discount: 1200 });
  });

  test('the records table no longer holds the snapshots', async () => {
    // (Asked, not introspected: introspection reads every schema's catalog, which other PostgreSQL test
    // files change while this one runs.)
    for (const column of ['order_snapshot', 'customer_snapshot', 'voucher_snapshot', 'promotion_tier_snapshot', 'reward_snapshot']) {
      await assert.rejects(sql`select ${sql.ref(column)} from redemptions`.execute(handle.db), `${column} is still a column`);
    }
    const { rows } = await sql<{ n: number }>`select count(order_amount) as n from redemptions`.execute(handle.db);
    assert.equal(Number(rows[0]?.n), 1);
  });
});
