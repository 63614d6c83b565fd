import { PostgresAdapter, type Kysely } from 'kysely';

// Migrations describe tables as they were at the time, so they use an untyped handle rather than the
// current table types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MigrationDb = any;

export function isPostgres(db: Kysely<MigrationDb>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
