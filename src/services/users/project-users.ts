import { isRole, ROLES, type Role } from '../../domain/auth/roles.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';
import { appendEvents } from '../../store/events.ts';
import { findProject, lockProjectRow } from '../../store/projects.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import * as store from '../../store/users.ts';
import type { UserObject } from '../../store/users.ts';
import { revokeUserSessions } from '../../store/user-sessions.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';

// The vendor's management API for project users: assign an existing user to a project with a role,
// change the role, unassign, invite a new user. Punchcard sends no e-mail: an invitation is a one-time
// link that an ADMIN (or the management key) asks for and hands to the person (`invitationLink`).
//
// Every change to a project's team takes the project's row lock (PostgreSQL; SQLite writers are
// serialised already), so "a project keeps at least one ADMIN" holds under concurrent changes.

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export interface UserList {
  object: 'list';
  data_ref: 'data';
  data: UserObject[];
  total: number;
}

/** Who asks, for rules that depend on it: the organisation's management key, or a console user. */
export type Caller = { kind: 'management' } | { kind: 'user'; userId: string; projectId: string };

function parseRole(role: string | null | undefined): Role {
  if (role === undefined || role === null || role === '') throw errors.invalidPayload("Payload must have required property 'role'");
  if (!isRole(role)) {
    throw businessError('used_incorrect_role', 'Incorrect role', {
      details: `Role '${role}' is not one of ${ROLES.join(', ')} (custom roles are not supported)`,
    });
  }
  return role;
}

async function liveProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

async function userObject(db: Executor, row: store.UserRow): Promise<UserObject> {
  return store.toUserObject(row, await store.rolesOfUser(db, row.id));
}

/** The user, who must be in the project (a user of another project is not found here). */
async function projectUser(db: Executor, projectId: string, userIdOrLogin: string): Promise<store.UserRow> {
  const user = await store.findUserByIdOrLogin(db, userIdOrLogin);
  if (!user || (await store.findRole(db, projectId, user.id)) === undefined) throw errors.notFound('user', userIdOrLogin);
  return user;
}

export async function listUsers(deps: Deps, projectId: string): Promise<UserList> {
  await liveProject(deps.db, projectId);
  const rows = await store.listProjectUsers(deps.db, projectId);
  const roles = await store.rolesOfUsers(
    deps.db,
    rows.map((r) => r.id),
  );
  const data = rows.map((row) => store.toUserObject(row, roles.get(row.id) ?? []));
  return { object: 'list', data_ref: 'data', data, total: data.length };
}

export async function getUser(deps: Deps, projectId: string, userIdOrLogin: string): Promise<UserObject> {
  await liveProject(deps.db, projectId);
  return userObject(deps.db, await projectUser(deps.db, projectId, userIdOrLogin));
}

export interface AssignUserInput {
  id?: string | null | undefined;
  login?: string | null | undefined;
  role?: string | null | undefined;
}

/** Assigns an existing user (by `id` or by `login`, never both) to the project with a role. */
export async function assignUser(deps: Deps, actor: Omit<Actor, 'projectId'>, projectId: string, input: AssignUserInput): Promise<UserObject> {
  const role = parseRole(checkReference(input).role);
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    return assignUserIn(tx, deps, actor, projectId, input, role);
  });
}

function checkReference(input: AssignUserInput, where = ''): AssignUserInput {
  const hasId = input.id !== undefined && input.id !== null && input.id !== '';
  const hasLogin = input.login !== undefined && input.login !== null && input.login !== '';
  if (hasId === hasLogin) throw errors.invalidPayload(`Send either id or login of the user${where}, not both`);
  return input;
}

/**
 * The users a new project starts with (`users` of the vendor's project create): existing users, each by id
 * or login with a role, assigned in the transaction that creates the project (the caller holds it).
 */
