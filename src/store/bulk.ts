import type { Executor } from './db.ts';
import { isPostgres } from './db.ts';
import type { CustomerRow } from './customers.ts';

// Row locks for the bulk updates: a metadata merge reads the stored metadata and writes the merged object
// back, so on PostgreSQL the row is locked first and a concurrent update cannot be lost in between
// (SQLite write transactions are exclusive already).

export async function lockLiveCustomerBySourceId(db: Executor, projectId: string, sourceId: string): Promise<CustomerRow | undefined> {
  let query = db
    .selectFrom('customers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('source_id', '=', sourceId)
    .where('deleted_at', 'is', null);
  if (isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function lockLiveCustomerById(db: Executor, projectId: string, id: string): Promise<CustomerRow | undefined> {
  let query = db.selectFrom('customers').selectAll().where('project_id', '=', projectId).where('id', '=', id).where('deleted_at', 'is', null);
  if (isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}
