import { isRole, ROLES, type Role } from '../../domain/auth/roles.ts';
import { businessError, domainError, errors } from '../../domain/errors.ts';
import { appendEvents } from '../../store/events.ts';
import { findProject, lockProjectRow } from '../../store/projects.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import * as store from '../../store/users.ts';
import type { UserObject } from '../../store/users.ts';
import { revokeUserSessions } from '../../store/user-sessions.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { issueUserLink } from './links.ts';

// The vendor's management API for project users: assign an existing user to a project with a role,
// change the role, unassign, invite a new user. Punchcard sends no e-mail: an invitation is a one-time
// link that an ADMIN (or the management key) asks for and hands to the person (`invitationLink`).
//
// Every change to a project's team takes the project's row lock (PostgreSQL; SQLite writers are
// serialised already), so "a project keeps at least one ADMIN" holds under concurrent changes.
//
// Accounts are organisation-wide, but a console session works in one project. So whatever a console
// ADMIN (or USER, VIEWER reading the team) is answered speaks of that project only: a user object shows
// the role there and no other, and adding an e-mail answers the same whether it already has an account
// (made by another project) or not — the account joins the project, or a new one is made, and the
// invitation link has the same shape either way (`invitationLink`). The management key sees the whole
// organisation and keeps the vendor's answers.

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const PASSWORD_RESET_TTL_MS = 24 * 3600 * 1000;

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

/** A user with their memberships, from which each caller's user object is made. */
interface Member {
  row: store.UserRow;
  roles: store.Membership[];
}

/**
 * The user object with the role in one project only, and the status of that membership: what that
 * project's console and events are shown. An account that had a password before it joined stays
 * 'invited' here until the person signs in, as a new account would.
 */
function inProject(member: Member, projectId: string): UserObject {
  return store.toUserObject(member.row, member.roles, projectId);
}

/** The user object as the caller may see it (see the top of this file). */
function shownTo(caller: Caller, member: Member): UserObject {
  return caller.kind === 'user' ? inProject(member, caller.projectId) : store.toUserObject(member.row, member.roles);
}

function alreadyInProject(login: string, projectId: string) {
  return domainError('duplicate_found', {
    details: `User ${login} is in project ${projectId} already; change their role instead`,
    resourceId: login,
    resourceType: 'user',
  });
}

/** Another request made an account for the same e-mail meanwhile: the work runs again and finds it. */
class AccountMadeMeanwhile extends Error {}

