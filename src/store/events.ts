import { sql, type Expression, type ExpressionBuilder, type Insertable, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Executor } from './db.ts';
import { flushWrites } from './held-writes.ts';
import { fromJson, toJson } from './json.ts';
import { prepared } from './prepared.ts';
import type { Database, EventsTable } from './schema.ts';
import { projectCheck } from './id-lookups.ts';

// The append-only event log. Every state change appends here inside the transaction that makes the
// change, so an event exists exactly when its change committed. Customer activities are queries over
// this table; the webhook worker reads it in `seq` order.

/** CUSTOMER_COCKPIT: the customer, through their cockpit link (README "Customer cockpit"). */
export type EventChannel = 'API' | 'CLIENT_API' | 'USER_PORTAL' | 'CUSTOMER_COCKPIT' | 'INTERNAL';

export interface EventSource {
  channel: EventChannel;
  api_key?: { name: string; app_id: string };
  user?: { id: string };
}

export interface NewEvent {
  id: string;
  projectId: string;
  type: string;
  activityType?: string | null;
  activityCategory?: 'ACTION' | 'EFFECT' | null;
  customerId?: string | null;
  campaign?: { id: string; type: string; name: string } | null;
  voucherCode?: string | null;
  categoryName?: string | null;
  productIds?: readonly string[];
  entityId?: string | null;
  data: Record<string, unknown>;
  source: EventSource;
  groupId: string;
  createdAt: string;
}

export interface StoredEvent {
  seq: number;
  id: string;
  projectId: string;
  type: string;
  activityType: string | null;
  activityCategory: 'ACTION' | 'EFFECT' | null;
  customerId: string | null;
  campaignId: string | null;
  entityId: string | null;
  data: Record<string, unknown>;
  source: EventSource;
  groupId: string;
  createdAt: string;
}

const insertEvents = prepared((db, p: { rows: Insertable<EventsTable>[] }) => db.insertInto('events').values(p.rows));

// Events a transaction appends are kept until it is about to commit and then written together (inTransaction,
// src/services/context.ts): a redemption appends order, loyalty and redemption events at several steps,
// and one multi-row insert costs far less than one statement each. They are written in the order they were
// appended, inside the same transaction, so their `seq` order and their commit with the change are as
// before; nothing reads a transaction's own events back before it commits.
const pending = new WeakMap<object, NewEvent[]>();
/** Rows per insert statement (17 parameters each, well under SQLite's limit). */
const FLUSH_BATCH = 500;

/** From now on, events appended through `tx` wait for flushEvents(tx). */
export function holdEvents(tx: Executor): void {
  pending.set(tx, []);
}

/**
 * Writes the events held for `tx`, in the order they were appended, after the other writes it holds
 * (src/store/held-writes.ts): on PostgreSQL a redemption's records, counts and events go in one statement.
 */
export async function flushEvents(tx: Executor): Promise<void> {
  const held = pending.get(tx) ?? [];
  if (held.length > 0) pending.set(tx, []);
  const inserts = [];
  for (let i = 0; i < held.length; i += FLUSH_BATCH) inserts.push(insertEvents.bind(tx, { rows: eventRows(held.slice(i, i + FLUSH_BATCH)) }));
  await flushWrites(tx, inserts);
}

/** How many events are held for `tx` (a mark to go back to when a savepoint rolls back). */
export function heldEventCount(tx: Executor): number {
  return pending.get(tx)?.length ?? 0;
}

/** Forgets the events held for `tx` after the first `mark` (their savepoint rolled back). */
export function dropHeldEvents(tx: Executor, mark: number): void {
  pending.get(tx)?.splice(mark);
}

export async function appendEvents(db: Executor, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const held = pending.get(db);
  if (held) {
    held.push(...events);
    return;
  }
  await writeEvents(db, events);
}

async function writeEvents(db: Executor, events: readonly NewEvent[]): Promise<void> {
  await insertEvents.run(db, { rows: eventRows(events) });
}

