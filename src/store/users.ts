import type { Insertable, Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { ProjectUsersTable, UsersTable, UserTokensTable } from './schema.ts';

// Console users, their roles per project, and one-time links (setup, invitations, password resets).
// Users are organisation-wide like management keys; every query about a role names its project.

export type UserRow = Selectable<UsersTable>;
export type UserTokenRow = Selectable<UserTokensTable>;

/**
 * 'invited' until the person has set a password (for one project's view: until they took up their place
 * there, `project_users.joined_at`), then 'active'.
 */
export type UserStatus = 'invited' | 'active';

/** The vendor's user object: the user and their role in each project, and Punchcard's `status`. */
export interface UserObject {
  id: string;
  login: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  projects: Record<string, string>;
  is_owner: boolean;
  status: UserStatus;
}

/** A role with whether the person took up the place. */
export interface Membership {
  project_id: string;
  role: string;
  joined_at: string | null;
}

/**
 * The user object with every role (`inProject` absent: the account's status), or with the role in one
 * project only and the status of that membership.
 */
export function toUserObject(row: UserRow, roles: ReadonlyArray<Membership>, inProject?: string): UserObject {
  const projects: Record<string, string> = {};
  let joined = row.password_hash !== null;
  for (const r of roles) {
    if (inProject !== undefined && r.project_id !== inProject) continue;
    projects[r.project_id] = r.role;
    if (inProject !== undefined) joined = joined && r.joined_at !== null;
  }
  if (inProject !== undefined && !roles.some((r) => r.project_id === inProject)) joined = false;
  return {
    id: row.id,
    login: row.login,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    projects,
    is_owner: Boolean(row.is_owner),
    status: joined ? 'active' : 'invited',
  };
}

/** Logins are e-mail addresses compared without regard to case. */
export function loginOf(email: string): string {
  return email.trim().toLowerCase();
}

export async function insertUser(db: Executor, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('login', '=', loginOf(login)).executeTakeFirst();
}

/** A user by id (`user_…`) or login, as the vendor's `{userId}` path parameter allows. */
export async function findUserByIdOrLogin(db: Executor, idOrLogin: string): Promise<UserRow | undefined> {
  return idOrLogin.startsWith('user_') ? findUserById(db, idOrLogin) : findUserByLogin(db, idOrLogin);
}

export async function anyUserExists(db: Executor): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Sets the user's password, if it is still `expected` (undefined: whatever it is); answers whether it was
 * set. Every password reset link of the user stops working with the password it was issued for.
 */
export async function setUserPassword(db: Executor, userId: string, passwordHash: string, at: string, expected?: string | null): Promise<boolean> {
  let query = db.updateTable('users').set({ password_hash: passwordHash, updated_at: at }).where('id', '=', userId);
  if (expected !== undefined) query = expected === null ? query.where('password_hash', 'is', null) : query.where('password_hash', '=', expected);
  const result = await query.executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await retireUserTokens(db, 'password-reset', userId, at);
  return true;
}

/** The person has taken up every place they were given (signed in, or accepted a link). */
export async function markJoined(db: Executor, userId: string, at: string): Promise<void> {
  await db.updateTable('project_users').set({ joined_at: at }).where('user_id', '=', userId).where('joined_at', 'is', null).execute();
}

/** Every account with its roles in live projects, by login (`punchcard users list`). */
export async function listAllUsers(db: Executor): Promise<Array<{ row: UserRow; roles: Array<Membership & { project_name: string }> }>> {
  const rows = await db.selectFrom('users').selectAll().orderBy('login', 'asc').execute();
  const out = [];
  for (const row of rows) out.push({ row, roles: await rolesOfUser(db, row.id) });
  return out;
}

// ---- roles ----

/** The user's roles in live projects. */
export async function rolesOfUser(
  db: Executor,
  userId: string,
): Promise<Array<Membership & { project_name: string; project_timezone: string; project_locale: string | null }>> {
  return db
    .selectFrom('project_users')
    .innerJoin('projects', 'projects.id', 'project_users.project_id')
    .select([
      'project_users.project_id',
      'project_users.role',
      'project_users.joined_at',
      'projects.name as project_name',
      'projects.timezone as project_timezone',
      'projects.locale as project_locale',
    ])
    .where('project_users.user_id', '=', userId)
    .where('projects.deleted_at', 'is', null)
    .orderBy('projects.created_at', 'asc')
    .orderBy('project_users.project_id', 'asc')
    .execute();
}

/** Roles of several users in live projects, for a list of user objects. */
export async function rolesOfUsers(db: Executor, userIds: readonly string[]): Promise<Map<string, Membership[]>> {
  const out = new Map<string, Membership[]>();
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('project_users')
    .innerJoin('projects', 'projects.id', 'project_users.project_id')
    .select(['project_users.user_id', 'project_users.project_id', 'project_users.role', 'project_users.joined_at'])
    .where('project_users.user_id', 'in', userIds)
    .where('projects.deleted_at', 'is', null)
    .orderBy('project_users.project_id', 'asc')
    .execute();
  for (const row of rows) {
    const list = out.get(row.user_id) ?? [];
    list.push({ project_id: row.project_id, role: row.role, joined_at: row.joined_at });
    out.set(row.user_id, list);
  }
  return out;
}

/** The users of one project, in the order they joined it. */
export async function listProjectUsers(db: Executor, projectId: string): Promise<UserRow[]> {
  return db
    .selectFrom('project_users')
    .innerJoin('users', 'users.id', 'project_users.user_id')
    .selectAll('users')
    .where('project_users.project_id', '=', projectId)
    .orderBy('project_users.created_at', 'asc')
    .orderBy('project_users.user_id', 'asc')
    .execute();
}

export async function findRole(db: Executor, projectId: string, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('project_users')
    .select('role')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

export async function insertProjectUser(db: Executor, row: Insertable<ProjectUsersTable>): Promise<void> {
  await db.insertInto('project_users').values(row).execute();
}

export async function updateRole(db: Executor, projectId: string, userId: string, role: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('project_users')
    .set({ role, updated_at: at })
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteProjectUser(db: Executor, projectId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('project_users').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function countAdmins(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('project_users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId)
    .where('role', '=', 'ADMIN')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function countProjectsOfUser(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('project_users')
    .innerJoin('projects', 'projects.id', 'project_users.project_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_users.user_id', '=', userId)
    .where('projects.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Deletes an account that was never used (no password, so no session ever) and belongs to no project any
 * more: an invitation withdrawn. Its links go with it. An account still named by a membership (a deleted
 * project's keeps its rows) or a session stays.
 */
export async function deleteUnusedUser(db: Executor, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('users')
    .where('id', '=', userId)
    .where('password_hash', 'is', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('project_users').select('user_id').where('project_users.user_id', '=', userId))))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('user_sessions').select('user_id').where('user_sessions.user_id', '=', userId))))
    .executeTakeFirst();
  const deleted = Number(result.numDeletedRows) === 1;
  if (deleted) await db.deleteFrom('user_tokens').where('user_id', '=', userId).execute();
  return deleted;
}

// ---- one-time links ----

export async function insertUserToken(db: Executor, row: Insertable<UserTokensTable>): Promise<void> {
  await db.insertInto('user_tokens').values(row).execute();
}

/** Marks the unspent links of one purpose (and user) as spent, so only the newest one works. */
export async function retireUserTokens(db: Executor, purpose: UserTokenRow['purpose'], userId: string | null, at: string): Promise<void> {
  let query = db.updateTable('user_tokens').set({ used_at: at }).where('purpose', '=', purpose).where('used_at', 'is', null);
  query = userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', userId);
  await query.execute();
}

/** A live link (unspent, unexpired) of one of the purposes, without spending it. */
export async function findLiveUserToken(
  db: Executor,
  tokenHash: string,
  purposes: ReadonlyArray<UserTokenRow['purpose']>,
  at: string,
): Promise<UserTokenRow | undefined> {
  return db
    .selectFrom('user_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
}

/**
 * Spends a live link: one conditional update, so two requests racing with the same link cannot both
 * succeed. Answers the link's row, or undefined when it is unknown, spent or expired.
 */
export async function spendUserToken(db: Executor, tokenHash: string, purpose: UserTokenRow['purpose'], at: string): Promise<UserTokenRow | undefined> {
  return db
    .updateTable('user_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .returningAll()
    .executeTakeFirst();
}

