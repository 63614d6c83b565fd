import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readTogether } from '../../src/store/combined-reads.ts';
import { lockedAmountsOf, lockedByOthersQuery } from '../../src/store/redemption-sessions.ts';
import { addToTierSummary, findTierSummaries, tierSummariesOf, tierSummariesQuery } from '../../src/store/promotion-tiers.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// Reads sent together (one statement on PostgreSQL, each query's rows aggregated to JSON) must answer what
// each query answers on its own: the same rows, parameters kept apart, an empty result as no rows, and
// counts that read the same through Number().

describe('reads sent together', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
  });
  after(async () => handle.close());

  test('the reservations and the tier summaries read together are those read one by one', async () => {
    const db = handle.db;
    const projectId = 'proj_combined_1';
    const now = '2026-11-28T10:00:00.000Z';
    const lock = (session: string, voucher: string, kind: string, amount: number, expires: string) =>
      db
        .insertInto('redemption_locks')
        .values({ project_id: projectId, session_key: session, voucher_id: voucher, kind: kind as 'quantity', amount, expires_at: expires, created_at: now })
        .execute();
    await lock('s1', 'v_a', 'quantity', 1, '2026-11-28T11:00:00.000Z');
    await lock('s2', 'v_a', 'quantity', 1, '2026-11-28T11:00:00.000Z');
    await lock('s2', 'v_a', 'credits', 2_500, '2026-11-28T11:00:00.000Z');
    await lock('s3', 'v_b', 'points', 40, '2026-11-28T09:00:00.000Z'); // expired
    await addToTierSummary(db, projectId, 'promo_t1', 'r_1', { redeemed: 1, orderAmount: 10_000, discountAmount: 900 });
    await addToTierSummary(db, projectId, 'promo_t1', 'r_2', { redeemed: 1, orderAmount: 5_000, discountAmount: 450 });

    const [locks, summaries, none] = await readTogether(db, [
      lockedByOthersQuery(db, projectId, ['v_a', 'v_b'], 's1', now),
      tierSummariesQuery(db, projectId, ['promo_t1', 'promo_t2']),
      tierSummariesQuery(db, 'proj_combined_other', ['promo_t1']),
    ]);
    assert.deepEqual([...lockedAmountsOf(locks ?? [])], [['v_a', { quantity: 1, credits: 2_500, points: 0 }]], "s1's own lock and the expired one are left out");
    assert.deepEqual([...tierSummariesOf(summaries ?? [])], [['promo_t1', { redeemed: 2, ordersAmount: 15_000, discountAmount: 1_350 }]]);
    assert.deepEqual(tierSummariesOf(summaries ?? []), await findTierSummaries(db, projectId, ['promo_t1', 'promo_t2']));
    assert.deepEqual(none, [], 'a query with no rows answers none');
  });
});
