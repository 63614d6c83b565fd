import { purgeAbandonedUploads } from '../services/csv-imports/abandoned-uploads.ts';
import { CSV_IMPORT_KINDS, type CsvImportKind, type CsvImportPayload } from '../services/csv-imports/kinds.ts';
import type { Job } from '../store/jobs.ts';
import type { JobContext, Worker } from './worker.ts';

// CSV imports (src/services/csv-imports): one job per uploaded file, and the purge of uploads whose
// process died while receiving them. The import itself is loaded when a job first runs: its row checks
// are the API's body schemas, compiled, and a worker that imports nothing need not hold them
// (src/services/csv-imports/kinds.ts says how much memory that is).

const PURGE_EVERY_MS = 3600_000;

const importing = () => import('../services/csv-imports/run-import.ts');

async function importJob(job: Job, ctx: JobContext): Promise<unknown> {
  const { runCsvImport } = await importing();
  return runCsvImport(ctx.deps, { ...job, kind: job.kind as CsvImportKind, payload: job.payload as CsvImportPayload }, ctx.checkpoint);
}

export function registerCsvImportJobs(worker: Worker): void {
  for (const kind of CSV_IMPORT_KINDS) {
    worker.register(kind, importJob, async (job, ctx) => {
      const { dropStagedRows } = await importing();
      await dropStagedRows(ctx.deps, job);
    });
  }
  worker.every('csv-imports.purge-abandoned-uploads', PURGE_EVERY_MS, async ({ deps }) => {
    await purgeAbandonedUploads(deps);
  });
}
