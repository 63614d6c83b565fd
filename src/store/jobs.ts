import { sql, type Selectable } from 'kysely';
import type { Dialect, Executor } from './db.ts';
import { fromJson, toJson } from './json.ts';
import type { JobStatus, JobsTable } from './schema.ts';

export type JobRow = Selectable<JobsTable>;

export interface Job<P = unknown> {
  id: string;
  projectId: string;
  kind: string;
  status: JobStatus;
  payload: P;
  /** What earlier attempts recorded (see recordJobProgress), so a resumed job continues where it stopped. */
  result: unknown;
  attempts: number;
  requestId: string | null;
  createdAt: string;
}

export function toJob<P>(row: JobRow): Job<P> {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    status: row.status,
    payload: fromJson<P>(row.payload, {} as P),
    result: fromJson<unknown>(row.result, null),
    attempts: row.attempts,
    requestId: row.request_id,
    createdAt: row.created_at,
  };
}

export interface NewJob {
  id: string;
  projectId: string;
  kind: string;
  payload: unknown;
  requestId: string | null;
  now: string;
  runAt?: string;
}

/** Enqueues a job; call it inside the transaction of the request that asks for the work. */
export async function enqueueJob(db: Executor, job: NewJob): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      id: job.id,
      project_id: job.projectId,
      kind: job.kind,
      status: 'ENQUEUED',
      payload: toJson(job.payload),
      result: null,
      progress: 0,
      attempts: 0,
      run_at: job.runAt ?? job.now,
      locked_by: null,
      locked_until: null,
      error: null,
      request_id: job.requestId,
      created_at: job.now,
      updated_at: job.now,
      finished_at: null,
    })
    .execute();
}

/**
 * Claims the next runnable job for `workerId`: an enqueued job that is due, or a running job whose lease
 * ran out (its worker died). On PostgreSQL concurrent workers skip each other's locked rows; on SQLite the
 * caller's write transaction already excludes other writers.
 */
export async function claimNextJob(
  db: Executor,
  dialect: Dialect,
  workerId: string,
  now: string,
  leaseUntil: string,
  kinds: readonly string[],
): Promise<JobRow | undefined> {
  if (kinds.length === 0) return undefined;
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<JobRow>`
    update jobs
    set status = 'IN_PROGRESS', locked_by = ${workerId}, locked_until = ${leaseUntil},
        attempts = attempts + 1, updated_at = ${now}
    where id = (
      select id from jobs
      where ${claimable(kinds, now)}
      order by run_at, id
      limit 1
      ${lock}
    )
    returning *
  `.execute(db);
  return result.rows[0];
}

/**
 * Whether a job could be claimed now, read without a transaction: the worker asks this before it opens
 * the claim's write transaction, which most polls of an idle queue would open for nothing.
 */
export async function hasClaimableJob(db: Executor, now: string, kinds: readonly string[]): Promise<boolean> {
  if (kinds.length === 0) return false;
  const result = await sql<{ one: number }>`select 1 as one from jobs where ${claimable(kinds, now)} limit 1`.execute(db);
  return result.rows.length > 0;
}

/** Due and waiting, or claimed by a worker whose lease ran out. */
function claimable(kinds: readonly string[], now: string) {
  return sql`kind in (${sql.join(kinds)}) and ((status = 'ENQUEUED' and run_at <= ${now}) or (status = 'IN_PROGRESS' and locked_until < ${now}))`;
}

export async function extendLease(db: Executor, id: string, workerId: string, leaseUntil: string, progress?: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: leaseUntil, ...(progress !== undefined ? { progress } : {}) })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'IN_PROGRESS')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function finishJob(
  db: Executor,
  id: string,
  workerId: string,
  outcome: { status: 'DONE' | 'FAILED'; result: unknown; error: string | null; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      status: outcome.status,
      result: toJson(outcome.result),
      error: outcome.error,
      progress: outcome.status === 'DONE' ? 100 : sql<number>`progress`,
      locked_by: null,
      locked_until: null,
      updated_at: outcome.now,
      finished_at: outcome.now,
    })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function retryJobLater(db: Executor, id: string, workerId: string, runAt: string, error: string, now: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'ENQUEUED', run_at: runAt, error, locked_by: null, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .execute();
}

