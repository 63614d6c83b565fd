import type { Insertable } from 'kysely';
import { errors } from '../../domain/errors.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import { withMembers } from '../../lib/objects.ts';
import { orderTotals, type OrderLine } from '../../domain/orders/order-math.ts';
import { countsTowardSummary, statusEvents, summaryChanges, type OrderStatus } from '../../domain/orders/order-status.ts';
import type { CreateOrderInput, ListOrdersInput, UpdateOrderInput } from '../../api/orders.ts';
import type { CustomerInput } from '../../api/customers.ts';
import { findLiveCustomer, findLiveCustomerById, type CustomerRow } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { definitions, type DefinitionsView } from '../../store/definitions.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import * as store from '../../store/orders.ts';
import { countCustomerRedemption } from '../../store/redemption-records.ts';
import type { OrderRow } from '../../store/orders.ts';
import type { OrdersTable } from '../../store/schema.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { resolveCustomer } from '../customers/customers.ts';
import { assertMetadata, metadataCheck } from '../metadata-schemas/metadata-schemas.ts';
import { onOrderPaid } from './on-order-paid.ts';
import { orderEvent } from './order-events.ts';
import { resolveOrderLines } from './order-lines.ts';
import { orderLinesOf, toOrderObject, type OrderObject } from './order-object.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

export type { OrderObject } from './order-object.ts';

// Orders (promotions reference 7): create-or-update, read, partial update and list. Every write runs in
// one transaction with the customers it creates, the customer order counters it moves and its events.

type OrderFields = UpdateOrderInput;

export interface WriteOptions {
  /** Calculated lines to store instead of resolving `items` against the catalog (redemption engine). */
  lines?: OrderLine[];
  /**
   * `POST /v1/orders/import`: a historical order. As the vendor documents it, importing triggers nothing:
   * no earning rules and no order activities or webhooks; the change is recorded as one `order.imported`
   * event (no activity, no webhook kind). Customer order counters still count it, and a PAID order is
   * marked paid, so a later update does not take it for a new payment.
   */
  imported?: boolean;
  /** The request's customer, already read (the redemption engine): naming them by id needs no second read. */
  customer?: CustomerRow | null;
  /**
   * Nothing in the caller's transaction reads a new order back (the redemption engine): its insert may wait
   * for the commit with the transaction's other held writes (src/store/held-writes.ts). Callers that read
   * the order afterwards (a reward paid with points) leave it unset.
   */
  unreadUntilCommit?: boolean;
  /**
   * Entries to merge into the order's `redemptions` map as it is written (the redemption engine), instead
   * of reading the map back and writing it again.
   */
  redemptions?: Record<string, unknown>;
  /**
   * Successful redemptions the caller records with this order for its customer: counted in the statement
   * that moves the customer's order counters (or one of their own when the order moves none).
   */
  customerRedemptions?: { customerId: string; succeeded: number };
}

/**
 * The customer (or referrer) a body names: `customer` by id or source_id (an unknown source_id creates
 * the customer; neither creates a new one from the members sent), or `customer_id`, which must exist. Both given must agree. Returns undefined when the
 * body names none (unchanged), null when it clears it.
 */
async function resolveParty(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  field: 'customer' | 'referrer',
  ref: CustomerInput | null | undefined,
  id: string | null | undefined,
  known?: CustomerRow | null,
): Promise<string | null | undefined> {
  if (ref === undefined && id === undefined) return undefined;
  let fromRef: string | null = null;
  if (ref) {
    fromRef = (await resolveCustomer(tx, deps, actor, ref, { createIfMissing: true })).customer.id;
  }
  let fromId: string | null = null;
  if (id && known?.id === id) {
    fromId = id;
  } else if (id) {
    const row = await findLiveCustomerById(tx, actor.projectId, id);
    if (!row) throw errors.notFound('customer', id);
    fromId = row.id;
  }
  if (fromRef !== null && fromId !== null && fromRef !== fromId) {
    throw errors.invalidPayload(`Property .${field}_id names another customer than .${field}`);
  }
  return fromRef ?? fromId;
}

/**
 * A stored timestamp from a sent date-time: UTC with milliseconds. The schema checks the format, but
 * also lets through what has no such form: a leap second (`23:59:60Z`, no Date) and offsets that carry
 * the instant past year 9999 (a six-digit year would break the text order timestamps rely on).
 */
