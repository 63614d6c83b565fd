import { sql } from 'kysely';
import { fromJson } from './json.ts';
import { isPostgres, type Executor } from './db.ts';
import type { DefinitionsView } from './definitions.ts';
import { prepared } from './prepared.ts';
import { readTogether } from './combined-reads.ts';
import { tierSummariesOf, tierSummariesQuery, type TierSummary } from './promotion-tiers.ts';
import { lockedAmountsOf, lockedByOthers, lockedByOthersQuery, type LockedAmounts } from './redemption-sessions.ts';
import type { LockKind } from './schema.ts';
import type { VoucherRow } from './vouchers.ts';
import { projectCheck } from './id-lookups.ts';

// The batched reads of the redemption engine: the project settings it needs in one query, every voucher
// a request names in one query (locked for the redemption's transaction on PostgreSQL), and the indexed
// counts validation rules read. Every query names its project.

export interface ProjectSettings {
  timezone: string;
  caseSensitiveCodes: boolean;
  /** The stored stacking rules JSON, or null when the project uses the defaults. */
  stackingRules: string | null;
}

const settingsOf = prepared((db, p: { projectId: string }) =>
  db
    .selectFrom('projects as p')
    .leftJoin('stacking_rules as s', 's.project_id', 'p.id')
    .select(['p.timezone', 'p.case_sensitive_codes', 's.rules'])
    .where('p.id', '=', p.projectId)
    .where('p.deleted_at', 'is', null),
);

/** A project's settings and stacking rules; with `defs`, from the definitions cache (src/store/definitions.ts). */
export async function projectSettings(db: Executor, projectId: string, defs?: DefinitionsView): Promise<ProjectSettings | undefined> {
  const load = async (db: Executor): Promise<ProjectSettings | null> => {
    const row = await settingsOf.first(db, { projectId });
    return row ? { timezone: row.timezone, caseSensitiveCodes: Boolean(row.case_sensitive_codes), stackingRules: row.rules } : null;
  };
  return (defs ? await defs.get('settings', load) : await load(db)) ?? undefined;
}

const liveVouchersByCodeKey = prepared((db, p: { projectId: string; codeKeys: string[] }) =>
  db.selectFrom('vouchers').selectAll().where('project_id', '=', p.projectId).where('binned_at', 'is', null).where('code_key', 'in', p.codeKeys),
);

const liveVouchersById = prepared((db, p: { projectId: string; ids: string[] }) =>
  db.selectFrom('vouchers').selectAll().where(projectCheck(), '=', p.projectId).where('binned_at', 'is', null).where('id', 'in', p.ids),
);

const liveVouchersByCodeKeyLocked = prepared((db, p: { projectId: string; codeKeys: string[] }) =>
  db.selectFrom('vouchers').selectAll().where('project_id', '=', p.projectId).where('binned_at', 'is', null).where('code_key', 'in', p.codeKeys).orderBy('id').forUpdate(),
);

const liveVouchersLocked = prepared((db, p: { projectId: string; ids: string[] }) =>
  db.selectFrom('vouchers').selectAll().where(projectCheck(), '=', p.projectId).where('binned_at', 'is', null).where('id', 'in', p.ids).orderBy('id').forUpdate(),
);

/** A voucher as a request names it: by code (its key, case folded as the project says) or by id. */
export interface VoucherName {
  codeKey: string | null;
  id: string;
}

/**
 * Live vouchers named by code key or id, in id order. With `lock` the rows stay locked until the
 * transaction ends (PostgreSQL; SQLite write transactions are exclusive): every later read of them in
 * the transaction, including the session locks counted against them, sees the latest committed state,
 * and concurrent redemptions of one voucher queue instead of racing.
 */
