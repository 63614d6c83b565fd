import type { Insertable } from 'kysely';
import { DomainError } from '../../domain/errors.ts';
import type { MetadataPropertyDefinition } from '../../domain/metadata-schemas/metadata-problems.ts';
import { Slice, transactionSliceMs, yieldToRequests } from '../../lib/slices.ts';
import { deleteStagedRows, insertFailures, listFailures, readStagedRows, type StagedRow } from '../../store/csv-imports.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { fromJson } from '../../store/json.ts';
import { findMetadataSchemaFor } from '../../store/metadata-schemas.ts';
import type { CsvImportFailuresTable } from '../../store/schema.ts';
import { StatisticsRefresher, type FilledTable } from '../../store/planner-statistics.ts';
import { inSavepoint } from '../../store/savepoints.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { inTransaction, type Actor, type Deps } from '../context.ts';
import { metadataCell, RowProblem } from './cells.ts';
import { deleteStagedRowsInSlices } from './staged-rows.ts';
import { importerFor, planColumns, rowCells, surplusCells, type ColumnPlan, type Importer } from './importers.ts';
import { CAMPAIGN_VOUCHERS_IMPORT_CSV, VOUCHERS_IMPORT_CSV, type CsvImportKind, type CsvImportPayload } from './kinds.ts';

// The import job: the staged rows of one upload, applied in slices (src/lib/slices.ts). A slice is one
// transaction that applies up to SLICE_ROWS rows, each in its own savepoint, records the rows it rejected,
// deletes the rows it dealt with and stores the job's progress. Between slices the job gives the event
// loop and the database back to requests. A crash, or a worker whose claim ran out (the checkpoint then
// throws and the slice rolls back), leaves the last committed slice as the truth: the next attempt reads
// the staged rows from there, so no row is applied twice or skipped.

/** Rows per slice at most; a slice also ends once it has taken transactionSliceMs (src/lib/slices.ts). */
export const SLICE_ROWS = 100;
/** Staged rows read at once, for the slices that follow. */
const READ_AHEAD_ROWS = 500;

/** The table each kind of import fills (its statistics are refreshed as it grows, on PostgreSQL). */
const FILLED_TABLE: Record<Importer['metadataObject'], FilledTable> = { customer: 'customers', product: 'products', sku: 'skus', voucher: 'vouchers' };

/** The job's partial result, stored with every slice. */
interface ImportProgress {
  done_count: number;
  failed_count: number;
  /** The first row the next slice reads. */
  next_row: number;
}

/** The async action result: the vendor's IMPORT_CSV shape; `failed` is read from the rejected rows. */
export interface CsvImportResult {
  message: string;
  done_count: number;
  failed_count: number;
}

/** Stores the job's partial result in the slice's transaction (the worker's checkpoint). */
export type ImportCheckpoint = (tx: Tx, result: ImportProgress, percent: number) => Promise<void>;

type MetadataTyping = Readonly<Record<string, MetadataPropertyDefinition>>;

async function metadataTyping(db: Executor, projectId: string, relatedObject: string): Promise<MetadataTyping> {
  const schema = await findMetadataSchemaFor(db, projectId, relatedObject);
  return schema ? fromJson<MetadataTyping>(schema.properties, {}) : {};
}

interface RowOutcome {
  reference: string | null;
  /** Why the row was rejected; null when it was imported. */
  reason: string | null;
}

/**
 * Applies one staged row in a savepoint of the slice's transaction. A row the API would refuse (a cell
 * that cannot be read, a schema or business rule) is undone alone and reported; a unique-index race runs
 * it again. Any other error ends the slice, whose transaction then rolls back.
 */
async function importRow(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  importer: Importer,
  plan: ColumnPlan,
  typing: MetadataTyping,
  row: StagedRow,
  payload: CsvImportPayload,
): Promise<RowOutcome> {
  let reference: string | null = null;
  try {
    const record = JSON.parse(row.cells) as string[];
    const cells = rowCells(plan, record);
    reference = importer.reference(cells);
    const surplus = surplusCells(plan, record);
    if (surplus !== null) throw new RowProblem(surplus);
    const metadata = cells.metadata.length === 0 ? undefined : Object.fromEntries(cells.metadata.map(([key, text]) => [key, metadataCell(text, typing[key])]));
    for (let attempt = 1; ; attempt++) {
      try {
        await inSavepoint(tx, () => importer.apply(tx, deps, actor, cells, metadata, payload));
        return { reference, reason: null };
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 3) throw error;
      }
    }
  } catch (error) {
    if (error instanceof RowProblem) return { reference, reason: error.message };
    if (error instanceof DomainError) return { reference, reason: error.details ?? error.message };
    throw error;
  }
}