function storedInstant(value: string): string {
  const date = new Date(value);
  const iso = Number.isNaN(date.getTime()) ? '' : date.toISOString();
  if (!/^\d{4}-/.test(iso)) throw errors.invalidPayload('Property .created_at should name an instant from year 0000 to 9999 UTC (leap seconds excluded)');
  return iso;
}

/** Checks the metadata of each sent order item against the project's `order_item` schema. */
export async function assertItemsMetadata(tx: Tx, projectId: string, items: readonly { metadata?: Record<string, unknown> | null }[], defs?: DefinitionsView): Promise<void> {
  const check = await metadataCheck(tx, projectId, 'order_item', defs);
  for (const [i, item] of items.entries()) check(item.metadata, `items[${i}]`);
}

/**
 * The columns of an order after applying `input` to `existing` (null for a new order). Members absent
 * from the input keep their stored value; items sent replace the lines, and then an amount that was not
 * sent is no longer taken from the old order.
 */
async function nextState(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  existing: OrderRow | null,
  input: OrderFields,
  options: WriteOptions,
): Promise<Omit<Insertable<OrdersTable>, 'id' | 'project_id' | 'redemptions' | 'paid_at' | 'updated_at'>> {
  // A new order is checked even without metadata, so the schema's required properties hold from the start.
  const defs = await definitions(tx, actor.projectId);
  if (input.metadata !== undefined || existing === null) await assertMetadata(tx, actor.projectId, 'order', input.metadata, defs);
  if (input.items) await assertItemsMetadata(tx, actor.projectId, input.items, defs);
  // Lines the caller calculated already (the redemption engine's discounted lines) replace the stored ones as sent items would.
  const itemsGiven = input.items !== undefined || options.lines !== undefined;
  const lines: OrderLine[] =
    options.lines !== undefined
      ? options.lines
      : input.items !== undefined
        ? await resolveOrderLines(tx, actor.projectId, input.items ?? [])
        : existing
          ? orderLinesOf(existing)
          : [];
  const amountsChanged = itemsGiven || input.amount !== undefined;
  const stored = (value: number | null | undefined) => (value === null || value === undefined ? null : Number(value));
  const totals = orderTotals(lines, {
    amount: input.amount !== undefined ? input.amount : itemsGiven ? null : stored(existing?.amount),
    initial_amount: input.initial_amount !== undefined ? input.initial_amount : amountsChanged ? null : stored(existing?.initial_amount),
    discount_amount: input.discount_amount !== undefined ? input.discount_amount : stored(existing?.discount_amount),
  });
  const customerId = await resolveParty(tx, deps, actor, 'customer', input.customer, input.customer_id, options.customer);
  const referrerId = await resolveParty(tx, deps, actor, 'referrer', input.referrer, input.referrer_id);
  const status: OrderStatus = input.status ?? existing?.status ?? 'CREATED';
  return Object.assign({ source_id: input.source_id !== undefined ? input.source_id : (existing?.source_id ?? null), status }, totals, {
    items: toJson(lines),
    metadata: input.metadata !== undefined ? toJson(input.metadata ?? {}) : (existing?.metadata ?? toJson({})),
    customer_id: customerId !== undefined ? customerId : (existing?.customer_id ?? null),
    referrer_id: referrerId !== undefined ? referrerId : (existing?.referrer_id ?? null),
    created_at: input.created_at ? storedInstant(input.created_at) : (existing?.created_at ?? deps.clock.now().toISOString()),
  });
}

/** The order's `redemptions` map with `entries` merged in (members of an existing entry added to it). */
function mergedRedemptions(stored: string | null, entries: Record<string, unknown> | undefined): string {
  const map = fromJson<Record<string, Record<string, unknown>>>(stored, {});
  for (const [id, entry] of Object.entries(entries ?? {})) map[id] = { ...(map[id] ?? {}), ...(entry as Record<string, unknown>) };
  return toJson(map);
}

/**
 * What follows every write of an order, in its transaction: the customer order counters, the first-
 * payment hook and the events. `before` is the order as it was (held locked), null for a new one;
 * `after` the row as written. `paidOnInsert`: a new order written PAID carries its paid_at already (its
 * insert is the one first payment).
 */
