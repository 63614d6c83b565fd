import { CSV_IMPORT_KINDS, type CsvImportKind, type CsvImportPayload } from '../services/csv-imports/importers.ts';
import { dropStagedRows, runCsvImport } from '../services/csv-imports/run-import.ts';
import { purgeAbandonedUploads } from '../services/csv-imports/upload.ts';
import type { Job } from '../store/jobs.ts';
import type { JobContext, Worker } from './worker.ts';

// CSV imports (src/services/csv-imports): one job per uploaded file, and the purge of uploads whose
// process died while receiving them.

const PURGE_EVERY_MS = 3600_000;

async function importJob(job: Job, ctx: JobContext): Promise<unknown> {
  return runCsvImport(ctx.deps, { ...job, kind: job.kind as CsvImportKind, payload: job.payload as CsvImportPayload }, ctx.checkpoint);
}

export function registerCsvImportJobs(worker: Worker): void {
  for (const kind of CSV_IMPORT_KINDS) worker.register(kind, importJob, (job, ctx) => dropStagedRows(ctx.deps, job));
  worker.every('csv-imports.purge-abandoned-uploads', PURGE_EVERY_MS, async ({ deps }) => {
    await purgeAbandonedUploads(deps);
  });
}
