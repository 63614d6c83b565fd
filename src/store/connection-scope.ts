import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect as KyselyDialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { DelegatingDriver } from './delegating-driver.ts';

// A request transaction: one connection held for the whole of an HTTP request, with one transaction
// open on it from before the handler runs until after its answer is known. Every statement the request
// runs — through `deps.db` or inside `inTransaction` — goes to that connection, and the transactions the
// services open become savepoints inside it. Idempotent requests use it so that the change, the events and
// the stored answer of the key commit together or not at all (src/http/plugins/idempotency.ts).
//
// The request is found through AsyncLocalStorage: services keep using `deps.db` unchanged, and code that
// runs outside a request (the worker, other requests) never sees the held connection.

interface Scope {
  /** Null once the request transaction has ended: late statements then take a connection of their own. */
  pinned: PinnedConnection | null;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Serialises the transactions a request runs on its held connection (savepoints must nest, not interleave). */
class Mutex {
  #tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

class PinnedConnection implements DatabaseConnection {
  readonly raw: DatabaseConnection;
  /** PostgreSQL aborts the whole transaction on any failed statement; each one outside a savepoint gets its own. */
  readonly #guardStatements: boolean;
  readonly #nested = new Mutex();
  #unlock: (() => void) | null = null;
  #depth = 0;

  constructor(raw: DatabaseConnection, guardStatements: boolean) {
    this.raw = raw;
    this.#guardStatements = guardStatements;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.#guardStatements || this.#depth > 0) return this.raw.executeQuery<R>(query);
    await this.raw.executeQuery(CompiledQuery.raw('savepoint pc_statement'));
    try {
      const result = await this.raw.executeQuery<R>(query);
      await this.raw.executeQuery(CompiledQuery.raw('release savepoint pc_statement'));
      return result;
    } catch (error) {
      await this.raw.executeQuery(CompiledQuery.raw('rollback to savepoint pc_statement'));
      await this.raw.executeQuery(CompiledQuery.raw('release savepoint pc_statement'));
      throw error;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.raw.streamQuery<R>(query, chunkSize);
  }

  async begin(): Promise<void> {
    const unlock = await this.#nested.lock();
    this.#unlock = unlock;
    this.#depth += 1;
    await this.raw.executeQuery(CompiledQuery.raw(`savepoint pc_tx_${this.#depth}`));
  }

  async commit(): Promise<void> {
    try {
      await this.raw.executeQuery(CompiledQuery.raw(`release savepoint pc_tx_${this.#depth}`));
    } finally {
      this.#end();
    }
  }

  async rollback(): Promise<void> {
    try {
      await this.raw.executeQuery(CompiledQuery.raw(`rollback to savepoint pc_tx_${this.#depth}`));
      await this.raw.executeQuery(CompiledQuery.raw(`release savepoint pc_tx_${this.#depth}`));
    } finally {
      this.#end();
    }
  }

  #end(): void {
    this.#depth -= 1;
    const unlock = this.#unlock;
    this.#unlock = null;
    unlock?.();
  }
}

/** Wraps a dialect's driver so that statements of a request that holds a connection go to that connection. */
class ScopedDriver extends DelegatingDriver {
  readonly #guardStatements: boolean;
  #initialised: Promise<void> | null = null;

  constructor(inner: Driver, guardStatements: boolean) {
    super(inner);
    this.#guardStatements = guardStatements;
  }

  override init(): Promise<void> {
    this.#initialised ??= this.inner.init();
    return this.#initialised;
  }

  override acquireConnection(): Promise<DatabaseConnection> {
    const pinned = scopes.getStore()?.pinned;
    return pinned ? Promise.resolve(pinned) : this.inner.acquireConnection();
  }

  override beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return connection instanceof PinnedConnection ? connection.begin() : this.inner.beginTransaction(connection, settings);
  }

  override commitTransaction(connection: DatabaseConnection): Promise<void> {
    return connection instanceof PinnedConnection ? connection.commit() : this.inner.commitTransaction(connection);
  }

  override rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return connection instanceof PinnedConnection ? connection.rollback() : this.inner.rollbackTransaction(connection);
  }