async function afterWrite(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  before: OrderRow | null,
  after: OrderRow,
  options: WriteOptions = {},
  paidOnInsert = false,
): Promise<OrderObject> {
  const facts = (row: OrderRow) => ({ customer_id: row.customer_id, status: row.status, total_amount: Number(row.total_amount) });
  const changes = summaryChanges(before ? facts(before) : null, facts(after));
  await store.lockCustomers(tx, actor.projectId, changes.map((c) => c.customerId));
  const redeemed = options.customerRedemptions;
  // A new counted order whose insert may be held is named to the summary, which then need not read it
  // back; the summary update is then held too (same reason: nothing reads it before the commit).
  const counted = options.unreadUntilCommit === true && before === null && countsTowardSummary(after.status as OrderStatus) ? { createdAt: after.created_at, totalAmount: Number(after.total_amount) } : undefined;
  for (const change of changes) {
    const alsoRedeemed = redeemed && redeemed.customerId === change.customerId ? redeemed.succeeded : undefined;
    const newOrder = change.customerId === after.customer_id ? counted : undefined;
    await store.applyCustomerOrderSummary(tx, actor.projectId, change.customerId, change.countDelta, change.amountDelta, alsoRedeemed, newOrder);
  }
  if (redeemed && !changes.some((c) => c.customerId === redeemed.customerId)) {
    await countCustomerRedemption(tx, actor.projectId, redeemed.customerId, 'SUCCESS', redeemed.succeeded);
  }

  const { paidCandidate, others } = statusEvents(before?.status ?? null, after.status);
  const firstPayment = paidOnInsert || (paidCandidate && (await store.markOrderPaid(tx, actor.projectId, after.id, deps.clock.now().toISOString())));

  // The row's items were serialised from options.lines when given (nextState).
  const order = toOrderObject(after, options.lines);
  if (options.imported) {
    const event = makeEvent(deps, actor, { type: 'order.imported', customerId: order.customer_id, entityId: order.id, data: { order, customer_id: order.customer_id } });
    await appendEvents(tx, [event]);
    return order;
  }
  const written = orderEvent(deps, actor, before ? 'updated' : 'created', order);
  await appendEvents(tx, [written]);
  // The status events of the same write show the same order: they name the event that holds it.
  if (firstPayment) await onOrderPaid(tx, deps, actor, order, written);
  await appendEvents(tx, others.map((kind) => orderEvent(deps, actor, kind, order, written)));
  return order;
}

async function applyUpdate(tx: Tx, deps: Deps, actor: Actor, existing: OrderRow, input: OrderFields, options: WriteOptions = {}): Promise<OrderObject> {
  const state = await nextState(tx, deps, actor, existing, input, options);
  // The caller holds the order's row (or its key's lock), so its map is merged here without a lost update.
  const patch = withMembers(state, {
    updated_at: deps.clock.now().toISOString(),
    ...(options.redemptions ? { redemptions: mergedRedemptions(existing.redemptions, options.redemptions) } : {}),
  });
  try {
    const changed = await store.updateOrder(tx, actor.projectId, existing.id, patch);
    if (!changed) throw errors.notFound('order', existing.id);
  } catch (error) {
    // Only a new source_id can collide: another order of the project holds it.
    if (isUniqueViolation(error)) throw errors.duplicate('order', 'source_id', state.source_id ?? '');
    throw error;
  }
  return afterWrite(tx, deps, actor, existing, { ...existing, ...patch } as OrderRow, options);
}

/**
 * `POST /v1/orders` inside the caller's transaction (the redemption engine stores the order of a
 * redemption this way, together with the redemption). An existing `id` (which must exist: ids are ours)
 * or `source_id` is updated with the members sent; otherwise an order is created, `CREATED` unless the
 * input says otherwise. Concurrent creates with one source_id end as one order: the unique index lets
 * one insert win and the others update the winner.
 */
