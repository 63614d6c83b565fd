import { runLoyaltySchedule } from '../services/loyalty/points-schedule.ts';
import type { Worker } from './worker.ts';

// Pending points activation and points expiry (src/services/loyalty/points-schedule.ts). Once a minute
// is often enough: a due bucket is never spendable even before the run (the ledger expires it first),
// and the run only finds cards that have something due.
export const LOYALTY_SCHEDULE_EVERY_MS = 60_000;

export function registerLoyaltyPointsSchedule(worker: Worker): void {
  worker.every('loyalty-points', LOYALTY_SCHEDULE_EVERY_MS, async ({ deps, log }) => {
    const result = await runLoyaltySchedule(deps, log);
    if (result.activated > 0 || result.expiredCards > 0 || result.failures > 0) log.info(result, 'loyalty points schedule ran');
  });
}
