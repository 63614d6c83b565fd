import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, openPostgres, type DbHandle } from '../../src/store/db.ts';
import { renameStatementsAfterMigration } from '../../src/store/db.ts';
import { migrateToLatest, migratorFor } from '../../src/store/migrate.ts';

// One fresh, migrated database per test app: a temporary SQLite file, or a throwaway PostgreSQL database.
// `scripts/test.ts` picks the dialect through PUNCHCARD_TEST_DB and PUNCHCARD_TEST_PG_URL.
//
// Migrating from scratch costs about a second on SQLite and 5–7 s on PostgreSQL, and the suite makes
// some 180 databases; so each is a copy of a template migrated once for the current migrations (its
// name carries their fingerprint): a file copy on SQLite, `CREATE DATABASE … TEMPLATE` on PostgreSQL
// (a quarter of a second). Dropping a PostgreSQL database forces a checkpoint, so inside a run of
// scripts/test.ts (PUNCHCARD_TEST_RUN set) databases are left to the run, which drops them all at its end.

export type TestDialect = 'sqlite' | 'postgres';

export function testDialect(): TestDialect {
  return process.env.PUNCHCARD_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

export interface TestDatabase extends DbHandle {
  url: string;
  /** The PostgreSQL schema that holds the tables (`public`); null on SQLite. */
  schema: string | null;
}

/** Changes whenever a migration is added or edited, so a template never outlives the schema it holds. */
function migrationsFingerprint(): string {
  const dir = join(import.meta.dirname, '../../src/store/migrations');
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  return hash.digest('hex').slice(0, 12);
}

/** The prefix of the databases a run of scripts/test.ts leaves for itself to drop (scripts/lib/test-run.ts). */
export function runDatabasePrefix(run: string): string {
  return `pc_test_${run}_`;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(serverUrl: string, work: (admin: DbHandle) => Promise<T>): Promise<T> {
  const admin = openPostgres(serverUrl, { max: 1 });
  try {
    return await work(admin);
  } finally {
    await admin.close();
  }
}

let postgresTemplate: Promise<string> | null = null;

/** The migrated template database, made once by whichever test process gets there first. */
function postgresTemplateFor(serverUrl: string): Promise<string> {
  postgresTemplate ??= onServer(serverUrl, async (admin) => {
    const name = `pc_tmpl_${migrationsFingerprint()}`;
    await sql`select pg_advisory_lock(7382002)`.execute(admin.db);
    try {
      // `datistemplate` marks a finished template: a process killed while migrating leaves an unmarked one.
      const found = await sql<{ done: boolean }>`select datistemplate as done from pg_database where datname = ${name}`.execute(admin.db);
      if (found.rows[0]?.done === true) return name;
      if (found.rows.length > 0) await sql.raw(`drop database ${name} with (force)`).execute(admin.db);
      // Templates of earlier migrations are of no further use.
      const stale = await sql<{ datname: string }>`select datname from pg_database where datname like 'pc\_tmpl\_%' and datname <> ${name}`.execute(admin.db);
      for (const { datname } of stale.rows) {
        await sql.raw(`alter database ${datname} is_template false`).execute(admin.db);
        await sql.raw(`drop database ${datname} with (force)`).execute(admin.db);
      }
      await sql.raw(`create database ${name}`).execute(admin.db);
      const template = openPostgres(databaseUrl(serverUrl, name), { max: 1 });
      try {
        await migrateToLatest(template.db);
      } finally {
        await template.close();
      }
      await sql.raw(`alter database ${name} is_template true`).execute(admin.db);
      return name;
    } finally {
      await sql`select pg_advisory_unlock(7382002)`.execute(admin.db);
    }
  });
  return postgresTemplate;
}

async function createPostgresDatabase(serverUrl: string, suffix: string): Promise<TestDatabase> {
  const template = await postgresTemplateFor(serverUrl);
  const run = process.env.PUNCHCARD_TEST_RUN;
  const name = run ? `${runDatabasePrefix(run)}${suffix}` : `pc_test_${suffix}`;
  await onServer(serverUrl, (admin) => sql.raw(`create database ${name} template ${template}`).execute(admin.db));
  const url = databaseUrl(serverUrl, name);
  const handle = openPostgres(url, { max: 10 });
  return {
    ...handle,
    url,
    schema: 'public',
    close: async () => {
      await handle.close();
      if (!run) await onServer(serverUrl, (admin) => sql.raw(`drop database if exists ${name} with (force)`).execute(admin.db));
    },
  };
}

let sqliteTemplate: string | null = null;

/** The migrated template file, shared by every test process of the same migrations. */
async function sqliteTemplateIn(dir: string): Promise<string> {
  if (sqliteTemplate && existsSync(sqliteTemplate)) return sqliteTemplate;
  const path = join(dir, `template-${migrationsFingerprint()}.db`);
  if (!existsSync(path)) {
    // Migrated under a name of its own, then renamed into place whole (two processes may both do it).
    const draft = join(dir, `template-draft-${process.pid}-${randomBytes(4).toString('hex')}.db`);
    const handle = openDatabase(`sqlite:${draft}`);
    await migrateToLatest(handle.db);
    await handle.close();
    renameSync(draft, path);
    for (const ext of ['-wal', '-shm']) rmSync(`${draft}${ext}`, { force: true });
  }
  sqliteTemplate = path;
  return path;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const suffix = randomBytes(6).toString('hex');
  if (testDialect() === 'postgres') {
    const url = process.env.PUNCHCARD_TEST_PG_URL;
    if (!url) throw new Error('PUNCHCARD_TEST_PG_URL must be set when PUNCHCARD_TEST_DB=postgres');
    return createPostgresDatabase(url, suffix);
  }
  const dir = join(tmpdir(), 'punchcard-tests');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${suffix}.db`);
  copyFileSync(await sqliteTemplateIn(dir), file);
  const url = `sqlite:${file}`;
  const handle = openDatabase(url);
  return {
    ...handle,
    url,
    schema: null,
    close: async () => {
      await handle.close();
      for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
    },
  };
}

/**
 * Tests of a data migration: steps the database down to the schema as of `migration` (included), lets
 * `write` store rows the way the engine wrote them then, and migrates to the latest schema again (each
 * test database is a database of its own, so nothing else changes its schema meanwhile).
 */
export async function writtenBefore(handle: TestDatabase, migration: string, write: () => Promise<void>): Promise<void> {
  const down = await migratorFor(handle.db).migrateTo(migration);
  // Statements prepared for today's schema would fail on the older one (src/store/db.ts).
  renameStatementsAfterMigration();
  if (down.error) throw down.error;
  await write();
  await migrateToLatest(handle.db);
}
