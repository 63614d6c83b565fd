import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// The stackable validation and redemption engine (promotions reference 6): session locks, each
// project's stacking rules, and the indexes that serve rule counters and the redemption list orders.
// Numbered 0020 so promotion tier migrations can take the numbers before it.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // One row per (session, voucher, kind): what a validation with `session.type = LOCK` reserved until
  // `expires_at` — one use of the voucher, gift credits or loyalty points. Other sessions' live rows count
  // against the voucher's quantity and balances; a redemption carrying the key uses and deletes them.
  await db.schema
    .createTable('redemption_locks')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('session_key', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('redemption_locks_pk', ['project_id', 'session_key', 'voucher_id', 'kind'])
    .execute();
  // Live locks of a voucher are summed from here on every validation and redemption of it.
  await db.schema.createIndex('redemption_locks_voucher').on('redemption_locks').columns(['project_id', 'voucher_id', 'expires_at']).execute();
  // The periodic purge deletes expired locks of every project.
  await db.schema.createIndex('redemption_locks_expiry').on('redemption_locks').column('expires_at').execute();

  // A project's stacking rules (reference 6.6); a project without a row uses the defaults.
  await db.schema
    .createTable('stacking_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().unique())
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();

  // Rule counters (`redemption.count.*`, per customer and per period) are indexed counts (campaign
  // counters use redemptions_campaign_id of migration 0006).
  await db.schema
    .createIndex('redemptions_related_customer')
    .on('redemptions')
    .columns(['project_id', 'related_object_id', 'customer_id', 'created_at'])
    .execute();
  await db.schema.createIndex('redemptions_related').on('redemptions').columns(['project_id', 'related_object_id', 'created_at']).execute();
  // The list's other orders (`id`, `voucher_code`, `tracking_id`, `customer_id`), each walked by index.
  await db.schema.createIndex('redemptions_id').on('redemptions').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('redemptions_voucher_code').on('redemptions').columns(['project_id', 'voucher_code', 'id']).execute();
  await db.schema.createIndex('redemptions_tracking').on('redemptions').columns(['project_id', 'tracking_id', 'id']).execute();
  await db.schema.createIndex('redemptions_customer_id').on('redemptions').columns(['project_id', 'customer_id', 'id']).execute();
  await db.schema.createIndex('redemptions_rollback_of').on('redemptions').columns(['project_id', 'rollback_of']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const index of [
    'redemptions_related_customer',
    'redemptions_related',
    'redemptions_id',
    'redemptions_voucher_code',
    'redemptions_tracking',
    'redemptions_customer_id',
    'redemptions_rollback_of',
  ]) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
  await db.schema.dropTable('stacking_rules').ifExists().execute();
  await db.schema.dropTable('redemption_locks').ifExists().execute();
}
