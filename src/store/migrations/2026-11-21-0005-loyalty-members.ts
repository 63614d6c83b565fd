import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Loyalty members: pending points entries (loyalty reference 2.9) and the index that serves a card's
// activity list (2.6) out of the event log.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // Points earned but not yet usable. `points` moves only through conditional updates while the entry is
  // PENDING; activation hands them to the ledger and the entry leaves the lists.
  await db.schema
    .createTable('loyalty_pending_points')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('order_id', 'text')
    .addColumn('points', 'bigint', (c) => c.notNull())
    // The day (YYYY-MM-DD, project time zone) from whose start the points are activated.
    .addColumn('activates_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    // Expiry rules of the earning rule that made the entry; null = the campaign's rules at activation.
    .addColumn('expiration_rules', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addCheckConstraint('loyalty_pending_points_positive', sql`points > 0`)
    .execute();
  await db.schema
    .createIndex('loyalty_pending_points_voucher')
    .on('loyalty_pending_points')
    .columns(['project_id', 'voucher_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('loyalty_pending_points_campaign')
    .on('loyalty_pending_points')
    .columns(['project_id', 'campaign_id', 'status', 'id'])
    .execute();
  // The periodic run finds each project's due entries, and its cards with buckets past their last day.
  await db.schema
    .createIndex('loyalty_pending_points_due')
    .on('loyalty_pending_points')
    .columns(['project_id', 'status', 'activates_at', 'id'])
    .execute();
  await db.schema.createIndex('loyalty_buckets_due').on('loyalty_buckets').columns(['project_id', 'status', 'expires_at', 'voucher_id']).execute();

  // A card's activity: its events that are customer activities, in time order.
  await db.schema
    .createIndex('events_voucher_activity')
    .on('events')
    .columns(['project_id', 'voucher_code', 'created_at', 'seq'])
    .where(sql.ref('activity_type'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('events_voucher_activity').ifExists().execute();
  await db.schema.dropIndex('loyalty_buckets_due').ifExists().execute();
  await db.schema.dropTable('loyalty_pending_points').ifExists().execute();
}
