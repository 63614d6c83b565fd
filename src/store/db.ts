import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteStatement,
  sql,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { registerScopedDialect, ScopedDialect } from './connection-scope.ts';
import { coalescingWrites, PipeliningPostgresDialect } from './pipelining.ts';
import { startCheckpointer, WalDurability, type SyncFile } from './sqlite-durability.ts';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Store functions accept either the database or an open transaction. */
export type Executor = Db | Tx;

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

/** Whether a handle (database or transaction) talks to PostgreSQL, for the few dialect-specific clauses. */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Lets a PostgreSQL transaction's commit return before its WAL is on disk (SQLite: nothing changes). Only
 * for work that is redone when lost, such as a job chunk that commits its own progress: a crash can drop
 * the last such commits whole (never part of one, nor anything committed after them), and the next
 * ordinary commit on the server makes everything before it durable.
 */
export async function commitWithoutWaitingForDisk(tx: Tx): Promise<void> {
  if (isPostgres(tx)) await sql`set local synchronous_commit = off`.execute(tx);
}

export function dialectOf(url: string): Dialect {
  return url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

// SQLite writers must take the write lock when the transaction starts (BEGIN IMMEDIATE); a deferred
// transaction that reads first and writes later can fail with SQLITE_BUSY when another process (a worker)
// wrote in between, and that failure cannot be retried by waiting.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #database: KyselySqliteDatabase;
  constructor(database: KyselySqliteDatabase) {
    super({ database });
    this.#database = database;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }
}

// better-sqlite3 cannot bind booleans; PostgreSQL columns are real booleans. Converting at the binding
// layer lets store code pass JS booleans to both. Statements are prepared once per SQL text and reused,
// which matters: preparing costs more than running a simple indexed query.
// Every commit (and every write outside a transaction) is counted for group commit (./sqlite-durability.ts).
function wrapSqlite(raw: SqliteDatabase.Database, durability: WalDurability | null): KyselySqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  const bind = (params: ReadonlyArray<unknown>): unknown[] =>
    params.map((p) => (p === true ? 1 : p === false ? 0 : p));
  const counted = <T>(stmt: SqliteDatabase.Statement, run: () => T): T => {
    if (!durability) return run();
    const inTransaction = raw.inTransaction;
    try {
      return run();
    } finally {
      if (raw.inTransaction ? false : inTransaction || !stmt.readonly) durability.noteCommit();
    }
  };
  return {
    close: () => raw.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached) return cached;
      const stmt = raw.prepare(sql);
      const wrapped: SqliteStatement = {
        reader: stmt.reader,
        all: (params) => counted(stmt, () => stmt.all(bind(params))),
        run: (params) => counted(stmt, () => stmt.run(bind(params))),
        iterate: (params) => stmt.iterate(bind(params)),
      };
      if (cache.size > 2000) cache.clear();
      cache.set(sql, wrapped);
      return wrapped;
    },
  };
}

const durabilities = new WeakMap<object, WalDurability>();

/**
 * Resolves once every commit made so far through `db` is on disk. SQLite commits do not wait for the
 * disk themselves (group commit, ./sqlite-durability.ts): whatever tells the outside world about a
 * change — an HTTP answer, a webhook, printed keys — waits here first. PostgreSQL commits are durable
 * when they return.
 */
export function durable(db: Executor): Promise<void> {
  const durability = durabilities.get(db);
  return durability?.pending ? durability.flushed() : Promise.resolve();
}

export interface SqliteOptions {
  /** Checkpoint in a worker thread (long-running servers); otherwise SQLite checkpoints inside commits. */
  checkpointer?: boolean;
  /** How the WAL file is synced (default fs.fsync); tests substitute their own. */
  syncWal?: SyncFile;
}

