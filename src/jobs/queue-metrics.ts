import type { Clock } from '../lib/clock.ts';
import { queueDepth, queueOldestAge } from '../lib/metrics.ts';
import type { Db } from '../store/db.ts';
import { jobQueueDepth } from '../store/jobs.ts';
import { deliveryQueueDepth } from '../store/webhooks.ts';

// The queue gauges are read from the database when /metrics is scraped, so any server (or a separate
// worker) shows the whole queue of the installation, whichever process will run the work.

export const WEBHOOK_DELIVERY_KIND = 'webhook.delivery';

const seenKinds = new Set<string>();

const ageSeconds = (now: number, since: string | null) => (since === null ? 0 : Math.max(0, (now - Date.parse(since)) / 1000));

export async function refreshQueueMetrics(db: Db, clock: Clock): Promise<void> {
  const now = clock.now();
  const [jobs, deliveries] = await Promise.all([jobQueueDepth(db, now.toISOString()), deliveryQueueDepth(db, now.toISOString())]);
  // A kind whose queue emptied reads 0 rather than keeping its last value.
  for (const kind of seenKinds) {
    if (jobs.some((j) => j.kind === kind)) continue;
    for (const state of ['due', 'scheduled', 'running']) queueDepth.set({ kind, state }, 0);
    queueOldestAge.set({ kind }, 0);
  }
  for (const kind of jobs) {
    seenKinds.add(kind.kind);
    queueDepth.set({ kind: kind.kind, state: 'due' }, kind.due);
    queueDepth.set({ kind: kind.kind, state: 'scheduled' }, kind.scheduled);
    queueDepth.set({ kind: kind.kind, state: 'running' }, kind.running);
    queueOldestAge.set({ kind: kind.kind }, ageSeconds(now.getTime(), kind.oldestDueAt));
  }
  queueDepth.set({ kind: WEBHOOK_DELIVERY_KIND, state: 'due' }, deliveries.due);
  queueDepth.set({ kind: WEBHOOK_DELIVERY_KIND, state: 'scheduled' }, deliveries.scheduled);
  queueDepth.set({ kind: WEBHOOK_DELIVERY_KIND, state: 'queued' }, deliveries.queued);
  queueOldestAge.set({ kind: WEBHOOK_DELIVERY_KIND }, ageSeconds(now.getTime(), deliveries.oldestCreatedAt));
}
