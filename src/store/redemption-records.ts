import { sql, type ExpressionBuilder, type Insertable, type Selectable, type SqlBool, type Expression } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { clearTrackingIdOfErased } from './erased-tracking.ts';
import { fromJson, toJson } from './json.ts';
import { prepared } from './prepared.ts';
import { shardOf } from './shards.ts';
import type { Database, RedemptionSnapshotsTable, RedemptionsTable } from './schema.ts';

// Redemption records (`r_…`, `rf_…`) and rollback records (`rr_…`, `rrf_…`), the customer redemption
// counters they move and the list totals kept beside them (redemption_counts). Records are written once
// and never edited except by a rollback marking them and a GDPR erase taking the person out; counters
// move by SQL increments only. Every query names its project.
//
// A record's JSON snapshots live in redemption_snapshots (migration 0023), so the records table stays
// narrow for everything that walks many records; reading a whole record joins the two.

type Snapshots = Omit<RedemptionSnapshotsTable, 'redemption_id' | 'project_id'>;
export type RedemptionRow = Selectable<RedemptionsTable> & Snapshots & {
  /**
   * 1 when SQLite found every JSON document an answer shows valid (json_valid); otherwise (0, or null
   * on PostgreSQL, which has no such test before version 16) the reader checks them itself.
   */
  documents_valid?: number | null;
};
export type NewRedemptionRow = Insertable<RedemptionsTable> & Partial<Snapshots>;

const insertRecordRow = prepared((db, p: { row: Insertable<RedemptionsTable> }) => db.insertInto('redemptions').values(p.row));
const insertSnapshotsRow = prepared((db, p: { row: Insertable<RedemptionSnapshotsTable> }) => db.insertInto('redemption_snapshots').values(p.row));
const insertRecordRows = prepared((db, p: { rows: Array<Insertable<RedemptionsTable>> }) => db.insertInto('redemptions').values(p.rows));
const insertSnapshotsRows = prepared((db, p: { rows: Array<Insertable<RedemptionSnapshotsTable>> }) => db.insertInto('redemption_snapshots').values(p.rows));

/** Rows each (project, campaign name, result) count is spread over (migration 0025). */
const COUNT_SHARDS = 16;

/** Writes a record, its snapshots and its count (redemption_counts), in the caller's transaction. */
export async function insertRedemption(db: Executor, row: NewRedemptionRow): Promise<void> {
  await insertRedemptions(db, [row]);
}

const countRecords = prepared((db, p: { rows: Array<{ project_id: string; campaign_name: string; result: string; shard: number; n: number }> }) =>
  db
    .insertInto('redemption_counts')
    .values(p.rows)
    .onConflict((oc) => oc.columns(['project_id', 'campaign_name', 'result', 'shard']).doUpdateSet({ n: sql<number>`redemption_counts.n + excluded.n` })),
);

/**
 * Writes several records (a stacked request's parent and children) with three statements: the records,
 * their snapshots, and their counts added up per count row.
 */
export async function insertRedemptions(db: Executor, rows: readonly NewRedemptionRow[]): Promise<void> {
  if (rows.length === 0) return;
  const records: Array<Insertable<RedemptionsTable>> = [];
  const snapshots: Array<Insertable<RedemptionSnapshotsTable>> = [];
  const counts = new Map<string, { project_id: string; campaign_name: string; result: string; shard: number; n: number }>();
  for (const row of rows) {
    const { order_snapshot, customer_snapshot, voucher_snapshot, promotion_tier_snapshot, reward_snapshot, ...record } = row;
    records.push(record);
    snapshots.push({ redemption_id: record.id, project_id: record.project_id, order_snapshot, customer_snapshot, voucher_snapshot, promotion_tier_snapshot, reward_snapshot });
    const count = { project_id: record.project_id, campaign_name: record.campaign_name ?? '', result: record.result, shard: shardOf(record.parent_id ?? record.id, COUNT_SHARDS), n: 0 };
    const key = `${count.project_id}\u0000${count.campaign_name}\u0000${count.result}\u0000${count.shard}`;
    (counts.get(key) ?? counts.set(key, count).get(key) ?? count).n += 1;
  }
  // Nothing reads a transaction's new records back before it commits: the writes may wait for the commit
  // (src/store/held-writes.ts).
  if (records.length === 1) {
    await insertRecordRow.write(db, { row: records[0] as Insertable<RedemptionsTable> });
    await insertSnapshotsRow.write(db, { row: snapshots[0] as Insertable<RedemptionSnapshotsTable> });
  } else {
    await insertRecordRows.write(db, { rows: records });
    await insertSnapshotsRows.write(db, { rows: snapshots });
  }
  await countRecords.write(db, { rows: [...counts.values()] });
}