export function openSqlite(url: string, options: SqliteOptions = {}): DbHandle {
  const path = url.slice('sqlite:'.length);
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const raw = new SqliteDatabase(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('busy_timeout = 10000');
  // NORMAL: a commit writes the WAL without waiting for the disk; durable() makes answers wait for it.
  raw.pragma(`synchronous = ${inMemory ? 'FULL' : 'NORMAL'}`);
  raw.pragma('foreign_keys = ON');
  const durability = inMemory ? null : new WalDurability(resolve(path), options.syncWal);
  const stopCheckpointer = options.checkpointer && !inMemory ? startCheckpointer(resolve(path)) : null;
  // With the checkpointer, the connection's own checkpoints are only a safety net (40 MB of WAL).
  if (stopCheckpointer) raw.pragma('wal_autocheckpoint = 10000');
  const wrapped = wrapSqlite(raw, durability);
  // Transactions commit in groups where their answers wait for the disk anyway (src/store/sqlite-group-commit.ts).
  const inner = durability ? new GroupCommitSqliteDialect(wrapped, raw, durability) : new ImmediateSqliteDialect(wrapped);
  const dialect = new ScopedDialect(inner, { begin: 'begin immediate', guardStatements: false });
  const db = new Kysely<Database>({ dialect });
  registerScopedDialect(db, dialect);
  if (durability) durabilities.set(db, durability);
  return {
    db,
    dialect: 'sqlite',
    close: async () => {
      await durability?.flushed().catch(() => undefined);
      await stopCheckpointer?.();
      await db.destroy();
      durability?.close();
    },
  };
}

export interface PostgresOptions {
  /** Schema to use as search_path (tests give every file its own). */
  schema?: string;
  max?: number;
}

// PostgreSQL plans every unnamed statement anew, and planning a join costs more than running it on an
// index (about 1 ms against 0.1 ms for the customer summary). Statements are therefore sent as named
// prepared statements: each connection parses and plans one text once and then reuses it (PostgreSQL
// switches to a generic plan when that is no worse). Only texts of bounded size are named, so the
// per-connection statement cache stays small; bulk statements (many rows of many parameters) go unnamed.
// The bound is on the text alone: a redemption's held writes (src/store/held-writes.ts) are one text of
// about 4 KB with ~190 parameters, parsed and planned on every run while they went unnamed (0.56 ms of
// planning per redemption in pg_stat_statements), and the text's length already bounds its parameters.
const MAX_NAMED_SQL_LENGTH = 16_000;
const statementNames = new Map<string, string>();
/**
 * Part of every statement name, moved on by renameStatementsAfterMigration. A connection keeps a statement
 * it prepared under its name; after this process changed the schema, a `select *` prepared before it
 * would fail with "cached plan must not change result type" on every run, so new names make each
 * connection prepare the texts again.
 */
let statementGeneration = 0;

/** Called after this process migrated the schema: statements are prepared anew under new names. */
export function renameStatementsAfterMigration(): void {
  statementGeneration += 1;
  statementNames.clear();
}

function statementName(text: string): string | null {
  if (text.length > MAX_NAMED_SQL_LENGTH) return null;
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pc_${statementGeneration}_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (statementNames.size > 5_000) statementNames.clear();
    statementNames.set(text, name);
  }
  return name;
}

function preparingClient(client: pg.PoolClient): PostgresPoolClient {
  // The socket is the client's own (pg keeps it on `connection.stream`; the types do not say so).
  const writes = coalescingWrites((client as unknown as { connection: { stream: Parameters<typeof coalescingWrites>[0] } }).connection.stream);
  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(sqlOrCursor: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as unknown as pg.Submittable) as unknown as PostgresCursor<R>;
    const values = [...(parameters ?? [])];
    const name = statementName(sqlOrCursor);
    const config: pg.QueryConfig = name === null ? { text: sqlOrCursor, values } : { name, text: sqlOrCursor, values };
    return writes.submit(() => client.query(config)) as unknown as Promise<PostgresQueryResult<R>>;
  }
  return {
    query,
    release: () => {
      writes.flush();
      client.release();
    },
  };
}

function preparingPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => preparingClient(await pool.connect()),
    end: () => pool.end(),
  };
}

export function openPostgres(url: string, options: PostgresOptions = {}): DbHandle {
  // Counts and bigint columns come back as strings by default; our amounts fit in a double exactly.
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') => {
      if (oid === 20) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types,
    // Queries not awaited go out one behind the other (./pipelining.ts says which).
    pipeline: true,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const dialect = new ScopedDialect(new PipeliningPostgresDialect({ pool: preparingPool(pool) }), { begin: 'begin', guardStatements: true });
  const db = new Kysely<Database>({ dialect });
  registerScopedDialect(db, dialect);
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

export function openDatabase(url: string, options: PostgresOptions & SqliteOptions = {}): DbHandle {
  return dialectOf(url) === 'sqlite' ? openSqlite(url, options) : openPostgres(url, options);
}
