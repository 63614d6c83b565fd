import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';
import type { LoyaltyBucketsTable, VoucherTransactionsTable } from './schema.ts';

// The balance ledger of gift cards and loyalty cards: signed transactions, and for loyalty cards the
// buckets that hold points by expiry date. Balances live on the voucher row and change only through the
// conditional statements below; the ledger records every change next to them.

export type BucketRow = Selectable<LoyaltyBucketsTable>;
export type TransactionRow = Selectable<VoucherTransactionsTable>;

const transactionInsert = prepared((db, p: { row: Insertable<VoucherTransactionsTable> }) => db.insertInto('voucher_transactions').values(p.row));

export async function insertTransaction(db: Executor, row: Insertable<VoucherTransactionsTable>): Promise<void> {
  await transactionInsert.run(db, { row });
}

const bucketInsert = prepared((db, p: { row: Insertable<LoyaltyBucketsTable> }) => db.insertInto('loyalty_buckets').values(p.row));

export async function insertBucket(db: Executor, row: Insertable<LoyaltyBucketsTable>): Promise<void> {
  await bucketInsert.run(db, { row });
}

/** Adds points to an existing active bucket (a refund putting points back where they came from). */
export async function refillBucket(db: Executor, projectId: string, bucketId: string, points: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('loyalty_buckets')
    .set({ points: sql<number>`points + ${points}`, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', bucketId)
    .where('status', '=', 'ACTIVE')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

const spendable = prepared((db, p: { projectId: string; voucherId: string; today: string }) =>
  db
    .selectFrom('loyalty_buckets')
    .selectAll()
    .where('project_id', '=', p.projectId)
    .where('voucher_id', '=', p.voucherId)
    .where('status', '=', 'ACTIVE')
    .where('points', '>', 0)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>=', p.today)]))
    .orderBy(sql`case when expires_at is null then 1 else 0 end`)
    .orderBy('expires_at')
    .orderBy('id'),
);

/**
 * Spendable buckets of a card, soonest expiry first and never-expiring last (the order points are spent
 * in, loyalty reference 2.8.2). Buckets that expired on or before `today` are not spendable even if the
 * nightly job has not marked them yet.
 */
export async function spendableBuckets(db: Executor, projectId: string, voucherId: string, today: string): Promise<BucketRow[]> {
  return spendable.all(db, { projectId, voucherId, today });
}

/** Takes points out of one bucket, only if it still holds them. */
export async function drainBucket(db: Executor, projectId: string, bucketId: string, points: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('loyalty_buckets')
    .set({ points: sql<number>`points - ${points}`, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', bucketId)
    .where('points', '>=', points)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface NextExpiration {
  date: string;
  points: number;
}

const activeExpirations = prepared((db, p: { projectId: string; voucherIds: string[]; today: string }) =>
  db
    .selectFrom('loyalty_buckets')
    .select(['voucher_id', 'expires_at'])
    .select((eb) => eb.fn.sum<number>('points').as('points'))
    .where('project_id', '=', p.projectId)
    .where('voucher_id', 'in', p.voucherIds)
    .where('status', '=', 'ACTIVE')
    .where('points', '>', 0)
    .where('expires_at', 'is not', null)
    .where('expires_at', '>=', p.today)
    .groupBy(['voucher_id', 'expires_at']),
);

/** For each card, the earliest expiry date among its active buckets holding points, and how many expire then. */
export async function nextExpirations(
  db: Executor,
  projectId: string,
  voucherIds: readonly string[],
  today: string,
): Promise<Map<string, NextExpiration>> {
  const out = new Map<string, NextExpiration>();
  if (voucherIds.length === 0) return out;
  const rows = await activeExpirations.all(db, { projectId, voucherIds: [...new Set(voucherIds)], today });
  for (const row of rows) {
    if (row.expires_at === null) continue;
    const current = out.get(row.voucher_id);
    if (!current || row.expires_at < current.date) out.set(row.voucher_id, { date: row.expires_at, points: Number(row.points) });
  }
  return out;
}
