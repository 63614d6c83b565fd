import type { ClientCustomerInput, CustomerInput, ListCustomersInput, UpdateCustomerInput } from '../../api/customers.ts';
import { errors } from '../../domain/errors.ts';
import type { Tx } from '../../store/db.ts';
import { definitions } from '../../store/definitions.ts';
import { appendEvents, countCustomerEventsOfKind, deleteCustomerEvents } from '../../store/events.ts';
import { deleteCustomerOrders } from '../../store/orders.ts';
import { eraseCustomerFromRedemptions } from '../../store/redemption-records.ts';
import { clearTrackingIdOfErased } from '../../store/erased-tracking.ts';
import { deleteCustomerConsents } from '../../store/consents.ts';
import { deleteCockpitLink } from '../../store/cockpit.ts';
import { toJson } from '../../store/json.ts';
import * as store from '../../store/customers.ts';
import { writeNameParts } from '../../store/customer-search.ts';
import { findProject } from '../../store/projects.ts';
import type { CustomerFields, CustomerObject, CustomerRow, CustomerSortKey } from '../../store/customers.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { eraseCustomerMemberships, refreshCustomerSegments, removeCustomerFromSegments } from '../segments/membership.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

export type { CustomerObject } from '../../store/customers.ts';

type CustomerEventType = 'customer.created' | 'customer.deleted';

// Customer lifecycle events double as activities: the activity lists read them back by customer_id.
function customerEvent(deps: Deps, actor: Actor, type: CustomerEventType, customer: CustomerObject) {
  return makeEvent(deps, actor, {
    type,
    activityType: type,
    activityCategory: 'ACTION',
    customerId: customer.id,
    entityId: customer.id,
    data: { customer },
  });
}

/**
 * What a `customer.updated` event stores: the customer's id and the members the update set, as sent. Not
 * a copy of the customer: its metadata can be large, and a bulk job updates many customers, so a copy
 * per update multiplied the log (15 GB of events in one 20-minute run). The activity lists show the
 * customer as it is now (activities.ts); events written before this change hold the copy as `customer`
 * and are shown as stored.
 */
export interface CustomerChangeRecord {
  customer_id: string;
  changes: CustomerFields;
  /** `changes.metadata` holds only the members merged into the stored metadata (a metadata bulk job). */
  metadata_merged?: true;
}

/** Whether a stored `customer.updated` event's data is a change record rather than an older full copy. */
export function isCustomerChangeRecord(data: Record<string, unknown>): boolean {
  return typeof data.customer_id === 'string' && typeof data.changes === 'object' && data.changes !== null && !('customer' in data);
}

function customerUpdatedEvent(deps: Deps, actor: Actor, record: CustomerChangeRecord) {
  return makeEvent(deps, actor, {
    type: 'customer.updated',
    activityType: 'customer.updated',
    activityCategory: 'ACTION',
    customerId: record.customer_id,
    entityId: record.customer_id,
    data: { ...record },
  });
}

/** The writable members of a body; `id` and `source_id` identify and are never copied as data. */
function fieldsOf(input: CustomerFields & { id?: unknown; source_id?: unknown }): CustomerFields {
  const { id: _id, source_id: _sourceId, ...fields } = input;
  return fields;
}

/**
 * Writes `fields` to a live customer, records `customer.updated` and updates its segment memberships, in
 * the caller's transaction. `merged` says the metadata in `fields` is the stored metadata with these
 * members merged in; the event records only them.
 */
export async function applyCustomerUpdate(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  row: CustomerRow,
  fields: CustomerFields,
  merged?: { metadata: Record<string, unknown> },
): Promise<CustomerObject> {
  if (fields.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'customer', fields.metadata, await definitions(tx, actor.projectId));
  const updated = await store.updateCustomer(tx, actor.projectId, row.id, {
    ...store.customerColumns(fields),
    updated_at: deps.clock.now().toISOString(),
  });
  if (!updated) throw errors.notFound('customer', row.id);
  if (fields.name !== undefined) await writeNameParts(tx, actor.projectId, row.id, row.name, fields.name);
  const customer = await store.renderCustomer(tx, actor.projectId, updated);
  const record: CustomerChangeRecord = merged
    ? { customer_id: row.id, changes: { ...fields, metadata: merged.metadata }, metadata_merged: true }
    : { customer_id: row.id, changes: fields };
  await appendEvents(tx, [customerUpdatedEvent(deps, actor, record)]);
  await refreshCustomerSegments(tx, deps, actor, customer);
  return customer;
}

