import { sql, type Insertable, type Selectable, type SqlBool } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { lockCustomerRows } from './customer-locks.ts';
import { fromJson } from './json.ts';
import { prepared } from './prepared.ts';
import type { LoyaltyBucketsTable, LoyaltyPendingPointsTable, VoucherTransactionsTable } from './schema.ts';
import { ACTIVITY_WINDOW, countEventsUpTo, type EventSource } from './events.ts';
import type { VoucherRow } from './vouchers.ts';
import { projectCheck } from './id-lookups.ts';

// Loyalty members: card locking, the member list, a card's activity, its points buckets, pending points
// entries, and the scans of the periodic expiry and activation work. Every query names its project.

export type PendingPointsRow = Selectable<LoyaltyPendingPointsTable>;
export type BucketRow = Selectable<LoyaltyBucketsTable>;

const liveCardsLocked = prepared((db, p: { projectId: string; ids: string[] }) => {
  const query = db.selectFrom('vouchers').selectAll().where(projectCheck(), '=', p.projectId).where('id', 'in', p.ids).where('binned_at', 'is', null).orderBy('id');
  return isPostgres(db) ? query.forUpdate() : query;
});

/**
 * Takes the row locks of the given cards, always in id order, and answers them as they are now. Two
 * requests that touch the same cards (opposite transfers, a transfer racing the expiry job) therefore
 * queue instead of deadlocking. On SQLite the write transaction already excludes every other writer.
 */
