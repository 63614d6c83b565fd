import { internalActor } from '../services/context.ts';
import { CAMPAIGN_IMPORT_JOB, runImport, VOUCHERS_IMPORT_JOB, type ImportJobPayload } from '../services/vouchers/voucher-import.ts';
import type { Job } from '../store/jobs.ts';
import type { JobContext, Worker } from './worker.ts';

// Voucher imports (`POST /v1/vouchers/import`, `POST /v1/campaigns/{id}/import`) run here, chunk by
// chunk; the request already refused bad input, so a job only reports codes taken in the meantime.

async function importJob(job: Job, ctx: JobContext): Promise<unknown> {
  const actor = internalActor(job.projectId, job.requestId ?? job.id);
  return runImport(ctx.deps, actor, job.id, job.payload as ImportJobPayload, job.result);
}

export function registerVoucherImportJobs(worker: Worker): void {
  worker.register(VOUCHERS_IMPORT_JOB, importJob);
  worker.register(CAMPAIGN_IMPORT_JOB, importJob);
}