/**
 * Inserts a new customer, or, when a live customer already holds the source_id (possibly one a concurrent
 * request committed a moment ago), answers that one with `created: false`. The unique index settles the
 * race; the insert skips on conflict instead of failing, so the caller's transaction stays usable.
 */
async function insertOrFindWinner(tx: Tx, deps: Deps, actor: Actor, sourceId: string | null, fields: CustomerFields): Promise<ResolvedCustomer> {
  // Through the definitions cache: a transaction that writes many customers (a CSV import's slice) reads
  // the schema once, not once per customer.
  await assertMetadata(tx, actor.projectId, 'customer', fields.metadata, await definitions(tx, actor.projectId));
  // A winner that is deleted between our conflict and our read frees the source_id again; try anew.
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await store.insertCustomerIfAbsent(tx, {
      id: deps.ids.next('cust'),
      project_id: actor.projectId,
      source_id: sourceId,
      ...store.customerColumns(fields),
      metadata: toJson(fields.metadata ?? {}),
      system_metadata: toJson({}),
      created_at: deps.clock.now().toISOString(),
      updated_at: null,
      deleted_at: null,
    });
    if (row) {
      await writeNameParts(tx, actor.projectId, row.id, null, row.name);
      // An id made a moment ago is held by no voucher and named by no referral yet: the new customer's
      // object is exactly its row with empty holdings, and rendering it needs no query.
      const customer = store.toCustomerObject(row);
      await appendEvents(tx, [customerEvent(deps, actor, 'customer.created', customer)]);
      await refreshCustomerSegments(tx, deps, actor, customer);
      return { row, created: true, customer };
    }
    if (sourceId === null) break;
    const winner = await store.findLiveCustomerBySourceId(tx, actor.projectId, sourceId);
    if (winner) return { row: winner, created: false };
  }
  throw new Error(`could not create or find customer with source_id ${String(sourceId)}`);
}

/** A customer found or created; one just created comes rendered already. */
type ResolvedCustomer = { row: CustomerRow; created: true; customer: CustomerObject } | { row: CustomerRow; created: false };

/** A customer as another use case names it: by id, or by source_id with the data to create it from. */
export interface CustomerRef extends CustomerFields {
  id?: string | null;
  source_id?: string | null;
}

/**
 * For later areas (loyalty members, redemptions, custom events): finds the live customer `ref` names, or
 * creates it by source_id (appending `customer.created`) inside the caller's transaction, so the customer
 * exists exactly when the caller's change commits. An existing customer is returned unchanged. An `id`
 * must name an existing customer: ids are ours to assign. A ref with neither id nor source_id creates a
 * new customer from its members each time.
 */
export async function resolveCustomer(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  ref: CustomerRef,
  options: { createIfMissing: boolean },
): Promise<{ customer: CustomerObject; created: boolean }> {
  const resolved = await resolveCustomerRow(tx, deps, actor, ref, options);
  return { customer: resolved.created ? resolved.customer : await store.renderCustomer(tx, actor.projectId, resolved.row), created: resolved.created };
}

/** As resolveCustomer, answering the stored row (for callers that need no rendered object). */
export async function resolveCustomerRow(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  ref: CustomerRef,
  /**
   * `lock`: hold the found customer's row until the transaction ends (PostgreSQL). `locked`: what
   * store.lockLiveCustomer answered for this ref, read already with another statement.
   */
  options: { createIfMissing: boolean; lock?: boolean; locked?: { row: store.CustomerRow | undefined } },
): Promise<ResolvedCustomer> {
  const lockedRead = async (by: { id: string } | { sourceId: string }) => (options.locked ? options.locked.row : store.lockLiveCustomer(tx, actor.projectId, by));
  if (ref.id) {
    const row = options.lock ? await lockedRead({ id: ref.id }) : await store.findLiveCustomerById(tx, actor.projectId, ref.id);
    if (!row) throw errors.notFound('customer', ref.id);
    return { row, created: false };
  }
  if (!ref.source_id) {
    // Neither id nor source_id: as the vendor does, a new customer is made from the members sent (an
    // `email` and `name`, say). Nothing else identifies a customer, so none is matched (not by email).
    // A customer object with no member at all names nobody and says nothing to create one from.
    const fields = fieldsOf(ref);
    const given = Object.entries(fields).some(([key, value]) => key !== 'object' && value !== undefined && value !== null);
    if (!options.createIfMissing || !given) {
      throw errors.invalidPayload("Property .customer should have required property 'id' or 'source_id', or members to create a customer from");
    }
    return insertOrFindWinner(tx, deps, actor, null, fields);
  }
  const existing = options.lock
    ? await lockedRead({ sourceId: ref.source_id })
    : await store.findLiveCustomerBySourceId(tx, actor.projectId, ref.source_id);
  if (existing) return { row: existing, created: false };
  if (!options.createIfMissing) throw errors.notFound('customer', ref.source_id);
  return insertOrFindWinner(tx, deps, actor, ref.source_id, fieldsOf(ref));
}

