import type { Insertable, Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { ProjectUsersTable, UsersTable, UserTokensTable } from './schema.ts';

// Console users, their roles per project, and one-time links (setup, invitations). Users are
// organisation-wide like management keys; every query about a role names its project.

export type UserRow = Selectable<UsersTable>;
export type UserTokenRow = Selectable<UserTokensTable>;

/** The vendor's user object: the user and their role in each project. */
export interface UserObject {
  id: string;
  login: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  projects: Record<string, string>;
  is_owner: boolean;
}

export function toUserObject(row: UserRow, roles: ReadonlyArray<{ project_id: string; role: string }>): UserObject {
  const projects: Record<string, string> = {};
  for (const r of roles) projects[r.project_id] = r.role;
  return {
    id: row.id,
    login: row.login,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    projects,
    is_owner: Boolean(row.is_owner),
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

export async function setUserPassword(db: Executor, userId: string, passwordHash: string, at: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: at }).where('id', '=', userId).execute();
}

// ---- roles ----

/** The user's roles in live projects. */
export async function rolesOfUser(db: Executor, userId: string): Promise<Array<{ project_id: string; role: string; project_name: string }>> {
  return db
    .selectFrom('project_users')
    .innerJoin('projects', 'projects.id', 'project_users.project_id')
    .select(['project_users.project_id', 'project_users.role', 'projects.name as project_name'])
    .where('project_users.user_id', '=', userId)
    .where('projects.deleted_at', 'is', null)
    .orderBy('projects.created_at', 'asc')
    .orderBy('project_users.project_id', 'asc')
    .execute();
}

/** Roles of several users in live projects, for a list of user objects. */
export async function rolesOfUsers(db: Executor, userIds: readonly string[]): Promise<Map<string, Array<{ project_id: string; role: string }>>> {
  const out = new Map<string, Array<{ project_id: string; role: string }>>();
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('project_users')
    .innerJoin('projects', 'projects.id', 'project_users.project_id')
    .select(['project_users.user_id', 'project_users.project_id', 'project_users.role'])
    .where('project_users.user_id', 'in', userIds)
    .where('projects.deleted_at', 'is', null)
    .orderBy('project_users.project_id', 'asc')
    .execute();
  for (const row of rows) {
    const list = out.get(row.user_id) ?? [];
    list.push({ project_id: row.project_id, role: row.role });
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

