import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse as parseCookies } from 'cookie';
import { isSafeMethod, ownerAllows, sessionAllows, type SessionGrant } from '../../domain/auth/roles.ts';
import { domainError, errors } from '../../domain/errors.ts';
import { eventSourceOf, type Authenticator, type Principal } from '../../services/auth/authenticator.ts';
import type { Actor } from '../../services/context.ts';

// Authentication by API area (ARCHITECTURE "Authentication"). The area comes from the path prefix; a
// route can override it through `config.auth`.
//
// A console session (cookie) is one more credential kind: on `/v1` and `/management/v1` it is used when
// the request carries no keys or bearer token, and it acts as its user with the user's role in the
// session's project. Every request on a session is checked here, before any handler: a change must carry
// the session's CSRF token (X-CSRF-Token), the role must allow the route (src/domain/auth/roles.ts), and a
// management route must concern the session's own project — except the organisation owner's acts on
// projects (listing, creating, deleting another project), which concern the organisation.

export type AuthMode =
  /** `/v1`: server keys or a bearer token whose scopes open the path. */
  | 'server'
  /** `/v1/oauth`: the server key pair only. */
  | 'server-keys'
  /** `/client/v1`: client keys with a trusted origin, or a bearer token with client scopes. */
  | 'client'
  /** `/management/v1`: organisation-wide management keys. */
  | 'management'
  /**
   * `GET /v1/exports/{id}` (DECISIONS 25): a `token` query parameter is the credential of a download link,
   * checked by the route; without one, or when keys or a bearer token are sent too, as `server`.
   */
  | 'server-or-download-token'
  /** `/console/v1`: a signed-in console session only. */
  | 'console'
  | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /**
     * The route changes stored state although its method is GET (or the HEAD Fastify adds for it): a
     * console session then needs its CSRF token and a role that may write (see the top of this file).
     */
    writes?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const SESSION_COOKIE = 'punchcard_session';
export const CSRF_COOKIE = 'punchcard_csrf';
export const CSRF_HEADER = 'x-csrf-token';

