import { timingSafeEqual } from 'node:crypto';
import { errors } from '../../domain/errors.ts';
import { isRole, type Role } from '../../domain/auth/roles.ts';
import { scopesAllowPath } from '../../domain/auth/scopes.ts';
import { hashSecret, SecretCheck } from '../../lib/secrets.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { EventSource } from '../../store/events.ts';
import { fromJson } from '../../store/json.ts';
import { findLiveApiKey, findManagementKey } from '../../store/keys.ts';
import { findTokenByHash } from '../../store/oauth-tokens.ts';
import { findLiveSession } from '../../store/user-sessions.ts';
import { findProject, type ProjectObject, type RateLimit } from '../../store/projects.ts';
import { isoDurationMs, parseIsoDuration } from '../../domain/time/iso-duration.ts';
import type { WindowLimit } from '../../lib/rate-limiter.ts';
import type { Deps } from '../context.ts';
import { csrfTokenOf } from '../users/sessions.ts';

// Resolves request credentials to a principal. Lookups are cached briefly so a request costs at most one
// HMAC and no query; a change made by this process (revocation, project deletion) evicts the cache at once,
// other processes notice within the TTL.

export type Principal =
  | { kind: 'server'; projectId: string; appId: string; keyName: string }
  | { kind: 'client'; projectId: string; appId: string; keyName: string; origin: string }
  | { kind: 'bearer'; projectId: string; tokenId: string; scopes: string[]; clientId: string }
  | { kind: 'management'; keyId: string; keyName: string }
  /**
   * A console user's session: acts in one project with the user's role there, and as the organisation's
   * owner when `isOwner` (src/domain/auth/roles.ts).
   */
  | { kind: 'user'; projectId: string; userId: string; sessionId: string; role: Role; login: string; isOwner: boolean };

export function eventSourceOf(principal: Principal): EventSource {
  switch (principal.kind) {
    case 'server':
      return { channel: 'API', api_key: { name: principal.keyName, app_id: principal.appId } };
    case 'client':
      return { channel: 'CLIENT_API', api_key: { name: principal.keyName, app_id: principal.appId } };
    case 'bearer':
      return { channel: 'API', api_key: { name: 'OAuth token', app_id: principal.clientId } };
    case 'management':
      return { channel: 'API', api_key: { name: principal.keyName, app_id: principal.keyId } };
    case 'user':
      return { channel: 'USER_PORTAL', user: { id: principal.userId } };
  }
}

interface CachedKey {
  projectId: string;
  kind: 'server' | 'client';
  secret: SecretCheck;
  name: string;
}

interface CachedSession {
  sessionId: string;
  userId: string;
  projectId: string;
  role: Role;
  login: string;
  isOwner: boolean;
  expiresAtMs: number;
}

interface CachedToken {
  id: string;
  projectId: string;
  scopes: string[];
  clientId: string;
  expiresAtMs: number;
}

/** What the HTTP layer enforces per project besides credentials. */
export interface ProjectPolicy {
  origins: string[];
  apiCallLimits: WindowLimit[];
  bulkCallLimits: WindowLimit[];
}

function windowLimits(limits: RateLimit[] | undefined): WindowLimit[] {
  const out: WindowLimit[] = [];
  for (const limit of limits ?? []) {
    const duration = parseIsoDuration(limit.duration);
    const windowMs = duration ? isoDurationMs(duration) : 0;
    if (windowMs > 0) out.push({ value: limit.value, windowMs });
  }
  return out;
}

// How long another process may go on accepting a credential after it was revoked, rotated or its project
// deleted: one second. Looking a key or token up again once a second per process costs one indexed read,
// against the HMAC every request pays anyway; a change made through this process evicts at once.
const CREDENTIAL_TTL_MS = 1_000;

