import { isRole, type Role } from '../../domain/auth/roles.ts';
import { errors } from '../../domain/errors.ts';
import { decoyHash, hashingHasRoom, HashingBusyError, hashPassword, passwordProblem, verifyPassword } from '../../lib/passwords.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';
import type { Executor } from '../../store/db.ts';
import { findDefaultProject, listProjects } from '../../store/projects.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import * as sessions from '../../store/user-sessions.ts';
import * as users from '../../store/users.ts';
import { inTransaction, type Deps } from '../context.ts';
import { assertNotSlowedDown, countAttempt, forgiveSuccess, signInsBusy, throttleKeys, uncount, type ThrottleKeys } from './sign-in-throttle.ts';

// Console sign-in: e-mail and password, the first admin's one-time setup link, invitations, password
// changes and resets, and the sessions they open. A session is a random token in an HttpOnly cookie (the HTTP layer sets it); only
// its keyed hash is stored. The CSRF token the console sends back with every change is derived from the
// session id with the installation's pepper, so it cannot be forged and needs no storage.

/** Where a sign-in comes from: the client address slows down guessing across accounts. */
export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

/** The session as `GET /console/v1/session` shows it. */
export interface ConsoleSession {
  object: 'console_session';
  user: { id: string; login: string; email: string; first_name: string | null; last_name: string | null; is_owner: boolean };
  /** How the console writes this project's dates: its time zone, and its language tag (null: the browser's). */
  project: { id: string; name: string; timezone: string; locale: string | null };
  role: Role;
  projects: Array<{ id: string; name: string; role: string }>;
  csrf_token: string;
  expires_at: string;
}

export interface StartedSession {
  token: string;
  session: ConsoleSession;
}

/** The identity a session principal carries (src/services/auth/authenticator.ts). */
export interface SessionRef {
  sessionId: string;
  userId: string;
  projectId: string;
}

/** Ended sessions are kept this long after they end (for the record), then purged at the next sign-in. */
const ENDED_SESSION_RETENTION_MS = 7 * 24 * 3600 * 1000;

export function csrfTokenOf(pepper: string, sessionId: string): string {
  return hashSecret(pepper, `csrf:${sessionId}`);
}

async function describe(db: Executor, pepper: string, session: { id: string; user_id: string; project_id: string; expires_at: string }): Promise<ConsoleSession> {
  const user = await users.findUserById(db, session.user_id);
  const roles = await users.rolesOfUser(db, session.user_id);
  const current = roles.find((r) => r.project_id === session.project_id);
  if (!user || !current || !isRole(current.role)) throw errors.unauthorized('Your session has ended; sign in again');
  return {
    object: 'console_session',
    user: { id: user.id, login: user.login, email: user.email, first_name: user.first_name, last_name: user.last_name, is_owner: Boolean(user.is_owner) },
    project: { id: current.project_id, name: current.project_name, timezone: current.project_timezone, locale: current.project_locale },
    role: current.role,
    projects: roles.map((r) => ({ id: r.project_id, name: r.project_name, role: r.role })),
    csrf_token: csrfTokenOf(pepper, session.id),
    expires_at: session.expires_at,
  };
}

/** The project a new session works in: the one asked for, else the default project, else the first. */
async function chooseProject(db: Executor, userId: string, asked: string | undefined): Promise<string> {
  const roles = await users.rolesOfUser(db, userId);
  if (roles.length === 0) throw errors.forbidden('Your account is not assigned to any project; ask an ADMIN to add you');
  if (asked !== undefined) {
    if (!roles.some((r) => r.project_id === asked)) throw errors.forbidden(`You are not assigned to project ${asked}`);
    return asked;
  }
  const defaultProject = await findDefaultProject(db);
  return roles.find((r) => r.project_id === defaultProject?.id)?.project_id ?? (roles[0] as { project_id: string }).project_id;
}

async function openSession(deps: Deps, tx: Executor, userId: string, projectId: string, client: ClientInfo): Promise<StartedSession> {
  const token = newSecret(48);
  const now = deps.clock.now();
  const row = {
    id: deps.ids.next('usess'),
    token_hash: hashSecret(deps.pepper, token),
    user_id: userId,
    project_id: projectId,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + deps.config.console.sessionTtlSeconds * 1000).toISOString(),
    revoked_at: null,
    ip: client.ip,
    user_agent: client.userAgent?.slice(0, 512) ?? null,
  };
  await sessions.insertSession(tx, row);
  await sessions.purgeEndedSessions(tx, new Date(now.getTime() - ENDED_SESSION_RETENTION_MS).toISOString());
  return { token, session: await describe(tx, deps.pepper, row) };
}

