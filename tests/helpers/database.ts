import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, openPostgres, type DbHandle } from '../../src/store/db.ts';
import { migrateToLatest, migratorFor } from '../../src/store/migrate.ts';

// One fresh, migrated database per test file: a temporary SQLite file, or a throwaway PostgreSQL schema.
// `scripts/test.ts` picks the dialect through PUNCHCARD_TEST_DB and PUNCHCARD_TEST_PG_URL.

export type TestDialect = 'sqlite' | 'postgres';

export function testDialect(): TestDialect {
  return process.env.PUNCHCARD_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

export interface TestDatabase extends DbHandle {
  url: string;
  schema: string | null;
  /** Runs a test's own migrations while no other test file creates, migrates or drops a schema. */
  migrating(work: () => Promise<void>): Promise<void>;
}

// Test files run in parallel processes. Migrating reads the catalog of every schema (Kysely's
// introspection), which fails when another file drops its schema at that moment; so creating,
// migrating and dropping test schemas take turns on one advisory lock.
async function exclusively(url: string, work: () => Promise<void>): Promise<void> {
  const admin = openPostgres(url, { max: 1 });
  try {
    await sql`select pg_advisory_lock(7382002)`.execute(admin.db);
    try {
      await work();
    } finally {
      await sql`select pg_advisory_unlock(7382002)`.execute(admin.db);
    }
  } finally {
    await admin.close();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const suffix = randomBytes(6).toString('hex');
  if (testDialect() === 'postgres') {
    const url = process.env.PUNCHCARD_TEST_PG_URL;
    if (!url) throw new Error('PUNCHCARD_TEST_PG_URL must be set when PUNCHCARD_TEST_DB=postgres');
    const schema = `pc_test_${suffix}`;
    const handle = openPostgres(url, { schema, max: 10 });
    const dropSchema = () =>
      exclusively(url, async () => {
        const cleanup = openPostgres(url, { max: 1 });
        await sql.raw(`drop schema if exists ${schema} cascade`).execute(cleanup.db);
        await cleanup.close();
      });
    try {
      await exclusively(url, async () => {
        const admin = openPostgres(url, { max: 1 });
        await sql.raw(`create schema ${schema}`).execute(admin.db);
        await admin.close();
        await migrateToLatest(handle.db, { schema });
      });
    } catch (error) {
      await handle.close();
      await dropSchema();
      throw error;
    }
    return {
      ...handle,
      url,
      schema,
      migrating: (work) => exclusively(url, work),
      close: async () => {
        await handle.close();
        await dropSchema();
      },
    };
  }
  const dir = join(tmpdir(), 'punchcard-tests');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${suffix}.db`);
  const url = `sqlite:${file}`;
  const handle = openDatabase(url);
  await migrateToLatest(handle.db);
  return {
    ...handle,
    url,
    schema: null,
    migrating: (work) => work(),
    close: async () => {
      await handle.close();
      for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
    },
  };
}

/**
 * Tests of a data migration: steps the database down to the schema as of `migration` (included), lets
 * `write` store rows the way the engine wrote them then, and migrates to the latest schema again, all
 * under the lock that keeps other test files' schema changes out.
 */
export async function writtenBefore(handle: TestDatabase, migration: string, write: () => Promise<void>): Promise<void> {
  const options = handle.schema ? { schema: handle.schema } : {};
  await handle.migrating(async () => {
    const down = await migratorFor(handle.db, options).migrateTo(migration);
    if (down.error) throw down.error;
    await write();
    await migrateToLatest(handle.db, options);
  });
}