function eventRows(events: readonly NewEvent[]): Insertable<EventsTable>[] {
  return events.map((e) => ({
      id: e.id,
      project_id: e.projectId,
      type: e.type,
      activity_type: e.activityType ?? null,
      activity_category: e.activityCategory ?? null,
      customer_id: e.customerId ?? null,
      campaign_id: e.campaign?.id ?? null,
      campaign_type: e.campaign?.type ?? null,
      campaign_name: e.campaign?.name ?? null,
      voucher_code: e.voucherCode ?? null,
      category_name: e.categoryName ?? null,
      product_ids: e.productIds && e.productIds.length > 0 ? `|${e.productIds.join('|')}|` : null,
      entity_id: e.entityId ?? null,
      data: toJson(e.data),
      source: toJson(e.source),
      group_id: e.groupId,
      created_at: e.createdAt,
  }));
}

export type EventRow = Selectable<EventsTable>;

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    seq: Number(row.seq),
    id: row.id,
    projectId: row.project_id,
    type: row.type,
    activityType: row.activity_type,
    activityCategory: row.activity_category,
    customerId: row.customer_id,
    campaignId: row.campaign_id,
    entityId: row.entity_id,
    data: fromJson(row.data, {}),
    source: fromJson(row.source, { channel: 'INTERNAL' }),
    groupId: row.group_id,
    createdAt: row.created_at,
  };
}

/** Sort keys an activity list can be ordered by; ties always break on `seq` in the same direction. */
export type ActivitySortKey = 'created_at' | 'type' | 'code' | 'campaign' | 'category';

const SORT_COLUMN: Record<ActivitySortKey, keyof EventsTable> = {
  created_at: 'created_at',
  type: 'activity_type',
  code: 'voucher_code',
  campaign: 'campaign_name',
  category: 'category_name',
};

export interface ActivityQuery {
  projectId: string;
  customerId: string;
  limit: number;
  sort: ActivitySortKey;
  descending: boolean;
  /** Return only events after this `created_at` in list order. */
  startingAfter?: string;
  /** Return only events after this event in list order. */
  startingAfterEvent?: ActivityCursor;
  campaignId?: string;
  campaignType?: string;
  productId?: string;
  /** Inclusive bounds on `created_at`. */
  startDate?: string;
  endDate?: string;
  type?: string;
  category?: 'ACTION' | 'EFFECT';
}

// `created_at` is NOT NULL and leads the activity index, so it is compared bare (index order, range
// scans); the other keys are nullable and compared through coalesce so NULLs order the same on both
// dialects.
function sortExpr(key: ActivitySortKey) {
  if (key === 'created_at') return sql<string>`${sql.ref('created_at')}`;
  return sql<string>`coalesce(${sql.ref(SORT_COLUMN[key])}, '')`;
}

/** `%|prod_1|%` with LIKE wildcards in the id escaped: `_` is common in ids and would match any character. */
function productPattern(productId: string): string {
  return `%|${productId.replace(/[\\%_]/g, (c) => `\\${c}`)}|%`;
}

function applyFilters(eb: ExpressionBuilder<Database, 'events'>, q: ActivityQuery) {
  const conditions: Expression<SqlBool>[] = [
    eb('project_id', '=', q.projectId),
    eb('customer_id', '=', q.customerId),
    eb('activity_type', 'is not', null),
  ];
  if (q.campaignId !== undefined) conditions.push(eb('campaign_id', '=', q.campaignId));
  if (q.campaignType !== undefined) conditions.push(eb('campaign_type', '=', q.campaignType));
  if (q.productId !== undefined) {
    conditions.push(sql<SqlBool>`(${sql.ref('product_ids')} like ${productPattern(q.productId)} escape ${'\\'})`);
  }
  if (q.startDate !== undefined) conditions.push(eb('created_at', '>=', q.startDate));
  if (q.endDate !== undefined) conditions.push(eb('created_at', '<=', q.endDate));
  if (q.type !== undefined) conditions.push(eb('activity_type', '=', q.type));
  if (q.category !== undefined) conditions.push(eb('activity_category', '=', q.category));
  return eb.and(conditions);
}

/**
 * The most activities one list request reads (README "HTTP conventions"): totals count up to it, and
 * filters the activity index does not hold or orders other than `created_at` are served only while the
 * date range holds no more than it, so no request reads a customer's or a card's whole history.
 */
export const ACTIVITY_WINDOW = 10_000;

