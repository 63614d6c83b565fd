import type { Executor } from './db.ts';
import { isUniqueViolation } from './sql-errors.ts';

export interface StoredResponse {
  requestHash: string;
  state: 'pending' | 'done';
  status: number | null;
  body: string | null;
  contentType: string | null;
  createdAt: string;
}

/** Claims the key for this request; false when a record already exists. */
export async function claimIdempotencyKey(db: Executor, scope: string, key: string, requestHash: string, now: string): Promise<boolean> {
  try {
    await db
      .insertInto('idempotency_keys')
      .values({ scope, key, request_hash: requestHash, state: 'pending', response_status: null, response_body: null, response_content_type: null, created_at: now })
      .execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export async function findIdempotencyRecord(db: Executor, scope: string, key: string): Promise<StoredResponse | undefined> {
  const row = await db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
  if (!row) return undefined;
  return {
    requestHash: row.request_hash,
    state: row.state,
    status: row.response_status,
    body: row.response_body,
    contentType: row.response_content_type,
    createdAt: row.created_at,
  };
}

export async function completeIdempotencyKey(
  db: Executor,
  scope: string,
  key: string,
  response: { status: number; body: string; contentType: string | null },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: response.status, response_body: response.body, response_content_type: response.contentType })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('state', '=', 'pending')
    .execute();
}

export async function releaseIdempotencyKey(db: Executor, scope: string, key: string, onlyIfPendingBefore?: string): Promise<void> {
  let query = db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('state', '=', 'pending');
  if (onlyIfPendingBefore !== undefined) query = query.where('created_at', '<', onlyIfPendingBefore);
  await query.execute();
}

export async function purgeIdempotencyKeys(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
