import { domainError, errors } from '../../domain/errors.ts';
import { FilterError, filterToJson, parseFilter, type ParsedFilter } from '../../domain/filters/filter.ts';
import { customerFilterFields } from '../../domain/segments/customer-filter.ts';
import type { CreateSegmentInput, ListSegmentsInput, SegmentObjectOut } from '../../api/segments.ts';
import { yieldToRequests } from '../../lib/slices.ts';
import { findLiveCustomer, renderCustomers } from '../../store/customers.ts';
import type { CustomerRow } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { enqueueJob } from '../../store/jobs.ts';
import { fromJson, toJson } from '../../store/json.ts';
import * as store from '../../store/segments.ts';
import type { CustomerCursor, SegmentRow } from '../../store/segments.ts';
import { rulesReferencing } from '../../store/validation-rules.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { addStaticMembers, segmentFilter, simpleSegment, syncSegmentBatch } from './membership.ts';

// Customer segments: static (the customers listed) and auto-update (the customers a filter matches,
// kept in step with customer writes by ./membership.ts).

export type SegmentObject = SegmentObjectOut;

/** Job kind that finishes the initial sync of a large auto-update segment (src/jobs/segment-sync.ts). */
export const SEGMENT_SYNC_JOB = 'segment.initial_sync';

export interface SegmentSyncPayload {
  segmentId: string;
  after: CustomerCursor | null;
}

/** Batches a create request checks itself; a project with more customers continues in the background. */
export const INLINE_SYNC_BATCHES = 2;

export function toSegmentObject(row: SegmentRow): SegmentObject {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    updated_at: row.updated_at,
    type: row.type,
    filter: fromJson<Record<string, unknown> | null>(row.filter, null),
    initial_sync_status: row.initial_sync_status,
    object: 'segment',
  };
}

/** Looks up the customers a static segment lists, in chunks; the first unknown one is a 404. */
async function resolveCustomers(tx: Tx, projectId: string, refs: readonly string[]): Promise<CustomerRow[]> {
  const unique = [...new Set(refs)];
  const byRef = new Map<string, CustomerRow>();
  for (let start = 0; start < unique.length; start += 500) {
    const chunk = unique.slice(start, start + 500);
    const rows = await store.findLiveCustomersByRefs(tx, projectId, chunk);
    // An id match wins over a source_id match, as for every customer path parameter.
    for (const row of rows) if (row.source_id !== null && chunk.includes(row.source_id) && !byRef.has(row.source_id)) byRef.set(row.source_id, row);
    for (const row of rows) if (chunk.includes(row.id)) byRef.set(row.id, row);
  }
  const missing = unique.find((ref) => !byRef.has(ref));
  if (missing !== undefined) throw errors.notFound('customer', missing);
  // One customer may be named twice (by id and by source_id); it enters once.
  const byId = new Map<string, CustomerRow>();
  for (const ref of unique) {
    const row = byRef.get(ref) as CustomerRow;
    byId.set(row.id, row);
  }
  return [...byId.values()];
}

export async function createSegment(deps: Deps, actor: Actor, input: CreateSegmentInput): Promise<SegmentObject> {
  const rawFilter = input.filter ?? input.filters;
  let filter: ParsedFilter | null = null;
  if (input.type === 'auto-update') {
    if (rawFilter === undefined) throw errors.invalidPayload("Payload should have required property 'filter'");
    if (input.customers !== undefined) throw errors.invalidPayload('Property .customers is only for static segments');
    try {
      filter = parseFilter(rawFilter, customerFilterFields, { path: input.filter !== undefined ? '.filter' : '.filters', allowRelativeTime: false });
    } catch (error) {
      if (error instanceof FilterError) throw errors.invalidPayload(error.details);
      throw error;
    }
  } else {
    if (rawFilter !== undefined) throw errors.invalidPayload('Property .filter is only for auto-update segments');
    if (input.customers === undefined) throw errors.invalidPayload("Payload should have required property 'customers'");
  }

  return inTransaction(deps, async (tx) => {
    // Customer writes re-evaluate segments under the shared lock; see lockSegmentDefinitions.
    await store.lockSegmentDefinitions(tx, actor.projectId, 'exclusive');
    const id = deps.ids.next('seg');
    const now = deps.clock.now().toISOString();
    const row: SegmentRow = {
      id,
      project_id: actor.projectId,
      name: input.name,
      type: input.type,
      filter: filter === null ? null : toJson(filterToJson(filter)),
      initial_sync_status: 'IN_PROGRESS',
      created_at: now,
      updated_at: null,
    };
    // Members reference the segment by id only, so the row is written once its initial status is known.
    if (input.type === 'static') {
      const customers = await resolveCustomers(tx, actor.projectId, input.customers ?? []);
      for (let start = 0; start < customers.length; start += 500) {
        await addStaticMembers(tx, deps, actor, row, await renderCustomers(tx, actor.projectId, customers.slice(start, start + 500)));
      }
      row.initial_sync_status = 'DONE';
    } else {
      const parsed = segmentFilter(row);
      let next: CustomerCursor | null = null;
      let batches = 0;
      do {
        ({ next } = await syncSegmentBatch(tx, deps, actor, row, parsed, next));
        batches++;
      } while (next !== null && batches < INLINE_SYNC_BATCHES);
      if (next === null) row.initial_sync_status = 'DONE';
      else {
        const payload: SegmentSyncPayload = { segmentId: id, after: next };
        await enqueueJob(tx, { id: deps.ids.next('job'), projectId: actor.projectId, kind: SEGMENT_SYNC_JOB, payload, requestId: actor.requestId, now });
      }
    }
    await store.insertSegment(tx, row);
    const segment = toSegmentObject(row);
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'segment.created', entityId: id, data: { segment } })]);
    return segment;
  });
}

