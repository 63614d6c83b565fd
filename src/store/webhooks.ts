import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import type { EventsTable, WebhookDeliveriesTable, WebhookDeliveryStatus, WebhookDispatchCursorTable, WebhooksTable } from './schema.ts';
import { projectCheck } from './id-lookups.ts';

// Webhook configurations, their deliveries and the dispatcher's cursor over the event log.

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type CursorRow = Selectable<WebhookDispatchCursorTable>;

// ---- configurations ----

export async function insertWebhook(db: Executor, row: Insertable<WebhooksTable>): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function findWebhook(db: Executor, projectId: string, id: string): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Oldest first; `limit` bounds the read (a project has at most MAX_WEBHOOKS_PER_PROJECT). */
export async function listWebhooks(db: Executor, projectId: string, limit: number): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}

export async function countWebhooks(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateWebhook(db: Executor, projectId: string, id: string, patch: Updateable<WebhooksTable>): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Serialises everyone who decides which delivery of a webhook is the next to send (dispatcher, sender,
 * delete) on PostgreSQL; SQLite write transactions are exclusive already. Locks in id order, so two
 * lockers of overlapping sets cannot deadlock.
 */
export async function lockWebhooks(db: Executor, webhooks: ReadonlyArray<{ projectId: string; id: string }>): Promise<void> {
  if (!isPostgres(db) || webhooks.length === 0) return;
  await db
    .selectFrom('webhooks')
    .select('id')
    .where('project_id', 'in', [...new Set(webhooks.map((w) => w.projectId))])
    .where('id', 'in', webhooks.map((w) => w.id).sort())
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Active, live webhooks of the given projects (a dispatch batch names a few projects). */
export async function activeWebhooksOf(db: Executor, projectIds: readonly string[]): Promise<WebhookRow[]> {
  if (projectIds.length === 0) return [];
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('project_id', 'in', projectIds)
    .where('active', '=', true)
    .where('deleted_at', 'is', null)
    .execute();
}

// ---- the dispatch cursor ----

export const DISPATCH_CURSOR = 'webhooks';

/** The cursor row, locked for this transaction; undefined when another dispatcher holds it (PostgreSQL). */
export async function lockDispatchCursor(db: Executor): Promise<CursorRow | undefined> {
  const query = db.selectFrom('webhook_dispatch_cursor').selectAll().where('name', '=', DISPATCH_CURSOR);
  return (isPostgres(db) ? query.forUpdate().skipLocked() : query).executeTakeFirst();
}

/** The cursor without a lock, for the cheap "anything new?" check before a write transaction. */
export async function peekDispatchCursor(db: Executor): Promise<CursorRow | undefined> {
  return db.selectFrom('webhook_dispatch_cursor').selectAll().where('name', '=', DISPATCH_CURSOR).executeTakeFirst();
}

export async function logHasEventsAfter(db: Executor, seq: number): Promise<boolean> {
  const row = await db.selectFrom('events').select('seq').where('seq', '>', seq).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function saveDispatchCursor(
  db: Executor,
  values: { lastSeq: number; gapMaxSeq: number | null; gapHolders: string | null; now: string },
): Promise<void> {
  await db
    .updateTable('webhook_dispatch_cursor')
    .set({ last_seq: values.lastSeq, gap_max_seq: values.gapMaxSeq, gap_holders: values.gapHolders, updated_at: values.now })
    .where('name', '=', DISPATCH_CURSOR)
    .execute();
}

/** What the dispatcher needs of an event; the payload is read only when a delivery is sent. */
export interface LogEntry {
  seq: number;
  id: string;
  project_id: string;
  type: string;
  /** What the event is about; a test event names the one webhook it is for. */
  entity_id: string | null;
  created_at: string;
}

/** Events after `afterSeq` (and up to `upToSeq` when given), in log order, at most `limit`. */
export async function readLog(db: Executor, afterSeq: number, limit: number, upToSeq?: number): Promise<LogEntry[]> {
  let query = db.selectFrom('events').select(['seq', 'id', 'project_id', 'type', 'entity_id', 'created_at']).where('seq', '>', afterSeq);
  if (upToSeq !== undefined) query = query.where('seq', '<=', upToSeq);
  const rows = await query.orderBy('seq', 'asc').limit(limit).execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/**
 * PostgreSQL: the (virtual) transactions, other than ours, that hold the lock every INSERT into `events`
 * takes. A transaction takes it before it draws a `seq`, and keeps it until it ends, so any transaction
 * that drew a seq we have not seen committed yet is among them. pg_locks covers the whole cluster, and
 * databases copied from one template share their tables' oids, so only this database's locks count.
 */
export async function eventWriters(db: Executor): Promise<string[]> {
  const result = await sql<{ vxid: string }>`
    select distinct virtualtransaction as vxid from pg_locks
    where locktype = 'relation' and relation = 'events'::regclass and mode = 'RowExclusiveLock'
      and database = (select oid from pg_database where datname = current_database())
      and pid is distinct from pg_backend_pid()
  `.execute(db);
  return result.rows.map((r) => r.vxid);
}

/** Which of these (virtual) transactions are still running. */
export async function stillRunning(db: Executor, vxids: readonly string[]): Promise<string[]> {
  if (vxids.length === 0) return [];
  const result = await sql<{ vxid: string }>`
    select distinct virtualtransaction as vxid from pg_locks where virtualtransaction = any(${[...vxids]}::text[])
  `.execute(db);
  return result.rows.map((r) => r.vxid);
}

// ---- deliveries ----

/** Webhooks (of the given ones) that already have a PENDING delivery, i.e. a head that new ones queue behind. */
export async function webhooksWithPending(db: Executor, pairs: ReadonlyArray<{ projectId: string; webhookId: string }>): Promise<Set<string>> {
  const out = new Set<string>();
  for (const { projectId, webhookId } of pairs) {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('project_id', '=', projectId)
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'PENDING')
      .limit(1)
      .executeTakeFirst();
    if (row) out.add(webhookId);
  }
  return out;
}

export async function insertDeliveries(db: Executor, rows: ReadonlyArray<Insertable<WebhookDeliveriesTable>>): Promise<void> {
  // Chunks keep the statement under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 50) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 50))
      .onConflict((oc) => oc.columns(['project_id', 'webhook_id', 'event_seq']).doNothing())
      .execute();
  }
}

/**
 * Unsent deliveries across every project (an operator's view for /metrics): due now, scheduled for a
 * retry, or queued behind an earlier delivery of their webhook, and when the oldest of them was created.
 * Reads the PENDING ones only, through `webhook_deliveries_finished` (status, finished_at).
 */
export async function deliveryQueueDepth(db: Executor, now: string): Promise<{ due: number; scheduled: number; queued: number; oldestCreatedAt: string | null }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.fn.countAll<number>().filterWhere('next_attempt_at', '<=', now).as('due'),
      eb.fn.countAll<number>().filterWhere('next_attempt_at', '>', now).as('scheduled'),
      eb.fn.countAll<number>().filterWhere('next_attempt_at', 'is', null).as('queued'),
      eb.fn.min<string | null>('created_at').as('oldest'),
    ])
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return { due: Number(row?.due ?? 0), scheduled: Number(row?.scheduled ?? 0), queued: Number(row?.queued ?? 0), oldestCreatedAt: row?.oldest ?? null };
}