export async function assignInitialUsers(tx: Tx, deps: Deps, actor: Omit<Actor, 'projectId'>, projectId: string, users: readonly AssignUserInput[]): Promise<void> {
  const roles = users.map((user, i) => parseRole(checkReference(user, ` in users[${i}]`).role));
  for (const [i, user] of users.entries()) await assignUserIn(tx, deps, actor, projectId, user, roles[i] as Role);
}

async function assignUserIn(tx: Tx, deps: Deps, actor: Omit<Actor, 'projectId'>, projectId: string, input: AssignUserInput, role: Role): Promise<UserObject> {
  const byId = input.id !== undefined && input.id !== null && input.id !== '';
  const reference = (byId ? input.id : input.login) as string;
  const user = byId ? await store.findUserById(tx, reference) : await store.findUserByLogin(tx, reference);
  if (!user) throw errors.notFound('user', reference);
  const now = deps.clock.now().toISOString();
  // Checked before inserting: on PostgreSQL a failed insert would end the whole transaction.
  if ((await store.findRole(tx, projectId, user.id)) !== undefined) throw errors.duplicate('user', 'id', user.id);
  try {
    await store.insertProjectUser(tx, { project_id: projectId, user_id: user.id, role, created_at: now, updated_at: null });
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.duplicate('user', 'id', user.id);
    throw error;
  }
  const object = await userObject(tx, user);
  await appendEvents(tx, [makeEvent(deps, { ...actor, projectId }, { type: 'user.assigned', entityId: user.id, data: { user: object, role } })]);
  return object;
}

async function assertAnotherAdminRemains(tx: Executor, projectId: string, userId: string): Promise<void> {
  if ((await store.findRole(tx, projectId, userId)) !== 'ADMIN') return;
  if ((await store.countAdmins(tx, projectId)) <= 1) {
    throw businessError('last_admin', 'A project keeps at least one ADMIN', {
      details: `User ${userId} is the last ADMIN of project ${projectId}; make another user ADMIN first`,
      resourceId: userId,
      resourceType: 'user',
    });
  }
}

/** Changes the user's role; the user's sessions in the project take the new role at once. */
export async function updateUserRole(
  deps: Deps,
  actor: Omit<Actor, 'projectId'>,
  projectId: string,
  userIdOrLogin: string,
  input: { role?: string | null | undefined },
): Promise<UserObject> {
  const role = parseRole(input.role);
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    const user = await projectUser(tx, projectId, userIdOrLogin);
    if (role !== 'ADMIN') await assertAnotherAdminRemains(tx, projectId, user.id);
    const now = deps.clock.now().toISOString();
    await store.updateRole(tx, projectId, user.id, role, now);
    const object = await userObject(tx, user);
    await appendEvents(tx, [makeEvent(deps, { ...actor, projectId }, { type: 'user.role_updated', entityId: user.id, data: { user: object, role } })]);
    return object;
  });
}

/**
 * Unassigns the user from the project and signs out their sessions there. As at the vendor, a user's only
 * project cannot be taken away; nor can a project's last ADMIN.
 */
export async function unassignUser(deps: Deps, actor: Omit<Actor, 'projectId'>, projectId: string, userIdOrLogin: string): Promise<string> {
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    const user = await projectUser(tx, projectId, userIdOrLogin);
    if ((await store.countProjectsOfUser(tx, user.id)) <= 1) {
      throw businessError('last_project_of_user', 'The user has no other project', {
        details: `User ${user.id} is assigned to this project only and cannot be unassigned from it`,
        resourceId: user.id,
        resourceType: 'user',
      });
    }
    await assertAnotherAdminRemains(tx, projectId, user.id);
    const now = deps.clock.now().toISOString();
    await store.deleteProjectUser(tx, projectId, user.id);
    await revokeUserSessions(tx, user.id, now, projectId);
    await appendEvents(tx, [makeEvent(deps, { ...actor, projectId }, { type: 'user.unassigned', entityId: user.id, data: { user_id: user.id } })]);
    return user.id;
  });
}

