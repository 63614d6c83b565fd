import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// CSV imports (`POST /v1/customers/importCSV` and the other importCSV routes). The uploaded file is
// never held whole in memory: the request parses it as it arrives and writes its records here in batches
// (csv_import_rows), and the worker reads them back in slices. A slice applies its rows, deletes them,
// records the rows it rejected (csv_import_failures) and the job's progress in one transaction, so a job
// resumed after a crash starts exactly after the last committed slice.
//
// csv_uploads marks an upload still being received: its rows belong to no job yet. The request that
// finishes the upload enqueues the job and removes the mark in one transaction; marks left by a process
// that died mid-upload are purged with their rows by the worker's housekeeping.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('csv_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('csv_uploads_created').on('csv_uploads').columns(['created_at']).execute();

  await db.schema
    .createTable('csv_import_rows')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('import_id', 'text', (c) => c.notNull())
    // The record's number below the header (the vendor's `row`) and the file line it starts on.
    .addColumn('row_no', 'integer', (c) => c.notNull())
    .addColumn('line', 'integer', (c) => c.notNull())
    // The record's cells as a JSON array of strings (text, not jsonb: a cell may hold any character).
    .addColumn('cells', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('csv_import_rows_pk', ['project_id', 'import_id', 'row_no'])
    .execute();

  await db.schema
    .createTable('csv_import_failures')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('row_no', 'integer', (c) => c.notNull())
    .addColumn('line', 'integer', (c) => c.notNull())
    // What names the object in the row (source_id or code), when it has one.
    .addColumn('reference', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('csv_import_failures_pk', ['project_id', 'import_id', 'row_no'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('csv_import_failures').ifExists().execute();
  await db.schema.dropTable('csv_import_rows').ifExists().execute();
  await db.schema.dropTable('csv_uploads').ifExists().execute();
}
