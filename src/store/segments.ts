import { sql, type Insertable, type Selectable } from 'kysely';
import type { ParsedFilter } from '../domain/filters/filter.ts';
import { isPostgres, type Dialect, type Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import type { CustomerRow } from './customers.ts';
import type { SegmentsTable } from './schema.ts';
import { distinctById, projectCheck } from './id-lookups.ts';

// Customer segments and their materialised membership. Every function reads or writes one project's
// rows only.

export type SegmentRow = Selectable<SegmentsTable>;

export async function insertSegment(db: Executor, row: Insertable<SegmentsTable>): Promise<void> {
  await db.insertInto('segments').values(row).execute();
}

/**
 * A segment by id. `forUpdate` (deletion) locks the row on PostgreSQL, so a rule that share-locks it to
 * record a reference either commits first (and the deletion then sees the reference) or waits and finds
 * it gone.
 */
export async function findSegment(db: Executor, projectId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<SegmentRow | undefined> {
  const query = db.selectFrom('segments').selectAll().where('project_id', '=', projectId).where('id', '=', id);
  return (options.forUpdate && isPostgres(db) ? query.forUpdate() : query).executeTakeFirst();
}

export async function findSegmentsByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<SegmentRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('segments').selectAll().where('project_id', '=', projectId).where('id', 'in', ids).orderBy('id').execute();
}

export async function deleteSegmentRow(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('segments').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function setInitialSyncStatus(db: Executor, projectId: string, id: string, status: SegmentRow['initial_sync_status'], at: string): Promise<void> {
  await db
    .updateTable('segments')
    .set({ initial_sync_status: status, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
}

export interface SegmentListQuery {
  projectId: string;
  limit: number;
  offset: number;
  descending: boolean;
}

export async function listSegments(db: Executor, q: SegmentListQuery): Promise<{ rows: SegmentRow[]; total: number }> {
  const base = db.selectFrom('segments').where('project_id', '=', q.projectId);
  const direction = q.descending ? 'desc' : 'asc';
  const rows = await base.selectAll().orderBy('created_at', direction).orderBy('id', direction).offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** The project's auto-update segments, whose filters every customer write re-evaluates. */
export async function autoUpdateSegments(db: Executor, projectId: string): Promise<SegmentRow[]> {
  return db
    .selectFrom('segments')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('type', '=', 'auto-update')
    .orderBy('id')
    .execute();
}

/**
 * Serialises changes of a project's segment definitions with customer writes (PostgreSQL; SQLite write
 * transactions are serialised already). Customer writes take the shared lock before they re-evaluate
 * memberships, segment creation, deletion and sync batches take the exclusive one: a customer written
 * while a segment is being created is then either seen by that segment's initial sync or sees the
 * segment itself. A transaction-scoped advisory lock: no row is written to take it, and it ends with the
 * transaction.
 */
export async function lockSegmentDefinitions(db: Executor, projectId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  if (!isPostgres(db)) return;
  const key = sql`hashtextextended(${`segments:${projectId}`}, 0)`;
  await (mode === 'shared' ? sql`select pg_advisory_xact_lock_shared(${key})` : sql`select pg_advisory_xact_lock(${key})`).execute(db);
}

// ---- membership ----

/** Adds customers to a segment; answers the ones that were not members before (they "entered"). */
export async function addMembers(db: Executor, projectId: string, segmentId: string, customerIds: readonly string[], at: string): Promise<string[]> {
  const entered: string[] = [];
  // Chunks stay well below either database's limit on bound parameters per statement.
  for (let start = 0; start < customerIds.length; start += 500) {
    const rows = await db
      .insertInto('segment_members')
      .values(customerIds.slice(start, start + 500).map((customerId) => ({ project_id: projectId, segment_id: segmentId, customer_id: customerId, created_at: at })))
      .onConflict((oc) => oc.columns(['project_id', 'segment_id', 'customer_id']).doNothing())
      .returning('customer_id')
      .execute();
    entered.push(...rows.map((r) => r.customer_id));
  }
  return entered;
}

/** Removes one customer from the given segments; answers the segments it actually left. */
export async function removeMemberships(db: Executor, projectId: string, customerId: string, segmentIds: readonly string[]): Promise<string[]> {
  if (segmentIds.length === 0) return [];
  const rows = await db
    .deleteFrom('segment_members')
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .where('segment_id', 'in', segmentIds)
    .returning('segment_id')
    .execute();
  return rows.map((r) => r.segment_id);
}

/** Removes a customer from every segment; answers the segments it left. */
export async function removeAllMemberships(db: Executor, projectId: string, customerId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('segment_members')
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .returning('segment_id')
    .execute();
  return rows.map((r) => r.segment_id);
}

export async function deleteMembersOfSegment(db: Executor, projectId: string, segmentId: string): Promise<number> {
  const result = await db.deleteFrom('segment_members').where('project_id', '=', projectId).where('segment_id', '=', segmentId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Ids of the segments a customer belongs to (rule evaluation reads these). */
export async function segmentIdsOfCustomer(db: Executor, projectId: string, customerId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('segment_members')
    .select('segment_id')
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .orderBy('segment_id')
    .execute();
  return rows.map((r) => r.segment_id);
}

/** The segments a customer belongs to, oldest segment first. */
export async function segmentsOfCustomer(db: Executor, projectId: string, customerId: string): Promise<SegmentRow[]> {
  return db
    .selectFrom('segment_members as m')
    .innerJoin('segments as s', (join) => join.onRef('s.id', '=', 'm.segment_id').onRef('s.project_id', '=', 'm.project_id'))
    .selectAll('s')
    .where('m.project_id', '=', projectId)
    .where('m.customer_id', '=', customerId)
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
}

/**
 * Which of the given auto-update segments one live customer matches now, in a single statement: one
 * 0/1 column per segment filter, evaluated by the database on the customer's current row.
 */
export async function segmentsMatchingCustomer(
  db: Executor,
  dialect: Dialect,
  projectId: string,
  customerId: string,
  segments: ReadonlyArray<{ id: string; filter: ParsedFilter }>,
  now: Date,
): Promise<Set<string>> {
  const matched = new Set<string>();
  // Chunks keep one statement's size sensible for projects with many segments.
  for (let start = 0; start < segments.length; start += 50) {
    const chunk = segments.slice(start, start + 50);
    const columns = chunk.map((s, i) => sql<number>`case when ${filterCondition(s.filter, dialect, now)} then 1 else 0 end`.as(`m${i}`));
    const row = await db
      .selectFrom('customers')
      .select(columns)
      .where('project_id', '=', projectId)
      .where('id', '=', customerId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) return new Set();
    chunk.forEach((s, i) => {
      if (Number((row as Record<string, unknown>)[`m${i}`]) === 1) matched.add(s.id);
    });
  }
  return matched;
}

export interface CustomerCursor {
  createdAt: string;
  id: string;
}

/**
 * One batch of the live customers matching a filter, in (created_at, id) order after `after`. Batches
 * keep memory flat however many customers a project has.
 */
export async function matchingCustomersBatch(
  db: Executor,
  dialect: Dialect,
  projectId: string,
  filter: ParsedFilter,
  after: CustomerCursor | null,
  limit: number,
  now: Date,
): Promise<CustomerRow[]> {
  let query = db
    .selectFrom('customers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .where(filterCondition(filter, dialect, now));
  if (after) query = query.where(sql<boolean>`(created_at, id) > (${after.createdAt}, ${after.id})`);
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** Live customers of the project named by id or source_id, as found (for static segments). */
export async function findLiveCustomersByRefs(db: Executor, projectId: string, refs: readonly string[]): Promise<CustomerRow[]> {
  if (refs.length === 0) return [];
  const live = db.selectFrom('customers').selectAll().where('deleted_at', 'is', null);
  const byId = live.where(projectCheck(), '=', projectId).where('id', 'in', refs);
  const bySourceId = live.where('project_id', '=', projectId).where('source_id', 'in', refs);
  return distinctById(await byId.unionAll(bySourceId).execute());
}
