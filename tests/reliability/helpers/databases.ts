import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, openPostgres, type DbHandle, type Dialect } from '../../../src/store/db.ts';

// One fresh database per run that server processes can open by URL: a temporary SQLite file, or a
// throwaway PostgreSQL database (a schema would not do: `punchcard start` only takes DATABASE_URL).
// The dialect follows scripts/test.ts and scripts/reliability.ts (PUNCHCARD_TEST_DB, PUNCHCARD_TEST_PG_URL).

export function reliabilityDialect(): Dialect {
  return process.env.PUNCHCARD_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

export interface RunDatabase {
  dialect: Dialect;
  /** The DATABASE_URL a server process gets. */
  url: string;
  /** A direct connection for the suite's own checks (invariants, snapshots); close it before `drop`. */
  open(): DbHandle;
  drop(): Promise<void>;
}

export async function createRunDatabase(label: string): Promise<RunDatabase> {
  const suffix = `${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  if (reliabilityDialect() === 'postgres') {
    const adminUrl = process.env.PUNCHCARD_TEST_PG_URL;
    if (!adminUrl) throw new Error('PUNCHCARD_TEST_PG_URL must be set when PUNCHCARD_TEST_DB=postgres');
    const name = `pc_rel_${suffix}`;
    const admin = openPostgres(adminUrl, { max: 1 });
    try {
      await sql.raw(`create database ${name}`).execute(admin.db);
    } finally {
      await admin.close();
    }
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
      dialect: 'postgres',
      url: url.toString(),
      open: () => openPostgres(url.toString(), { max: 4 }),
      async drop() {
        const cleanup = openPostgres(adminUrl, { max: 1 });
        try {
          // FORCE ends connections a killed server process may have left behind.
          await sql.raw(`drop database if exists ${name} with (force)`).execute(cleanup.db);
        } finally {
          await cleanup.close();
        }
      },
    };
  }
  const dir = join(tmpdir(), 'punchcard-reliability');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${suffix}.db`);
  const url = `sqlite:${file}`;
  return {
    dialect: 'sqlite',
    url,
    open: () => openDatabase(url),
    async drop() {
      for (const ext of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${ext}`, { force: true });
    },
  };
}
