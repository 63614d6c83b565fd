import { csvRecord } from '../../domain/exports/csv.ts';
import { ExportFilterError, lowerExportFilter, parseExportFilter, type Predicate } from '../../domain/exports/filters.ts';
import { EXPORT_OBJECTS, parseOrder, type ExportedObject } from '../../domain/exports/objects.ts';
import { yieldToRequests } from '../../lib/slices.ts';
import { appendEvents } from '../../store/events.ts';
import type { ExportCursor } from '../../store/export-sources.ts';
import { appendExportChunk, findExport, markExportDone, markExportFailed, markExportStarted, type ExportRow } from '../../store/exports.ts';
import { fromJson } from '../../store/json.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { EXPORT_SOURCES } from './columns.ts';
import { DOWNLOAD_TOKEN_TTL_MS, downloadToken, downloadTokenHash } from './download-token.ts';
import { exportParametersOf, renderExport } from './exports.ts';

// Writing an export's file (DECISIONS 25: SCHEDULED → IN_PROGRESS → DONE or ERROR). The table is read in
// keyset batches (src/store/export-sources.ts); batches become chunks of CSV, each committed together with
// the export's progress (rows, bytes, cursor). Memory therefore holds one batch whatever the size of
// the export, and an attempt that dies half-way is resumed by the next one from the last committed
// chunk, never writing a row twice.
//
// Filters that depend on the current time are resolved against the export's creation time, so every
// attempt selects the same rows.

/** Rows read per query. */
export const EXPORT_BATCH_SIZE = 500;
/** Text gathered before a chunk is committed (characters, about bytes for most CSV). */
export const EXPORT_CHUNK_CHARS = 1 << 20;

/** The parameters stored with the export can no longer be used: retrying cannot help. */
export class UnusableExportError extends Error {}

export interface RunHooks {
  /** Called after every committed chunk (keeps the job's claim alive). */
  progress(chunks: number): Promise<void>;
}

export type RunOutcome = { message: string; row_count?: number };

async function start(deps: Deps, actor: Actor, projectId: string, exportId: string): Promise<ExportRow | null> {
  return inTransaction(deps, async (tx) => {
    const row = await findExport(tx, projectId, exportId);
    if (!row || row.status !== 'SCHEDULED') return row ?? null;
    const at = deps.clock.now().toISOString();
    if (!(await markExportStarted(tx, projectId, exportId, at))) return findExport(tx, projectId, exportId).then((r) => r ?? null);
    const started = await findExport(tx, projectId, exportId);
    if (!started) return null;
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'export.started', entityId: exportId, data: { export: renderExport(deps, started, { withUrl: false }) } })]);
    return started;
  });
}

export async function runExport(deps: Deps, actor: Actor, projectId: string, exportId: string, hooks: RunHooks): Promise<RunOutcome> {
  const row = await start(deps, actor, projectId, exportId);
  if (!row) return { message: 'The export was deleted before it ran.' };
  if (row.status !== 'IN_PROGRESS') return { message: `The export is already ${row.status}.` };

  const object = row.exported_object as ExportedObject;
  const parameters = exportParametersOf(row);
  if (!EXPORT_OBJECTS[object] || !EXPORT_OBJECTS[object].orders.includes(parameters.order)) {
    throw new UnusableExportError(`The stored export parameters are not usable (object ${row.exported_object}, order ${parameters.order})`);
  }
  let predicate: Predicate;
  try {
    predicate = lowerExportFilter(parseExportFilter(object, parameters.filters), new Date(row.created_at));
  } catch (error) {
    if (error instanceof ExportFilterError) throw new UnusableExportError(`The stored export filter is not usable: ${error.details}`);
    throw error;
  }
  const { key, descending } = parseOrder(parameters.order);
  const source = EXPORT_SOURCES[object];
  let cursor = fromJson<ExportCursor | null>(row.cursor, null);
  let seq = Number(row.chunk_count);
  let rows = Number(row.row_count);
  // The first chunk carries the header row, so even an export of nothing is a valid CSV file.
  let pending = seq === 0 ? csvRecord(parameters.fields) : '';
  let pendingRows = 0;

  for (;;) {
    const batch = await source.batch(
      deps,
      deps.db,
      {
        projectId,
        dialect: deps.dialect,
        sortKey: key,
        descending,
        predicate,
        limit: EXPORT_BATCH_SIZE,
        campaignId: parameters.campaign_id ?? null,
        voucherId: parameters.voucher_id ?? null,
      },
      cursor,
      parameters.fields,
    );
    pending += batch.cells.map(csvRecord).join('');
    pendingRows += batch.cells.length;
    cursor = batch.last ?? cursor;
    const end = batch.read < EXPORT_BATCH_SIZE;
    // Batches gather into chunks of about EXPORT_CHUNK_CHARS: fewer commits for narrow rows, while memory
    // never holds more than one chunk of text and one batch of rows.
    if (pending !== '' && (end || pending.length >= EXPORT_CHUNK_CHARS)) {
      const data = pending;
      const chunkRows = pendingRows;
      const position = cursor;
      const written = await inTransaction(deps, (tx) =>
        appendExportChunk(tx, { projectId, exportId, seq, data, rows: chunkRows, bytes: Buffer.byteLength(data, 'utf8'), cursor: position, at: deps.clock.now().toISOString() }),
      );
      // Deleted meanwhile, or another worker took the job over after this one's claim ran out.
      if (!written) return { message: 'Stopped: the export was deleted or is written by another worker.' };
      seq += 1;
      rows += chunkRows;
      pending = '';
      pendingRows = 0;
      await hooks.progress(seq);
    }
    if (end) break;
    // Requests run between batches; on SQLite a query otherwise runs back to back with the next.
    await yieldToRequests();
  }

  const finished = await inTransaction(deps, async (tx) => {
    const at = deps.clock.now();
    const expiresAt = new Date(at.getTime() + DOWNLOAD_TOKEN_TTL_MS).toISOString();
    const tokenHash = downloadTokenHash(deps.pepper, downloadToken(deps.pepper, projectId, exportId, expiresAt));
    if (!(await markExportDone(tx, { projectId, id: exportId, chunks: seq, tokenHash, tokenExpiresAt: expiresAt, at: at.toISOString() }))) return false;
    const done = await findExport(tx, projectId, exportId);
    if (!done) return false;
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'export.completed', entityId: exportId, data: { export: renderExport(deps, done, { withUrl: false }) } })]);
    return true;
  });
  if (!finished) return { message: 'Stopped: the export was deleted or is written by another worker.' };
  return { message: `Exported ${rows} rows.`, row_count: rows };
}

/** Ends an export that failed for good as ERROR with the reason, dropping its partial file. */
export async function failExport(deps: Deps, actor: Actor, projectId: string, exportId: string, reason: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    if (!(await markExportFailed(tx, projectId, exportId, reason, deps.clock.now().toISOString()))) return;
    const failed = await findExport(tx, projectId, exportId);
    if (!failed) return;
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'export.failed', entityId: exportId, data: { export: renderExport(deps, failed, { withUrl: false }), reason } })]);
  });
}
