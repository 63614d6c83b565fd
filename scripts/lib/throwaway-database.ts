import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, openPostgres, type DbHandle, type Dialect } from '../../src/store/db.ts';

// A fresh database that server processes can open by URL: a SQLite file, or a PostgreSQL database
// created on the server of an admin URL and dropped at the end (a schema would not do: `punchcard start`
// only takes DATABASE_URL). Which dialect, where, and under what name is the caller's policy.

export type ThrowawayOptions =
  /** `<dir>/<name>.db`. */
  | { dialect: 'sqlite'; name: string; dir: string }
  /** Database `<name>` next to the one `adminUrl` names, created and dropped through it. */
  | { dialect: 'postgres'; name: string; adminUrl: string };

export interface ThrowawayDatabase {
  dialect: Dialect;
  /** The DATABASE_URL a server process gets. */
  url: string;
  /** The SQLite file (for tools that write it directly); null on PostgreSQL. */
  file: string | null;
  /** A direct connection for the caller's own checks; close it before `drop`. */
  open(): DbHandle;
  /** On disk now (SQLite: the file and its WAL). */
  sizeBytes(): Promise<number>;
  drop(): Promise<void>;
}

// `-migration-lock` is the lock file the servers queue on to migrate (src/store/migrate.ts).
const SQLITE_FILES = ['', '-wal', '-shm', '-journal', '-migration-lock'];

export async function createThrowawayDatabase(options: ThrowawayOptions): Promise<ThrowawayDatabase> {
  // The name goes into SQL unquoted and into a file name.
  const name = options.name.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
  if (options.dialect === 'postgres') return createPostgres(options.adminUrl, name);

  mkdirSync(options.dir, { recursive: true });
  const file = join(options.dir, `${name}.db`);
  const removeFiles = () => {
    for (const ext of SQLITE_FILES) rmSync(`${file}${ext}`, { force: true });
  };
  // A name can come round again (a fixed stamp, a rerun); the database must start empty.
  removeFiles();
  const url = `sqlite:${file}`;
  return {
    dialect: 'sqlite',
    url,
    file,
    open: () => openDatabase(url),
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
      removeFiles();
    },
  };
}

async function createPostgres(adminUrl: string, name: string): Promise<ThrowawayDatabase> {
  const admin = async (sql: string): Promise<pg.QueryResult> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect: 'postgres',
    url: url.toString(),
    file: null,
    open: () => openPostgres(url.toString(), { max: 4 }),
    async sizeBytes() {
      const result = await admin(`select pg_database_size('${name}') as size`);
      return Number((result.rows[0] as { size: string }).size);
    },
    async drop() {
      // FORCE ends connections a killed server process may have left behind.
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}
