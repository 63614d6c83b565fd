import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Orders (promotions reference 7). The calculated amounts are columns so lists, exports and customer
// summaries read them without parsing JSON; the lines and the redemptions map are JSON text.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('source_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('initial_amount', 'bigint', (c) => c.notNull())
    .addColumn('discount_amount', 'bigint', (c) => c.notNull())
    .addColumn('items_discount_amount', 'bigint', (c) => c.notNull())
    .addColumn('total_discount_amount', 'bigint', (c) => c.notNull())
    .addColumn('total_amount', 'bigint', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('referrer_id', 'text')
    // Filled by the redemption engine: redemption id → {date, related_object_type, …}.
    .addColumn('redemptions', 'text', (c) => c.notNull())
    // First time the order became PAID; set once by a conditional update so order-paid effects run once.
    .addColumn('paid_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  // Upserts by source_id rely on this index: two concurrent creates with one source_id end as one order.
  await db.schema
    .createIndex('orders_source_id')
    .on('orders')
    .columns(['project_id', 'source_id'])
    .unique()
    .where(sql<boolean>`source_id is not null`)
    .execute();
  await db.schema.createIndex('orders_created').on('orders').columns(['project_id', 'created_at', 'id']).execute();
  // Must stay the exact expression the list sorts on (src/store/orders.ts); both databases match verbatim.
  await db.schema
    .createIndex('orders_last_change')
    .on('orders')
    .column('project_id')
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .execute();
  // A customer's latest counted order is recomputed from here whenever one of their orders changes.
  await db.schema
    .createIndex('orders_customer')
    .on('orders')
    .columns(['project_id', 'customer_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('orders').ifExists().execute();
}
