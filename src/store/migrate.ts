import { resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Migrator } from 'kysely';
import { renameStatementsAfterMigration, type Db } from './db.ts';
import { migrations } from './migrations/index.ts';

export interface MigrationReport {
  applied: string[];
}

/**
 * The migrator over every migration. `schema` names the PostgreSQL schema that holds the tables when it is
 * not the default one, so the bookkeeping tables are found there too rather than in whichever schema the
 * search path hits first.
 */
export function migratorFor(db: Db, options: { schema?: string } = {}): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(options.schema ? { migrationTableSchema: options.schema } : {}),
  });
}

/** Brings the schema up to date; safe to run from several processes at once (Kysely takes a lock). */
export async function migrateToLatest(db: Db, options: { schema?: string } = {}): Promise<MigrationReport> {
  const { error, results } = await migratorFor(db, options).migrateToLatest();
  if ((results ?? []).length > 0) renameStatementsAfterMigration();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    // No migration ran: the database could not be reached or locked; the cause says why.
    if (!failed) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed.migrationName} failed: ${reason}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/** How long a process waits for another one's SQLite migrations before it gives up. */
const SQLITE_MIGRATION_WAIT_MS = 30 * 60_000;

/**
 * migrateToLatest for a process that may start together with others on one database (`punchcard start`
 * and `punchcard worker`). PostgreSQL migrations take Kysely's advisory lock; Kysely takes no lock on
 * SQLite, where two processes migrating a new file at once both tried to create the first tables. There
 * the processes queue on an exclusive transaction in a small lock file beside the database (the database
 * itself cannot hold it: the migrations write there), and the next one finds the schema up to date.
 */
export async function migrateToLatestExclusively(db: Db, databaseUrl: string): Promise<MigrationReport> {
  const path = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : null;
  if (path === null || path === ':memory:') return migrateToLatest(db);
  const lock = new SqliteDatabase(`${resolve(path)}-migration-lock`, { timeout: SQLITE_MIGRATION_WAIT_MS });
  try {
    lock.exec('begin exclusive');
    return await migrateToLatest(db);
  } finally {
    if (lock.inTransaction) lock.exec('rollback');
    lock.close();
  }
}
