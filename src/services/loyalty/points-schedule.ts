import type { FastifyBaseLogger } from 'fastify';
import { afterPointsChange } from './after-points-change.ts';
import { localDate } from '../../domain/validity/validity.ts';
import { newRequestId } from '../../lib/ids.ts';
import { Pacer } from '../../lib/slices.ts';
import { cardsWithDueBuckets, duePendingPoints, findPendingPoints, lockCards } from '../../store/loyalty.ts';
import { listProjects } from '../../store/projects.ts';
import { inTransaction, internalActor, type Deps } from '../context.ts';
import { expireDueBuckets } from '../ledger/ledger.ts';
import type { ProjectDay } from './cards.ts';
import { activateEntry } from './pending-activation.ts';

// The loyalty part of the vendor's nightly run (loyalty reference 2.8.2), done whenever the worker's
// periodic task comes round: in each project, first pending points due by today are activated, then
// buckets whose last usable day is over are expired. "Today" is the project's own calendar day, so a
// bucket with `expires_at` 2026-04-30 is usable all that day and gone from 2026-05-01 00:00 project time.
//
// Every card is handled in its own transaction with its row locked first, so the run can stop anywhere,
// two workers can run it at once, and it never holds more than one card. It is safe to repeat: an
// expired bucket or an activated entry is no longer due.

const PAGE = 200;

export interface ScheduleResult {
  activated: number;
  expiredCards: number;
  expiredPoints: number;
  failures: number;
}

export async function runLoyaltySchedule(deps: Deps, log?: FastifyBaseLogger): Promise<ScheduleResult> {
  const result: ScheduleResult = { activated: 0, expiredCards: 0, expiredPoints: 0, failures: 0 };
  const requestId = newRequestId();
  const pacer = new Pacer();
  for (const project of await listProjects(deps.db)) {
    const now = deps.clock.now();
    const day: ProjectDay = { timeZone: project.timezone, now, today: localDate(now, project.timezone) };
    const actor = internalActor(project.id, requestId);

    let afterId: string | null = null;
    for (;;) {
      const entries = await duePendingPoints(deps.db, project.id, day.today, afterId, PAGE);
      if (entries.length === 0) break;
      for (const entry of entries) {
        afterId = entry.id;
        try {
          const done = await inTransaction(deps, async (tx) => {
            const card = (await lockCards(tx, project.id, [entry.voucher_id])).get(entry.voucher_id);
            const current = await findPendingPoints(tx, project.id, entry.id);
            // Another worker, or a person, got there first; or the card was deleted meanwhile.
            if (!card || !current || current.status !== 'PENDING') return false;
            await activateEntry(tx, deps, actor, card, current, day);
            return true;
          });
          if (done) result.activated++;
        } catch (error) {
          result.failures++;
          log?.error({ err: error, pending_points_id: entry.id }, 'pending points activation failed');
        }
        await pacer.between();
      }
    }

    let afterVoucherId: string | null = null;
    for (;;) {
      const voucherIds = await cardsWithDueBuckets(deps.db, project.id, day.today, afterVoucherId, PAGE);
      if (voucherIds.length === 0) break;
      for (const voucherId of voucherIds) {
        afterVoucherId = voucherId;
        try {
          const points = await inTransaction(deps, async (tx) => {
            const card = (await lockCards(tx, project.id, [voucherId])).get(voucherId);
            if (!card) return null;
            const expired = await expireDueBuckets(tx, deps, actor, card, day.today);
            if (expired > 0) await afterPointsChange(tx, deps, actor, card, { added: false });
            return expired;
          });
          if (points !== null && points > 0) {
            result.expiredCards++;
            result.expiredPoints += points;
          }
        } catch (error) {
          result.failures++;
          log?.error({ err: error, voucher_id: voucherId }, 'points expiry failed');
        }
        await pacer.between();
      }
    }
  }
  return result;
}