export async function lockCards(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, VoucherRow>> {
  const sorted = [...new Set(ids)].sort();
  const out = new Map<string, VoucherRow>();
  if (sorted.length === 0) return out;
  for (const row of await liveCardsLocked.all(db, { projectId, ids: sorted })) out.set(row.id, row);
  return out;
}

/** Serialises joins of one customer (join-once is checked by reading the customer's cards). */
export async function lockCustomer(db: Executor, projectId: string, customerId: string): Promise<void> {
  await lockCustomerRows(db, projectId, [customerId]);
}

// ---- members ----

export type MemberOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'code' | '-code';

export interface MemberListQuery {
  projectId: string;
  campaignId: string;
  limit: number;
  offset: number;
  order: MemberOrder;
  holderId?: string;
  /** The code as compared (store/vouchers.ts codeKey): case folded in projects whose codes ignore case. */
  codeKey?: string;
  ids?: readonly string[];
  createdBefore?: string;
  createdAfter?: string;
  updatedBefore?: string;
  updatedAfter?: string;
}

/** Published cards (cards with a holder) of one program. */
export async function listMemberCards(db: Executor, q: MemberListQuery): Promise<{ rows: VoucherRow[]; total: number }> {
  const lastChange = sql<string>`coalesce(updated_at, created_at)`;
  // Asked for by ids, the cards are found by key and the project only checks them (./id-lookups.ts).
  const project = q.ids === undefined ? sql.ref<string>('project_id') : projectCheck();
  let base = db
    .selectFrom('vouchers')
    .where(project, '=', q.projectId)
    .where('campaign_id', '=', q.campaignId)
    .where('binned_at', 'is', null)
    .where('holder_id', 'is not', null);
  if (q.holderId !== undefined) base = base.where('holder_id', '=', q.holderId);
  if (q.codeKey !== undefined) base = base.where('code_key', '=', q.codeKey);
  if (q.ids !== undefined) base = q.ids.length === 0 ? base.where(sql<SqlBool>`1 = 0`) : base.where('id', 'in', q.ids);
  if (q.createdBefore !== undefined) base = base.where('created_at', '<', q.createdBefore);
  if (q.createdAfter !== undefined) base = base.where('created_at', '>', q.createdAfter);
  if (q.updatedBefore !== undefined) base = base.where(lastChange, '<', q.updatedBefore);
  if (q.updatedAfter !== undefined) base = base.where(lastChange, '>', q.updatedAfter);
  const direction = q.order.startsWith('-') ? 'desc' : 'asc';
  const key = q.order.replace('-', '');
  const column = key === 'updated_at' ? lastChange : key === 'code' ? sql<string>`code` : sql<string>`created_at`;
  const rows = await base.selectAll().orderBy(column, direction).orderBy('id', direction).offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

// ---- card activity (the event log filtered by card) ----

export interface CardEvent {
  seq: number;
  id: string;
  /** The activity type (`customer.redemption.succeeded`, …). */
  type: string;
  /** The event type (`redemption.succeeded`, …). */
  eventType: string;
  data: Record<string, unknown>;
  source: EventSource;
  groupId: string;
  createdAt: string;
}

export interface CardActivityQuery {
  projectId: string;
  voucherCode: string;
  /** Events before the card existed belong to an earlier voucher that had the same code. */
  since: string;
  limit: number;
  descending: boolean;
  after?: { createdAt: string; seq: number };
  /** Page offset, for the deprecated list that answers a total. */
  offset?: number;
  /** Count the card's activities too (up to ACTIVITY_WINDOW), for the deprecated list. */
  withTotal: boolean;
}

export async function findCardEvent(db: Executor, projectId: string, voucherCode: string, eventId: string): Promise<{ createdAt: string; seq: number } | null> {
  const row = await db
    .selectFrom('events')
    .select(['created_at', 'seq'])
    .where('project_id', '=', projectId)
    .where('voucher_code', '=', voucherCode)
    .where('id', '=', eventId)
    .where('activity_type', 'is not', null)
    .executeTakeFirst();
  return row ? { createdAt: row.created_at, seq: Number(row.seq) } : null;
}

export interface CardEventRow {
  seq: number | string;
  id: string;
  type: string;
  activity_type: string | null;
  data: string;
  source: string;
  group_id: string;
  created_at: string;
}

/** A row of listCardActivity as an event; the caller runs it per row, so one whose JSON does not parse can be left out. */
export function toCardEvent(r: CardEventRow): CardEvent {
  return {
    seq: Number(r.seq),
    id: r.id,
    type: r.activity_type ?? '',
    eventType: r.type,
    data: fromJson(r.data, {}),
    source: fromJson<EventSource>(r.source, { channel: 'INTERNAL' }),
    groupId: r.group_id,
    createdAt: r.created_at,
  };
}

export async function listCardActivity(db: Executor, q: CardActivityQuery): Promise<{ rows: CardEventRow[]; hasMore: boolean; total: number | null }> {
  const direction = q.descending ? 'desc' : 'asc';
  const base = db
    .selectFrom('events')
    .where('project_id', '=', q.projectId)
    .where('voucher_code', '=', q.voucherCode)
    .where('activity_type', 'is not', null)
    .where('created_at', '>=', q.since);
  let page = base.select(['seq', 'id', 'type', 'activity_type', 'data', 'source', 'group_id', 'created_at']);
  if (q.after) {
    const cursor = q.after;
    page = page.where(sql<SqlBool>`(created_at, seq) ${sql.raw(q.descending ? '<' : '>')} (${cursor.createdAt}, ${cursor.seq})`);
  }
  const rows = await page
    .orderBy('created_at', direction)
    .orderBy('seq', direction)
    .offset(q.offset ?? 0)
    .limit(q.limit + 1)
    .execute();
  const total = q.withTotal ? Math.min(ACTIVITY_WINDOW, await countEventsUpTo(db, base, ACTIVITY_WINDOW)) : null;
  return {
    rows: rows.slice(0, q.limit),
    hasMore: rows.length > q.limit,
    total,
  };
}

// ---- points buckets ----

/** A card's buckets that can still be used on `today`: active and not past their last day. */
export async function listUsableBuckets(db: Executor, projectId: string, voucherId: string, today: string, limit: number, offset: number): Promise<{ rows: BucketRow[]; total: number }> {
  const base = db
    .selectFrom('loyalty_buckets')
    .where('project_id', '=', projectId)
    .where('voucher_id', '=', voucherId)
    .where('status', '=', 'ACTIVE')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>=', today)]));
  const rows = await base
    .selectAll()
    .orderBy(sql`case when expires_at is null then 1 else 0 end`)
    .orderBy('expires_at')
    .orderBy('id')
    .offset(offset)
    .limit(limit)
    .execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/**
 * Cards of one project holding active buckets whose last usable day is before `today`, after the
 * cursor, in voucher id order.
 */
export async function cardsWithDueBuckets(db: Executor, projectId: string, today: string, afterVoucherId: string | null, limit: number): Promise<string[]> {
  let query = db
    .selectFrom('loyalty_buckets')
    .select('voucher_id')
    .distinct()
    .where('project_id', '=', projectId)
    .where('status', '=', 'ACTIVE')
    .where('expires_at', '<', today);
  if (afterVoucherId !== null) query = query.where('voucher_id', '>', afterVoucherId);
  const rows = await query.orderBy('voucher_id').limit(limit).execute();
  return rows.map((r) => r.voucher_id);
}

/** One project's PENDING entries due by `today`, after the cursor id, oldest id first. */
export async function duePendingPoints(db: Executor, projectId: string, today: string, afterId: string | null, limit: number): Promise<PendingPointsRow[]> {
  let query = db
    .selectFrom('loyalty_pending_points')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('status', '=', 'PENDING')
    .where('activates_at', '<=', today);
  if (afterId !== null) query = query.where('id', '>', afterId);
  return query.orderBy('id').limit(limit).execute();
}

// ---- pending points ----

export async function insertPendingPoints(db: Executor, row: Insertable<LoyaltyPendingPointsTable>): Promise<void> {
  await db.insertInto('loyalty_pending_points').values(row).execute();
}

export async function findPendingPoints(db: Executor, projectId: string, id: string): Promise<PendingPointsRow | undefined> {
  return db.selectFrom('loyalty_pending_points').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export interface PendingListQuery {
  projectId: string;
  campaignId?: string;
  voucherId?: string;
  limit: number;
  descending: boolean;
  startingAfterId?: string;
}

/** PENDING entries of a card or a program, by id; activated and canceled entries leave the lists. */
export async function listPendingPoints(db: Executor, q: PendingListQuery): Promise<{ rows: PendingPointsRow[]; hasMore: boolean }> {
  let query = db.selectFrom('loyalty_pending_points').selectAll().where('project_id', '=', q.projectId).where('status', '=', 'PENDING');
  if (q.voucherId !== undefined) query = query.where('voucher_id', '=', q.voucherId);
  if (q.campaignId !== undefined) query = query.where('campaign_id', '=', q.campaignId);
  if (q.startingAfterId !== undefined) query = query.where('id', q.descending ? '<' : '>', q.startingAfterId);
  const rows = await query.orderBy('id', q.descending ? 'desc' : 'asc').limit(q.limit + 1).execute();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** Moves a PENDING entry to `status`; answers the entry as it was moved, or undefined when it was not PENDING. */
export async function closePendingPoints(db: Executor, projectId: string, id: string, status: 'ACTIVATED' | 'CANCELED', at: string): Promise<PendingPointsRow | undefined> {
  return db
    .updateTable('loyalty_pending_points')
    .set({ status, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .returningAll()
    .executeTakeFirst();
}

/** Changes a PENDING entry's points by `delta`, only while the result stays above zero. */
export async function adjustPendingPoints(db: Executor, projectId: string, id: string, delta: number, at: string): Promise<PendingPointsRow | undefined> {
  return db
    .updateTable('loyalty_pending_points')
    .set({ points: sql<number>`points + ${delta}`, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where(sql<SqlBool>`points + ${delta} > 0`)
    .returningAll()
    .executeTakeFirst();
}

/** Moves a card's pending-points counter by `delta` in one statement (never read and written back). */
export async function addToCardPendingPoints(db: Executor, projectId: string, voucherId: string, delta: number, at: string): Promise<VoucherRow | undefined> {
  return db
    .updateTable('vouchers')
    .set({ loyalty_pending_points: sql<number>`loyalty_pending_points + ${delta}`, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', voucherId)
    .where('binned_at', 'is', null)
    .where(sql<SqlBool>`loyalty_pending_points + ${delta} >= 0`)
    .returningAll()
    .executeTakeFirst();
}
