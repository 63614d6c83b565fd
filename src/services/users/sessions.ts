import { isRole, type Role } from '../../domain/auth/roles.ts';
import { FREE_FAILURES, FRESH_MS, signInWaitMs } from '../../domain/auth/sign-in-throttle.ts';
import { domainError, errors } from '../../domain/errors.ts';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from '../../lib/passwords.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';
import type { Executor } from '../../store/db.ts';
import { findDefaultProject, listProjects } from '../../store/projects.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import * as sessions from '../../store/user-sessions.ts';
import * as users from '../../store/users.ts';
import { inTransaction, type Deps } from '../context.ts';

// Console sign-in: e-mail and password, the first admin's one-time setup link, invitations, and the
// sessions they open. A session is a random token in an HttpOnly cookie (the HTTP layer sets it); only
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
  project: { id: string; name: string };
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

function throttleKeys(login: string, ip: string): { account: string; address: string } {
  return { account: `account:${login}`, address: `ip:${ip}` };
}

function slowedDown(waitMs: number) {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return domainError('too_many_requests', {
    message: 'Too many failed sign-ins',
    details: `Too many failed sign-ins for this account or from this address; try again in ${seconds} s`,
    extra: { retry_after: seconds },
  });
}

/** Refuses at once, without looking at the password, while an account or address must wait. */
async function assertNotSlowedDown(deps: Deps, keys: { account: string; address: string }): Promise<void> {
  const now = deps.clock.now().getTime();
  let wait = 0;
  for (const row of await sessions.readFailures(deps.db, [keys.account, keys.address])) {
    const free = row.key === keys.account ? FREE_FAILURES.account : FREE_FAILURES.address;
    wait = Math.max(wait, signInWaitMs(row.failures, Date.parse(row.last_failure_at), now, free));
  }
  if (wait > 0) throw slowedDown(wait);
}

async function recordFailure(deps: Deps, keys: { account: string; address: string }): Promise<void> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const freshAfter = new Date(now.getTime() - FRESH_MS).toISOString();
  await inTransaction(deps, async (tx) => {
    await sessions.countFailure(tx, keys.account, at, freshAfter);
    await sessions.countFailure(tx, keys.address, at, freshAfter);
    await sessions.purgeOldFailures(tx, new Date(now.getTime() - 2 * FRESH_MS).toISOString());
  });
}

async function describe(db: Executor, pepper: string, session: { id: string; user_id: string; project_id: string; expires_at: string }): Promise<ConsoleSession> {
  const user = await users.findUserById(db, session.user_id);
  const roles = await users.rolesOfUser(db, session.user_id);
  const current = roles.find((r) => r.project_id === session.project_id);
  if (!user || !current || !isRole(current.role)) throw errors.unauthorized('Your session has ended; sign in again');
  return {
    object: 'console_session',
    user: { id: user.id, login: user.login, email: user.email, first_name: user.first_name, last_name: user.last_name, is_owner: Boolean(user.is_owner) },
    project: { id: current.project_id, name: current.project_name },
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
 * same answer; failures are counted, and while an account or address must wait the password is not
 * even looked at (429 with how long to wait).
 */
export async function signIn(deps: Deps, input: SignInInput, client: ClientInfo): Promise<StartedSession> {
  const login = users.loginOf(input.email);
  const keys = throttleKeys(login, client.ip);
  await assertNotSlowedDown(deps, keys);
  const user = await users.findUserByLogin(deps.db, login);
  const matches = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash()));
  if (!user || user.password_hash === null || !matches) {
    await recordFailure(deps, keys);
    throw errors.unauthorized('Wrong e-mail or password');
  }
  return inTransaction(deps, async (tx) => {
    await sessions.clearFailures(tx, keys.account);
    const projectId = await chooseProject(tx, user.id, input.project_id);
    return openSession(deps, tx, user.id, projectId, client);
  });
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

function assertPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw errors.invalidPayload(`Property .password ${problem}`);
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
  const passwordHash = await hashPassword(input.password);
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
    await users.insertProjectUser(tx, { project_id: project.id, user_id: id, role: 'ADMIN', created_at: now, updated_at: null });
  }
  return id;
}

export interface AcceptInvitationInput {
  token: string;
  password: string;
}

/** An invited user sets their password with their one-time link and is signed in. */
export async function acceptInvitation(deps: Deps, input: AcceptInvitationInput, client: ClientInfo): Promise<StartedSession> {
  assertPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  return inTransaction(deps, async (tx) => {
    const now = deps.clock.now().toISOString();
    const link = await users.spendUserToken(tx, hashSecret(deps.pepper, input.token), 'invitation', now);
    const user = link?.user_id ? await users.findUserById(tx, link.user_id) : undefined;
    if (!user || user.password_hash !== null) throw errors.unauthorized('This invitation link is unknown, used or expired; ask an ADMIN for a new one');
    await users.setUserPassword(tx, user.id, passwordHash, now);
    const projectId = await chooseProject(tx, user.id, undefined);
    return openSession(deps, tx, user.id, projectId, client);
  });
}