/**
 * Gives a claimed job back to the queue, due at once, without counting the attempt: its worker is
 * stopping (the process shuts down) and another worker, or this one after a restart, runs it.
 */
export async function releaseJob(db: Executor, id: string, workerId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ status: 'ENQUEUED', run_at: now, attempts: sql<number>`attempts - 1`, locked_by: null, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'IN_PROGRESS')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Jobs not finished, by kind: how many are due now, scheduled for later and running, and the oldest due one. */
export interface QueueDepth {
  kind: string;
  due: number;
  scheduled: number;
  running: number;
  oldestDueAt: string | null;
}

/**
 * The job queue across every project (an operator's view for /metrics). Reads the unfinished jobs only,
 * through the `jobs_runnable` index on (status, run_at).
 */
export async function jobQueueDepth(db: Executor, now: string): Promise<QueueDepth[]> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      'kind',
      eb.fn.countAll<number>().filterWhere((w) => w.and([w('status', '=', 'ENQUEUED'), w('run_at', '<=', now)])).as('due'),
      eb.fn.countAll<number>().filterWhere((w) => w.and([w('status', '=', 'ENQUEUED'), w('run_at', '>', now)])).as('scheduled'),
      eb.fn.countAll<number>().filterWhere('status', '=', 'IN_PROGRESS').as('running'),
      eb.fn.min<string | null>('run_at').filterWhere((w) => w.or([w('status', '=', 'IN_PROGRESS'), w('run_at', '<=', now)])).as('oldest_due_at'),
    ])
    .where('status', 'in', ['ENQUEUED', 'IN_PROGRESS'])
    .groupBy('kind')
    .execute();
  return rows.map((r) => ({ kind: r.kind, due: Number(r.due), scheduled: Number(r.scheduled), running: Number(r.running), oldestDueAt: r.oldest_due_at }));
}

export async function findJob(db: Executor, projectId: string, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

/** A job of one of `kinds` (the job kinds the API shows as async actions), or nothing. */
export async function findAsyncActionJob(db: Executor, projectId: string, id: string, kinds: readonly string[]): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('project_id', '=', projectId).where('id', '=', id).where('kind', 'in', kinds).executeTakeFirst();
}

/** Records an async action that already ran inside the request (small work done at once, same wire shape). */
export async function insertFinishedJob(db: Executor, job: NewJob & { result: unknown }): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      id: job.id,
      project_id: job.projectId,
      kind: job.kind,
      status: 'DONE',
      payload: toJson(job.payload),
      result: toJson(job.result),
      progress: 100,
      attempts: 1,
      run_at: job.now,
      locked_by: null,
      locked_until: null,
      error: null,
      request_id: job.requestId,
      created_at: job.now,
      updated_at: job.now,
      finished_at: job.now,
    })
    .execute();
}

/**
 * Stores a running job's partial result inside the transaction that did that part of the work, and
 * renews the claim, but only while `workerId` still holds it. Answers false when the claim ran out and
 * another worker took the job over: the caller must then roll its transaction back, or the work would be
 * done twice.
 */
export async function checkpointJob(
  db: Executor,
  job: { id: string; workerId: string; result: unknown; progress: number; leaseUntil: string; at: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('jobs')
    .set({ result: toJson(job.result), progress: job.progress, locked_until: job.leaseUntil, updated_at: job.at })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.workerId)
    .where('status', '=', 'IN_PROGRESS')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Stores a running job's partial result inside the transaction that did that part of the work. */
export async function recordJobProgress(db: Executor, id: string, result: unknown, progress: number, at: string): Promise<void> {
  await db.updateTable('jobs').set({ result: toJson(result), progress, updated_at: at }).where('id', '=', id).execute();
}

/**
 * A project's jobs of `kinds` (the ones the API shows as async actions) newest first, created before
 * `before` (the async-actions paging window).
 */
export async function listAsyncActionJobs(db: Executor, projectId: string, kinds: readonly string[], limit: number, before: string | null): Promise<JobRow[]> {
  let query = db.selectFrom('jobs').selectAll().where('project_id', '=', projectId).where('kind', 'in', kinds);
  if (before !== null) query = query.where('created_at', '<', before);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
