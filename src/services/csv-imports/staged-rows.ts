import { SliceTurns, StatementSize, transactionSliceMs } from '../../lib/slices.ts';
import { deleteStagedSlice, endUpload } from '../../store/csv-imports.ts';
import type { Deps } from '../context.ts';

// Staged rows that will never be imported — an upload refused or broken off (./upload.ts), abandoned by a
// process that died (./abandoned-uploads.ts), a job that failed for good (./run-import.ts) — are deleted
// the way the import job applies them: a slice at a time (src/lib/slices.ts), each statement taking as
// many rows as fit in a slice, with the event loop given back to requests in between. On SQLite one
// statement deleting a refused 100 MiB upload whole held every request, health probes included, for
// about two seconds.

/**
 * The turns every upload of this process takes between two of its statements on the staging table, when
 * it stages a batch or deletes a slice: one statement per pass of the event loop, whatever the number of
 * uploads at work (see SliceTurns).
 */
export const stagingTurns = new SliceTurns();

/** Staged rows one delete statement takes at most (fewer while statements run longer than a slice). */
export const DISCARD_MAX_ROWS = 2048;

/**
 * How long one delete may take before the next takes fewer rows. On SQLite a statement holds the event loop
 * and the writer, so it is held to a slice. On PostgreSQL the event loop serves requests while a statement
 * is out, and most of its time is the commit's disk flush: there the size only grows to DISCARD_MAX_ROWS,
 * or on a busy disk (commits of 100 ms and more) every delete would take one row and a refused upload of
 * 6,000 rows ten minutes to discard.
 */
const discardSliceMs = (dialect: Deps['dialect']) => (dialect === 'sqlite' ? transactionSliceMs(dialect) : Number.POSITIVE_INFINITY);

/** Deletes every staged row of an import, a slice at a time; answers how many went. */
export async function deleteStagedRowsInSlices(deps: Pick<Deps, 'db' | 'dialect'>, projectId: string, importId: string): Promise<number> {
  const size = new StatementSize(DISCARD_MAX_ROWS, discardSliceMs(deps.dialect));
  let deleted = 0;
  for (;;) {
    const limit = size.rows;
    const started = performance.now();
    const went = await deleteStagedSlice(deps.db, projectId, importId, limit);
    size.took(performance.now() - started);
    deleted += went;
    if (went < limit) return deleted;
    await stagingTurns.next();
  }
}

/**
 * Deletes an upload that will never become a job with its staged rows. The mark goes last, so a process
 * that dies half-way leaves it for the hourly purge of abandoned uploads to finish.
 */
export async function discardUpload(deps: Pick<Deps, 'db' | 'dialect'>, projectId: string, id: string): Promise<void> {
  await deleteStagedRowsInSlices(deps, projectId, id);
  await endUpload(deps.db, projectId, id);
}
