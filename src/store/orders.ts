import { sql, type CompiledQuery, type ExpressionBuilder, type Insertable, type Selectable, type Updateable } from 'kysely';
import { COUNTED_STATUSES } from '../domain/orders/order-status.ts';
import type { CatalogProduct, CatalogSku } from '../domain/orders/order-math.ts';
import { isPostgres, type Db, type Executor } from './db.ts';
import { lockCustomerRows } from './customer-locks.ts';
import { fromJson } from './json.ts';
import { prepared, type PreparedQuery } from './prepared.ts';
import type { Database, OrdersTable } from './schema.ts';
import { projectCheck } from './id-lookups.ts';

// Orders of one project, the customer order counters they feed, and the catalog reads order lines need.
// Every query here is limited to one project.

export type OrderRow = Selectable<OrdersTable>;

const orderInsertIfAbsent = prepared((db, p: { row: Insertable<OrdersTable> }) =>
  db
    .insertInto('orders')
    .values(p.row)
    .onConflict((oc) => oc.columns(['project_id', 'source_id']).where('source_id', 'is not', null).doNothing()),
);

/**
 * Inserts an order unless one of the project already holds its source_id; the unique index decides, so
 * concurrent creates cannot both win. The conflict is skipped rather than raised, so the caller's
 * transaction stays usable to read and update the winner. Returns whether the row was inserted.
 */
export async function insertOrderIfAbsent(db: Executor, row: Insertable<OrdersTable>): Promise<boolean> {
  const result = await orderInsertIfAbsent.run(db, { row });
  return Number(result.numAffectedRows ?? 0) === 1;
}

interface LockOption {
  /**
   * Hold the row until the transaction ends (PostgreSQL; SQLite write transactions are serialised
   * already), so a concurrent change of the same order waits and then sees this one's result.
   */
  forUpdate?: boolean;
}

const orderById = prepared((db, p: { projectId: string; id: string }) => db.selectFrom('orders').selectAll().where('project_id', '=', p.projectId).where('id', '=', p.id));

const orderByIdLocked = prepared((db, p: { projectId: string; id: string }) => {
  const query = db.selectFrom('orders').selectAll().where('project_id', '=', p.projectId).where('id', '=', p.id);
  return isPostgres(db) ? query.forUpdate() : query;
});

export async function findOrderById(db: Executor, projectId: string, id: string, options: LockOption = {}): Promise<OrderRow | undefined> {
  return (options.forUpdate ? orderByIdLocked : orderById).first(db, { projectId, id });
}