export class Authenticator {
  readonly #deps: Deps;
  readonly #keys = new TtlCache<string, CachedKey | null>(CREDENTIAL_TTL_MS, 10_000);
  readonly #tokens = new TtlCache<string, CachedToken | null>(CREDENTIAL_TTL_MS, 50_000);
  readonly #projects = new TtlCache<string, ProjectPolicy | null>(CREDENTIAL_TTL_MS, 10_000);
  readonly #management = new TtlCache<string, { secret: SecretCheck; name: string } | null>(CREDENTIAL_TTL_MS, 100);
  readonly #sessions = new TtlCache<string, CachedSession>(CREDENTIAL_TTL_MS, 10_000);

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async #appKey(appId: string): Promise<CachedKey | null> {
    const cached = this.#keys.get(appId);
    if (cached !== undefined) return cached;
    const row = await findLiveApiKey(this.#deps.db, appId);
    const value = row ? { projectId: row.project_id, kind: row.kind, secret: new SecretCheck(this.#deps.pepper, row.secret_hash), name: row.name } : null;
    // Unknown ids are not cached: random probes must not fill the cache.
    if (value) this.#keys.set(appId, value);
    return value;
  }

  async projectPolicy(projectId: string): Promise<ProjectPolicy | null> {
    const cached = this.#projects.get(projectId);
    if (cached !== undefined) return cached;
    const row = await findProject(this.#deps.db, projectId);
    const limits = fromJson<ProjectObject['limits'] | null>(row?.limits, null);
    const value = row
      ? {
          origins: fromJson<string[]>(row.client_trusted_domains, []),
          apiCallLimits: windowLimits(limits?.api_calls),
          bulkCallLimits: windowLimits(limits?.bulk_api_calls),
        }
      : null;
    this.#projects.set(projectId, value);
    return value;
  }

  /** `X-App-Id` + `X-App-Token`: the server-side key pair of a project. */
  async server(appId: string | undefined, token: string | undefined): Promise<Principal> {
    if (!appId || !token) throw errors.unauthorized('Provide X-App-Id and X-App-Token, or Authorization: Bearer <token>');
    const key = await this.#appKey(appId);
    if (!key || key.kind !== 'server' || !key.secret.matches(token)) {
      throw errors.unauthorized('Invalid X-App-Id or X-App-Token');
    }
    return { kind: 'server', projectId: key.projectId, appId, keyName: key.name };
  }

  /** `X-Client-Application-Id` + `X-Client-Token` + an `origin` the project trusts. */
  async client(appId: string | undefined, token: string | undefined, origin: string | undefined): Promise<Principal> {
    if (!appId || !token) throw errors.unauthorized('Provide X-Client-Application-Id and X-Client-Token');
    const key = await this.#appKey(appId);
    if (!key || key.kind !== 'client' || !key.secret.matches(token)) {
      throw errors.unauthorized('Invalid X-Client-Application-Id or X-Client-Token');
    }
    const project = await this.projectPolicy(key.projectId);
    if (!project) throw errors.unauthorized('Invalid X-Client-Application-Id or X-Client-Token');
    if (!origin) throw errors.forbidden('Client-side requests must send an origin header');
    let normalized: string;
    try {
      normalized = new URL(origin).origin;
    } catch {
      throw errors.forbidden(`Origin ${origin} is not allowed for this project`);
    }
    if (!project.origins.includes('*') && !project.origins.includes(normalized)) {
      throw errors.forbidden(`Origin ${origin} is not allowed for this project`);
    }
    return { kind: 'client', projectId: key.projectId, appId, keyName: key.name, origin: normalized };
  }

  /** `Authorization: Bearer <token>`, limited to the token's scopes. */
  async bearer(token: string, path: string): Promise<Principal> {
    const hash = hashSecret(this.#deps.pepper, token);
    let cached = this.#tokens.get(hash);
    if (cached === undefined) {
      const row = await findTokenByHash(this.#deps.db, hash);
      cached =
        row && row.revoked_at === null
          ? { id: row.id, projectId: row.project_id, scopes: row.scope.split(' '), clientId: row.client_id, expiresAtMs: Date.parse(row.expires_at) }
          : null;
      if (cached) this.#tokens.set(hash, cached);
    }
    if (!cached || cached.expiresAtMs <= this.#deps.clock.now().getTime()) {
      throw errors.unauthorized('The access token is unknown, expired or revoked');
    }
    if (!scopesAllowPath(cached.scopes, path)) throw errors.missingScope(path);
    return { kind: 'bearer', projectId: cached.projectId, tokenId: cached.id, scopes: cached.scopes, clientId: cached.clientId };
  }

  /** `X-Management-Id` + `X-Management-Token`: organisation-wide. */
  async management(keyId: string | undefined, token: string | undefined): Promise<Principal> {
    if (!keyId || !token) throw errors.unauthorized('Provide X-Management-Id and X-Management-Token');
    let key = this.#management.get(keyId);
    if (key === undefined) {
      const row = await findManagementKey(this.#deps.db, keyId);
      key = row && row.revoked_at === null ? { secret: new SecretCheck(this.#deps.pepper, row.secret_hash), name: row.name } : null;
      if (key) this.#management.set(keyId, key);
    }
    if (!key || !key.secret.matches(token)) {
      throw errors.unauthorized('Invalid X-Management-Id or X-Management-Token');
    }
    return { kind: 'management', keyId, keyName: key.name };
  }

  /**
   * A console session cookie. Cached as briefly as OAuth tokens: sign-out, role changes and removal from
   * a project evict this process's cache at once (`forgetUser`), other processes notice within seconds.
   */
  async session(token: string): Promise<Principal> {
    const hash = hashSecret(this.#deps.pepper, token);
    let cached = this.#sessions.get(hash);
    if (cached === undefined) {
      const row = await findLiveSession(this.#deps.db, hash, this.#deps.clock.now().toISOString());
      if (row && isRole(row.role)) {
        cached = { sessionId: row.id, userId: row.user_id, projectId: row.project_id, role: row.role, login: row.login, isOwner: Boolean(row.is_owner), expiresAtMs: Date.parse(row.expires_at) };
        this.#sessions.set(hash, cached);
      }
    }
    if (!cached || cached.expiresAtMs <= this.#deps.clock.now().getTime()) {
      throw errors.unauthorized('Your console session has ended (expired or signed out); sign in again');
    }
    return { kind: 'user', projectId: cached.projectId, userId: cached.userId, sessionId: cached.sessionId, role: cached.role, login: cached.login, isOwner: cached.isOwner };
  }

  /** Whether `token` is the CSRF token of the session (constant-time). */
  csrfMatches(sessionId: string, token: string | undefined): boolean {
    if (token === undefined) return false;
    const expected = Buffer.from(csrfTokenOf(this.#deps.pepper, sessionId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Forget the cached sessions of a user (signed out, role changed, removed from a project). */
  forgetUser(userId: string): void {
    this.#sessions.deleteWhere((v) => v.userId === userId);
  }

  /** Forget everything cached about a project (its keys were revoked, its origins changed, it was deleted). */
  forgetProject(projectId: string): void {
    this.#projects.delete(projectId);
    this.#keys.deleteWhere((v) => v?.projectId === projectId);
    this.#tokens.deleteWhere((v) => v?.projectId === projectId);
    this.#sessions.deleteWhere((v) => v.projectId === projectId);
  }

  forgetToken(tokenHash: string): void {
    this.#tokens.delete(tokenHash);
  }
}
