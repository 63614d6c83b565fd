import type { Job } from '../store/jobs.ts';
import { internalActor } from '../services/context.ts';
import { continueSegmentSync, SEGMENT_SYNC_JOB, type SegmentSyncPayload } from '../services/segments/segments.ts';
import type { JobContext, Worker } from './worker.ts';

// Finishes the initial membership of an auto-update segment whose project has more customers than a
// create request checks itself (src/services/segments/segments.ts).

export async function runSegmentSync(job: Job<SegmentSyncPayload>, ctx: JobContext): Promise<unknown> {
  const actor = internalActor(job.projectId, job.requestId ?? job.id);
  let batches = 0;
  return continueSegmentSync(ctx.deps, actor, job.payload, async () => {
    // Progress has no known end (the match count would need a full scan); it creeps towards 99 and
    // mostly keeps the claim alive.
    batches += 1;
    await ctx.progress(99 - 99 / (1 + batches / 10));
  });
}

/** Registers the segment job handlers on a worker. */
export function registerSegmentJobs(worker: Worker): Worker {
  return worker.register(SEGMENT_SYNC_JOB, (job, ctx) => runSegmentSync(job as Job<SegmentSyncPayload>, ctx));
}
