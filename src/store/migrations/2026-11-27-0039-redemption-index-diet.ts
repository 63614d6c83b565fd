import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Every secondary index of `redemptions` is written by every redemption (three rows for a stacked one: two
// children and their parent), and on SQLite each index touched costs whole pages of WAL. These five were
// used by no query, or duplicated an index the same query can walk:
// - redemptions_voucher_code, redemptions_tracking, redemptions_customer_id (project_id, column, id) served
//   the list sorted by those columns; the list now sorts by coalesce(column, '') — as exports already
//   did — and walks export_redemptions_voucher_code / _tracking_id / _customer_id instead. Sorting NULL as
//   '' also makes both databases put records without a value in the same place (PostgreSQL sorted NULLs
//   last, SQLite first).
// - redemptions_order (project_id, order_id) and redemptions_rollback_of (project_id, rollback_of): no
//   statement filters or sorts by either column (an order lists its redemptions in its own row; a
//   rollback's target is read by id).
// Four more keep their queries but leave out the rows no query looks for there: every statement that reads
// them compares the column with a value, which both databases take as proof that it is not NULL. A
// stacked redemption's parent row has no campaign and no voucher, so it enters none of the first three.
// redemptions_parent also gains the id: children are read in id order, and without it both databases
// preferred walking the project's whole export_redemptions_id for that order.
// Measured on a stacked redemption (1 voucher + 1 promotion tier, 5-item order, SQLite; WAL frames of
// 4 KiB per redemption): 93.6 before, 81.9 after the drops, 76.8 with the narrowed indexes (WAL bytes 386 KB → 316 KB).
// tests/store/redemption-indexes.test.ts names the query each remaining index serves.

const DROPPED = [
  { name: 'redemptions_voucher_code', columns: ['project_id', 'voucher_code', 'id'] },
  { name: 'redemptions_tracking', columns: ['project_id', 'tracking_id', 'id'] },
  { name: 'redemptions_customer_id', columns: ['project_id', 'customer_id', 'id'] },
  { name: 'redemptions_order', columns: ['project_id', 'order_id'] },
  { name: 'redemptions_rollback_of', columns: ['project_id', 'rollback_of'] },
] as const;

const NARROWED = [
  { name: 'redemptions_campaign', column: 'campaign_name', before: ['project_id', 'campaign_name', 'created_at', 'id', 'result'], after: ['project_id', 'campaign_name', 'created_at', 'id', 'result'] },
  { name: 'redemptions_campaign_id', column: 'campaign_id', before: ['project_id', 'campaign_id', 'created_at'], after: ['project_id', 'campaign_id', 'created_at'] },
  { name: 'redemptions_voucher', column: 'voucher_id', before: ['project_id', 'voucher_id', 'created_at', 'id'], after: ['project_id', 'voucher_id', 'created_at', 'id'] },
  { name: 'redemptions_parent', column: 'parent_id', before: ['project_id', 'parent_id'], after: ['project_id', 'parent_id', 'id'] },
] as const;

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  for (const { name } of DROPPED) await db.schema.dropIndex(name).ifExists().execute();
  for (const { name, column, after } of NARROWED) {
    await db.schema.dropIndex(name).ifExists().execute();
    await db.schema.createIndex(name).on('redemptions').columns([...after]).where(sql<boolean>`${sql.ref(column)} is not null`).execute();
  }
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const { name, columns } of DROPPED) await db.schema.createIndex(name).ifNotExists().on('redemptions').columns([...columns]).execute();
  for (const { name, before } of NARROWED) {
    await db.schema.dropIndex(name).ifExists().execute();
    await db.schema.createIndex(name).on('redemptions').columns([...before]).execute();
  }
}
