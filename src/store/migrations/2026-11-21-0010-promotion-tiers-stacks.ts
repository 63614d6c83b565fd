import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// Promotion tiers (the discount rules of PROMOTION campaigns) and promotion stacks (named, ordered
// selections of a campaign's tiers), promotions reference 4.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  const pg = isPostgres(db);

  await db.schema
    .createTable('promotion_tiers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('banner', 'text')
    // `{discount?}` as normalised by src/domain/discounts.
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('hierarchy', 'integer', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull())
    // UTC ISO strings with milliseconds (normalised on write), so SQL compares them as text.
    .addColumn('start_date', 'text')
    .addColumn('expiration_date', 'text')
    .addColumn('validity_timeframe', 'text')
    .addColumn('validity_day_of_week', 'text')
    .addColumn('validity_hours', 'text')
    // True when one of the three recurring limits above is set: those windows cannot be decided by an
    // index condition, so `is_available` reads only these rows to evaluate them.
    .addColumn('recurring', 'boolean', (c) => c.notNull())
    .addColumn('category_id', 'text')
    // The tier summary; moved only by the redemption engine through one relative UPDATE each.
    .addColumn('redeemed_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders_total_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders_total_discount_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  // A campaign's tiers in application order (lists, the campaign's `promotion` member, the engine, and
  // the next free hierarchy as max + 1).
  await db.schema
    .createIndex('promotion_tiers_campaign')
    .on('promotion_tiers')
    .columns(['project_id', 'campaign_id', 'hierarchy', 'id'])
    .execute();
  await db.schema.createIndex('promotion_tiers_created').on('promotion_tiers').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('promotion_tiers_last_change')
    .on('promotion_tiers')
    .column('project_id')
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .execute();
  await db.schema.createIndex('promotion_tiers_recurring').on('promotion_tiers').columns(['project_id', 'recurring', 'id']).execute();

  await db.schema
    .createTable('promotion_stacks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hierarchy_mode', 'text', (c) => c.notNull())
    .addColumn('category_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema
    .createIndex('promotion_stacks_campaign')
    .on('promotion_stacks')
    .columns(['project_id', 'campaign_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('promotion_stacks_created').on('promotion_stacks').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('promotion_stacks_last_change')
    .on('promotion_stacks')
    .column('project_id')
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .execute();
  // Names sort by their bytes on both dialects (SQLite's BINARY; a "C" collation on PostgreSQL).
  await db.schema
    .createIndex('promotion_stacks_name')
    .on('promotion_stacks')
    .column('project_id')
    .expression(pg ? sql`name collate "C"` : sql`name`)
    .column('id')
    .execute();

  // A stack's tiers in application order. A tier appears in a stack once (unique index); the tier index
  // answers "which stacks use this tier?" when a tier is deleted.
  await db.schema
    .createTable('promotion_stack_tiers')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('stack_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('tier_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('promotion_stack_tiers_pk', ['project_id', 'stack_id', 'position'])
    .execute();
  await db.schema
    .createIndex('promotion_stack_tiers_unique')
    .on('promotion_stack_tiers')
    .columns(['project_id', 'stack_id', 'tier_id'])
    .unique()
    .execute();
  await db.schema.createIndex('promotion_stack_tiers_tier').on('promotion_stack_tiers').columns(['project_id', 'tier_id', 'stack_id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of ['promotion_stack_tiers', 'promotion_stacks', 'promotion_tiers']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