async function retryingAccountRace<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AccountMadeMeanwhile) return work();
    throw error;
  }
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** An account that has not set a password yet: an invitation (the link comes from `invitationLink`). */
async function insertInvitedUser(
  tx: Tx,
  deps: Deps,
  person: { email: string; first_name: string | null; last_name: string | null },
  caller: Caller,
): Promise<store.UserRow> {
  const id = deps.ids.next('user');
  const login = store.loginOf(person.email);
  try {
    await store.insertUser(tx, {
      id,
      login,
      email: person.email,
      first_name: person.first_name,
      last_name: person.last_name,
      password_hash: null,
      is_owner: false,
      created_at: deps.clock.now().toISOString(),
      updated_at: null,
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    if (caller.kind === 'user') throw new AccountMadeMeanwhile(login);
    throw errors.duplicate('user', 'login', login);
  }
  return (await store.findUserById(tx, id)) as store.UserRow;
}

async function liveProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

async function memberOf(db: Executor, row: store.UserRow): Promise<Member> {
  return { row, roles: await store.rolesOfUser(db, row.id) };
}

/** The user, who must be in the project (a user of another project is not found here). */
async function projectUser(db: Executor, projectId: string, userIdOrLogin: string): Promise<store.UserRow> {
  const user = await store.findUserByIdOrLogin(db, userIdOrLogin);
  if (!user || (await store.findRole(db, projectId, user.id)) === undefined) throw errors.notFound('user', userIdOrLogin);
  return user;
}

export async function listUsers(deps: Deps, projectId: string, caller: Caller): Promise<UserList> {
  await liveProject(deps.db, projectId);
  const rows = await store.listProjectUsers(deps.db, projectId);
  const roles = await store.rolesOfUsers(
    deps.db,
    rows.map((r) => r.id),
  );
  const data = rows.map((row) => shownTo(caller, { row, roles: roles.get(row.id) ?? [] }));
  return { object: 'list', data_ref: 'data', data, total: data.length };
}

export async function getUser(deps: Deps, projectId: string, userIdOrLogin: string, caller: Caller): Promise<UserObject> {
  await liveProject(deps.db, projectId);
  return shownTo(caller, await memberOf(deps.db, await projectUser(deps.db, projectId, userIdOrLogin)));
}

export interface AssignUserInput {
  id?: string | null | undefined;
  login?: string | null | undefined;
  role?: string | null | undefined;
}

/**
 * Assigns a user (by `id` or by `login`, never both) to the project with a role. The management key
 * names existing users only (404 otherwise, as the vendor). A console session names people by e-mail and
 * may not learn whether one has an account: a login without an account gets an invited one, as
 * `inviteUser` makes, so both answer the same user object, showing this project only.
 */
export async function assignUser(deps: Deps, actor: Omit<Actor, 'projectId'>, projectId: string, input: AssignUserInput, caller: Caller): Promise<UserObject> {
  const role = parseRole(checkReference(input).role);
  const byLogin = input.id === undefined || input.id === null || input.id === '';
  if (caller.kind === 'user' && byLogin && !EMAIL.test((input.login ?? '').trim())) {
    throw errors.invalidPayload(`Property .login must be an e-mail address, got '${input.login ?? ''}'`);
  }
  const run = () =>
    inTransaction(deps, async (tx) => {
      await liveProject(tx, projectId);
      await lockProjectRow(tx, projectId);
      return shownTo(caller, await assignUserIn(tx, deps, actor, projectId, input, role, caller));
    });
  return caller.kind === 'user' ? retryingAccountRace(run) : run();
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
  for (const [i, user] of users.entries()) await assignUserIn(tx, deps, actor, projectId, user, roles[i] as Role, { kind: 'management' });
}

/**
 * The console user who creates a project becomes its ADMIN, in the transaction that creates it, so they
 * can switch into it at once. They are working in the console already, so the place counts as taken up.
 * Naming them in `users` as well would give them two roles: refused, naming the rule.
 */
export async function assignCreator(
  tx: Tx,
  deps: Deps,
  actor: Omit<Actor, 'projectId'>,
  projectId: string,
  creator: { userId: string; login: string },
  users: readonly AssignUserInput[],
): Promise<void> {
  const named = users.findIndex((u) => u.id === creator.userId || (typeof u.login === 'string' && store.loginOf(u.login) === creator.login));
  if (named >= 0) {
    throw errors.invalidPayload(`Property .users[${named}] names you: you become ADMIN of the project you create, so leave yourself out of users`);
  }
  const user = await store.findUserById(tx, creator.userId);
  if (!user) throw errors.unauthorized('Your session has ended; sign in again');
  const now = deps.clock.now().toISOString();
  await store.insertProjectUser(tx, { project_id: projectId, user_id: user.id, role: 'ADMIN', created_at: now, updated_at: null, joined_at: now });
  const object = await memberOf(tx, user);
  await appendEvents(tx, [
    makeEvent(deps, { ...actor, projectId }, { type: 'user.assigned', entityId: user.id, data: { user: inProject(object, projectId), role: 'ADMIN' } }),
  ]);
}

async function assignUserIn(
  tx: Tx,
  deps: Deps,
  actor: Omit<Actor, 'projectId'>,
  projectId: string,
  input: AssignUserInput,
  role: Role,
  caller: Caller,
): Promise<Member> {
  const byId = input.id !== undefined && input.id !== null && input.id !== '';
  const reference = (byId ? input.id : input.login?.trim()) as string;
  const found = byId ? await store.findUserById(tx, reference) : await store.findUserByLogin(tx, reference);
  const invited = !found && caller.kind === 'user' && !byId;
  const user = invited ? await insertInvitedUser(tx, deps, { email: reference, first_name: null, last_name: null }, caller) : found;
  if (!user) throw errors.notFound('user', reference);
  const now = deps.clock.now().toISOString();
  // Checked before inserting: on PostgreSQL a failed insert would end the whole transaction.
  const member = () => (caller.kind === 'user' ? alreadyInProject(user.login, projectId) : errors.duplicate('user', 'id', user.id));
  if ((await store.findRole(tx, projectId, user.id)) !== undefined) throw member();
  try {
    await store.insertProjectUser(tx, { project_id: projectId, user_id: user.id, role, created_at: now, updated_at: null });
  } catch (error) {
    if (isUniqueViolation(error)) throw member();
    throw error;
  }
  const object = await memberOf(tx, user);
  await appendEvents(tx, [
    makeEvent(deps, { ...actor, projectId }, { type: 'user.assigned', entityId: user.id, data: { user: inProject(object, projectId), role } }),
  ]);
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
  caller: Caller,
): Promise<UserObject> {
  const role = parseRole(input.role);
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    const user = await projectUser(tx, projectId, userIdOrLogin);
    if (role !== 'ADMIN') await assertAnotherAdminRemains(tx, projectId, user.id);
    const now = deps.clock.now().toISOString();
    await store.updateRole(tx, projectId, user.id, role, now);
    const object = await memberOf(tx, user);
    await appendEvents(tx, [
      makeEvent(deps, { ...actor, projectId }, { type: 'user.role_updated', entityId: user.id, data: { user: inProject(object, projectId), role } }),
    ]);
    return shownTo(caller, object);
  });
}