/**
 * `POST /v1/customers`: an existing `id` (which must exist) or `source_id` is updated with the members
 * sent; otherwise a customer is created. Two concurrent creates with one source_id end as one customer:
 * one creates it, the other updates it.
 */
export async function upsertCustomer(deps: Deps, actor: Actor, input: CustomerInput): Promise<CustomerObject> {
  return inTransaction(deps, (tx) => upsertCustomerIn(tx, deps, actor, input));
}

/** `upsertCustomer` inside the caller's transaction (a CSV import applies many rows in one). */
export async function upsertCustomerIn(tx: Tx, deps: Deps, actor: Actor, input: CustomerInput): Promise<CustomerObject> {
  const fields = fieldsOf(input);
  if (input.id) {
    // The vendor ignores source_id when id is given, so it is neither matched nor written.
    const row = await store.findLiveCustomerById(tx, actor.projectId, input.id);
    if (!row) throw errors.notFound('customer', input.id);
    return applyCustomerUpdate(tx, deps, actor, row, fields);
  }
  const sourceId = input.source_id ?? null;
  if (sourceId !== null) {
    const existing = await store.findLiveCustomerBySourceId(tx, actor.projectId, sourceId);
    if (existing) return applyCustomerUpdate(tx, deps, actor, existing, fields);
  }
  const resolved = await insertOrFindWinner(tx, deps, actor, sourceId, fields);
  return resolved.created ? resolved.customer : applyCustomerUpdate(tx, deps, actor, resolved.row, fields);
}

/**
 * `POST /client/v1/customers`: a shop page registers a customer with the publishable client key. It can
 * only create: a source_id that already names a customer is a 409, so a browser can neither overwrite nor
 * read someone else's record. The project must allow it (`client_create_customer_enabled`).
 */
export async function createCustomerFromClientSide(deps: Deps, actor: Actor, input: ClientCustomerInput): Promise<CustomerObject> {
  const fields = fieldsOf(input);
  const sourceId = input.source_id ?? null;
  return inTransaction(deps, async (tx) => {
    const project = await findProject(tx, actor.projectId);
    if (!project?.client_create_customer_enabled) {
      throw errors.forbidden('Client-side customer creation is turned off for this project (client_create_customer_enabled)');
    }
    const resolved = await insertOrFindWinner(tx, deps, actor, sourceId, fields);
    if (!resolved.created) throw errors.duplicate('customer', 'source_id', sourceId ?? '');
    return resolved.customer;
  });
}

export async function getCustomer(deps: Deps, actor: Actor, customerId: string): Promise<CustomerObject> {
  const row = await store.findLiveCustomer(deps.db, actor.projectId, customerId);
  if (!row) throw errors.notFound('customer', customerId);
  return store.renderCustomer(deps.db, actor.projectId, row);
}

/** `PUT /v1/customers/{customerId}`: only the members sent change; `id`/`source_id` in the body are ignored. */
export async function updateCustomer(deps: Deps, actor: Actor, customerId: string, input: UpdateCustomerInput): Promise<CustomerObject> {
  const fields = fieldsOf(input);
  return inTransaction(deps, async (tx) => {
    const row = await store.findLiveCustomer(tx, actor.projectId, customerId);
    if (!row) throw errors.notFound('customer', customerId);
    return applyCustomerUpdate(tx, deps, actor, row, fields);
  });
}

/** Hides the customer from every read and frees its source_id; its activities stay until a permanent deletion. */
export async function deleteCustomer(deps: Deps, actor: Actor, customerId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const row = await store.findLiveCustomer(tx, actor.projectId, customerId);
    if (!row) throw errors.notFound('customer', customerId);
    const hidden = await store.markCustomerDeleted(tx, actor.projectId, row.id, deps.clock.now().toISOString());
    if (!hidden) throw errors.notFound('customer', customerId);
    const customer = await store.renderCustomer(tx, actor.projectId, row);
    await appendEvents(tx, [customerEvent(deps, actor, 'customer.deleted', customer)]);
    await removeCustomerFromSegments(tx, deps, actor, customer);
  });
}

