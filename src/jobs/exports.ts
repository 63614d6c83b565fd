import { internalActor } from '../services/context.ts';
import { EXPORT_JOB, type ExportJobPayload } from '../services/exports/exports.ts';
import { failExport, runExport, UnusableExportError } from '../services/exports/run-export.ts';
import type { Job } from '../store/jobs.ts';
import { PermanentJobError, type JobContext, type Worker } from './worker.ts';

// Runs exports (src/services/exports/run-export.ts). A failed attempt is retried by the worker and
// resumes from the export's last committed chunk; when the job fails for good the export ends ERROR with
// the reason.

function actorOf(job: Job) {
  return internalActor(job.projectId, job.requestId ?? job.id);
}

async function run(job: Job, ctx: JobContext): Promise<unknown> {
  const payload = job.payload as ExportJobPayload;
  try {
    return await runExport(ctx.deps, actorOf(job), job.projectId, payload.export_id, {
      // The file's size is unknown until the end; progress creeps towards 99 and keeps the claim alive.
      progress: (chunks) => ctx.progress(99 - 99 / (1 + chunks / 10)),
    });
  } catch (error) {
    if (error instanceof UnusableExportError) throw new PermanentJobError(error.message);
    throw error;
  }
}

async function failed(job: Job, ctx: JobContext, error: unknown): Promise<void> {
  const payload = job.payload as ExportJobPayload;
  const reason = error instanceof PermanentJobError ? error.message : 'The export could not be written; create it again';
  ctx.log.error({ err: error, export_id: payload.export_id }, 'export failed');
  await failExport(ctx.deps, actorOf(job), job.projectId, payload.export_id, reason);
}

export function registerExportJobs(worker: Worker): void {
  worker.register(EXPORT_JOB, run, failed);
}