export interface InviteUserInput {
  email?: string | null | undefined;
  first_name?: string | null | undefined;
  last_name?: string | null | undefined;
  projects?: Record<string, string> | null | undefined;
}

/**
 * Creates a user who has not set a password yet, with a role in each given project. The vendor e-mails
 * the invitation; Punchcard does not send mail, so the link comes from `invitationLink`.
 */
export async function inviteUser(deps: Deps, actor: Omit<Actor, 'projectId'>, input: InviteUserInput, caller: Caller): Promise<string> {
  const email = input.email?.trim() ?? '';
  if (email === '') throw errors.invalidPayload("Payload must have required property 'email'");
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw errors.invalidPayload(`Property .email must be an e-mail address, got '${email}'`);
  const entries = Object.entries(input.projects ?? {});
  if (entries.length === 0) throw errors.invalidPayload('Property .projects must assign the user to at least one project');
  const roles = entries.map(([projectId, role]) => [projectId, parseRole(role)] as const);
  if (caller.kind === 'user' && roles.some(([projectId]) => projectId !== caller.projectId)) {
    throw errors.forbidden(`A console session invites to its own project (${caller.projectId}) only`);
  }
  return inTransaction(deps, async (tx) => {
    const now = deps.clock.now().toISOString();
    for (const [projectId] of roles) {
      await liveProject(tx, projectId);
      await lockProjectRow(tx, projectId);
    }
    const id = deps.ids.next('user');
    try {
      await store.insertUser(tx, {
        id,
        login: store.loginOf(email),
        email,
        first_name: input.first_name ?? null,
        last_name: input.last_name ?? null,
        password_hash: null,
        is_owner: false,
        created_at: now,
        updated_at: null,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.duplicate('user', 'login', store.loginOf(email));
      throw error;
    }
    for (const [projectId, role] of roles) {
      await store.insertProjectUser(tx, { project_id: projectId, user_id: id, role, created_at: now, updated_at: null });
    }
    const user = await store.findUserById(tx, id);
    const object = await userObject(tx, user as store.UserRow);
    await appendEvents(
      tx,
      roles.map(([projectId, role]) => makeEvent(deps, { ...actor, projectId }, { type: 'user.invited', entityId: id, data: { user: object, role } })),
    );
    return id;
  });
}

export interface InvitationLink {
  object: 'invitation_link';
  user_id: string;
  url: string;
  expires_at: string;
}

/**
 * A new one-time link where an invited user sets their password (any earlier link stops working). Only
 * for users who have no password yet: it must never become a way to take over an existing account. A
 * console ADMIN may ask only for users whose every project is one they administer.
 */
export async function invitationLink(deps: Deps, projectId: string, userIdOrLogin: string, caller: Caller): Promise<InvitationLink> {
  const token = newSecret(40);
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    const user = await projectUser(tx, projectId, userIdOrLogin);
    if (user.password_hash !== null) {
      throw businessError('user_already_active', 'The user has set a password already', {
        details: `User ${user.id} has accepted the invitation already; they sign in with their password`,
        resourceId: user.id,
        resourceType: 'user',
      });
    }
    if (caller.kind === 'user') {
      const theirs = await store.rolesOfUser(tx, user.id);
      const mine = new Map((await store.rolesOfUser(tx, caller.userId)).map((r) => [r.project_id, r.role]));
      const outside = theirs.find((r) => mine.get(r.project_id) !== 'ADMIN');
      if (outside) throw errors.forbidden(`User ${user.id} is also in project ${outside.project_id}, which you do not administer`);
    }
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS).toISOString();
    await store.retireUserTokens(tx, 'invitation', user.id, now.toISOString());
    await store.insertUserToken(tx, {
      id: deps.ids.next('utok'),
      token_hash: hashSecret(deps.pepper, token),
      purpose: 'invitation',
      user_id: user.id,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    });
    return { object: 'invitation_link', user_id: user.id, url: `${deps.config.publicUrl}/dashboard/invitation#token=${token}`, expires_at: expiresAt };
  });
}
