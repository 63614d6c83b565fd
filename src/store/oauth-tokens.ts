import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { OauthTokensTable } from './schema.ts';

export type OauthTokenRow = Selectable<OauthTokensTable>;

/**
 * Stores a token unless the project already has `maxLive` live tokens. The count and the insert are one
 * statement so concurrent requests cannot push the project far past the limit.
 */
export async function insertTokenWithinLimit(
  db: Executor,
  row: Insertable<OauthTokensTable>,
  now: string,
  maxLive: number,
): Promise<boolean> {
  const result = await sql`
    insert into oauth_tokens (id, project_id, api_key_id, token_hash, scope, client_id, expires_at, created_at, revoked_at)
    select ${row.id}, ${row.project_id}, ${row.api_key_id}, ${row.token_hash}, ${row.scope}, ${row.client_id},
           ${row.expires_at}, ${row.created_at}, null
    where (
      select count(*) from oauth_tokens
      where project_id = ${row.project_id} and revoked_at is null and expires_at > ${now}
    ) < ${maxLive}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

export async function findTokenByHash(db: Executor, tokenHash: string): Promise<OauthTokenRow | undefined> {
  return db
    .selectFrom('oauth_tokens')
    .innerJoin('projects', 'projects.id', 'oauth_tokens.project_id')
    .innerJoin('api_keys', 'api_keys.id', 'oauth_tokens.api_key_id')
    .selectAll('oauth_tokens')
    .where('oauth_tokens.token_hash', '=', tokenHash)
    .where('projects.deleted_at', 'is', null)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Revokes a live token of the project; false when there is none (unknown, expired or already revoked). */
export async function revokeToken(db: Executor, projectId: string, tokenHash: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: now })
    .where('project_id', '=', projectId)
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Tokens that expired or were revoked more than a day ago serve no purpose any more. */
export async function purgeDeadTokens(db: Executor, before: string): Promise<number> {
  const result = await db
    .deleteFrom('oauth_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