export async function findOrderBySourceId(
  db: Executor,
  projectId: string,
  sourceId: string,
  options: LockOption = {},
): Promise<OrderRow | undefined> {
  let query = db.selectFrom('orders').selectAll().where('project_id', '=', projectId).where('source_id', '=', sourceId);
  if (options.forUpdate && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A path's `orderId` is an id or a source_id; an id wins when a value could be both. */
export async function findOrder(db: Executor, projectId: string, idOrSourceId: string, options: LockOption = {}): Promise<OrderRow | undefined> {
  return (await findOrderById(db, projectId, idOrSourceId, options)) ?? (await findOrderBySourceId(db, projectId, idOrSourceId, options));
}

export async function updateOrder(db: Executor, projectId: string, id: string, patch: Updateable<OrdersTable>): Promise<boolean> {
  const result = await db.updateTable('orders').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records the first payment of an order. Only the one statement that finds `paid_at` empty changes the
 * row, however many requests mark the order paid at once, so order-paid effects hang off its result.
 */
export async function markOrderPaid(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ paid_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('paid_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Holds the customers' rows until the transaction ends (PostgreSQL), in id order so two transactions
 * never wait on each other crosswise. The counter update that follows then starts after any concurrent
 * change of the same customer committed, so its latest-order subquery sees that change's order too.
 */
export async function lockCustomers(db: Executor, projectId: string, customerIds: readonly string[]): Promise<void> {
  await lockCustomerRows(db, projectId, customerIds);
}

const orderInsert = prepared((db, p: { row: Insertable<OrdersTable> }) => db.insertInto('orders').values(p.row));

/**
 * Inserts an order without a source_id (nothing it could conflict with). Nothing in the transaction reads
 * the row back, so on PostgreSQL the insert waits for the commit with the other held writes
 * (src/store/held-writes.ts).
 */
export async function insertOrderWithoutSourceId(db: Executor, row: Insertable<OrdersTable> & { source_id: null }): Promise<void> {
  await orderInsert.write(db, { row });
}

/** A counted order the transaction has just written, which the summary must see even if its insert is still held. */
export interface NewCountedOrder {
  createdAt: string;
  totalAmount: number;
}

/** The counters every change of a customer's counted orders moves, and the redemptions counted with the order. */
function orderCounterChanges(eb: ExpressionBuilder<Database, 'customers'>, p: { countDelta: number; amountDelta: number; redeemed: number | undefined }) {
  return {
    orders_total_count: eb('orders_total_count', '+', p.countDelta),
    orders_total_amount: eb('orders_total_amount', '+', p.amountDelta),
    // Successful redemptions recorded with the order, counted in the same statement (redemption engine).
    ...(p.redeemed !== undefined
      ? { redemptions_total_redeemed: eb('redemptions_total_redeemed', '+', p.redeemed), redemptions_total_succeeded: eb('redemptions_total_succeeded', '+', p.redeemed) }
      : {}),
  };
}

/** Recomputes the latest counted order from the customer's orders: after a change that may have removed it. */
const customerOrderSummaryUpdate = prepared((db, p: { projectId: string; customerId: string; countDelta: number; amountDelta: number; redeemed: number | undefined }) => {
  const latest = db
    .selectFrom('orders as o')
    .where('o.project_id', '=', p.projectId)
    .where('o.customer_id', '=', p.customerId)
    .where('o.status', 'in', COUNTED_STATUSES)
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(1);
  return db
    .updateTable('customers')
    .set((eb) => ({
      ...orderCounterChanges(eb, p),
      orders_last_order_amount: latest.select('o.total_amount'),
      orders_last_order_date: latest.select('o.created_at'),
    }))
    .where('project_id', '=', p.projectId)
    .where('id', '=', p.customerId);
});

/**
 * A new counted order: it is the latest unless the kept latest one was created after it (an order may be
 * sent with an earlier created_at). Comparing with the kept date reads none of the customer's orders, so
 * the statement costs the same at the thousandth order as at the first; on equal dates the new order,
 * whose id is the larger, wins as it would in the recomputation above.
 */
const customerNewOrderUpdate = prepared((db, p: { projectId: string; customerId: string; countDelta: number; amountDelta: number; redeemed: number | undefined; newAt: string; newAmount: number }) => {
  const isLatest = sql<boolean>`(orders_last_order_date is null or orders_last_order_date <= cast(${p.newAt} as text))`;
  return db
    .updateTable('customers')
    .set((eb) => ({
      ...orderCounterChanges(eb, p),
      orders_last_order_amount: sql<number>`case when ${isLatest} then cast(${p.newAmount} as bigint) else orders_last_order_amount end`,
      orders_last_order_date: sql<string>`case when ${isLatest} then cast(${p.newAt} as text) else orders_last_order_date end`,
    }))
    .where('project_id', '=', p.projectId)
    .where('id', '=', p.customerId);
});

/**
 * Moves one customer's order counters by the given deltas and recomputes their latest counted order
 * (the counted order created last) in the same statement. Counters are never read into JS: the deltas
 * come from the order's old and new values, which the caller holds locked.
 */
export async function applyCustomerOrderSummary(
  db: Executor,
  projectId: string,
  customerId: string,
  countDelta: number,
  amountDelta: number,
  redeemed?: number,
  newOrder?: NewCountedOrder,
): Promise<void> {
  const args = { projectId, customerId, countDelta, amountDelta, redeemed };
  // With the new order named, nothing reads its row: the update may be held for the commit too
  // (src/store/held-writes.ts).
  if (newOrder) await customerNewOrderUpdate.write(db, { ...args, newAt: newOrder.createdAt, newAmount: newOrder.totalAmount });
  else await customerOrderSummaryUpdate.run(db, args);
}

export type OrderSortKey = 'created_at' | 'updated_at';

// Must stay identical to the expression the orders_last_change index holds. "Updated" is the last
// change, which is the creation for an order never updated.
const LAST_CHANGE = sql<string>`coalesce(updated_at, created_at)`;

export interface OrderListQuery {
  projectId: string;
  limit: number;
  offset: number;
  sort: OrderSortKey;
  descending: boolean;
  statuses?: ReadonlyArray<OrdersTable['status']>;
  customerId?: string;
  /** Inclusive bounds on `created_at`, as ISO strings. */
  createdFrom?: string;
  createdTo?: string;
}

export async function listOrders(db: Executor, q: OrderListQuery): Promise<{ rows: OrderRow[]; total: number }> {
  const direction = q.descending ? 'desc' : 'asc';
  let base = db.selectFrom('orders').where('project_id', '=', q.projectId);
  if (q.statuses !== undefined) base = base.where('status', 'in', q.statuses);
  if (q.customerId !== undefined) base = base.where('customer_id', '=', q.customerId);
  if (q.createdFrom !== undefined) base = base.where('created_at', '>=', q.createdFrom);
  if (q.createdTo !== undefined) base = base.where('created_at', '<=', q.createdTo);
  const rows = await base
    .selectAll()
    .orderBy(q.sort === 'created_at' ? sql<string>`${sql.ref('created_at')}` : LAST_CHANGE, direction)
    .orderBy('id', direction)
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

// ---- catalog facts for order lines ----

/** What lines name: ids and source_ids of products and SKUs (each list at most one order's worth). */
export interface CatalogLookup {
  productIds: readonly string[];
  productSourceIds: readonly string[];
  skuIds: readonly string[];
  skuSourceIds: readonly string[];
}

export interface CatalogFacts {
  productsById: Map<string, CatalogProduct>;
  productsBySourceId: Map<string, CatalogProduct>;
  skusById: Map<string, CatalogSku>;
  skusBySourceId: Map<string, CatalogSku>;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

// Catalog rows named by id, by source_id or both; one prepared query per combination, since an empty
// `in ()` list is not valid SQL on PostgreSQL.
type KeyedQueries<R> = {
  ids: PreparedQuery<{ projectId: string; ids: string[] }, R>;
  sourceIds: PreparedQuery<{ projectId: string; sourceIds: string[] }, R>;
  both: PreparedQuery<{ projectId: string; ids: string[]; sourceIds: string[] }, R>;
};

async function byIdsOrSourceIds<R>(queries: KeyedQueries<R>, db: Executor, projectId: string, ids: string[], sourceIds: string[]): Promise<R[]> {
  return (await db.executeQuery(keyedQuery(queries, db, projectId, ids, sourceIds))).rows;
}

/** The statement byIdsOrSourceIds sends: by ids, by source ids, or both lookups in one. */
function keyedQuery<R>(queries: KeyedQueries<R>, db: Executor, projectId: string, ids: string[], sourceIds: string[]): CompiledQuery<R> {
  if (sourceIds.length === 0) return queries.ids.bind(db, { projectId, ids });
  if (ids.length === 0) return queries.sourceIds.bind(db, { projectId, sourceIds });
  return queries.both.bind(db, { projectId, ids, sourceIds });
}

// By ids, the project is a check on the rows found (./id-lookups.ts); by source ids it is the index's first
// key. Both kinds at once are the two lookups in one statement (a row both find comes twice and is simply
// kept once by id): with `id in (…) or source_id in (…)` SQLite walked the project's products instead.
const liveSkus = (db: Db) => db.selectFrom('skus').select(['id', 'source_id', 'product_id', 'sku', 'price', 'metadata']).where('binned_at', 'is', null);
const liveSkusByIds = (db: Db, projectId: string, ids: string[]) => liveSkus(db).where(projectCheck(), '=', projectId).where('id', 'in', ids);
const liveSkusBySourceIds = (db: Db, projectId: string, sourceIds: string[]) => liveSkus(db).where('project_id', '=', projectId).where('source_id', 'in', sourceIds);

const skusByKeys = {
  ids: prepared((db, p: { projectId: string; ids: string[] }) => liveSkusByIds(db, p.projectId, p.ids)),
  sourceIds: prepared((db, p: { projectId: string; sourceIds: string[] }) => liveSkusBySourceIds(db, p.projectId, p.sourceIds)),
  both: prepared((db, p: { projectId: string; ids: string[]; sourceIds: string[] }) =>
    liveSkusByIds(db, p.projectId, p.ids).unionAll(liveSkusBySourceIds(db, p.projectId, p.sourceIds)),
  ),
};

const liveProducts = (db: Db) => db.selectFrom('products').select(['id', 'source_id', 'name', 'price', 'metadata']).where('binned_at', 'is', null);
const liveProductsByIds = (db: Db, projectId: string, ids: string[]) => liveProducts(db).where(projectCheck(), '=', projectId).where('id', 'in', ids);
const liveProductsBySourceIds = (db: Db, projectId: string, sourceIds: string[]) =>
  liveProducts(db).where('project_id', '=', projectId).where('source_id', 'in', sourceIds);

const productsByKeys = {
  ids: prepared((db, p: { projectId: string; ids: string[] }) => liveProductsByIds(db, p.projectId, p.ids)),
  sourceIds: prepared((db, p: { projectId: string; sourceIds: string[] }) => liveProductsBySourceIds(db, p.projectId, p.sourceIds)),
  both: prepared((db, p: { projectId: string; ids: string[]; sourceIds: string[] }) =>
    liveProductsByIds(db, p.projectId, p.ids).unionAll(liveProductsBySourceIds(db, p.projectId, p.sourceIds)),
  ),
};

/**
 * The live products and SKUs of the project that the lines name, plus the parent product of every SKU
 * found, in at most two queries whatever the number of lines.
 */
export async function findCatalogFacts(db: Executor, projectId: string, lookup: CatalogLookup): Promise<CatalogFacts> {
  const facts = noCatalogFacts();
  const skuIds = unique(lookup.skuIds);
  const skuSourceIds = unique(lookup.skuSourceIds);
  if (skuIds.length > 0 || skuSourceIds.length > 0) {
    const rows = await byIdsOrSourceIds(skusByKeys, db, projectId, skuIds, skuSourceIds);
    for (const row of rows) {
      const sku: CatalogSku = {
        id: row.id,
        source_id: row.source_id,
        product_id: row.product_id,
        sku: row.sku,
        price: row.price === null ? null : Number(row.price),
        metadata: fromJson(row.metadata, {}),
      };
      facts.skusById.set(sku.id, sku);
      if (sku.source_id !== null) facts.skusBySourceId.set(sku.source_id, sku);
    }
  }
  const productIds = unique([...lookup.productIds, ...[...facts.skusById.values()].map((s) => s.product_id)]);
  const productSourceIds = unique(lookup.productSourceIds);
  if (productIds.length > 0 || productSourceIds.length > 0) addProducts(facts, await byIdsOrSourceIds(productsByKeys, db, projectId, productIds, productSourceIds));
  return facts;
}

/**
 * The one statement of a lookup that names products only (no SKU, whose parents would need a second
 * statement), to be sent with another read (src/store/combined-reads.ts); null when the lookup names no
 * product or names a SKU. catalogOfProducts turns its rows into the facts findCatalogFacts answers.
 */
export function catalogProductsQuery(db: Executor, projectId: string, lookup: CatalogLookup): CompiledQuery | null {
  if (lookup.skuIds.length > 0 || lookup.skuSourceIds.length > 0) return null;
  const ids = unique(lookup.productIds);
  const sourceIds = unique(lookup.productSourceIds);
  return ids.length === 0 && sourceIds.length === 0 ? null : keyedQuery(productsByKeys, db, projectId, ids, sourceIds);
}

export function catalogOfProducts(rows: readonly Record<string, unknown>[]): CatalogFacts {
  const facts = noCatalogFacts();
  addProducts(facts, rows as readonly ProductFactsRow[]);
  return facts;
}

type ProductFactsRow = { id: string; source_id: string | null; name: string | null; price: number | string | null; metadata: string };

function noCatalogFacts(): CatalogFacts {
  return { productsById: new Map(), productsBySourceId: new Map(), skusById: new Map(), skusBySourceId: new Map() };
}

function addProducts(facts: CatalogFacts, rows: readonly ProductFactsRow[]): void {
  for (const row of rows) {
    const product: CatalogProduct = {
      id: row.id,
      source_id: row.source_id,
      name: row.name,
      price: row.price === null ? null : Number(row.price),
      metadata: fromJson(row.metadata, {}),
    };
    facts.productsById.set(product.id, product);
    if (product.source_id !== null) facts.productsBySourceId.set(product.source_id, product);
  }
}

/** GDPR erase: removes every order of one customer (as buyer); answers how many went. */
export async function deleteCustomerOrders(db: Executor, projectId: string, customerId: string): Promise<number> {
  const result = await db.deleteFrom('orders').where('project_id', '=', projectId).where('customer_id', '=', customerId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
