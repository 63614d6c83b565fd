import { sql, type Insertable } from 'kysely';
import type { Executor } from './db.ts';
import type { UserSessionsTable } from './schema.ts';

// Console sessions (only the hash of the cookie's token is stored) and the counters of failed sign-ins.

export interface LiveSession {
  id: string;
  user_id: string;
  project_id: string;
  expires_at: string;
  role: string;
  login: string;
  is_owner: boolean | number;
}

export async function insertSession(db: Executor, row: Insertable<UserSessionsTable>): Promise<void> {
  await db.insertInto('user_sessions').values(row).execute();
}

/**
 * The session of a cookie token, with the user's current role in the session's project. A session whose
 * user left the project, or whose project was deleted, has no role and is not found.
 */
export async function findLiveSession(db: Executor, tokenHash: string, now: string): Promise<LiveSession | undefined> {
  return db
    .selectFrom('user_sessions')
    .innerJoin('project_users', (join) =>
      join.onRef('project_users.project_id', '=', 'user_sessions.project_id').onRef('project_users.user_id', '=', 'user_sessions.user_id'),
    )
    .innerJoin('projects', 'projects.id', 'user_sessions.project_id')
    .innerJoin('users', 'users.id', 'user_sessions.user_id')
    .select([
      'user_sessions.id',
      'user_sessions.user_id',
      'user_sessions.project_id',
      'user_sessions.expires_at',
      'project_users.role',
      'users.login',
      'users.is_owner',
    ])
    .where('user_sessions.token_hash', '=', tokenHash)
    .where('user_sessions.revoked_at', 'is', null)
    .where('user_sessions.expires_at', '>', now)
    .where('projects.deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function findSession(db: Executor, sessionId: string): Promise<{ id: string; user_id: string; project_id: string; expires_at: string } | undefined> {
  return db.selectFrom('user_sessions').select(['id', 'user_id', 'project_id', 'expires_at']).where('id', '=', sessionId).executeTakeFirst();
}

export async function setSessionProject(db: Executor, sessionId: string, projectId: string): Promise<void> {
  await db.updateTable('user_sessions').set({ project_id: projectId }).where('id', '=', sessionId).execute();
}

export async function revokeSession(db: Executor, sessionId: string, at: string): Promise<void> {
  await db.updateTable('user_sessions').set({ revoked_at: at }).where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
}

/**
 * Ends every live session of a user, or only those working in one project, or all but one (`except`, a
 * session id). Answers how many ended.
 */
export async function revokeUserSessions(db: Executor, userId: string, at: string, projectId?: string, except?: string): Promise<number> {
  let query = db.updateTable('user_sessions').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null).where('expires_at', '>', at);
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  if (except !== undefined) query = query.where('id', '<>', except);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Removes sessions that ended before `before` (expired or revoked long enough ago to be of no use). */
export async function purgeEndedSessions(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('expires_at', '<', before).execute();
}

// ---- failed sign-ins ----

export interface FailureCount {
  key: string;
  failures: number;
  last_failure_at: string;
}

export async function readFailures(db: Executor, keys: readonly string[]): Promise<FailureCount[]> {
  return db.selectFrom('login_throttle').selectAll().where('key', 'in', keys).execute();
}

/**
 * Counts one more attempt for `key` if its count is still `seen` (null: no row yet), in one conditional
 * statement; false when another attempt changed the count first (read again and retry).
 */
export async function countAttemptIfUnchanged(db: Executor, key: string, seen: FailureCount | null, next: number, at: string): Promise<boolean> {
  if (seen === null) {
    const inserted = await db
      .insertInto('login_throttle')
      .values({ key, failures: next, last_failure_at: at })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
  }
  const updated = await db
    .updateTable('login_throttle')
    .set({ failures: next, last_failure_at: at })
    .where('key', '=', key)
    .where('failures', '=', seen.failures)
    .where('last_failure_at', '=', seen.last_failure_at)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Takes back one counted attempt (one that turned out not to be a failure). */
export async function uncountAttempt(db: Executor, key: string): Promise<void> {
  await db.updateTable('login_throttle').set({ failures: sql<number>`failures - 1` }).where('key', '=', key).where('failures', '>', 0).execute();
}

export async function clearFailures(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}

/** Drops counters whose last failure is older than `before`: they no longer slow anyone down. */
export async function purgeOldFailures(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('last_failure_at', '<', before).execute();
}
