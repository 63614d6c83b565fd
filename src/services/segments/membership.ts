import { parseFilter, type ParsedFilter } from '../../domain/filters/filter.ts';
import { earnPointsForSegmentEntered } from '../loyalty/earning.ts';
import { customerFilterFields } from '../../domain/segments/customer-filter.ts';
import type { Tx } from '../../store/db.ts';
import { renderCustomers, type CustomerObject } from '../../store/customers.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { fromJson } from '../../store/json.ts';
import * as store from '../../store/segments.ts';
import type { CustomerCursor, SegmentRow } from '../../store/segments.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';

// Keeps segment membership true: auto-update segments follow every customer create, update and delete
// (called by the customers service inside its transaction), and a new auto-update segment gets its
// initial members in batches. Each entry appends `customer.segment.entered`, each exit
// `customer.segment.left` (customer activities, category EFFECT).

/** The segment as membership events carry it (the vendor's SimpleSegment). */
export function simpleSegment(segment: Pick<SegmentRow, 'id' | 'name'>): { id: string; name: string; object: 'segment' } {
  return { id: segment.id, name: segment.name, object: 'segment' };
}

/** The stored filter of an auto-update segment, parsed (it was checked when the segment was created). */
export function segmentFilter(segment: SegmentRow): ParsedFilter {
  return parseFilter(fromJson(segment.filter, {}), customerFilterFields, { path: '.filter', allowRelativeTime: false });
}

function membershipEvent(
  deps: Deps,
  actor: Actor,
  type: 'customer.segment.entered' | 'customer.segment.left',
  customer: CustomerObject,
  segment: Pick<SegmentRow, 'id' | 'name'>,
): NewEvent {
  return makeEvent(deps, actor, {
    type,
    activityType: type,
    activityCategory: 'EFFECT',
    customerId: customer.id,
    entityId: segment.id,
    data: { customer, segment: simpleSegment(segment) },
  });
}

/**
 * Customers entered a segment: their `customer.segment.entered` events, then the loyalty earning rules
 * that reward entering it (each names the event that triggered it), in the caller's transaction.
 */
async function announceEntries(tx: Tx, deps: Deps, actor: Actor, customers: readonly CustomerObject[], segment: Pick<SegmentRow, 'id' | 'name'>): Promise<void> {
  for (const customer of customers) {
    const event = membershipEvent(deps, actor, 'customer.segment.entered', customer, segment);
    await appendEvents(tx, [event]);
    await earnPointsForSegmentEntered(tx, deps, actor, { customer, segment: { id: segment.id, name: segment.name }, eventId: event.id });
  }
}

/** The project's auto-update segments, read under the shared lock (see store.lockSegmentDefinitions). */
async function lockedAutoUpdateSegments(tx: Tx, projectId: string): Promise<SegmentRow[]> {
  await store.lockSegmentDefinitions(tx, projectId, 'shared');
  return store.autoUpdateSegments(tx, projectId);
}

/** Auto-update segments a transaction holds (holdSegmentDefinitions), per project. */
const heldSegments = new WeakMap<Tx, Map<string, SegmentRow[]>>();

/**
 * For a transaction that writes many customers (a CSV import's slice): takes the shared segment lock for
 * the rest of `tx` and keeps the project's auto-update segments, so that each customer write evaluates
 * against them without locking and reading them again. No other transaction can change them while the
 * lock is held. Call it before any savepoint: rolling back to a savepoint releases the locks taken after it.
 */
export async function holdSegmentDefinitions(tx: Tx, projectId: string): Promise<void> {
  const segments = await lockedAutoUpdateSegments(tx, projectId);
  const held = heldSegments.get(tx) ?? new Map<string, SegmentRow[]>();
  held.set(projectId, segments);
  heldSegments.set(tx, held);
}

/**
 * After a customer was created or updated, inside that transaction: enters it into the auto-update
 * segments whose filter it now matches and removes it from those it no longer matches.
 */