/**
 * Runs an import job from where an earlier attempt stopped, slice by slice, and answers its result. The
 * header was accepted when the file was received; it is read again here the same way.
 */
export async function runCsvImport(
  deps: Deps,
  job: { id: string; projectId: string; kind: CsvImportKind; requestId: string | null; payload: CsvImportPayload; result: unknown },
  checkpoint: ImportCheckpoint,
): Promise<CsvImportResult> {
  const { payload } = job;
  const actor: Actor = { projectId: job.projectId, requestId: job.requestId ?? job.id, source: payload.source };
  const importer = importerFor(job.kind);
  const plan = planColumns(importer, payload.header);
  const earlier = job.result as Partial<ImportProgress> | null;
  let progress: ImportProgress = { done_count: earlier?.done_count ?? 0, failed_count: earlier?.failed_count ?? 0, next_row: earlier?.next_row ?? 1 };
  const percent = (next: number) => Math.floor(((next - 1) / Math.max(1, payload.rows)) * 99);

  // Staged rows are read ahead, a batch at a time, and handed to the slices that follow: a slice usually
  // takes a few rows only (it ends after SLICE_MS), and the rows do not change while the job holds them.
  let ahead: StagedRow[] = [];
  let typing: MetadataTyping = {};
  const statistics = new StatisticsRefresher(deps.dialect, FILLED_TABLE[importer.metadataObject]);
  for (;;) {
    if (ahead[0]?.row_no !== progress.next_row) {
      ahead = await readStagedRows(deps.db, job.projectId, job.id, progress.next_row, READ_AHEAD_ROWS);
      if (ahead.length === 0) break;
      typing = await metadataTyping(deps.db, job.projectId, importer.metadataObject);
    }
    const start = progress;
    const rows = ahead;
    // A transaction that is run again (a conflict the database detected) starts over from `start`.
    const next = await inTransaction(deps, async (tx) => {
      const slice = new Slice(SLICE_ROWS, transactionSliceMs(deps.dialect));
      const failures: Array<Insertable<CsvImportFailuresTable>> = [];
      await importer.beginSlice?.(tx, job.projectId);
      let at = start;
      for (const row of rows) {
        const outcome = await importRow(tx, deps, actor, importer, plan, typing, row, payload);
        if (outcome.reason === null) {
          at = { ...at, done_count: at.done_count + 1, next_row: row.row_no + 1 };
        } else {
          at = { ...at, failed_count: at.failed_count + 1, next_row: row.row_no + 1 };
          failures.push({ project_id: job.projectId, import_id: job.id, row_no: row.row_no, line: row.line, reference: outcome.reference, reason: outcome.reason });
        }
        if (slice.add()) break;
      }
      await insertFailures(tx, failures);
      await deleteStagedRows(tx, job.projectId, job.id, at.next_row - 1);
      await checkpoint(tx, at, percent(at.next_row));
      return at;
    });
    await statistics.added(deps.db, next.done_count - progress.done_count);
    progress = next;
    ahead = ahead.filter((row) => row.row_no >= progress.next_row);
    await yieldToRequests();
  }
  return {
    message: `${progress.done_count} ${importer.noun}(s) imported successfully, ${progress.failed_count} failed.`,
    done_count: progress.done_count,
    failed_count: progress.failed_count,
  };
}

/** Deletes the rows a job that failed for good will never read, a slice at a time. */
export async function dropStagedRows(deps: Deps, job: { id: string; projectId: string }): Promise<void> {
  await deleteStagedRowsInSlices(deps, job.projectId, job.id);
}

/**
 * An import's async action result as `GET /v1/async-actions/{id}` answers it: the stored counts (and
 * message, once done) with every rejected row, in file order: `row` counts the records below the header
 * (the vendor's numbering), `line` is where the record starts in the file (the header is line 1).
 */
export async function csvImportResult(db: Executor, projectId: string, id: string, kind: CsvImportKind, stored: Record<string, unknown> | null) {
  const referenceMember = kind === VOUCHERS_IMPORT_CSV || kind === CAMPAIGN_VOUCHERS_IMPORT_CSV ? 'code' : 'source_id';
  const failed = (await listFailures(db, projectId, id)).map((row) => ({
    row: row.row_no,
    line: row.line,
    ...(row.reference !== null ? { [referenceMember]: row.reference } : {}),
    reason: row.reason,
  }));
  const { message, done_count: done, failed_count: failedCount } = stored ?? {};
  return {
    ...(typeof message === 'string' ? { message } : {}),
    failed,
    done_count: typeof done === 'number' ? done : 0,
    failed_count: typeof failedCount === 'number' ? failedCount : failed.length,
  };
}