export interface SignInInput {
  email: string;
  password: string;
  project_id?: string | undefined;
}

/**
 * Checks the password and opens a session. Unknown accounts cost the same work as known ones and get the
 * same answer. Each attempt counts against the throttle before its password is hashed
 * (./sign-in-throttle.ts); while an account or address must wait, or while the hashing threads are full,
 * the password is not even looked at (429 with how long to wait).
 */
export async function signIn(deps: Deps, input: SignInInput, client: ClientInfo): Promise<StartedSession> {
  const login = users.loginOf(input.email);
  const keys = throttleKeys(login, client.ip);
  const user = await users.findUserByLogin(deps.db, login);
  if (!(await passwordMatches(deps, keys, input.password, user?.password_hash ?? null)) || !user) throw errors.unauthorized('Wrong e-mail or password');
  return inTransaction(deps, async (tx) => {
    await forgiveSuccess(tx, keys);
    const projectId = await chooseProject(tx, user.id, input.project_id);
    await users.markJoined(tx, user.id, deps.clock.now().toISOString());
    return openSession(deps, tx, user.id, projectId, client);
  });
}

/**
 * Whether `password` is the one `stored` was made from (null: an unknown account or one without a
 * password, checked against the decoy so it costs the same), under the throttle: refused at once while a
 * counter must wait or the hashing threads are full, and counted before the hash is computed. The caller
 * forgives the attempt (`forgiveSuccess`) in the transaction that acts on a match.
 */
async function passwordMatches(deps: Deps, keys: ThrottleKeys, password: string, stored: string | null): Promise<boolean> {
  await assertNotSlowedDown(deps, keys);
  if (!hashingHasRoom()) throw signInsBusy();
  await countAttempt(deps, keys);
  try {
    const matches = await verifyPassword(password, stored ?? decoyHash());
    return matches && stored !== null;
  } catch (error) {
    if (!(error instanceof HashingBusyError)) throw error;
    await uncount(deps, keys);
    throw signInsBusy();
  }
}

export async function describeSession(deps: Deps, ref: SessionRef): Promise<ConsoleSession> {
  const row = await sessions.findSession(deps.db, ref.sessionId);
  if (!row) throw errors.unauthorized('Your session has ended; sign in again');
  return describe(deps.db, deps.pepper, row);
}

/** Moves the session to another project of the user; the role there applies from the next request. */
export async function switchProject(deps: Deps, ref: SessionRef, projectId: string): Promise<ConsoleSession> {
  return inTransaction(deps, async (tx) => {
    await chooseProject(tx, ref.userId, projectId);
    await sessions.setSessionProject(tx, ref.sessionId, projectId);
    const row = await sessions.findSession(tx, ref.sessionId);
    if (!row) throw errors.unauthorized('Your session has ended; sign in again');
    return describe(tx, deps.pepper, row);
  });
}

export async function signOut(deps: Deps, ref: SessionRef): Promise<void> {
  await sessions.revokeSession(deps.db, ref.sessionId, deps.clock.now().toISOString());
}

/** Ends every session of the user, on every device; answers how many ended. */
export async function signOutEverywhere(deps: Deps, ref: SessionRef): Promise<number> {
  return sessions.revokeUserSessions(deps.db, ref.userId, deps.clock.now().toISOString());
}

/** A new password's stored form; 429 instead of a wait when the hashing threads are full. */
async function hashNewPassword(password: string): Promise<string> {
  try {
    return await hashPassword(password);
  } catch (error) {
    if (error instanceof HashingBusyError) throw signInsBusy();
    throw error;
  }
}

function assertPassword(password: string, member = 'password'): void {
  const problem = passwordProblem(password);
  if (problem) throw errors.invalidPayload(`Property .${member} ${problem}`);
}

/** True while no user exists: the first admin is still to be created. */
export async function setupNeeded(deps: Deps): Promise<boolean> {
  return !(await users.anyUserExists(deps.db));
}

