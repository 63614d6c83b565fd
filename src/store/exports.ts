import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { ExportsTable, ExportStatus } from './schema.ts';

// Export records and their CSV files (stored as ordered chunks, migration 0009). Every query names the
// project. Status changes are conditional updates: the statement itself checks the state it moves from,
// so two workers (a job taken over after a lost lease) can never both advance one export.

export type ExportRow = Selectable<ExportsTable>;

export async function insertExport(db: Executor, row: Insertable<ExportsTable>): Promise<void> {
  await db.insertInto('exports').values(row).execute();
}

export async function findExport(db: Executor, projectId: string, id: string): Promise<ExportRow | undefined> {
  return db.selectFrom('exports').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export interface ExportListQuery {
  projectId: string;
  limit: number;
  offset: number;
  sort: 'created_at' | 'status';
  descending: boolean;
}

/** One page (indexes exports_created and exports_status) and the project's export count. */
export async function listExports(db: Executor, q: ExportListQuery): Promise<{ rows: ExportRow[]; total: number }> {
  const direction = q.descending ? 'desc' : 'asc';
  let page = db.selectFrom('exports').selectAll().where('project_id', '=', q.projectId);
  if (q.sort === 'status') page = page.orderBy('status', direction);
  const rows = await page.orderBy('created_at', direction).orderBy('id', direction).offset(q.offset).limit(q.limit).execute();
  const total = await db
    .selectFrom('exports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', q.projectId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** SCHEDULED → IN_PROGRESS; false when the export is gone or already moved on. */
export async function markExportStarted(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('exports')
    .set({ status: 'IN_PROGRESS', started_at: at, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('status', '=', 'SCHEDULED')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface NewChunk {
  projectId: string;
  exportId: string;
  /** Must equal the chunks written so far: a writer that lost its job to another cannot add a chunk. */
  seq: number;
  data: string;
  rows: number;
  bytes: number;
  cursor: unknown;
  at: string;
}

/**
 * Appends one chunk of the file and records the progress it makes, in the caller's transaction. Answers
 * false (writing nothing) when the export was deleted, failed, or another writer got there first.
 */
export async function appendExportChunk(db: Executor, chunk: NewChunk): Promise<boolean> {
  const result = await db
    .updateTable('exports')
    .set({
      row_count: sql<number>`row_count + ${chunk.rows}`,
      byte_count: sql<number>`byte_count + ${chunk.bytes}`,
      chunk_count: sql<number>`chunk_count + 1`,
      cursor: JSON.stringify(chunk.cursor),
      updated_at: chunk.at,
    })
    .where('project_id', '=', chunk.projectId)
    .where('id', '=', chunk.exportId)
    .where('status', '=', 'IN_PROGRESS')
    .where('chunk_count', '=', chunk.seq)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db.insertInto('export_chunks').values({ project_id: chunk.projectId, export_id: chunk.exportId, seq: chunk.seq, data: chunk.data }).execute();
  return true;
}

/** IN_PROGRESS → DONE with the download token's hash and expiry, if every chunk counted is the writer's. */
export async function markExportDone(
  db: Executor,
  done: { projectId: string; id: string; chunks: number; tokenHash: string; tokenExpiresAt: string; at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('exports')
    .set({ status: 'DONE', token_hash: done.tokenHash, token_expires_at: done.tokenExpiresAt, cursor: null, finished_at: done.at, updated_at: done.at })
    .where('project_id', '=', done.projectId)
    .where('id', '=', done.id)
    .where('status', '=', 'IN_PROGRESS')
    .where('chunk_count', '=', done.chunks)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** → ERROR with the reason, dropping what was written of the file; false when it already ended or is gone. */
export async function markExportFailed(db: Executor, projectId: string, id: string, reason: string, at: string): Promise<boolean> {
  const statuses: ExportStatus[] = ['SCHEDULED', 'IN_PROGRESS'];
  const result = await db
    .updateTable('exports')
    .set({ status: 'ERROR', error: reason, cursor: null, finished_at: at, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('status', 'in', statuses)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db.deleteFrom('export_chunks').where('project_id', '=', projectId).where('export_id', '=', id).execute();
  return true;
}

/**
 * Deletes an export and its file. The record goes first: a writer appending a chunk concurrently either
 * committed before (its chunk is then deleted by the second statement) or finds no record and writes
 * nothing.
 */
export async function deleteExport(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('exports').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) return false;
  await db.deleteFrom('export_chunks').where('project_id', '=', projectId).where('export_id', '=', id).execute();
  return true;
}

/** One chunk of a file, by its position. */
export async function readExportChunk(db: Executor, projectId: string, exportId: string, seq: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('export_chunks')
    .select('data')
    .where('project_id', '=', projectId)
    .where('export_id', '=', exportId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.data;
}
