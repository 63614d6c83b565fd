import { errors } from '../../domain/errors.ts';
import { purgeExpiredLocks, releaseVoucherSession } from '../../store/redemption-sessions.ts';
import { findLiveVoucherByCode } from '../../store/vouchers.ts';
import type { Actor, Deps } from '../context.ts';

// Session locks outside validation and redemption (promotions reference 6.10): released by hand, and
// expired ones purged. Reads ignore expired locks anyway; the purge only keeps the table small.

/** `DELETE /v1/vouchers/{code}/sessions/{sessionKey}`: 404 when the voucher or a live session on it is unknown. */
export async function releaseSession(deps: Deps, actor: Actor, code: string, sessionKey: string): Promise<void> {
  const voucher = await findLiveVoucherByCode(deps.db, actor.projectId, code);
  if (!voucher) throw errors.notFound('voucher', code);
  const released = await releaseVoucherSession(deps.db, actor.projectId, voucher.id, sessionKey, deps.clock.now().toISOString());
  if (released === 0) throw errors.notFound('session', sessionKey);
}

export async function purgeExpiredSessions(deps: Pick<Deps, 'db' | 'clock'>): Promise<number> {
  return purgeExpiredLocks(deps.db, deps.clock.now().toISOString());
}