export function defaultAuthMode(url: string): AuthMode {
  if (url.startsWith('/console/v1')) return 'console';
  if (url.startsWith('/management/v1')) return 'management';
  if (url.startsWith('/client/v1')) return 'client';
  if (url.startsWith('/v1/oauth')) return 'server-keys';
  if (url.startsWith('/v1')) return 'server';
  return 'public';
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bearerToken(request: FastifyRequest): string | null {
  const value = header(request, 'authorization');
  if (value === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  if (!match?.[1]) throw errors.unauthorized('The Authorization header must be "Bearer <access_token>"');
  return match[1];
}

/** The console session token from the Cookie header, if any. */
export function sessionToken(request: FastifyRequest): string | null {
  const cookie = header(request, 'cookie');
  if (cookie === undefined) return null;
  const token = parseCookies(cookie)[SESSION_COOKIE];
  return token === undefined || token === '' ? null : token;
}

async function authenticate(auth: Authenticator, mode: AuthMode, request: FastifyRequest): Promise<Principal | null> {
  const path = request.url.split('?')[0] ?? '/';
  switch (mode) {
    case 'public':
      return null;
    case 'management': {
      const session = header(request, 'x-management-id') === undefined ? sessionToken(request) : null;
      if (session !== null) return auth.session(session);
      return auth.management(header(request, 'x-management-id'), header(request, 'x-management-token'));
    }
    case 'console': {
      const session = sessionToken(request);
      if (session === null) throw errors.unauthorized('Sign in to the console first');
      return auth.session(session);
    }
    case 'server-keys':
      return auth.server(header(request, 'x-app-id'), header(request, 'x-app-token'));
    case 'server-or-download-token': {
      const query = request.query as Record<string, unknown> | undefined;
      const credentials = header(request, 'x-app-id') !== undefined || header(request, 'authorization') !== undefined;
      if (query?.token !== undefined && !credentials) return null;
      return authenticate(auth, 'server', request);
    }
    case 'server': {
      const token = bearerToken(request);
      if (token !== null && header(request, 'x-app-id') === undefined) return auth.bearer(token, path);
      const session = token === null && header(request, 'x-app-id') === undefined ? sessionToken(request) : null;
      if (session !== null) return auth.session(session);
      return auth.server(header(request, 'x-app-id'), header(request, 'x-app-token'));
    }
    case 'client': {
      const token = bearerToken(request);
      if (token !== null && header(request, 'x-client-application-id') === undefined) return auth.bearer(token, path);
      return auth.client(header(request, 'x-client-application-id'), header(request, 'x-client-token'), header(request, 'origin'));
    }
  }
}

/** Whether a request to this route changes stored state: its method says so, or the route declares it. */
export function requestWrites(method: string, config: { writes?: boolean } | undefined): boolean {
  return !isSafeMethod(method) || config?.writes === true;
}

/** What a console session may do on this route: CSRF token on changes, the role's rights, its own project. */
function authorizeSession(auth: Authenticator, request: FastifyRequest, principal: Extract<Principal, { kind: 'user' }>): void {
  const method = request.method.toUpperCase();
  const writes = requestWrites(method, request.routeOptions.config);
  if (writes && !auth.csrfMatches(principal.sessionId, header(request, CSRF_HEADER))) {
    throw errors.forbidden(`Changes made with a console session must carry the session's ${CSRF_HEADER} header (CSRF protection)`);
  }
  const route = request.routeOptions.url ?? request.url;
  const ownersAct = ownerAllows(method, route);
  if (!sessionAllows({ role: principal.role, owner: principal.isOwner }, method, route, writes)) {
    const details = ownersAct
      ? `Only the organisation's owner (or the management key) may ${method} ${route}`
      : `Your role ${principal.role} may not ${method} ${route}`;
    throw domainError('missing_required_permission', { details });
  }
  // The owner deletes projects other than the session's (the service refuses the session's own).
  if (principal.isOwner && ownersAct) return;
  const projectId = (request.params as Record<string, unknown> | undefined)?.projectId;
  if (route.startsWith('/management/v1/projects/:projectId') && projectId !== principal.projectId) {
    throw errors.forbidden(`Your console session works in project ${principal.projectId}; switch to project ${String(projectId)} first`);
  }
}

/** The project-scoped actor of an authenticated `/v1` or `/client/v1` request. */
export function actorOf(request: FastifyRequest): Actor {
  const principal = request.principal;
  if (!principal || principal.kind === 'management') {
    throw new Error(`route ${request.routeOptions.url ?? '?'} needs a project principal but has ${principal?.kind ?? 'none'}`);
  }
  return { projectId: principal.projectId, requestId: request.id, source: eventSourceOf(principal) };
}

/** The actor of a management request, before a project is chosen. */
export function managementActorOf(request: FastifyRequest): Omit<Actor, 'projectId'> {
  const principal = request.principal;
  if (!principal || (principal.kind !== 'management' && principal.kind !== 'user')) throw new Error('management route without a management principal');
  return { requestId: request.id, source: eventSourceOf(principal) };
}

/** The areas where a console session acts (see `authenticate`). */
const SESSION_MODES: ReadonlySet<AuthMode> = new Set<AuthMode>(['server', 'server-or-download-token', 'management', 'console']);
const ACTION_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * What a session (its role, and whether its user owns the organisation) may call among the routes a
 * console session reaches, as `METHOD /route/:pattern`: the console session carries this list so the page
 * offers only these actions. It is `sessionAllows` applied to the registered routes, the same check
 * `authorizeSession` makes on every request.
 */
export type SessionPermissions = (grant: SessionGrant) => readonly string[];

export function installAuth(app: FastifyInstance, authenticator: Authenticator): SessionPermissions {
  app.decorateRequest('principal', null);
  const sessionRoutes = new Set<string>();
  /** The session routes that change stored state (by method, or declared with `config.writes`), as `METHOD /route`. */
  const writeRoutes = new Set<string>();
  app.addHook('onRoute', (route) => {
    const mode = route.config?.auth ?? defaultAuthMode(route.url);
    if (mode === 'public') return;
    if (SESSION_MODES.has(mode)) {
      for (const method of [route.method].flat()) {
        if (!ACTION_METHODS.has(method)) continue;
        sessionRoutes.add(`${method} ${route.url}`);
        if (requestWrites(method, route.config)) writeRoutes.add(`${method} ${route.url}`);
      }
    }
    const hook = async (request: FastifyRequest) => {
      const principal = await authenticate(authenticator, mode, request);
      if (principal?.kind === 'user') authorizeSession(authenticator, request, principal);
      request.principal = principal;
    };
    const existing = route.onRequest;
    route.onRequest = existing === undefined ? [hook] : [hook, ...(Array.isArray(existing) ? existing : [existing])];
  });
  // Asked only once requests arrive, when every route is registered.
  const byGrant = new Map<string, readonly string[]>();
  return (grant) => {
    const key = `${grant.role}:${grant.owner}`;
    let allowed = byGrant.get(key);
    if (allowed === undefined) {
      allowed = [...sessionRoutes]
        .filter((entry) => sessionAllows(grant, entry.slice(0, entry.indexOf(' ')), entry.slice(entry.indexOf(' ') + 1), writeRoutes.has(entry)))
        .sort();
      byGrant.set(key, allowed);
    }
    return allowed;
  };
}
