import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Exports (platform reference 7): the export records, the CSV files they produce, and the indexes that let
// an export walk the exported table in any order it offers.
//
// The file is stored in the database as ordered chunks rather than on a local disk: every server process
// sharing a PostgreSQL database can then serve every download, a chunk commits together with the
// export's progress (so a resumed export continues exactly where it stopped), and deleting an export
// deletes its file in the same transaction.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('exported_object', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    // The request's parameters as echoed (defaults filled in); the job re-reads its work from here.
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull())
    // Progress, committed with each chunk: rows and bytes written, chunks written, and the keyset
    // position of the last exported row.
    .addColumn('row_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('byte_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('chunk_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cursor', 'text')
    .addColumn('error', 'text')
    // Download token: only its keyed hash and its expiry are stored.
    .addColumn('token_hash', 'text')
    .addColumn('token_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('exports_created').on('exports').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('exports_status').on('exports').columns(['project_id', 'status', 'created_at', 'id']).execute();

  await db.schema
    .createTable('export_chunks')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('export_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('export_chunks_pk', ['project_id', 'export_id', 'seq'])
    .execute();

  // An export reads its table in batches, each continuing after the last row of the one before
  // ((sort key, id) > cursor). Each order an export offers needs an index on exactly that key, or every
  // batch would sort the whole table again. Orders the earlier migrations already index (created_at
  // almost everywhere, last change and source_id of customers, vouchers, orders; code_key of vouchers)
  // need none. Nullable keys are indexed through the same coalesce the
  // queries use (src/store/export-sources.ts), so NULLs sort alike on both databases.
  const expressionIndex = async (name: string, table: string, expression: string, where?: string) => {
    let builder = db.schema.createIndex(name).on(table).column('project_id').expression(sql.raw(expression)).column('id');
    if (where) builder = builder.where(sql<boolean>`${sql.raw(where)}`);
    await builder.execute();
  };
  await db.schema.createIndex('export_redemptions_id').on('redemptions').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('export_customers_id').on('customers').columns(['project_id', 'id']).where(sql<boolean>`deleted_at is null`).execute();
  await db.schema.createIndex('export_publications_id').on('publications').columns(['project_id', 'id']).execute();
  await expressionIndex('export_redemptions_voucher_code', 'redemptions', "coalesce(voucher_code, '')");
  await expressionIndex('export_redemptions_tracking_id', 'redemptions', "coalesce(tracking_id, '')");
  await expressionIndex('export_redemptions_customer_id', 'redemptions', "coalesce(customer_id, '')");
  await expressionIndex('export_customers_name', 'customers', "coalesce(name, '')", 'deleted_at is null');
  await expressionIndex('export_customers_email', 'customers', "coalesce(email, '')", 'deleted_at is null');
  await expressionIndex('export_publications_tracking_id', 'publications', "coalesce(tracking_id, '')");
  await expressionIndex('export_publications_channel', 'publications', "coalesce(channel, '')");
  await db.schema.createIndex('export_publications_customer_id').on('publications').columns(['project_id', 'customer_id', 'id']).execute();
  await db.schema.createIndex('export_orders_status').on('orders').columns(['project_id', 'status', 'id']).execute();
  // A bucket without expiry never expires: it sorts after every date.
  await expressionIndex('export_loyalty_buckets_expires_at', 'loyalty_buckets', "coalesce(expires_at, '9999-12-31')");
  await db.schema.createIndex('export_voucher_transactions_created').on('voucher_transactions').columns(['project_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const index of [
    'export_voucher_transactions_created',
    'export_loyalty_buckets_expires_at',
    'export_orders_status',
    'export_publications_customer_id',
    'export_publications_channel',
    'export_publications_tracking_id',
    'export_customers_email',
    'export_customers_name',
    'export_redemptions_customer_id',
    'export_redemptions_tracking_id',
    'export_redemptions_voucher_code',
    'export_publications_id',
    'export_customers_id',
    'export_redemptions_id',
  ]) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
  await db.schema.dropTable('export_chunks').ifExists().execute();
  await db.schema.dropTable('exports').ifExists().execute();
}