/** Whether any delivery is due (read only; the claim itself takes a write transaction). */
export async function hasDueDeliveries(db: Executor, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', (join) => join.onRef('w.id', '=', 'd.webhook_id').onRef('w.project_id', '=', 'd.project_id'))
    .select('d.id')
    .where('d.status', '=', 'PENDING')
    .where('d.next_attempt_at', 'is not', null)
    .where('d.next_attempt_at', '<=', now)
    .where('w.active', '=', true)
    .where('w.deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims up to `limit` due deliveries for `workerId`: scheduled heads (only the oldest PENDING delivery of
 * a webhook has a time) of active webhooks, not leased to another sender. The attempt is counted here, so
 * an attempt cut short by a crash still counts. On PostgreSQL concurrent senders skip each other's rows.
 */
export async function claimDueDeliveries(
  db: Executor,
  workerId: string,
  now: string,
  leaseUntil: string,
  limit: number,
): Promise<DeliveryRow[]> {
  const lock = isPostgres(db) ? sql`for update of d skip locked` : sql``;
  const result = await sql<DeliveryRow>`
    update webhook_deliveries
    set locked_by = ${workerId}, locked_until = ${leaseUntil}, attempts = attempts + 1, last_attempt_at = ${now}, updated_at = ${now}
    where id in (
      select d.id from webhook_deliveries d
      join webhooks w on w.id = d.webhook_id and w.project_id = d.project_id
      where d.status = 'PENDING' and d.next_attempt_at is not null and d.next_attempt_at <= ${now}
        and (d.locked_until is null or d.locked_until < ${now})
        and w.active = ${true} and w.deleted_at is null
      order by d.next_attempt_at, d.event_seq
      limit ${limit}
      ${lock}
    )
    returning *
  `.execute(db);
  return result.rows.map((r) => ({ ...r, event_seq: Number(r.event_seq) }));
}

export interface AttemptOutcome {
  status: WebhookDeliveryStatus;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  error: string | null;
  attemptLog: string;
  now: string;
}

/** Records the outcome of the attempt `workerId` claimed; false when the claim was lost (lease ran out, webhook deleted). */
export async function recordAttempt(db: Executor, delivery: DeliveryRow, workerId: string, outcome: AttemptOutcome): Promise<boolean> {
  const finished = outcome.status !== 'PENDING';
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      next_attempt_at: outcome.nextAttemptAt,
      locked_by: null,
      locked_until: null,
      last_response_status: outcome.responseStatus,
      last_error: outcome.error,
      attempt_log: outcome.attemptLog,
      updated_at: outcome.now,
      finished_at: finished ? outcome.now : null,
    })
    .where('project_id', '=', delivery.project_id)
    .where('id', '=', delivery.id)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Schedules the oldest waiting delivery of a webhook, once the one before it succeeded or was given up. */