export async function getSegment(deps: Deps, actor: Actor, id: string): Promise<SegmentObject> {
  const row = await store.findSegment(deps.db, actor.projectId, id);
  if (!row) throw errors.notFound('segment', id);
  return toSegmentObject(row);
}

/**
 * Deletes a segment and its memberships. Members are not announced as having left: the segment is gone,
 * the customers did not change. A segment a validation rule uses cannot be deleted.
 */
export async function deleteSegment(deps: Deps, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await store.lockSegmentDefinitions(tx, actor.projectId, 'exclusive');
    const row = await store.findSegment(tx, actor.projectId, id, { forUpdate: true });
    if (!row) throw errors.notFound('segment', id);
    const users = await rulesReferencing(tx, actor.projectId, 'segment', id, 100);
    if (users.total > 0) {
      throw domainError('resource_in_use', {
        details: `Resource segment with id ${id} is in use by validation_rules with ids [${users.ids.join(', ')}]`,
        resourceId: id,
        resourceType: 'segment',
        extra: { related_object_ids: users.ids, related_object_type: 'validation_rules', related_object_total: users.total },
      });
    }
    await store.deleteMembersOfSegment(tx, actor.projectId, id);
    if (!(await store.deleteSegmentRow(tx, actor.projectId, id))) throw errors.notFound('segment', id);
    await appendEvents(tx, [
      makeEvent(deps, actor, { type: 'segment.deleted', entityId: id, data: { segment: toSegmentObject(row), deleted_at: deps.clock.now().toISOString() } }),
    ]);
  });
}

export interface SegmentList {
  object: 'list';
  data_ref: 'data';
  data: SegmentObject[];
  total: number;
}

export async function listSegments(deps: Deps, actor: Actor, query: ListSegmentsInput): Promise<SegmentList> {
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listSegments(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    descending: (query.order ?? '-created_at') === '-created_at',
  });
  return { object: 'list', data_ref: 'data', data: rows.map(toSegmentObject), total };
}

/** `GET /v1/customers/{id}/segments` (the SDK's segments.list): the customer's segments. */
export async function listCustomerSegments(
  deps: Deps,
  actor: Actor,
  customerId: string,
): Promise<{ object: 'list'; data_ref: 'data'; data: Array<{ id: string; name: string; object: 'segment' }>; total: number }> {
  const customer = await findLiveCustomer(deps.db, actor.projectId, customerId);
  if (!customer) throw errors.notFound('customer', customerId);
  const rows = await store.segmentsOfCustomer(deps.db, actor.projectId, customer.id);
  return { object: 'list', data_ref: 'data', data: rows.map(simpleSegment), total: rows.length };
}

/**
 * Runs the rest of an initial sync, one batch per transaction, and marks the segment DONE with the last
 * one. Called by the worker; a crash resumes from the job's cursor (batches are idempotent).
 */
export async function continueSegmentSync(
  deps: Deps,
  actor: Actor,
  payload: SegmentSyncPayload,
  progress: (entered: number) => Promise<void>,
): Promise<{ entered: number; status: 'DONE' | 'SEGMENT_DELETED' }> {
  let after = payload.after;
  let entered = 0;
  for (;;) {
    const step = await inTransaction(deps, async (tx) => {
      await store.lockSegmentDefinitions(tx, actor.projectId, 'exclusive');
      const row = await store.findSegment(tx, actor.projectId, payload.segmentId);
      if (!row) return null;
      const result = await syncSegmentBatch(tx, deps, actor, row, segmentFilter(row), after);
      if (result.next === null) await store.setInitialSyncStatus(tx, actor.projectId, row.id, 'DONE', deps.clock.now().toISOString());
      return result;
    });
    if (step === null) return { entered, status: 'SEGMENT_DELETED' };
    entered += step.entered;
    if (step.next === null) return { entered, status: 'DONE' };
    after = step.next;
    await progress(entered);
    await yieldToRequests();
  }
}
