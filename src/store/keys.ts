import type { Insertable, Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { ApiKeyKind, ApiKeysTable, ManagementKeysTable } from './schema.ts';

// Application keys (server and client, per project) and organisation-wide management keys. Only hashes
// of the secrets are stored.

export type ApiKeyRow = Selectable<ApiKeysTable>;
export type ManagementKeyRow = Selectable<ManagementKeysTable>;

export async function insertApiKey(db: Executor, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** A live key whose project is live too. */
export async function findLiveApiKey(db: Executor, appId: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('projects', 'projects.id', 'api_keys.project_id')
    .selectAll('api_keys')
    .where('api_keys.app_id', '=', appId)
    .where('api_keys.revoked_at', 'is', null)
    .where('projects.deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function findApiKeyByAppId(db: Executor, appId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('app_id', '=', appId).executeTakeFirst();
}

/** The live application keys of a project (of one kind, or all: server keys first), oldest first. */
export async function listLiveApiKeys(db: Executor, projectId: string, kind?: ApiKeyKind): Promise<ApiKeyRow[]> {
  let query = db.selectFrom('api_keys').selectAll().where('project_id', '=', projectId).where('revoked_at', 'is', null);
  if (kind !== undefined) query = query.where('kind', '=', kind);
  return query.orderBy('kind', 'desc').orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
}

export async function setApiKeySecret(db: Executor, id: string, secretHash: string): Promise<void> {
  await db.updateTable('api_keys').set({ secret_hash: secretHash, revoked_at: null }).where('id', '=', id).execute();
}

export async function revokeApiKeys(
  db: Executor,
  projectId: string,
  at: string,
  kind?: ApiKeyKind,
  exceptAppId?: string,
): Promise<string[]> {
  let query = db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null);
  if (kind) query = query.where('kind', '=', kind);
  if (exceptAppId !== undefined) query = query.where('app_id', '!=', exceptAppId);
  const rows = await query.returning('app_id').execute();
  return rows.map((r) => r.app_id);
}

export async function insertManagementKey(db: Executor, row: Insertable<ManagementKeysTable>): Promise<void> {
  await db.insertInto('management_keys').values(row).execute();
}

export async function findManagementKey(db: Executor, keyId: string): Promise<ManagementKeyRow | undefined> {
  return db.selectFrom('management_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
}

export async function listLiveManagementKeys(db: Executor): Promise<ManagementKeyRow[]> {
  return db.selectFrom('management_keys').selectAll().where('revoked_at', 'is', null).orderBy('created_at', 'asc').execute();
}

export async function countLiveManagementKeys(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('management_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setManagementKeySecret(db: Executor, id: string, secretHash: string): Promise<void> {
  await db
    .updateTable('management_keys')
    .set({ secret_hash: secretHash, revoked_at: null })
    .where('id', '=', id)
    .execute();
}

export async function revokeManagementKeys(db: Executor, at: string, exceptKeyId?: string): Promise<void> {
  let query = db.updateTable('management_keys').set({ revoked_at: at }).where('revoked_at', 'is', null);
  if (exceptKeyId !== undefined) query = query.where('key_id', '!=', exceptKeyId);
  await query.execute();
}

/** Revokes one live key; false when it was revoked already (a concurrent rotation won). */
export async function revokeApiKey(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