export async function promoteNextDelivery(db: Executor, projectId: string, webhookId: string, at: string): Promise<void> {
  const next = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('project_id', '=', projectId)
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'PENDING')
    .orderBy('event_seq', 'asc')
    .limit(1)
    .executeTakeFirst();
  if (!next) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: at, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', next.id)
    .where('next_attempt_at', 'is', null)
    .execute();
}

/** Ends a delivery that can no longer be sent (its webhook or event is gone); the next one moves up. */
export async function cancelDelivery(db: Executor, projectId: string, id: string, reason: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'CANCELED', next_attempt_at: null, locked_by: null, locked_until: null, last_error: reason, updated_at: now, finished_at: now })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Cancels every unfinished delivery of a deleted webhook in one statement. */
export async function cancelPendingDeliveries(db: Executor, projectId: string, webhookId: string, reason: string, now: string): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'CANCELED', next_attempt_at: null, locked_by: null, locked_until: null, last_error: reason, updated_at: now, finished_at: now })
    .where('project_id', '=', projectId)
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Puts finished deliveries back in their webhook's queue for a fresh series of attempts (their attempt
 * log keeps the earlier ones, and `attempts` keeps counting them all: the sender tells the series apart,
 * services/webhooks/delivery.ts seriesAttempt): one delivery by id (`id`, FAILED or SUCCEEDED), or every FAILED one
 * created at or after `failedSince`. Served by `webhook_deliveries_status` (project, webhook, status, seq).
 * Call scheduleHeadIfIdle afterwards, in the same transaction.
 */
export async function requeueDeliveries(
  db: Executor,
  q: { projectId: string; webhookId: string; now: string } & ({ id: string } | { failedSince: string }),
): Promise<number> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ status: 'PENDING', next_attempt_at: null, locked_by: null, locked_until: null, finished_at: null, updated_at: q.now })
    .where('project_id', '=', q.projectId)
    .where('webhook_id', '=', q.webhookId);
  query = 'id' in q ? query.where('id', '=', q.id).where('status', 'in', ['FAILED', 'SUCCEEDED']) : query.where('status', '=', 'FAILED').where('created_at', '>=', q.failedSince);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Schedules the oldest PENDING delivery of a webhook unless one of them is already scheduled or being
 * sent: a webhook has at most one delivery in flight, so its receiver gets them in log order.
 */
export async function scheduleHeadIfIdle(db: Executor, projectId: string, webhookId: string, at: string): Promise<void> {
  const scheduled = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('project_id', '=', projectId)
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'PENDING')
    .where('next_attempt_at', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  if (!scheduled) await promoteNextDelivery(db, projectId, webhookId, at);
}

export async function findDelivery(db: Executor, projectId: string, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? { ...row, event_seq: Number(row.event_seq) } : undefined;
}

export interface DeliveryListQuery {
  projectId: string;
  webhookId: string;
  status?: WebhookDeliveryStatus;
  limit: number;
  descending: boolean;
  /** Continue after the delivery of this event seq, in list order. */
  afterSeq?: number;
}

/** One page in log order (or reverse), one more row than asked so the caller knows whether more follow. */
export async function listDeliveries(db: Executor, q: DeliveryListQuery): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('project_id', '=', q.projectId).where('webhook_id', '=', q.webhookId);
  if (q.status !== undefined) query = query.where('status', '=', q.status);
  if (q.afterSeq !== undefined) query = query.where('event_seq', q.descending ? '<' : '>', q.afterSeq);
  const rows = await query
    .orderBy('event_seq', q.descending ? 'desc' : 'asc')
    .limit(q.limit + 1)
    .execute();
  return rows.map((r) => ({ ...r, event_seq: Number(r.event_seq) }));
}

/** Deletes up to `limit` deliveries that finished with one of `statuses` before `before`; returns how many. */
export async function purgeFinishedDeliveries(db: Executor, statuses: readonly WebhookDeliveryStatus[], before: string, limit: number): Promise<number> {
  const doomed = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', 'in', statuses)
    .where('finished_at', '<', before)
    .limit(limit);
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', doomed).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The stored events some deliveries carry, by id (a send batch names a few). */
export async function eventsForDelivery(
  db: Executor,
  refs: ReadonlyArray<{ projectId: string; eventId: string }>,
): Promise<Map<string, Selectable<EventsTable>>> {
  const out = new Map<string, Selectable<EventsTable>>();
  if (refs.length === 0) return out;
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where(projectCheck(), 'in', [...new Set(refs.map((r) => r.projectId))])
    .where('id', 'in', refs.map((r) => r.eventId))
    .execute();
  // Pairs, not just both lists: a delivery must never carry another project's event.
  const allowed = new Set(refs.map((r) => `${r.projectId}|${r.eventId}`));
  for (const row of rows) if (allowed.has(`${row.project_id}|${row.id}`)) out.set(row.id, row);
  return out;
}

/** A webhook whatever its state (the sender must notice deleted ones). */
export async function findWebhookAnyState(db: Executor, projectId: string, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}
