import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

// Throwaway databases: a SQLite file under bench/.data, or a PostgreSQL database created through the
// admin URL (BENCH_PG_URL, else DATABASE_URL when it is a postgres:// URL, else the local default) and
// dropped at the end.

export interface BenchDatabase {
  dialect: 'sqlite' | 'postgres';
  url: string;
  /** The SQLite file, for the bulk seeder. */
  file: string | null;
  sizeBytes(): Promise<number>;
  drop(): Promise<void>;
}

const root = join(import.meta.dirname, '..');

export function adminPostgresUrl(): string {
  const env = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL ?? '';
  return env.startsWith('postgres://') || env.startsWith('postgresql://') ? env : 'postgres://postgres@127.0.0.1:5432/test';
}

export function createSqliteDatabase(stamp: string): BenchDatabase {
  const dir = join(root, 'bench', '.data');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${stamp}.db`);
  for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
  return {
    dialect: 'sqlite',
    url: `sqlite:${file}`,
    file,
    async sizeBytes() {
      let total = 0;
      for (const ext of ['', '-wal']) {
        try {
          total += statSync(`${file}${ext}`).size;
        } catch {
          // no WAL right now
        }
      }
      return total;
    },
    async drop() {
      for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
    },
  };
}

export async function createPostgresDatabase(stamp: string): Promise<BenchDatabase> {
  const admin = adminPostgresUrl();
  const name = `punchcard_bench_${stamp.replace(/[^0-9a-z]/gi, '').toLowerCase()}`;
  const run = async (sql: string): Promise<pg.QueryResult> => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    dialect: 'postgres',
    url: url.toString(),
    file: null,
    async sizeBytes() {
      const result = await run(`select pg_database_size('${name}') as size`);
      return Number((result.rows[0] as { size: string }).size);
    },
    async drop() {
      await run(`drop database if exists ${name} with (force)`);
    },
  };
}