/**
 * Unassigns the user from the project and signs out their sessions there; a project's last ADMIN cannot
 * be unassigned. With the management key, as at the vendor, a user's only project cannot be taken away
 * either. A console session is not told whether the user has other projects, so it may remove anyone
 * but the last ADMIN: an account left in no project that never set a password (an invitation nobody
 * took up) is deleted, and one with a password stays, signing in to nothing until a project adds it.
 */
export async function unassignUser(deps: Deps, actor: Omit<Actor, 'projectId'>, projectId: string, userIdOrLogin: string, caller: Caller): Promise<string> {
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    const user = await projectUser(tx, projectId, userIdOrLogin);
    const onlyProject = (await store.countProjectsOfUser(tx, user.id)) <= 1;
    if (onlyProject && caller.kind === 'management') {
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
    if (onlyProject && user.password_hash === null) await store.deleteUnusedUser(tx, user.id);
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
 * Invites a person by e-mail with a role in each given project. The vendor e-mails the invitation;
 * Punchcard does not send mail, so the link comes from `invitationLink`. A new e-mail gets an account
 * that has not set a password yet. With the management key an e-mail that has an account is refused
 * (409, as the vendor). A console session (its own project only) is not told whether the e-mail has an
 * account: an existing account joins the project with the role — its name and e-mail stay its own — and
 * the answer is the same 204; only an account already in the project is refused (409, about that project).
 */
export async function inviteUser(deps: Deps, actor: Omit<Actor, 'projectId'>, input: InviteUserInput, caller: Caller): Promise<string> {
  const email = input.email?.trim() ?? '';
  if (email === '') throw errors.invalidPayload("Payload must have required property 'email'");
  if (!EMAIL.test(email)) throw errors.invalidPayload(`Property .email must be an e-mail address, got '${email}'`);
  const entries = Object.entries(input.projects ?? {});
  if (entries.length === 0) throw errors.invalidPayload('Property .projects must assign the user to at least one project');
  const roles = entries.map(([projectId, role]) => [projectId, parseRole(role)] as const);
  if (caller.kind === 'user' && roles.some(([projectId]) => projectId !== caller.projectId)) {
    throw errors.forbidden(`A console session invites to its own project (${caller.projectId}) only`);
  }
  const run = () =>
    inTransaction(deps, async (tx) => {
      const now = deps.clock.now().toISOString();
      for (const [projectId] of roles) {
        await liveProject(tx, projectId);
        await lockProjectRow(tx, projectId);
      }
      const login = store.loginOf(email);
      const existing = await store.findUserByLogin(tx, login);
      if (existing && caller.kind === 'management') throw errors.duplicate('user', 'login', login);
      if (existing && caller.kind === 'user' && (await store.findRole(tx, caller.projectId, existing.id)) !== undefined) {
        throw alreadyInProject(login, caller.projectId);
      }
      const user = existing ?? (await insertInvitedUser(tx, deps, { email, first_name: input.first_name ?? null, last_name: input.last_name ?? null }, caller));
      for (const [projectId, role] of roles) {
        await store.insertProjectUser(tx, { project_id: projectId, user_id: user.id, role, created_at: now, updated_at: null });
      }
      const object = await memberOf(tx, user);
      await appendEvents(
        tx,
        roles.map(([projectId, role]) =>
          makeEvent(deps, { ...actor, projectId }, { type: 'user.invited', entityId: user.id, data: { user: inProject(object, projectId), role } }),
        ),
      );
      return user.id;
    });
  return caller.kind === 'user' ? retryingAccountRace(run) : run();
}

export interface InvitationLink {
  object: 'invitation_link';
  user_id: string;
  url: string;
  expires_at: string;
}

type LinkPurpose = 'invitation' | 'invitation-join';

/**
 * What a new invitation link may do. Setting a password is for an account that has none, and must never
 * become a way to take over an account beyond the caller's reach: the management key may (for any
 * account without a password; one with a password is refused as the vendor would), a console ADMIN only
 * for an account whose every project is one they administer. Any other account a console ADMIN asks
 * about gets a link that signs the person in on the password their account has ('invitation-join'):
 * the answer looks the same, so the ADMIN cannot tell an e-mail that had an account elsewhere from one
 * they have just invited.
 */
async function linkPurpose(tx: Executor, user: store.UserRow, caller: Caller): Promise<LinkPurpose> {
  if (caller.kind === 'management') {
    if (user.password_hash !== null) {
      throw businessError('user_already_active', 'The user has set a password already', {
        details: `User ${user.id} has accepted the invitation already; they sign in with their password`,
        resourceId: user.id,
        resourceType: 'user',
      });
    }
    return 'invitation';
  }
  if (user.password_hash !== null) return 'invitation-join';
  const mine = new Map((await store.rolesOfUser(tx, caller.userId)).map((r) => [r.project_id, r.role]));
  const theirs = await store.rolesOfUser(tx, user.id);
  return theirs.every((r) => mine.get(r.project_id) === 'ADMIN') ? 'invitation' : 'invitation-join';
}

/**
 * A new one-time link for an invited user (any earlier link of the same kind stops working): where they
 * set their password, or sign in on the one they have (see `linkPurpose`).
 */
export async function invitationLink(deps: Deps, projectId: string, userIdOrLogin: string, caller: Caller): Promise<InvitationLink> {
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    const user = await projectUser(tx, projectId, userIdOrLogin);
    const purpose = await linkPurpose(tx, user, caller);
    const link = await issueUserLink(deps, tx, { purpose, userId: user.id, ttlMs: INVITATION_TTL_MS });
    return { object: 'invitation_link', user_id: user.id, ...link };
  });
}

