import type { Insertable, Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { CsvImportFailuresTable, CsvImportRowsTable } from './schema.ts';

// The staged records of CSV imports and the rows they rejected (migration 0031). Every query names the
// project; rows are read, deleted and listed by their primary key (project, import, row number).

export type StagedRow = Selectable<CsvImportRowsTable>;
export type ImportFailureRow = Selectable<CsvImportFailuresTable>;

/** Marks an upload as being received, before its first rows are staged. */
export async function beginUpload(db: Executor, upload: { id: string; projectId: string; kind: string; at: string }): Promise<void> {
  await db.insertInto('csv_uploads').values({ id: upload.id, project_id: upload.projectId, kind: upload.kind, created_at: upload.at }).execute();
}

/**
 * Removes the mark of a received upload: in the transaction that enqueues the import job, or once a
 * discarded upload's rows are gone.
 */
export async function endUpload(db: Executor, projectId: string, id: string): Promise<void> {
  await db.deleteFrom('csv_uploads').where('project_id', '=', projectId).where('id', '=', id).execute();
}

export async function stageRows(db: Executor, rows: ReadonlyArray<Insertable<CsvImportRowsTable>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('csv_import_rows').values([...rows]).execute();
}

/**
 * Deletes the first `limit` staged rows of an import in file order (the primary key's order); answers how
 * many went. A discarded upload or a failed job's rows go this way, a slice at a time: on SQLite one
 * statement deleting a 100 MiB upload whole held every request for two seconds.
 */
export async function deleteStagedSlice(db: Executor, projectId: string, importId: string, limit: number): Promise<number> {
  const first = db
    .selectFrom('csv_import_rows')
    .select('row_no')
    .where('project_id', '=', projectId)
    .where('import_id', '=', importId)
    .orderBy('row_no')
    .limit(limit);
  const result = await db.deleteFrom('csv_import_rows').where('project_id', '=', projectId).where('import_id', '=', importId).where('row_no', 'in', first).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Uploads marked before `before` that never finished (their process died while receiving them). */
export async function abandonedUploads(db: Executor, before: string, limit: number): Promise<Array<{ id: string; project_id: string }>> {
  return db.selectFrom('csv_uploads').select(['id', 'project_id']).where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
}

/** The next staged rows of an import, from row number `from` on, in file order. */
export async function readStagedRows(db: Executor, projectId: string, importId: string, from: number, limit: number): Promise<StagedRow[]> {
  return db
    .selectFrom('csv_import_rows')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('import_id', '=', importId)
    .where('row_no', '>=', from)
    .orderBy('row_no')
    .limit(limit)
    .execute();
}

/** Deletes the staged rows an import has dealt with, up to and including row number `through`. */
export async function deleteStagedRows(db: Executor, projectId: string, importId: string, through: number): Promise<void> {
  await db.deleteFrom('csv_import_rows').where('project_id', '=', projectId).where('import_id', '=', importId).where('row_no', '<=', through).execute();
}

export async function insertFailures(db: Executor, rows: ReadonlyArray<Insertable<CsvImportFailuresTable>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('csv_import_failures').values([...rows]).execute();
}

/** Every row an import rejected, in file order. */
export async function listFailures(db: Executor, projectId: string, importId: string): Promise<ImportFailureRow[]> {
  return db.selectFrom('csv_import_failures').selectAll().where('project_id', '=', projectId).where('import_id', '=', importId).orderBy('row_no').execute();
}
