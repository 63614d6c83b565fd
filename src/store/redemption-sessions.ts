import type { CompiledQuery } from 'kysely';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';
import type { LockKind } from './schema.ts';

// Session locks (promotions reference 6.10): what validations with `session.type = LOCK` reserved, per
// voucher and kind, until they expire. A live lock of another session counts against a voucher's
// quantity, gift balance and points; expired rows are ignored by every read and purged periodically.

export interface LockedAmounts {
  quantity: number;
  credits: number;
  points: number;
}

const NONE: LockedAmounts = { quantity: 0, credits: 0, points: 0 };

// Without `ownKey` every live lock counts; with it, the locks of that session are left out.
const lockedAmounts = prepared((db, p: { projectId: string; voucherIds: string[]; now: string; ownKey: string | undefined }) => {
  let query = db
    .selectFrom('redemption_locks')
    .select(['voucher_id', 'kind'])
    .select((eb) => eb.fn.sum<number>('amount').as('amount'))
    .where('project_id', '=', p.projectId)
    .where('voucher_id', 'in', p.voucherIds)
    .where('expires_at', '>', p.now);
  if (p.ownKey !== undefined) query = query.where('session_key', '!=', p.ownKey);
  return query.groupBy(['voucher_id', 'kind']);
});

/**
 * The live reservations on each voucher held by sessions other than `ownKey` (one query for all the
 * vouchers of a request, served by redemption_locks_voucher).
 */
export async function lockedByOthers(
  db: Executor,
  projectId: string,
  voucherIds: readonly string[],
  ownKey: string | null,
  now: string,
): Promise<Map<string, LockedAmounts>> {
  if (voucherIds.length === 0) return new Map();
  return lockedAmountsOf((await db.executeQuery(lockedByOthersQuery(db, projectId, voucherIds, ownKey, now))).rows);
}

/** lockedByOthers' statement, to be sent with other reads (src/store/combined-reads.ts); voucherIds not empty. */
export function lockedByOthersQuery(db: Executor, projectId: string, voucherIds: readonly string[], ownKey: string | null, now: string): CompiledQuery<Record<string, unknown>> {
  return lockedAmounts.bind(db, { projectId, voucherIds: [...new Set(voucherIds)], now, ownKey: ownKey ?? undefined });
}

/** The rows of lockedByOthersQuery, per voucher. */
export function lockedAmountsOf(rows: ReadonlyArray<Record<string, unknown>>): Map<string, LockedAmounts> {
  const out = new Map<string, LockedAmounts>();
  for (const row of rows) {
    const voucherId = row.voucher_id as string;
    const current = out.get(voucherId) ?? { ...NONE };
    current[row.kind as LockKind] = Number(row.amount);
    out.set(voucherId, current);
  }
  return out;
}

export interface NewLock {
  voucherId: string;
  kind: LockKind;
  amount: number;
}

/**
 * Replaces what session `key` reserved on the given vouchers with `locks` (the vendor: "sending an
 * existing key overwrites the session"), all expiring at `expiresAt`.
 */
export async function replaceSessionLocks(
  db: Executor,
  projectId: string,
  key: string,
  voucherIds: readonly string[],
  locks: readonly NewLock[],
  expiresAt: string,
  now: string,
): Promise<void> {
  if (voucherIds.length > 0) {
    await db
      .deleteFrom('redemption_locks')
      .where('project_id', '=', projectId)
      .where('session_key', '=', key)
      .where('voucher_id', 'in', [...new Set(voucherIds)])
      .execute();
  }
  const rows = locks.filter((l) => l.amount > 0);
  if (rows.length === 0) return;
  await db
    .insertInto('redemption_locks')
    .values(rows.map((l) => ({ project_id: projectId, session_key: key, voucher_id: l.voucherId, kind: l.kind, amount: l.amount, expires_at: expiresAt, created_at: now })))
    .execute();
}

/** Releases everything session `key` reserved (a redemption carrying the key used it); answers how many rows went. */
export async function releaseSession(db: Executor, projectId: string, key: string): Promise<number> {
  const result = await db.deleteFrom('redemption_locks').where('project_id', '=', projectId).where('session_key', '=', key).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** `DELETE /v1/vouchers/{code}/sessions/{key}`: releases the session's live locks on one voucher. */
export async function releaseVoucherSession(db: Executor, projectId: string, voucherId: string, key: string, now: string): Promise<number> {
  const result = await db
    .deleteFrom('redemption_locks')
    .where('project_id', '=', projectId)
    .where('voucher_id', '=', voucherId)
    .where('session_key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes the expired locks of every project (served by redemption_locks_expiry); answers how many. */
export async function purgeExpiredLocks(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('redemption_locks').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