export interface PasswordResetLink {
  object: 'password_reset_link';
  user_id: string;
  url: string;
  expires_at: string;
}

/**
 * A one-time link where an active member sets a new password (Punchcard sends no e-mail: the ADMIN hands
 * it over). It works once, for PASSWORD_RESET_TTL_MS, and stops working when a newer one is issued or
 * the password changes; using it ends every session of the account.
 *
 * Like an invitation, it must never let a console ADMIN take over an account beyond their reach: the
 * management key may reset any member of the project; a console ADMIN only a member who took up their
 * place in this project (the team list shows them 'active') and whose every project is one they
 * administer. An account that is 'invited' here is refused as having no password to reset, whether or
 * not it has one elsewhere, so the answer tells an ADMIN nothing their team list does not.
 */
export async function passwordResetLink(deps: Deps, projectId: string, userIdOrLogin: string, caller: Caller): Promise<PasswordResetLink> {
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    const user = await projectUser(tx, projectId, userIdOrLogin);
    const member = await memberOf(tx, user);
    const status = caller.kind === 'user' ? inProject(member, projectId).status : store.toUserObject(user, member.roles).status;
    if (status !== 'active') {
      throw businessError('user_not_active', 'The user has not set a password yet', {
        details: `User ${user.id} has not accepted the invitation yet; give them a new invitation link instead`,
        resourceId: user.id,
        resourceType: 'user',
      });
    }
    if (caller.kind === 'user') {
      const mine = new Map((await store.rolesOfUser(tx, caller.userId)).map((r) => [r.project_id, r.role]));
      if (!member.roles.every((r) => mine.get(r.project_id) === 'ADMIN')) {
        throw errors.forbidden(
          `User ${user.id} also works in projects you are not ADMIN of; an ADMIN of all of them, the management key or the operator (\`punchcard users reset-password\`) resets their password`,
        );
      }
    }
    const link = await issueUserLink(deps, tx, { purpose: 'password-reset', userId: user.id, ttlMs: PASSWORD_RESET_TTL_MS, projectId });
    return { object: 'password_reset_link', user_id: user.id, ...link };
  });
}
