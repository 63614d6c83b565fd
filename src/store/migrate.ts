import { Migrator } from 'kysely';
import type { Db } from './db.ts';
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
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    // No migration ran: the database could not be reached or locked; the cause says why.
    if (!failed) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed.migrationName} failed: ${reason}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
