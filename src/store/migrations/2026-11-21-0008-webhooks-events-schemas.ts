import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// Webhook configurations and their deliveries, the dispatcher's cursor over the event log, custom event
// schemas and metadata schemas.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  const pg = isPostgres(db);
  const seqType = pg ? 'bigint' : 'integer';

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addColumn('deleted_at', 'text')
    .execute();
  // Deleted webhooks keep their row so their delivery records stay readable in the database.
  await db.schema
    .createIndex('webhooks_project')
    .on('webhooks')
    .columns(['project_id', 'created_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  // One delivery per webhook and event: the unique index makes a dispatch that runs twice harmless.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_seq', seqType, (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // Only the oldest PENDING delivery of a webhook has a time; the ones queued behind it wait with NULL.
    .addColumn('next_attempt_at', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('attempt_log', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .columns(['project_id', 'webhook_id', 'event_seq'])
    .unique()
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_status')
    .on('webhook_deliveries')
    .columns(['project_id', 'webhook_id', 'status', 'event_seq'])
    .execute();
  // The sender's scan: scheduled heads only, so a long backlog behind a failing receiver is never scanned.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where(sql<boolean>`status = 'PENDING' and next_attempt_at is not null`)
    .execute();
  await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').columns(['status', 'finished_at']).execute();

  // How far the dispatcher has read the event log, plus what it is waiting for when it found a gap in
  // `seq` on PostgreSQL (see src/services/webhooks/dispatch.ts).
  await db.schema
    .createTable('webhook_dispatch_cursor')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('last_seq', seqType, (c) => c.notNull())
    .addColumn('gap_max_seq', seqType)
    .addColumn('gap_holders', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // No webhook exists before this migration, so the events already in the log need no dispatch.
  await sql`
    insert into webhook_dispatch_cursor (name, last_seq, gap_max_seq, gap_holders, updated_at)
    select 'webhooks', coalesce(max(seq), 0), null, null, ${new Date().toISOString()} from events
  `.execute(db);

  await db.schema
    .createTable('custom_event_schemas')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('custom_event_schemas_name').on('custom_event_schemas').columns(['project_id', 'name']).unique().execute();
  await db.schema.createIndex('custom_event_schemas_created').on('custom_event_schemas').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('metadata_schemas')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('related_object', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('allow_defined_only', 'boolean')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema
    .createIndex('metadata_schemas_related_object')
    .on('metadata_schemas')
    .columns(['project_id', 'related_object'])
    .unique()
    .execute();
  await db.schema.createIndex('metadata_schemas_created').on('metadata_schemas').columns(['project_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of ['metadata_schemas', 'custom_event_schemas', 'webhook_dispatch_cursor', 'webhook_deliveries', 'webhooks']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