export async function upsertOrderIn(tx: Tx, deps: Deps, actor: Actor, input: CreateOrderInput, options: WriteOptions = {}): Promise<OrderObject> {
  const { id: requestedId, ...fields } = input;
  if (requestedId) {
    const existing = await store.findOrderById(tx, actor.projectId, requestedId, { forUpdate: true });
    if (!existing) throw errors.notFound('order', requestedId);
    return applyUpdate(tx, deps, actor, existing, fields, options);
  }
  const sourceId = fields.source_id ?? null;
  if (sourceId !== null) {
    const existing = await store.findOrderBySourceId(tx, actor.projectId, sourceId, { forUpdate: true });
    if (existing) return applyUpdate(tx, deps, actor, existing, fields, options);
  }
  const state = await nextState(tx, deps, actor, null, fields, options);
  const id = deps.ids.next('ord');
  // A new order written PAID is paid by this very insert: its first payment, exactly once.
  const paidOnInsert = statusEvents(null, state.status ?? 'CREATED').paidCandidate;
  const row = Object.assign({ id, project_id: actor.projectId }, state, {
    redemptions: mergedRedemptions(null, options.redemptions),
    paid_at: paidOnInsert ? deps.clock.now().toISOString() : null,
    updated_at: null,
  });
  // Without a source_id nothing can conflict with the new order; with one, the unique index decides.
  const held = options.unreadUntilCommit === true && row.source_id === null;
  const inserted = held ? (await store.insertOrderWithoutSourceId(tx, withMembers(row, { source_id: null })), true) : await store.insertOrderIfAbsent(tx, row);
  if (!inserted) {
    // A concurrent request created the order with this source_id after our look-up; update that one.
    const winner = sourceId === null ? undefined : await store.findOrderBySourceId(tx, actor.projectId, sourceId, { forUpdate: true });
    if (!winner) throw new Error(`order with source_id ${String(sourceId)} neither inserted nor found`);
    return applyUpdate(tx, deps, actor, winner, fields, options);
  }
  return afterWrite(tx, deps, actor, null, row as OrderRow, options, paidOnInsert);
}

/** `POST /v1/orders` (DECISIONS 13: a new order is CREATED unless the body says otherwise). */
export async function upsertOrder(deps: Deps, actor: Actor, input: CreateOrderInput): Promise<OrderObject> {
  return inTransaction(deps, (tx) => upsertOrderIn(tx, deps, actor, input));
}

export async function getOrder(deps: Deps, actor: Actor, orderId: string): Promise<OrderObject> {
  const row = await store.findOrder(deps.db, actor.projectId, orderId);
  if (!row) throw errors.notFound('order', orderId);
  return toOrderObject(row);
}

/** `PUT /v1/orders/{orderId}`: only the members sent change (items sent replace the lines). */
export async function updateOrder(deps: Deps, actor: Actor, orderId: string, input: UpdateOrderInput): Promise<OrderObject> {
  return inTransaction(deps, async (tx) => {
    const existing = await store.findOrder(tx, actor.projectId, orderId, { forUpdate: true });
    if (!existing) throw errors.notFound('order', orderId);
    return applyUpdate(tx, deps, actor, existing, input);
  });
}

const ORDERS: Record<NonNullable<ListOrdersInput['order']>, { sort: store.OrderSortKey; descending: boolean }> = {
  created_at: { sort: 'created_at', descending: false },
  '-created_at': { sort: 'created_at', descending: true },
  updated_at: { sort: 'updated_at', descending: false },
  '-updated_at': { sort: 'updated_at', descending: true },
};

export interface OrderList {
  object: 'list';
  data_ref: 'orders';
  orders: OrderObject[];
  total: number;
}

/** Oldest first unless `order` says otherwise (the vendor lists orders in creation order); filtered by status, customer and creation time. */
export async function listOrders(deps: Deps, actor: Actor, query: ListOrdersInput): Promise<OrderList> {
  const { sort, descending } = ORDERS[query.order ?? 'created_at'];
  const limit = query.limit ?? 10;
  const page = query.page ?? 1;
  let customerId: string | undefined;
  if (query.customer !== undefined) {
    // A customer that does not exist has no orders, whether named by id or source_id.
    const customer = await findLiveCustomer(deps.db, actor.projectId, query.customer);
    if (!customer) return { object: 'list', data_ref: 'orders', orders: [], total: 0 };
    customerId = customer.id;
  }
  const statuses = query.status === undefined ? undefined : Array.isArray(query.status) ? query.status : [query.status];
  const result = await store.listOrders(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: (page - 1) * limit,
    sort,
    descending,
    ...(statuses !== undefined ? { statuses } : {}),
    ...(customerId !== undefined ? { customerId } : {}),
    ...(query.start_date !== undefined ? { createdFrom: queryInstant(query.start_date) } : {}),
    ...(query.end_date !== undefined ? { createdTo: queryInstant(query.end_date, { wholeDay: true }) } : {}),
  });
  return { object: 'list', data_ref: 'orders', orders: await readableRows(listing(deps, actor, 'order'), result.rows, (some) => some.map((row) => toOrderObject(row))), total: result.total };
}

