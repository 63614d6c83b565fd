import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { addToTierSummary, findTierSummaries } from '../../src/store/promotion-tiers.ts';
import { createTestDatabase, writtenBefore, type TestDatabase } from '../helpers/database.ts';

// Promotion tier summaries moved from three counters on the tier row to promotion_tier_counts, spread over
// shards (migration 0030). A summary written before the migration must come out unchanged, and later
// redemptions add to it whatever shard they land on; tiers never redeemed have no count rows.

const BEFORE = '2026-11-26-0029-rule-assignments-by-object';

async function insertOldTier(handle: TestDatabase, id: string, projectId: string, counters: [number, number, number]): Promise<void> {
  await sql`insert into promotion_tiers (id, project_id, campaign_id, name, banner, action, metadata, hierarchy, active, recurring,
      redeemed_count, orders_total_amount, orders_total_discount_amount, created_at)
    values (${id}, ${projectId}, 'camp_1', 'Tier', null, '{}', '{}', 1, ${true}, ${false}, ${counters[0]}, ${counters[1]}, ${counters[2]}, '2026-01-01T00:00:00.000Z')`.execute(handle.db);
}

describe('promotion tier counts (migration 0030)', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    await writtenBefore(handle, BEFORE, async () => {
      await insertOldTier(handle, 'promo_used', 'proj_a', [7, 70_000, 3_500]);
      await insertOldTier(handle, 'promo_unused', 'proj_a', [0, 0, 0]);
      await insertOldTier(handle, 'promo_other', 'proj_b', [2, 200, 20]);
    });
  });
  after(async () => handle.close());

  test('summaries written on the tier rows come out of the count rows unchanged', async () => {
    const a = await findTierSummaries(handle.db, 'proj_a', ['promo_used', 'promo_unused']);
    assert.deepEqual(a.get('promo_used'), { redeemed: 7, ordersAmount: 70_000, discountAmount: 3_500 });
    assert.equal(a.has('promo_unused'), false, 'a tier never redeemed has no count rows');
    const b = await findTierSummaries(handle.db, 'proj_b', ['promo_other', 'promo_used']);
    assert.deepEqual([...b.keys()], ['promo_other']);
    const columns = await sql<{ n: number }>`select count(*) as n from promotion_tiers where id = 'promo_used'`.execute(handle.db);
    assert.equal(Number(columns.rows[0]?.n), 1, 'the tier itself stays');
  });

  test('later redemptions and rollbacks add to the summary whatever shard they land on', async () => {
    for (let i = 0; i < 40; i++) await addToTierSummary(handle.db, 'proj_a', 'promo_used', `r_request_${i}`, { redeemed: 1, orderAmount: 100, discountAmount: 10 });
    await addToTierSummary(handle.db, 'proj_a', 'promo_used', 'rr_rollback_1', { redeemed: -1, orderAmount: -100, discountAmount: -10 });
    const rows = await handle.db.selectFrom('promotion_tier_counts').select('shard').where('tier_id', '=', 'promo_used').execute();
    assert.ok(rows.length > 1, 'spread over several rows');
    const summary = (await findTierSummaries(handle.db, 'proj_a', ['promo_used'])).get('promo_used');
    assert.deepEqual(summary, { redeemed: 46, ordersAmount: 73_900, discountAmount: 3_890 });
  });
});