/**
 * GDPR erase, in the customer's redemption and rollback records: the customer as the record saw them
 * (name, email, source_id, metadata) shrinks to the id, which the records and later rollbacks keep naming,
 * a tracking id that is the customer's source_id (the default, often an email) is cleared, and the order
 * copied into each record loses its free-form metadata and its items' (addresses, gift notes: the orders
 * themselves are erased), keeping the amounts and products that say what was granted.
 */
export async function eraseCustomerFromRedemptions(db: Executor, projectId: string, customer: { id: string; source_id: string | null }): Promise<void> {
  const records = (eb: ExpressionBuilder<Database, 'redemption_snapshots'>) =>
    eb.selectFrom('redemptions').select('id').where('project_id', '=', projectId).where('customer_id', '=', customer.id);
  await db
    .updateTable('redemption_snapshots')
    .set({ customer_snapshot: toJson({ id: customer.id, object: 'customer' }) })
    .where('project_id', '=', projectId)
    .where('customer_snapshot', 'is not', null)
    .where('redemption_id', 'in', records)
    .execute();
  await clearTrackingIdOfErased(db, 'redemptions', projectId, customer);
  await eraseOrderMetadata(db, projectId, customer.id);
}

const ERASE_BATCH = 500;

/** Rewrites the order snapshots of a customer's records, a batch at a time in record id order (export_redemptions_customer_id). */
async function eraseOrderMetadata(db: Executor, projectId: string, customerId: string): Promise<void> {
  let after = '';
  for (;;) {
    const batch = await db
      .selectFrom('redemption_snapshots as s')
      .innerJoin('redemptions as r', (join) => join.onRef('r.id', '=', 's.redemption_id').onRef('r.project_id', '=', 's.project_id'))
      .select(['s.redemption_id', 's.order_snapshot'])
      .where('s.project_id', '=', projectId)
      .where(sql`coalesce(${sql.ref('r.customer_id')}, '')`, '=', customerId)
      .where('s.order_snapshot', 'is not', null)
      .where('r.id', '>', after)
      .orderBy('r.id')
      .limit(ERASE_BATCH)
      .execute();
    for (const row of batch) {
      const erased = orderWithoutMetadata(fromJson<Record<string, unknown> | null>(row.order_snapshot, null));
      if (erased === null) continue;
      await db
        .updateTable('redemption_snapshots')
        .set({ order_snapshot: toJson(erased) })
        .where('project_id', '=', projectId)
        .where('redemption_id', '=', row.redemption_id)
        .execute();
    }
    const last = batch[batch.length - 1];
    if (batch.length < ERASE_BATCH || last === undefined) return;
    after = last.redemption_id;
  }
}