/** `count(*)` over event rows, reading at most `cap + 1` of them: min(matches, cap + 1). */
export async function countEventsUpTo(db: Executor, rows: SelectQueryBuilder<Database, 'events', object>, cap: number): Promise<number> {
  const row = await db
    .selectFrom(rows.select(sql<number>`1`.as('one')).limit(cap + 1).as('matches'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * How many of the customer's activities lie in the query's date range, whatever its other filters,
 * counting at most `ACTIVITY_WINDOW + 1`: one range of the activity index.
 */
export async function countActivitiesInRange(db: Executor, q: ActivityQuery): Promise<number> {
  const inRange = db
    .selectFrom('events')
    .where('project_id', '=', q.projectId)
    .where('customer_id', '=', q.customerId)
    .where('activity_type', 'is not', null)
    .$if(q.startDate !== undefined, (b) => b.where('created_at', '>=', q.startDate as string))
    .$if(q.endDate !== undefined, (b) => b.where('created_at', '<=', q.endDate as string));
  return countEventsUpTo(db, inRange, ACTIVITY_WINDOW);
}

/** The payloads of some events of a project, by id (as stored: references unexpanded). */
export async function findEventData(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('events').select(['id', 'data']).where(projectCheck(), '=', projectId).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((row) => [row.id, fromJson<Record<string, unknown>>(row.data, {})]));
}

/** Where a page continues: the event's place in list order (its payload is not read, so even a damaged one serves). */
export interface ActivityCursor {
  seq: number;
  sortValue: string;
}

export async function findCustomerEvent(
  db: Executor,
  projectId: string,
  customerId: string,
  eventId: string,
  sort: ActivitySortKey,
): Promise<ActivityCursor | null> {
  const row = await db
    .selectFrom('events')
    .select('seq')
    .select(sortExpr(sort).as('sort_value'))
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .where('id', '=', eventId)
    .where('activity_type', 'is not', null)
    .executeTakeFirst();
  if (!row) return null;
  return { seq: Number(row.seq), sortValue: row.sort_value };
}

/**
 * One page in list order, whether more follow, and (unless `withTotal` is false) how many match the
 * filters, counted up to ACTIVITY_WINDOW. The rows are read by toStoredEvent, which the caller runs per
 * row so that one whose payload does not parse can be left out (src/lib/unreadable-rows.ts).
 */
export async function listCustomerActivities(
  db: Executor,
  q: ActivityQuery,
  options: { withTotal: boolean } = { withTotal: true },
): Promise<{ rows: EventRow[]; total: number | null; hasMore: boolean }> {
  const direction = q.descending ? 'desc' : 'asc';
  const beyond = q.descending ? '<' : '>';
  let page = db
    .selectFrom('events')
    .selectAll()
    .where((eb) => applyFilters(eb, q));
  if (q.startingAfter !== undefined) {
    const timeOrdered = q.sort === 'created_at';
    page = page.where('created_at', timeOrdered ? beyond : '>', q.startingAfter);
  }
  const cursor = q.startingAfterEvent;
  if (cursor) {
    // Row-value comparison: one range condition on (sort key, seq) that both dialects can seek.
    page = page.where(sql<SqlBool>`(${sortExpr(q.sort)}, ${sql.ref('seq')}) ${sql.raw(beyond)} (${cursor.sortValue}, ${cursor.seq})`);
  }
  const rows = await page
    .orderBy(sortExpr(q.sort), direction)
    .orderBy('seq', direction)
    .limit(q.limit + 1)
    .execute();
  const total = options.withTotal
    ? Math.min(ACTIVITY_WINDOW, await countEventsUpTo(db, db.selectFrom('events').where((eb) => applyFilters(eb, q)), ACTIVITY_WINDOW))
    : null;
  return {
    rows: rows.slice(0, q.limit),
    total,
    hasMore: rows.length > q.limit,
  };
}

/**
 * GDPR erase: removes every event of one customer. Activities and other events are deleted by separate
 * statements so the caller learns both counts exactly, without a read before the delete.
 */
export async function deleteCustomerEvents(
  db: Executor,
  projectId: string,
  customerId: string,
): Promise<{ activities: number; others: number }> {
  const activities = await db
    .deleteFrom('events')
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .where('activity_type', 'is not', null)
    .executeTakeFirst();
  const others = await db
    .deleteFrom('events')
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return { activities: Number(activities.numDeletedRows), others: Number(others.numDeletedRows) };
}

/** How many events of one customer have a type starting with `prefix` (e.g. `order.`). */
export async function countCustomerEventsOfKind(db: Executor, projectId: string, customerId: string, prefix: string): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .where('type', 'like', `${prefix}%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
