import { BULK_KINDS, runBulkJob, type BulkPayload } from '../services/bulk/bulk.ts';
import type { Job } from '../store/jobs.ts';
import type { JobContext, Worker } from './worker.ts';

// Bulk and metadata updates of customers, products and vouchers (src/services/bulk/bulk.ts).

async function bulkJob(job: Job, ctx: JobContext): Promise<unknown> {
  return runBulkJob(ctx.deps, { ...job, payload: job.payload as BulkPayload }, ctx.checkpoint);
}

export function registerBulkJobs(worker: Worker): void {
  for (const kind of BULK_KINDS) {
    worker.register(kind, bulkJob);
  }
}
