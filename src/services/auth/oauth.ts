import { parseScopes } from '../../domain/auth/scopes.ts';
import { domainError, errors } from '../../domain/errors.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';
import { appendEvents } from '../../store/events.ts';
import { findLiveApiKey } from '../../store/keys.ts';
import { lockProjectRow } from '../../store/projects.ts';
import { findTokenByHash, insertTokenWithinLimit, revokeToken as revokeStoredToken } from '../../store/oauth-tokens.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';

// OAuth 2.0 client-credentials tokens (seed 4.2, 4.3; DECISIONS 8). Tokens are random strings; only their
// keyed hash is stored.

export const MAX_LIVE_TOKENS_PER_PROJECT = 1000;

export interface TokenRecord {
  access_token: string;
  client_id: string;
  expires_at: number;
  expires_in: number;
  scope: string;
  token_type: 'Bearer';
}

export interface IssueTokenInput {
  grant_type?: string | undefined;
  scope?: string | undefined;
}

export async function issueToken(deps: Deps, actor: Actor, appId: string, input: IssueTokenInput): Promise<TokenRecord> {
  if (input.grant_type === undefined || input.grant_type === '') {
    throw domainError('missing_parameters', { details: "Form should have required property 'grant_type'" });
  }
  if (input.grant_type !== 'client_credentials') {
    throw domainError('invalid_grant_type', { details: `Only grant_type=client_credentials is supported, got '${input.grant_type}'` });
  }
  if (input.scope === undefined) throw domainError('missing_parameters', { details: "Form should have required property 'scope'" });
  const parsed = parseScopes(input.scope);
  if (!parsed.ok) {
    const details =
      parsed.reason === 'commas'
        ? 'Scopes are separated by single spaces, not commas'
        : parsed.reason === 'empty'
          ? 'At least one scope is required'
          : `Unknown scope '${parsed.bad}'`;
    throw domainError('invalid_scope', { message: `Invalid scope: ${parsed.bad}`, details });
  }
  const key = await findLiveApiKey(deps.db, appId);
  if (!key || key.project_id !== actor.projectId) throw errors.unauthorized();

  const now = deps.clock.now();
  const ttl = deps.config.oauthTokenTtlSeconds;
  const expiresAt = new Date(now.getTime() + ttl * 1000);
  const token = newSecret(48);
  const scope = parsed.scopes.join(' ');
  const tokenId = deps.ids.next('oat');
  const stored = await inTransaction(deps, async (tx) => {
    await lockProjectRow(tx, actor.projectId);
    const ok = await insertTokenWithinLimit(
      tx,
      {
        id: tokenId,
        project_id: actor.projectId,
        api_key_id: key.id,
        token_hash: hashSecret(deps.pepper, token),
        scope,
        client_id: appId,
        expires_at: expiresAt.toISOString(),
        created_at: now.toISOString(),
        revoked_at: null,
      },
      now.toISOString(),
      MAX_LIVE_TOKENS_PER_PROJECT,
    );
    if (ok) {
      await appendEvents(tx, [makeEvent(deps, actor, { type: 'oauth.token.created', entityId: tokenId, data: { id: tokenId, scope, client_id: appId, expires_at: expiresAt.toISOString() } })]);
    }
    return ok;
  });
  if (!stored) {
    throw domainError('limit_exceeded', {
      details: `A project can hold at most ${MAX_LIVE_TOKENS_PER_PROJECT} live tokens; revoke some or wait for them to expire`,
    });
  }
  return {
    access_token: token,
    client_id: appId,
    expires_at: Math.floor(expiresAt.getTime() / 1000),
    expires_in: ttl,
    scope,
    token_type: 'Bearer',
  };
}

function requireToken(accessToken: string | undefined): string {
  if (accessToken === undefined || accessToken === '') {
    throw domainError('missing_parameters', { details: "Form should have required property 'access_token'" });
  }
  return accessToken;
}

/** Revokes a live token of the caller's project; unknown, expired or already revoked tokens are 404. */
export async function revokeToken(deps: Deps, actor: Actor, accessToken: string | undefined): Promise<string> {
  const token = requireToken(accessToken);
  const hash = hashSecret(deps.pepper, token);
  const revoked = await inTransaction(deps, async (tx) => {
    const now = deps.clock.now().toISOString();
    const row = await findTokenByHash(tx, hash);
    if (!row || row.project_id !== actor.projectId) return false;
    const ok = await revokeStoredToken(tx, actor.projectId, hash, now);
    if (ok) await appendEvents(tx, [makeEvent(deps, actor, { type: 'oauth.token.revoked', entityId: row.id, data: { id: row.id } })]);
    return ok;
  });
  if (!revoked) throw domainError('not_found', { details: 'Cannot find an active access token with that value', resourceType: 'oauth_token' });
  return hash;
}

export type Introspection = ({ active: true } & TokenRecord) | { active: false };

export async function introspectToken(deps: Deps, actor: Actor, accessToken: string | undefined): Promise<Introspection> {
  const token = requireToken(accessToken);
  const row = await findTokenByHash(deps.db, hashSecret(deps.pepper, token));
  const nowMs = deps.clock.now().getTime();
  const expiresMs = row ? Date.parse(row.expires_at) : 0;
  if (!row || row.project_id !== actor.projectId || row.revoked_at !== null || expiresMs <= nowMs) return { active: false };
  return {
    active: true,
    access_token: token,
    client_id: row.client_id,
    expires_at: Math.floor(expiresMs / 1000),
    expires_in: Math.max(0, Math.floor((expiresMs - nowMs) / 1000)),
    scope: row.scope,
    token_type: 'Bearer',
  };
}
