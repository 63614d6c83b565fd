import type { FastifyReply, FastifyRequest } from 'fastify';
import { serialize } from 'cookie';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import { DomainError, errors } from '../../../domain/errors.ts';
import type { Principal } from '../../../services/auth/authenticator.ts';
import * as sessions from '../../../services/users/sessions.ts';
import type { ClientInfo, ConsoleSession as Session, SessionRef, StartedSession } from '../../../services/users/sessions.ts';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  AcceptInvitationBody,
  ChangePasswordBody,
  ConsoleSession,
  PasswordChanged,
  PasswordResetBody,
  PasswordResetPreview,
  PasswordResetTokenBody,
  SetupBody,
  SetupStatus,
  SignedOutEverywhere,
  SignInBody,
  SwitchProjectBody,
} from '../../../api/users.ts';

// The console's own routes: signing in and out, the first admin's setup link, invitations, changing
// one's password and resetting it with a link. Everything
// else the console does goes through the public API with the session cookie (src/http/plugins/auth.ts).
//
// The session cookie is HttpOnly and SameSite=Strict, Secure when the server is reached over HTTPS; a
// second, readable cookie carries the CSRF token for the console's script (it is also in the answer).
// Routes that open a session are refused when a browser says the request comes from another site, so
// no other page can sign a visitor in to an account of its choosing.

const tags = ['Console'];

function clientOf(request: FastifyRequest): ClientInfo {
  const agent = request.headers['user-agent'];
  return { ip: request.client.address, userAgent: typeof agent === 'string' ? agent : null };
}

function refOf(request: FastifyRequest): SessionRef {
  const principal = request.principal as Principal | null;
  if (principal?.kind !== 'user') throw errors.unauthorized('Sign in to the console first');
  return { sessionId: principal.sessionId, userId: principal.userId, projectId: principal.projectId };
}

/**
 * Refuses requests a browser marks as coming from another site (Sec-Fetch-Site, Origin). `Origin: null`
 * is what a browser sends from a sandboxed frame, a `data:` or `file:` page or after a cross-site
 * redirect — never from the console itself — so it is refused too. A request with neither header does not
 * come from a browser's page (a script or a command-line client) and cannot carry a visitor's session.
 */
function assertSameSite(request: FastifyRequest): void {
  const refused = () => errors.forbidden('Console sign-in is accepted from the console itself only');
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') throw refused();
  const origin = request.headers.origin;
  if (typeof origin === 'string') {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      throw refused();
    }
    if (host !== request.headers.host) throw refused();
  }
}