  override releaseConnection(connection: DatabaseConnection): Promise<void> {
    return connection instanceof PinnedConnection ? Promise.resolve() : this.inner.releaseConnection(connection);
  }

  /** Takes a connection of the pool for one request and opens its transaction. */
  async hold(begin: string): Promise<RequestTransaction> {
    await this.init();
    const raw = await this.inner.acquireConnection();
    try {
      // A driver that groups transactions (src/store/sqlite-group-commit.ts) ends its open group first.
      const grouping = this.inner as Partial<{ beginOwnTransaction(connection: DatabaseConnection, begin: string): Promise<void> }>;
      if (grouping.beginOwnTransaction) await grouping.beginOwnTransaction(raw, begin);
      else await raw.executeQuery(CompiledQuery.raw(begin));
    } catch (error) {
      await this.inner.releaseConnection(raw);
      throw error;
    }
    return new RequestTransaction(new PinnedConnection(raw, this.#guardStatements), () => this.inner.releaseConnection(raw));
  }
}

/** The transaction one request holds; exactly one of commit() and rollback() ends it. */
export class RequestTransaction {
  readonly #scope: Scope;
  readonly #release: () => Promise<void>;
  #open = true;

  constructor(pinned: PinnedConnection, release: () => Promise<void>) {
    this.#scope = { pinned };
    this.#release = release;
  }

  get open(): boolean {
    return this.#open;
  }

  /** Runs `fn` so that every statement it (and whatever it calls) runs goes to this transaction. */
  run<T>(fn: () => T): T {
    return scopes.run(this.#scope, fn);
  }

  commit(): Promise<void> {
    return this.#end('commit');
  }

  rollback(): Promise<void> {
    return this.#end('rollback');
  }

  async #end(statement: 'commit' | 'rollback'): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    const pinned = this.#scope.pinned as PinnedConnection;
    this.#scope.pinned = null;
    try {
      await pinned.raw.executeQuery(CompiledQuery.raw(statement));
    } catch (error) {
      if (statement === 'commit') await pinned.raw.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      throw error;
    } finally {
      await this.#release();
    }
  }
}

const dialects = new WeakMap<object, ScopedDialect>();

/** Opens a request transaction on the database `db` (a Kysely instance built on a ScopedDialect). */
export function holdRequestTransaction(db: object): Promise<RequestTransaction> {
  const dialect = dialects.get(db);
  if (!dialect) throw new Error('this database handle cannot hold request transactions');
  return dialect.hold();
}

/** Makes holdRequestTransaction(db) work for the Kysely instance `db` built on `dialect`. */
export function registerScopedDialect(db: object, dialect: ScopedDialect): void {
  dialects.set(db, dialect);
}

/** A dialect whose driver lets one request hold a connection (see holdRequestTransaction). */
export class ScopedDialect implements KyselyDialect {
  readonly #inner: KyselyDialect;
  readonly #guardStatements: boolean;
  readonly #begin: string;
  #driver: ScopedDriver | null = null;

  /**
   * `begin` opens a request transaction (SQLite: `begin immediate`, so the write lock is taken first);
   * `guardStatements` puts each statement outside a savepoint into its own (PostgreSQL).
   */
  constructor(inner: KyselyDialect, options: { begin: string; guardStatements: boolean }) {
    this.#inner = inner;
    this.#begin = options.begin;
    this.#guardStatements = options.guardStatements;
  }

  createDriver(): Driver {
    this.#driver = new ScopedDriver(this.#inner.createDriver(), this.#guardStatements);
    return this.#driver;
  }

  createQueryCompiler(): QueryCompiler {
    return this.#inner.createQueryCompiler();
  }

  createAdapter() {
    return this.#inner.createAdapter();
  }

  createIntrospector(db: Parameters<KyselyDialect['createIntrospector']>[0]) {
    return this.#inner.createIntrospector(db);
  }

  hold(): Promise<RequestTransaction> {
    if (!this.#driver) throw new Error('the database is not initialised');
    return this.#driver.hold(this.#begin);
  }
}