export interface PermanentDeletion {
  id: string;
  created_at: string;
  related_object_id: string;
  related_object: 'customer';
  status: 'DONE';
  data_json: {
    events: number;
    customer_events: number;
    daily_events: number;
    segments: number;
    orders: number;
    order_events: number;
    customer: 1;
  };
  object: 'pernament_deletion';
}

/**
 * GDPR erase: removes the customer row, their orders and every event that names the customer, keeps
 * only their id in their redemption records and publications, and keeps a record of what went. Works on a live
 * customer (id or source_id) and also on one already deleted (by id), so a prior DELETE never blocks the
 * erase. The event appended for it carries ids and counts only.
 */
export async function permanentlyDeleteCustomer(deps: Deps, actor: Actor, customerId: string): Promise<PermanentDeletion> {
  return inTransaction(deps, async (tx) => {
    const row =
      (await store.findLiveCustomer(tx, actor.projectId, customerId)) ??
      (await store.findDeletedCustomerById(tx, actor.projectId, customerId));
    if (!row) throw errors.notFound('customer', customerId);
    const orderEvents = await countCustomerEventsOfKind(tx, actor.projectId, row.id, 'order.');
    const erased = await deleteCustomerEvents(tx, actor.projectId, row.id);
    const orders = await deleteCustomerOrders(tx, actor.projectId, row.id);
    const segments = await eraseCustomerMemberships(tx, actor.projectId, row.id);
    // The redemption records stay (they are the history of what was granted), without the person in them.
    await eraseCustomerFromRedemptions(tx, actor.projectId, row);
    await clearTrackingIdOfErased(tx, 'publications', actor.projectId, row);
    await deleteCustomerConsents(tx, actor.projectId, row.id);
    await deleteCockpitLink(tx, actor.projectId, row.id);
    await store.eraseCustomer(tx, actor.projectId, row);
    const record: PermanentDeletion = {
      id: deps.ids.next('del'),
      created_at: deps.clock.now().toISOString(),
      related_object_id: row.id,
      related_object: 'customer',
      status: 'DONE',
      data_json: {
        events: erased.activities + erased.others,
        customer_events: erased.activities,
        daily_events: 0,
        segments,
        orders,
        order_events: orderEvents,
        customer: 1,
      },
      object: 'pernament_deletion',
    };
    await store.insertCustomerDeletion(tx, {
      id: record.id,
      project_id: actor.projectId,
      customer_id: row.id,
      status: record.status,
      data_json: toJson(record.data_json),
      created_at: record.created_at,
    });
    await appendEvents(tx, [
      makeEvent(deps, actor, { type: 'customer.permanently_deleted', entityId: row.id, data: { permanent_deletion: record } }),
    ]);
    return record;
  });
}

const ORDERS: Record<NonNullable<ListCustomersInput['order']>, { sort: CustomerSortKey; descending: boolean }> = {
  created_at: { sort: 'created_at', descending: false },
  '-created_at': { sort: 'created_at', descending: true },
  updated_at: { sort: 'updated_at', descending: false },
  '-updated_at': { sort: 'updated_at', descending: true },
  source_id: { sort: 'source_id', descending: false },
  '-source_id': { sort: 'source_id', descending: true },
};

export interface CustomerList {
  object: 'list';
  data_ref: 'customers';
  customers: CustomerObject[];
  total: number;
  has_more: boolean;
}

/** Newest first unless `order` says otherwise; `starting_after` walks on created_at in the order's direction. */
export async function listCustomers(deps: Deps, actor: Actor, query: ListCustomersInput): Promise<CustomerList> {
  const { sort, descending } = ORDERS[query.order ?? '-created_at'];
  const limit = query.limit ?? 10;
  const page = query.page ?? 1;
  const instant = (value: string | undefined) => (value === undefined ? undefined : queryInstant(value));
  const result = await store.listCustomers(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: (page - 1) * limit,
    sort,
    descending,
    email: query.email,
    name: query.name,
    city: query.city,
    // Blank is no search: a box cleared by the person lists everyone again.
    search: query.q?.trim() ? query.q : undefined,
    segmentId: query.segment_id,
    createdBefore: instant(query.created_at?.before),
    createdAfter: instant(query.created_at?.after),
    updatedBefore: instant(query.updated_at?.before),
    updatedAfter: instant(query.updated_at?.after),
    startingAfter: instant(query.starting_after),
  });
  return {
    object: 'list',
    data_ref: 'customers',
    customers: await readableRows(listing(deps, actor, 'customer'), result.rows, (some) => store.renderCustomers(deps.db, actor.projectId, some)),
    total: result.total,
    has_more: result.hasMore,
  };
}
