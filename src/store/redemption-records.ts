import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { RedemptionsTable } from './schema.ts';

// Redemption records (`r_…`, `rf_…`) and the customer redemption counters they move. Records are written
// once and never edited except by a rollback marking them; counters move by SQL increments only.

export type RedemptionRow = Selectable<RedemptionsTable>;

export async function insertRedemption(db: Executor, row: Insertable<RedemptionsTable>): Promise<void> {
  await db.insertInto('redemptions').values(row).execute();
}

export async function findRedemption(db: Executor, projectId: string, id: string): Promise<RedemptionRow | undefined> {
  return db.selectFrom('redemptions').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

/**
 * One redemption attempt of a customer: `total_redeemed` and `total_succeeded` or `total_failed` go up
 * by one (promotions reference 9.3), in one statement.
 */
export async function countCustomerRedemption(db: Executor, projectId: string, customerId: string, result: 'SUCCESS' | 'FAILURE'): Promise<void> {
  await db
    .updateTable('customers')
    .set({
      redemptions_total_redeemed: sql<number>`redemptions_total_redeemed + 1`,
      ...(result === 'SUCCESS'
        ? { redemptions_total_succeeded: sql<number>`redemptions_total_succeeded + 1` }
        : { redemptions_total_failed: sql<number>`redemptions_total_failed + 1` }),
    })
    .where('project_id', '=', projectId)
    .where('id', '=', customerId)
    .execute();
}

/**
 * Adds a redemption to an order's `redemptions` map. The caller holds the order row (it wrote the order
 * in the same transaction), so the map is read and written back without a lost update.
 */
export async function addOrderRedemption(db: Executor, projectId: string, orderId: string, redemptionId: string, entry: Record<string, unknown>): Promise<void> {
  const row = await db.selectFrom('orders').select('redemptions').where('project_id', '=', projectId).where('id', '=', orderId).executeTakeFirst();
  if (!row) throw new Error(`order ${orderId} vanished inside the transaction that wrote it`);
  const map = JSON.parse(row.redemptions) as Record<string, unknown>;
  map[redemptionId] = entry;
  await db.updateTable('orders').set({ redemptions: JSON.stringify(map) }).where('project_id', '=', projectId).where('id', '=', orderId).execute();
}
