import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// A promotion tier's summary (redemptions, order amounts, discounts) was three counters on the tier row,
// updated by every redemption of the tier in the middle of its transaction: on PostgreSQL every
// concurrent redemption of a tier then waited for that one row lock (331 of 448 sampled busy connections
// in the benchmark). The counters move to promotion_tier_counts, spread over 16 rows per tier (`shard`,
// chosen per request) and written last in the transaction; a summary is their sum. The tier row is left
// with what defines the tier, which changes only when the tier is edited. Existing summaries go to shard 0.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('promotion_tier_counts')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('tier_id', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('redeemed', 'bigint', (c) => c.notNull())
    .addColumn('orders_amount', 'bigint', (c) => c.notNull())
    .addColumn('discount_amount', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('promotion_tier_counts_pkey', ['project_id', 'tier_id', 'shard'])
    .execute();
  await sql`insert into promotion_tier_counts (project_id, tier_id, shard, redeemed, orders_amount, discount_amount)
    select project_id, id, 0, redeemed_count, orders_total_amount, orders_total_discount_amount from promotion_tiers
    where redeemed_count <> 0 or orders_total_amount <> 0 or orders_total_discount_amount <> 0`.execute(db);
  for (const column of ['redeemed_count', 'orders_total_amount', 'orders_total_discount_amount']) {
    await db.schema.alterTable('promotion_tiers').dropColumn(column).execute();
  }
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const column of ['redeemed_count', 'orders_total_amount', 'orders_total_discount_amount']) {
    await db.schema.alterTable('promotion_tiers').addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  }
  await sql`update promotion_tiers set
      redeemed_count = coalesce((select sum(redeemed) from promotion_tier_counts c where c.project_id = promotion_tiers.project_id and c.tier_id = promotion_tiers.id), 0),
      orders_total_amount = coalesce((select sum(orders_amount) from promotion_tier_counts c where c.project_id = promotion_tiers.project_id and c.tier_id = promotion_tiers.id), 0),
      orders_total_discount_amount = coalesce((select sum(discount_amount) from promotion_tier_counts c where c.project_id = promotion_tiers.project_id and c.tier_id = promotion_tiers.id), 0)`.execute(db);
  await db.schema.dropTable('promotion_tier_counts').execute();
}