export interface SetupInput {
  token: string;
  email: string;
  password: string;
  first_name?: string | undefined;
  last_name?: string | undefined;
}

/**
 * Creates the first admin with the one-time link `punchcard start` printed: the owner of the
 * organisation, ADMIN of every project. The link is spent in the same transaction, so it works once.
 */
export async function claimSetup(deps: Deps, input: SetupInput, client: ClientInfo): Promise<StartedSession> {
  assertPassword(input.password);
  const email = input.email.trim();
  const passwordHash = await hashNewPassword(input.password);
  return inTransaction(deps, async (tx) => {
    const now = deps.clock.now().toISOString();
    const link = await users.spendUserToken(tx, hashSecret(deps.pepper, input.token), 'setup', now);
    if (!link || (await users.anyUserExists(tx))) throw errors.unauthorized('This setup link is unknown, used or expired; `punchcard start` prints a new one while no user exists');
    const userId = await createOwner(deps, tx, { email, passwordHash, firstName: input.first_name ?? null, lastName: input.last_name ?? null });
    const projectId = await chooseProject(tx, userId, undefined);
    return openSession(deps, tx, userId, projectId, client);
  });
}

/** The organisation's owner: ADMIN of every live project. */
export async function createOwner(
  deps: Deps,
  tx: Executor,
  owner: { email: string; passwordHash: string; firstName: string | null; lastName: string | null },
): Promise<string> {
  const now = deps.clock.now().toISOString();
  const id = deps.ids.next('user');
  try {
    await users.insertUser(tx, {
      id,
      login: users.loginOf(owner.email),
      email: owner.email,
      first_name: owner.firstName,
      last_name: owner.lastName,
      password_hash: owner.passwordHash,
      is_owner: true,
      created_at: now,
      updated_at: null,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.duplicate('user', 'login', users.loginOf(owner.email));
    throw error;
  }
  for (const project of await listProjects(tx)) {
    await users.insertProjectUser(tx, { project_id: project.id, user_id: id, role: 'ADMIN', created_at: now, updated_at: null, joined_at: now });
  }
  return id;
}

export interface AcceptInvitationInput {
  token: string;
  password: string;
}

/**
 * An invited person follows their one-time link and is signed in. Most links set the password of an
 * account that has none; a link made for an account that has one (`invitation-join`,
 * src/services/users/project-users.ts `invitationLink`) takes that password instead and never changes
 * it, checked and slowed down as a sign-in is. A wrong password leaves the link usable.
 */
export async function acceptInvitation(deps: Deps, input: AcceptInvitationInput, client: ClientInfo): Promise<StartedSession> {
  assertPassword(input.password);
  const tokenHash = hashSecret(deps.pepper, input.token);
  const unknownLink = () => errors.unauthorized('This invitation link is unknown, used or expired; ask an ADMIN for a new one');
  const link = await users.findLiveUserToken(deps.db, tokenHash, ['invitation', 'invitation-join'], deps.clock.now().toISOString());
  if (link?.purpose === 'invitation-join') {
    const user = link.user_id ? await users.findUserById(deps.db, link.user_id) : undefined;
    if (!user) throw unknownLink();
    const keys = throttleKeys(user.login, client.ip);
    if (!(await passwordMatches(deps, keys, input.password, user.password_hash))) {
      throw errors.unauthorized('This invitation is for an account that has a password already: enter that password');
    }
    return inTransaction(deps, async (tx) => {
      const now = deps.clock.now().toISOString();
      if (!(await users.spendUserToken(tx, tokenHash, 'invitation-join', now))) throw unknownLink();
      await forgiveSuccess(tx, keys);
      await users.markJoined(tx, user.id, now);
      const projectId = await chooseProject(tx, user.id, undefined);
      return openSession(deps, tx, user.id, projectId, client);
    });
  }
  const passwordHash = await hashNewPassword(input.password);
  return inTransaction(deps, async (tx) => {
    const now = deps.clock.now().toISOString();
    const spent = await users.spendUserToken(tx, tokenHash, 'invitation', now);
    const user = spent?.user_id ? await users.findUserById(tx, spent.user_id) : undefined;
    if (!user || !(await users.setUserPassword(tx, user.id, passwordHash, now, null))) throw unknownLink();
    await users.markJoined(tx, user.id, now);
    const projectId = await chooseProject(tx, user.id, undefined);
    return openSession(deps, tx, user.id, projectId, client);
  });
}

export interface ChangePasswordInput {
  current_password: string;
  new_password: string;
}

/**
 * The signed-in user changes their own password. The current one is checked as a sign-in checks it
 * (throttled, counted against the account and the address), so a session left open on a shared screen
 * does not let anyone guess it faster than the sign-in page would. Every other session of the user ends;
 * this one stays. Answers how many ended.
 */
export async function changePassword(deps: Deps, ref: SessionRef, input: ChangePasswordInput, client: ClientInfo): Promise<number> {
  assertPassword(input.new_password, 'new_password');
  const user = await users.findUserById(deps.db, ref.userId);
  if (!user) throw errors.unauthorized('Your session has ended; sign in again');
  const keys = throttleKeys(user.login, client.ip);
  if (!(await passwordMatches(deps, keys, input.current_password, user.password_hash))) {
    throw errors.forbidden('Property .current_password does not match your password');
  }
  const passwordHash = await hashNewPassword(input.new_password);
  return inTransaction(deps, async (tx) => {
    const now = deps.clock.now().toISOString();
    await forgiveSuccess(tx, keys);
    // Set only over the password just checked: a reset that won the race stays.
    if (!(await users.setUserPassword(tx, user.id, passwordHash, now, user.password_hash))) {
      throw errors.forbidden('Property .current_password does not match your password any more (it changed meanwhile)');
    }
    return sessions.revokeUserSessions(tx, user.id, now, undefined, ref.sessionId);
  });
}

/** What a password reset page shows before the new password is chosen. */
export interface PasswordResetPreview {
  object: 'password_reset';
  email: string;
  project: { id: string; name: string };
  expires_at: string;
}

function unknownResetLink() {
  return errors.unauthorized('This password reset link is unknown, used, replaced by a newer one or expired; ask an ADMIN (or the operator) for a new one');
}

/** The live reset link's user and the project it leads to (the one it was issued in while the user is still there). */
async function resetTarget(db: Executor, link: users.UserTokenRow): Promise<{ user: users.UserRow; project: { id: string; name: string } }> {
  const user = link.user_id ? await users.findUserById(db, link.user_id) : undefined;
  if (!user || user.password_hash === null) throw unknownResetLink();
  const roles = await users.rolesOfUser(db, user.id);
  const role = roles.find((r) => r.project_id === link.project_id) ?? roles[0];
  if (!role) throw errors.forbidden('Your account is not assigned to any project; ask an ADMIN to add you');
  return { user, project: { id: role.project_id, name: role.project_name } };
}

/** Names the account and the shop a reset link is for, without spending it. */
export async function previewPasswordReset(deps: Deps, token: string): Promise<PasswordResetPreview> {
  const link = await users.findLiveUserToken(deps.db, hashSecret(deps.pepper, token), ['password-reset'], deps.clock.now().toISOString());
  if (!link) throw unknownResetLink();
  const { user, project } = await resetTarget(deps.db, link);
  return { object: 'password_reset', email: user.email, project, expires_at: link.expires_at };
}

export interface ResetPasswordInput {
  token: string;
  password: string;
}

/**
 * Sets a new password with a reset link and signs in. The link is spent in the same transaction; every
 * session of the user ends (whoever knew the old password is out), and the account's sign-in throttle
 * starts again, since whoever holds the link may set the password anyway.
 */
export async function resetPassword(deps: Deps, input: ResetPasswordInput, client: ClientInfo): Promise<StartedSession> {
  assertPassword(input.password);
  const passwordHash = await hashNewPassword(input.password);
  return inTransaction(deps, async (tx) => {
    const now = deps.clock.now().toISOString();
    const link = await users.spendUserToken(tx, hashSecret(deps.pepper, input.token), 'password-reset', now);
    if (!link) throw unknownResetLink();
    const { user, project } = await resetTarget(tx, link);
    await users.setUserPassword(tx, user.id, passwordHash, now);
    await sessions.revokeUserSessions(tx, user.id, now);
    await forgiveSuccess(tx, throttleKeys(user.login, client.ip));
    await users.markJoined(tx, user.id, now);
    return openSession(deps, tx, user.id, project.id, client);
  });
}