export async function findVouchersForRedemption(db: Executor, projectId: string, names: readonly VoucherName[], lock: boolean): Promise<VoucherRow[]> {
  if (names.length === 0) return [];
  const allByCode = names.every((n) => n.codeKey !== null);
  if (lock && isPostgres(db) && allByCode) {
    // The usual request names its vouchers by code: found, locked in id order and read under the lock
    // by one statement. A name that is no code falls through to the lookups below.
    const codeKeys = [...new Set(names.map((n) => n.codeKey as string))];
    const rows = await liveVouchersByCodeKeyLocked.all(db, { projectId, codeKeys });
    if (new Set(rows.map((r) => r.code_key)).size === codeKeys.length) return rows;
  }
  // Two indexed lookups rather than `code_key IN … OR id IN …`: SQLite cannot serve that OR from the
  // vouchers_code index and the primary key together and scans every voucher of the database instead.
  // A name found as a code is not looked up as an id.
  const byId = new Map<string, VoucherRow>();
  const codeKeys = [...new Set(names.flatMap((n) => (n.codeKey === null ? [] : [n.codeKey])))];
  if (codeKeys.length > 0) for (const row of await liveVouchersByCodeKey.all(db, { projectId, codeKeys })) byId.set(row.id, row);
  const foundKeys = new Set([...byId.values()].map((row) => row.code_key));
  const ids = [...new Set(names.filter((n) => n.codeKey === null || !foundKeys.has(n.codeKey)).map((n) => n.id))];
  if (ids.length > 0) for (const row of await liveVouchersById.all(db, { projectId, ids })) byId.set(row.id, row);
  if (byId.size === 0) return [];
  if (lock && isPostgres(db)) {
    // Locked in id order by one statement (so two requests never lock the same vouchers in opposite
    // orders), and read again under the lock: the rows answered are the latest committed versions.
    return liveVouchersLocked.all(db, { projectId, ids: [...byId.keys()] });
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const liveVouchersWithLocks = prepared((db, p: { projectId: string; codeKeys: string[]; now: string; ownKey: string | undefined }) => {
  const others = p.ownKey === undefined ? sql`` : sql` and l.session_key <> ${p.ownKey}`;
  const locked = (kind: LockKind) =>
    sql<number>`(select coalesce(sum(l.amount), 0) from redemption_locks as l where l.project_id = vouchers.project_id and l.voucher_id = vouchers.id and l.kind = ${kind} and l.expires_at > ${p.now}${others})`;
  return db
    .selectFrom('vouchers')
    .selectAll()
    .select([locked('quantity').as('locked_quantity'), locked('credits').as('locked_credits'), locked('points').as('locked_points')])
    .where('project_id', '=', p.projectId)
    .where('binned_at', 'is', null)
    .where('code_key', 'in', p.codeKeys);
});

/**
 * The vouchers a request names (as findVouchersForRedemption) and the live reservations other sessions
 * hold on them (as lockedByOthers). Both come from one statement when every name is a code, except where
 * PostgreSQL locks the rows: a statement that waited for a row lock would have counted the reservations
 * as of before the wait, so they are read after the lock, in a statement of their own. SQLite's write
 * transaction is exclusive, and a read that locks nothing (a validation) counts both at one moment.
 */
export async function findVouchersAndLocks(
  db: Executor,
  projectId: string,
  names: readonly VoucherName[],
  lock: boolean,
  now: string,
  ownSessionKey: string | null,
  tierIds: readonly string[] = [],
): Promise<{ rows: VoucherRow[]; locked: Map<string, LockedAmounts>; tierSummaries: Map<string, TierSummary> | null }> {
  const codeKeys = [...new Set(names.flatMap((n) => (n.codeKey === null ? [] : [n.codeKey])))];
  if ((!lock || !isPostgres(db)) && codeKeys.length > 0 && codeKeys.length === names.length) {
    const rows = await liveVouchersWithLocks.all(db, { projectId, codeKeys, now, ownKey: ownSessionKey ?? undefined });
    if (new Set(rows.map((r) => r.code_key)).size === codeKeys.length) {
      const locked = new Map<string, LockedAmounts>();
      // The rows keep the three sums as extra members: an object rest that dropped them cost a copy of
      // every row at Node 20's slow rate (src/lib/objects.ts), 3-5 % of a validation's CPU. Readers of a
      // voucher row read the members they name.
      for (const row of rows) locked.set(row.id, { quantity: Number(row.locked_quantity), credits: Number(row.locked_credits), points: Number(row.locked_points) });
      const plain: VoucherRow[] = [...rows];
      return { rows: plain.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), locked, tierSummaries: null };
    }
  }
  const rows = await findVouchersForRedemption(db, projectId, names, lock);
  const voucherIds = rows.map((r) => r.id);
  if (voucherIds.length === 0 || tierIds.length === 0) return { rows, locked: await lockedByOthers(db, projectId, voucherIds, ownSessionKey, now), tierSummaries: null };
  // The reservations need a statement of their own here, and the summaries of the request's tiers (which
  // its records show) can share it: neither is locked, and both are read after the vouchers' lock.
  const [locks = [], summaries = []] = await readTogether(db, [
    lockedByOthersQuery(db, projectId, voucherIds, ownSessionKey, now),
    tierSummariesQuery(db, projectId, tierIds),
  ]);
  return { rows, locked: lockedAmountsOf(locks), tierSummaries: tierSummariesOf(summaries) };
}

/**
 * Serialises the requests that use one order (reference 6.10: one request per order at a time) until the
 * transaction ends. PostgreSQL takes a transaction-scoped advisory lock on a hash of the project and the
 * order's id or source_id; SQLite write transactions are exclusive already.
 */
export async function lockOrderKey(db: Executor, projectId: string, orderKey: string): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`order:${projectId}:${orderKey}`}, 0))`.execute(db);
}

export interface CountQuery {
  projectId: string;
  /** Count the redemptions of this incentive (voucher or tier id) … */
  relatedObjectId?: string;
  /** … or of this campaign. */
  campaignId?: string;
  customerId?: string;
  /** Inclusive lower bound on `created_at`. */
  since?: string;
}

/**
 * Successful redemptions (not rolled back) matching the query: their number, Σ order amounts and Σ the
 * discounts they gave. Served by redemptions_related_customer, redemptions_related or
 * redemptions_campaign_id — never a scan of the project's redemptions.
 */
export async function redemptionCounts(db: Executor, q: CountQuery): Promise<{ count: number; amount: number; discount: number }> {
  let query = db
    .selectFrom('redemptions')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number | null>('order_amount').as('amount'),
      eb.fn.sum<number | null>('order_total_applied_discount_amount').as('discount'),
    ])
    .where('project_id', '=', q.projectId)
    .where(sql<boolean>`object = 'redemption' and result = 'SUCCESS'`)
    .where('status', '=', 'SUCCEEDED');
  // The condition of redemptions_related(_customer), written as the indexes' definition has it (migration
  // 0041): a database uses a partial index only for a statement that names its condition.
  if (q.relatedObjectId !== undefined) query = query.where('related_object_id', '=', q.relatedObjectId).where(sql<boolean>`related_object_type <> 'redemption'`);
  if (q.campaignId !== undefined) query = query.where('campaign_id', '=', q.campaignId);
  if (q.customerId !== undefined) query = query.where('customer_id', '=', q.customerId);
  if (q.since !== undefined) query = query.where('created_at', '>=', q.since);
  const row = await query.executeTakeFirstOrThrow();
  return { count: Number(row.n), amount: Number(row.amount ?? 0), discount: Number(row.discount ?? 0) };
}

// Without `ownSessionKey` every live quantity lock counts against the limit; with it, that session's are left out.
const voucherUse = prepared((db, p: { projectId: string; voucherId: string; now: string; ownSessionKey: string | undefined }) => {
  const ownSession = p.ownSessionKey === undefined ? sql`` : sql` and l.session_key <> ${p.ownSessionKey}`;
  const reserved = sql<number>`(select coalesce(sum(l.amount), 0) from redemption_locks as l where l.project_id = ${p.projectId} and l.voucher_id = ${p.voucherId} and l.kind = 'quantity' and l.expires_at > ${p.now}${ownSession})`;
  return db
    .updateTable('vouchers')
    .set({ redeemed_quantity: sql<number>`redeemed_quantity + 1`, updated_at: p.now })
    .where('project_id', '=', p.projectId)
    .where('id', '=', p.voucherId)
    .where('binned_at', 'is', null)
    .where((eb) => eb.or([eb('redemption_quantity', 'is', null), eb(sql<number>`redeemed_quantity + ${reserved}`, '<', eb.ref('redemption_quantity'))]));
});

/**
 * One use of a voucher by a redemption: `redeemed_quantity` goes up by one only while the uses so far
 * plus the live reservations of other sessions stay below the limit, in one conditional statement.
 * Answers false (nothing changed) when the limit is reached: `quantity_exceeded`.
 */
export async function useVoucherOnce(db: Executor, projectId: string, voucherId: string, ownSessionKey: string | null, now: string): Promise<boolean> {
  const result = await voucherUse.run(db, { projectId, voucherId, now, ownSessionKey: ownSessionKey ?? undefined });
  return Number(result.numAffectedRows) === 1;
}

/** A rollback gives a voucher's use back (never below zero). */
export async function returnVoucherUse(db: Executor, projectId: string, voucherId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('vouchers')
    .set({ redeemed_quantity: sql<number>`redeemed_quantity - 1`, updated_at: now })
    .where('project_id', '=', projectId)
    .where('id', '=', voucherId)
    .where('redeemed_quantity', '>=', 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A rollback gives a reward unit back: `redeemed` down and, when the reward's stock is limited, stock up. */
export async function returnRewardUnit(db: Executor, projectId: string, rewardId: string, stockTaken: boolean, now: string): Promise<void> {
  await db
    .updateTable('rewards')
    .set({
      redeemed: sql<number>`case when redeemed > 0 then redeemed - 1 else 0 end`,
      ...(stockTaken ? { stock: sql<number | null>`case when stock is null then null else stock + 1 end` } : {}),
      updated_at: now,
    })
    .where('project_id', '=', projectId)
    .where('id', '=', rewardId)
    .execute();
}

/** Which loyalty buckets a points debit drew from ({bucket id: points}), so a refund puts them back. */
export async function transactionBucketMoves(db: Executor, projectId: string, transactionId: string): Promise<Record<string, number> | null> {
  const row = await db.selectFrom('voucher_transactions').select('bucket_moves').where('project_id', '=', projectId).where('id', '=', transactionId).executeTakeFirst();
  return row?.bucket_moves ? fromJson<Record<string, number> | null>(row.bucket_moves, null) : null;
}

/** A coupon a reward handed out is taken back by disabling it, only while it is unused; answers whether it was. */
export async function disableUnusedVoucher(db: Executor, projectId: string, voucherId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('vouchers')
    .set({ active: false, updated_at: now })
    .where('project_id', '=', projectId)
    .where('id', '=', voucherId)
    .where('redeemed_quantity', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The live vouchers a customer holds (their wallet), newest first, at most `limit` (served by vouchers_holder). */
export async function walletVouchers(db: Executor, projectId: string, customerId: string, limit: number): Promise<VoucherRow[]> {
  return db
    .selectFrom('vouchers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('holder_id', '=', customerId)
    .where('binned_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Vouchers that nobody holds and anyone may use (standalone vouchers and unassigned codes of discount and
 * gift card campaigns), newest first, as qualification candidates. Only what could still be redeemed at
 * `now` is read (active, not expired, redemptions left, campaign live), so the limit is spent on usable
 * codes. The walk follows `vouchers_created` (project, created_at, id) and stops after `limit` rows.
 */
export async function unheldVouchers(db: Executor, projectId: string, now: string, limit: number): Promise<VoucherRow[]> {
  return db
    .selectFrom('vouchers as v')
    .leftJoin('campaigns as c', (join) => join.onRef('c.id', '=', 'v.campaign_id').on('c.project_id', '=', projectId))
    .selectAll('v')
    .where('v.project_id', '=', projectId)
    .where('v.binned_at', 'is', null)
    .where('v.holder_id', 'is', null)
    .where('v.active', '=', true)
    .where('v.is_referral_code', '=', false)
    .where('v.type', 'in', ['DISCOUNT_VOUCHER', 'GIFT_VOUCHER'])
    .where((eb) => eb.or([eb('v.expiration_date', 'is', null), eb('v.expiration_date', '>', now)]))
    .where((eb) => eb.or([eb('v.redemption_quantity', 'is', null), eb('v.redeemed_quantity', '<', eb.ref('v.redemption_quantity'))]))
    .where((eb) =>
      eb.or([
        eb('v.campaign_id', 'is', null),
        eb.and([eb('c.active', '=', true), eb('c.binned_at', 'is', null), eb('c.campaign_type', 'in', ['DISCOUNT_COUPONS', 'GIFT_VOUCHERS'])]),
      ]),
    )
    .orderBy('v.created_at', 'desc')
    .orderBy('v.id', 'desc')
    .limit(limit)
    .execute();
}