export function registerConsoleSessionRoutes(app: TypedApp, { deps, authenticator, sessionPermissions }: RouteContext): void {
  /** Every answer that shows a session says what its role may call, so the page offers only that. */
  const described = (session: Session) => ({ ...session, permissions: [...sessionPermissions({ role: session.role, owner: session.user.is_owner })] });
  const secure = (request: FastifyRequest) => request.client.https || deps.config.publicUrl.startsWith('https:');

  const setCookies = (request: FastifyRequest, reply: FastifyReply, started: StartedSession) => {
    const maxAge = Math.max(0, Math.floor((Date.parse(started.session.expires_at) - deps.clock.now().getTime()) / 1000));
    const common = { secure: secure(request), sameSite: 'strict' as const, path: '/', maxAge };
    reply.header('set-cookie', [
      serialize(SESSION_COOKIE, started.token, { ...common, httpOnly: true }),
      serialize(CSRF_COOKIE, started.session.csrf_token, common),
    ]);
    reply.header('cache-control', 'no-store');
    return described(started.session);
  };

  const clearCookies = (request: FastifyRequest, reply: FastifyReply) => {
    const common = { secure: secure(request), sameSite: 'strict' as const, path: '/', maxAge: 0 };
    reply.header('set-cookie', [serialize(SESSION_COOKIE, '', { ...common, httpOnly: true }), serialize(CSRF_COOKIE, '', common)]);
  };

  /** A slowed-down sign-in answers 429 with Retry-After. */
  const withRetryAfter = async <T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      const wait = error instanceof DomainError ? error.extra?.retry_after : undefined;
      if (typeof wait === 'number') reply.header('Retry-After', String(wait));
      throw error;
    }
  };

  app.get(
    '/console/v1/setup',
    {
      config: { auth: 'public' },
      schema: { tags, operationId: 'getConsoleSetup', summary: 'Whether the first console admin is still to be created', response: { 200: SetupStatus } },
    },
    async () => ({ object: 'console_setup' as const, needed: await sessions.setupNeeded(deps) }),
  );

  app.post(
    '/console/v1/setup',
    {
      config: { auth: 'public', secretAnswer: true },
      schema: {
        tags,
        operationId: 'consoleSetup',
        summary: 'Create the first admin and sign in, with the one-time link `punchcard start` printed',
        body: SetupBody,
        response: { 200: ConsoleSession, ...errorResponses(403, 429) },
      },
    },
    async (request, reply) => {
      assertSameSite(request);
      return setCookies(request, reply, await withRetryAfter(reply, () => sessions.claimSetup(deps, request.body, clientOf(request))));
    },
  );

  app.post(
    '/console/v1/session',
    {
      config: { auth: 'public', secretAnswer: true },
      schema: {
        tags,
        operationId: 'consoleSignIn',
        summary: 'Sign in with e-mail and password (failed attempts slow further ones down: 429 with Retry-After)',
        body: SignInBody,
        response: { 200: ConsoleSession, ...errorResponses(403, 429) },
      },
    },
    async (request, reply) => {
      assertSameSite(request);
      return setCookies(request, reply, await withRetryAfter(reply, () => sessions.signIn(deps, request.body, clientOf(request))));
    },
  );

  app.post(
    '/console/v1/invitation',
    {
      config: { auth: 'public', secretAnswer: true },
      schema: {
        tags,
        operationId: 'consoleAcceptInvitation',
        summary: 'Accept an invitation link: set your password (or give the one your account has, for a link made for it), and sign in',
        body: AcceptInvitationBody,
        response: { 200: ConsoleSession, ...errorResponses(403, 429) },
      },
    },
    async (request, reply) => {
      assertSameSite(request);
      return setCookies(request, reply, await withRetryAfter(reply, () => sessions.acceptInvitation(deps, request.body, clientOf(request))));
    },
  );

  app.get(
    '/console/v1/session',
    {
      schema: { tags, operationId: 'getConsoleSession', summary: 'The signed-in user, their project and role, and the CSRF token', response: { 200: ConsoleSession, ...errorResponses() } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return described(await sessions.describeSession(deps, refOf(request)));
    },
  );

  app.put(
    '/console/v1/session',
    {
      schema: {
        tags,
        operationId: 'consoleSwitchProject',
        summary: 'Work in another of your projects',
        body: SwitchProjectBody,
        response: { 200: ConsoleSession, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const ref = refOf(request);
      const session = await sessions.switchProject(deps, ref, request.body.project_id);
      authenticator.forgetUser(ref.userId);
      reply.header('cache-control', 'no-store');
      return described(session);
    },
  );

  app.delete(
    '/console/v1/session',
    { schema: { tags, operationId: 'consoleSignOut', summary: 'Sign out (this session)', response: { 204: NoContent, ...errorResponses() } } },
    async (request, reply) => {
      const ref = refOf(request);
      await sessions.signOut(deps, ref);
      authenticator.forgetUser(ref.userId);
      clearCookies(request, reply);
      return noContent(reply);
    },
  );

  app.delete(
    '/console/v1/sessions',
    {
      schema: {
        tags,
        operationId: 'consoleSignOutEverywhere',
        summary: 'Sign out everywhere: every session of the signed-in user ends',
        response: { 200: SignedOutEverywhere, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const ref = refOf(request);
      const revoked = await sessions.signOutEverywhere(deps, ref);
      authenticator.forgetUser(ref.userId);
      clearCookies(request, reply);
      return { object: 'sessions_revoked' as const, revoked };
    },
  );

  app.put(
    '/console/v1/password',
    {
      schema: {
        tags,
        operationId: 'consoleChangePassword',
        summary:
          'Change your password: the current one is checked as a sign-in checks it (wrong ones slow further attempts down: 429 with Retry-After); your other sessions end, this one stays',
        body: ChangePasswordBody,
        response: { 200: PasswordChanged, ...errorResponses(403, 429) },
      },
    },
    async (request, reply) => {
      const ref = refOf(request);
      const ended = await withRetryAfter(reply, () => sessions.changePassword(deps, ref, request.body, clientOf(request)));
      authenticator.forgetUser(ref.userId);
      return { object: 'password_changed' as const, sessions_ended: ended };
    },
  );

  app.post(
    '/console/v1/password-reset/preview',
    {
      config: { auth: 'public', secretAnswer: true },
      schema: {
        tags,
        operationId: 'consolePreviewPasswordReset',
        summary: 'The account and the project a password reset link is for (the link stays unused)',
        body: PasswordResetTokenBody,
        response: { 200: PasswordResetPreview, ...errorResponses() },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return sessions.previewPasswordReset(deps, request.body.token);
    },
  );

  app.post(
    '/console/v1/password-reset',
    {
      config: { auth: 'public', secretAnswer: true },
      schema: {
        tags,
        operationId: 'consoleResetPassword',
        summary: 'Set a new password with a one-time reset link and sign in; every other session of the account ends',
        body: PasswordResetBody,
        response: { 200: ConsoleSession, ...errorResponses(403, 429) },
      },
    },
    async (request, reply) => {
      assertSameSite(request);
      const started = await withRetryAfter(reply, () => sessions.resetPassword(deps, request.body, clientOf(request)));
      authenticator.forgetUser(started.session.user.id);
      return setCookies(request, reply, started);
    },
  );
}
