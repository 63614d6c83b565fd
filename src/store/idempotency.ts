import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { isPostgres, type Executor } from './db.ts';

// Answers stored for `Idempotency-Key`. A row exists only once its request's change has committed: it is
// written in the same transaction as the change (src/http/plugins/idempotency.ts), so there is no
// "in progress" row that a crash could leave behind.

export interface StoredAnswer {
  requestHash: string;
  /** `withheld`: the request was carried out but its answer held secrets, which are never stored. */
  state: 'done' | 'withheld';
  status: number;
  body: string | null;
  contentType: string | null;
}

export async function findIdempotencyAnswer(db: Executor, scope: string, key: string): Promise<StoredAnswer | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'state', 'response_status', 'response_body', 'response_content_type'])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    requestHash: row.request_hash,
    state: row.state === 'withheld' ? 'withheld' : 'done',
    status: row.response_status ?? 500,
    body: row.response_body,
    contentType: row.response_content_type,
  };
}

export async function saveIdempotencyAnswer(
  db: Executor,
  scope: string,
  key: string,
  answer: StoredAnswer & { createdAt: string },
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      scope,
      key,
      request_hash: answer.requestHash,
      state: answer.state,
      response_status: answer.status,
      response_body: answer.body,
      response_content_type: answer.contentType,
      created_at: answer.createdAt,
    })
    .execute();
}

/**
 * PostgreSQL: takes the key for the rest of the transaction, or answers false when another transaction
 * (of any process) holds it. The lock ends with that transaction — also when its process dies and the
 * server drops the connection — so a dead request never blocks its key. SQLite needs none: a request
 * transaction already holds the database's write lock.
 */
export async function lockIdempotencyKey(tx: Executor, scope: string, key: string): Promise<boolean> {
  if (!isPostgres(tx)) return true;
  const lockId = createHash('sha256').update(`${scope}\n${key}`).digest().readBigInt64BE(0).toString();
  const result = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${lockId}::bigint) as locked`.execute(tx);
  return result.rows[0]?.locked === true;
}

export async function purgeIdempotencyKeys(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
