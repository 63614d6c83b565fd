import { purgeExpiredSessions } from '../services/redemptions/sessions.ts';
import type { Worker } from './worker.ts';

// Expired session locks are ignored by every read; deleting them every few minutes keeps the table to
// the live reservations. Safe in several processes at once: each deletes what it finds expired.
export const SESSION_PURGE_EVERY_MS = 5 * 60_000;

export function registerSessionPurge(worker: Worker): void {
  worker.every('redemption-session-purge', SESSION_PURGE_EVERY_MS, async ({ deps, log }) => {
    const purged = await purgeExpiredSessions(deps);
    if (purged > 0) log.info({ purged }, 'expired session locks purged');
  });
}