/** The order snapshot with empty metadata on the order and its items; null when there is nothing to empty. */
export function orderWithoutMetadata(order: Record<string, unknown> | null): Record<string, unknown> | null {
  if (order === null || typeof order !== 'object') return null;
  const filled = (value: unknown) => value !== null && typeof value === 'object' && Object.keys(value).length > 0;
  const items = Array.isArray(order.items) ? (order.items as unknown[]) : null;
  const itemHasMetadata = (item: unknown) => item !== null && typeof item === 'object' && filled((item as Record<string, unknown>).metadata);
  if (!filled(order.metadata) && !(items?.some(itemHasMetadata) ?? false)) return null;
  return {
    ...order,
    ...('metadata' in order ? { metadata: {} } : {}),
    ...(items ? { items: items.map((item) => (itemHasMetadata(item) ? { ...(item as Record<string, unknown>), metadata: {} } : item)) } : {}),
  };
}

/** The JSON documents a record's answer shows as they are stored (src/services/redemptions/records.ts). */
const SHOWN_DOCUMENTS = ['redemptions.metadata', 'redemptions.channel', 'redemptions.gift', 'redemptions.loyalty_card', 's.order_snapshot', 's.customer_snapshot', 's.voucher_snapshot', 's.promotion_tier_snapshot', 's.reward_snapshot'];

/**
 * Whether every shown document is valid JSON, on SQLite: json_valid costs a twentieth of a JSON.parse
 * in JavaScript (a page of 50 records: 0.14 against 2.4 ms), so a damaged document is found without
 * parsing what the answer copies unparsed.
 */
const documentsValid = sql<number>`(${sql.join(SHOWN_DOCUMENTS.map((c) => sql`coalesce(json_valid(${sql.ref(c)}), 1)`), sql` and `)})`;

/** Whole records: the record row and its snapshots. Conditions must name `redemptions.` columns. */
function wholeRecords(db: Executor) {
  return db
    .selectFrom('redemptions')
    .leftJoin('redemption_snapshots as s', (join) => join.onRef('s.redemption_id', '=', 'redemptions.id').onRef('s.project_id', '=', 'redemptions.project_id'))
    .selectAll('redemptions')
    .select(['s.order_snapshot', 's.customer_snapshot', 's.voucher_snapshot', 's.promotion_tier_snapshot', 's.reward_snapshot'])
    .select((isPostgres(db) ? sql<number | null>`null` : documentsValid).as('documents_valid'));
}

export async function findRedemption(db: Executor, projectId: string, id: string): Promise<RedemptionRow | undefined> {
  return wholeRecords(db).where('redemptions.project_id', '=', projectId).where('redemptions.id', '=', id).executeTakeFirst();
}