export async function refreshCustomerSegments(tx: Tx, deps: Deps, actor: Actor, customer: CustomerObject): Promise<void> {
  const segments = heldSegments.get(tx)?.get(actor.projectId) ?? (await lockedAutoUpdateSegments(tx, actor.projectId));
  if (segments.length === 0) return;
  const matching = await store.segmentsMatchingCustomer(
    tx,
    deps.dialect,
    actor.projectId,
    customer.id,
    segments.map((s) => ({ id: s.id, filter: segmentFilter(s) })),
    deps.clock.now(),
  );
  const current = new Set(await store.segmentIdsOfCustomer(tx, actor.projectId, customer.id));
  const events: NewEvent[] = [];
  const at = deps.clock.now().toISOString();
  for (const segment of segments) {
    if (matching.has(segment.id) && !current.has(segment.id)) {
      const entered = await store.addMembers(tx, actor.projectId, segment.id, [customer.id], at);
      if (entered.length > 0) await announceEntries(tx, deps, actor, [customer], segment);
    }
  }
  const leaving = segments.filter((s) => !matching.has(s.id) && current.has(s.id));
  const left = new Set(
    await store.removeMemberships(
      tx,
      actor.projectId,
      customer.id,
      leaving.map((s) => s.id),
    ),
  );
  for (const segment of leaving) if (left.has(segment.id)) events.push(membershipEvent(deps, actor, 'customer.segment.left', customer, segment));
  await appendEvents(tx, events);
}

/** A customer is being deleted, inside that transaction: it leaves every segment, static ones included. */
export async function removeCustomerFromSegments(tx: Tx, deps: Deps, actor: Actor, customer: CustomerObject): Promise<void> {
  await store.lockSegmentDefinitions(tx, actor.projectId, 'shared');
  const left = await store.removeAllMemberships(tx, actor.projectId, customer.id);
  if (left.length === 0) return;
  const segments = await store.findSegmentsByIds(tx, actor.projectId, left);
  await appendEvents(
    tx,
    segments.map((segment) => membershipEvent(deps, actor, 'customer.segment.left', customer, segment)),
  );
}

/**
 * A customer is being erased (GDPR), inside that transaction: its memberships go without events, since
 * the erasure removes the customer's events too. Answers how many memberships were removed.
 */
export async function eraseCustomerMemberships(tx: Tx, projectId: string, customerId: string): Promise<number> {
  return (await store.removeAllMemberships(tx, projectId, customerId)).length;
}

/** Customers checked per statement by the initial sync. */
export const SYNC_BATCH = 500;

export interface SyncProgress {
  /** Where the next batch starts; null when every customer has been checked. */
  next: CustomerCursor | null;
  entered: number;
}

/**
 * One batch of a new auto-update segment's initial sync: adds the next matching customers (in
 * created_at, id order after `after`) and appends their `entered` events. Safe to repeat: a customer
 * already a member is neither added nor announced twice.
 */
export async function syncSegmentBatch(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  segment: SegmentRow,
  filter: ParsedFilter,
  after: CustomerCursor | null,
): Promise<SyncProgress> {
  const rows = await store.matchingCustomersBatch(tx, deps.dialect, actor.projectId, filter, after, SYNC_BATCH, deps.clock.now());
  if (rows.length === 0) return { next: null, entered: 0 };
  const entered = new Set(
    await store.addMembers(
      tx,
      actor.projectId,
      segment.id,
      rows.map((r) => r.id),
      deps.clock.now().toISOString(),
    ),
  );
  const newcomers = await renderCustomers(
    tx,
    actor.projectId,
    rows.filter((r) => entered.has(r.id)),
  );
  await announceEntries(tx, deps, actor, newcomers, segment);
  const last = rows[rows.length - 1] as (typeof rows)[number];
  return { next: rows.length < SYNC_BATCH ? null : { createdAt: last.created_at, id: last.id }, entered: entered.size };
}

/** Adds the listed customers to a static segment with their `entered` events. */
export async function addStaticMembers(tx: Tx, deps: Deps, actor: Actor, segment: SegmentRow, customers: readonly CustomerObject[]): Promise<void> {
  const entered = new Set(
    await store.addMembers(
      tx,
      actor.projectId,
      segment.id,
      customers.map((c) => c.id),
      deps.clock.now().toISOString(),
    ),
  );
  await announceEntries(
    tx,
    deps,
    actor,
    customers.filter((c) => entered.has(c.id)),
    segment,
  );
}