export async function findRedemptionsByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, RedemptionRow>> {
  if (ids.length === 0) return new Map();
  const rows = await wholeRecords(db).where('redemptions.project_id', '=', projectId).where('redemptions.id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** The children of a stacked parent, in the order they were applied (served by redemptions_parent). */
export async function childrenOf(db: Executor, projectId: string, parentId: string): Promise<RedemptionRow[]> {
  return wholeRecords(db)
    .where('redemptions.project_id', '=', projectId)
    .where('redemptions.parent_id', '=', parentId)
    .where('redemptions.object', '=', 'redemption')
    .orderBy('redemptions.id')
    .execute();
}

/**
 * Marks a successful redemption rolled back by `rollbackId`, only while it is still SUCCEEDED: of two
 * concurrent rollbacks exactly one changes the row. Answers whether this one did.
 */
export async function markRolledBack(db: Executor, projectId: string, id: string, rollbackId: string): Promise<boolean> {
  const result = await db
    .updateTable('redemptions')
    .set({ status: 'ROLLED_BACK', rolled_back_by: rollbackId })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('status', '=', 'SUCCEEDED')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

function customerRedemptionCountQuery(result: 'SUCCESS' | 'FAILURE') {
  return prepared((db, p: { projectId: string; customerId: string; n: number }) =>
    db
      .updateTable('customers')
      .set({
        redemptions_total_redeemed: sql<number>`redemptions_total_redeemed + ${p.n}`,
        ...(result === 'SUCCESS'
          ? { redemptions_total_succeeded: sql<number>`redemptions_total_succeeded + ${p.n}` }
          : { redemptions_total_failed: sql<number>`redemptions_total_failed + ${p.n}` }),
      })
      .where('project_id', '=', p.projectId)
      .where('id', '=', p.customerId),
  );
}

const customerRedemptionCount = { SUCCESS: customerRedemptionCountQuery('SUCCESS'), FAILURE: customerRedemptionCountQuery('FAILURE') };

/**
 * One redemption attempt of a customer: `total_redeemed` and `total_succeeded` or `total_failed` go up
 * by `n` (promotions reference 9.3), in one statement.
 */
export async function countCustomerRedemption(db: Executor, projectId: string, customerId: string, result: 'SUCCESS' | 'FAILURE', n = 1): Promise<void> {
  if (n <= 0) return;
  await customerRedemptionCount[result].run(db, { projectId, customerId, n });
}

/**
 * Rollback attempts of a customer: `total_rollback_succeeded` (and `total_rolled_back`, the redemptions
 * undone) or `total_rollback_failed` go up by `n`; `total_succeeded` stays (reference 6.13).
 */
export async function countCustomerRollback(db: Executor, projectId: string, customerId: string, result: 'SUCCESS' | 'FAILURE', n = 1): Promise<void> {
  if (n <= 0) return;
  await db
    .updateTable('customers')
    .set(
      result === 'SUCCESS'
        ? {
            redemptions_total_rollback_succeeded: sql<number>`redemptions_total_rollback_succeeded + ${n}`,
            redemptions_total_rolled_back: sql<number>`redemptions_total_rolled_back + ${n}`,
          }
        : { redemptions_total_rollback_failed: sql<number>`redemptions_total_rollback_failed + ${n}` },
    )
    .where('project_id', '=', projectId)
    .where('id', '=', customerId)
    .execute();
}

const orderRedemptionsOf = prepared((db, p: { projectId: string; orderId: string }) =>
  db.selectFrom('orders').select('redemptions').where('project_id', '=', p.projectId).where('id', '=', p.orderId),
);

const orderRedemptionsUpdate = prepared((db, p: { projectId: string; orderId: string; redemptions: string }) =>
  db.updateTable('orders').set({ redemptions: p.redemptions }).where('project_id', '=', p.projectId).where('id', '=', p.orderId),
);

/**
 * Merges entries into an order's `redemptions` map (new redemptions, or rollback members of existing
 * entries). The caller holds the order (it wrote the order in the same transaction, or holds the
 * order's lock), so the map is read and written back without a lost update.
 */
export async function mergeOrderRedemptions<E extends object>(db: Executor, projectId: string, orderId: string, entries: Record<string, Partial<E>>): Promise<Record<string, E>> {
  const row = await orderRedemptionsOf.first(db, { projectId, orderId });
  if (!row) throw new Error(`order ${orderId} vanished inside the transaction that holds it`);
  const map = fromJson<Record<string, E>>(row.redemptions, {});
  for (const [id, entry] of Object.entries(entries)) map[id] = { ...(map[id] ?? {}), ...entry } as E;
  await orderRedemptionsUpdate.run(db, { projectId, orderId, redemptions: JSON.stringify(map) });
  return map;
}

/** Adds a redemption to an order's `redemptions` map (see mergeOrderRedemptions). */
export async function addOrderRedemption(db: Executor, projectId: string, orderId: string, redemptionId: string, entry: Record<string, unknown>): Promise<void> {
  await mergeOrderRedemptions(db, projectId, orderId, { [redemptionId]: entry });
}

// ---- lists ----

export type RedemptionSort = 'created_at' | 'id' | 'voucher_code' | 'tracking_id' | 'customer_id';

export interface RedemptionListQuery {
  projectId: string;
  limit: number;
  offset: number;
  sort: RedemptionSort;
  descending: boolean;
  results?: readonly ('SUCCESS' | 'FAILURE')[];
  campaignName?: string;
  customerId?: string;
  voucherId?: string;
  /** Exclusive bounds, stored-timestamp strings. */
  createdBefore?: string;
  createdAfter?: string;
  /** A compiled filter condition (src/store/export-sql.ts over the redemption fields). */
  filter?: Expression<SqlBool>;
}

/**
 * A page of records and the total for the same conditions. Every condition and order is one an index of
 * migrations 0002/0020/0022 starts with after project_id, so the page is an index walk, not a sort of the
 * project's redemptions.
 */
export async function listRedemptions(db: Executor, q: RedemptionListQuery): Promise<{ rows: RedemptionRow[]; total: number }> {
  let base = db.selectFrom('redemptions').where('redemptions.project_id', '=', q.projectId);
  if (q.results && q.results.length > 0) base = base.where('redemptions.result', 'in', [...q.results]);
  if (q.campaignName !== undefined) base = base.where('redemptions.campaign_name', '=', q.campaignName);
  if (q.customerId !== undefined) base = base.where('redemptions.customer_id', '=', q.customerId);
  if (q.voucherId !== undefined) base = base.where('redemptions.voucher_id', '=', q.voucherId);
  if (q.createdBefore !== undefined) base = base.where('redemptions.created_at', '<', q.createdBefore);
  if (q.createdAfter !== undefined) base = base.where('redemptions.created_at', '>', q.createdAfter);
  if (q.filter) base = base.where(q.filter);
  const direction = q.descending ? 'desc' : 'asc';
  // The page's ids first, then their rows: the ids come from an index alone whenever the conditions are
  // indexed columns, so the rows skipped by the offset are never read from the table. (Asked for whole
  // rows at once, SQLite picked an index that satisfied the order but not the campaign condition and read
  // every skipped row to test it.)
  let page = base.select('redemptions.id').orderBy(sortKey(q.sort), direction);
  // Ties break on the id, which the id order is already.
  if (q.sort !== 'id') page = page.orderBy('redemptions.id', direction);
  const ids = (await page.offset(q.offset).limit(q.limit).execute()).map((r) => r.id);
  const byId = new Map<string, RedemptionRow>();
  if (ids.length > 0) {
    for (const row of await wholeRecords(db).where('redemptions.project_id', '=', q.projectId).where('redemptions.id', 'in', ids).execute()) byId.set(row.id, row);
  }
  const rows = ids.map((id) => byId.get(id)).filter((row): row is RedemptionRow => row !== undefined);
  if (answeredByCounts(q)) return { rows, total: await countedTotal(db, q) };
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/**
 * The expression a list sort orders by. Columns that may be NULL sort as '' — the expression the export
 * indexes (migration 0009) are built on, so one index serves both, and NULLs land in the same place on
 * both databases (migration 0039).
 */
function sortKey(sort: RedemptionSort) {
  return sort === 'created_at' || sort === 'id' ? sql.ref(`redemptions.${sort}`) : sql`coalesce(${sql.ref(`redemptions.${sort}`)}, '')`;
}

/**
 * Whether the list's total can come from redemption_counts: no condition but campaign name and result.
 * (An empty campaign name would meet the '' under which records without a campaign count.) Other
 * conditions count the records they select: one customer's or voucher's, or a date range's.
 */
function answeredByCounts(q: RedemptionListQuery): boolean {
  return q.customerId === undefined && q.voucherId === undefined && q.createdBefore === undefined && q.createdAfter === undefined && q.filter === undefined && q.campaignName !== '';
}

async function countedTotal(db: Executor, q: RedemptionListQuery): Promise<number> {
  let sum = db.selectFrom('redemption_counts').select(sql<number>`coalesce(sum(n), 0)`.as('n')).where('project_id', '=', q.projectId);
  if (q.campaignName !== undefined) sum = sum.where('campaign_name', '=', q.campaignName);
  if (q.results && q.results.length > 0) sum = sum.where('result', 'in', [...q.results]);
  return Number((await sum.executeTakeFirstOrThrow()).n);
}
