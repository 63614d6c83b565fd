import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDatabase as KyselySqliteDatabase } from 'kysely';
import { requestsWaitingForTurn } from '../lib/slices.ts';
import type { WalDurability } from './sqlite-durability.ts';

// Group commit for SQLite: write transactions that queue for the connection share one COMMIT.
//
// SQLite has one writer, and a process has one connection that transactions take in turn. Each COMMIT
// writes every page its transaction changed to the WAL, and a redemption changes ~75 pages, most of them
// the same ones as the next redemption's: the right-hand leaves of the indexes, the counters, the last
// page of each table. When transactions queue for the connection, they therefore run inside one outer
// transaction, each in a savepoint of its own: a transaction that fails rolls back to its savepoint alone
// and answers exactly as before; one that succeeds releases its savepoint, and the outer transaction
// commits once nobody waits for the connection any more (or the group is large or old enough). Shared
// pages are written once per group instead of once per transaction.
//
// Durability does not change for what a client is told: every answer waits for durable()
// (src/store/db.ts), which first waits for the group's COMMIT and then for the fsync of the WAL after it
// (src/store/sqlite-durability.ts). If the group cannot commit, or SQLite rolls the outer transaction
// back itself (a full disk, an I/O error), the answers of the whole group fail: nothing of it was
// acknowledged. A transaction's changes are visible to the next ones of the same process before the group
// commits, as they already were before they were durable; other processes see them after the COMMIT.

/** A group commits at the latest after this many transactions … */
const MAX_GROUP_TRANSACTIONS = 64;
/**
 * … or once it has been open this long, so that a steady queue cannot hold a commit back. Under load a
 * group reaches it; 40 ms instead of 20 ms wrote 12–15 % less WAL per redemption in four back-to-back
 * quick runs (120–126 against 138–143 KB), with as many or more redemptions a second.
 */
export const MAX_GROUP_MS = 40;

interface Group {
  transactions: number;
  openedAt: number;
}

class GroupCommitSqliteDriver extends SqliteDriver {
  readonly #raw: { inTransaction: boolean };
  readonly #durability: WalDurability;
  /** Callers waiting in acquireConnection for the connection. */
  #waiting = 0;
  #group: Group | null = null;
  #commitScheduled = false;
  /** Whether the running transaction is a savepoint inside the group (false for the group's first). */
  #inSavepoint = false;
  /** SQLite's one connection, as acquireConnection hands it out. */
  #connection: DatabaseConnection | null = null;

  constructor(database: KyselySqliteDatabase, raw: { inTransaction: boolean }, durability: WalDurability) {
    super({ database });
    this.#raw = raw;
    this.#durability = durability;
    durability.onSynced = () => {
      if (this.#group && !this.#commitScheduled) void this.#commitWhenIdle();
    };
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    this.#waiting += 1;
    try {
      this.#connection = await super.acquireConnection();
      return this.#connection;
    } finally {
      this.#waiting -= 1;
    }
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.#noticeLostGroup();
    if (this.#group === null) {
      // The first transaction of a group is the outer transaction itself: with nothing before it to keep,
      // it needs no savepoint. IMMEDIATE: the write lock is taken first, so a transaction that reads first
      // and writes later cannot fail with SQLITE_BUSY half-way when another process (a worker) wrote in between.
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      this.#group = { transactions: 1, openedAt: performance.now() };
      this.#inSavepoint = false;
      this.#durability.groupOpened();
      return;
    }
    this.#group.transactions += 1;
    this.#inSavepoint = true;
    await connection.executeQuery(CompiledQuery.raw('savepoint pc_group_member'));
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.#inSavepoint) await connection.executeQuery(CompiledQuery.raw('release savepoint pc_group_member'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.#inSavepoint) {
      // The group's first transaction: rolling it back ends a group that holds nothing else.
      this.#group = null;
      if (this.#raw.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
      this.#durability.groupEnded(null);
      return;
    }
    if (this.#raw.inTransaction) {
      await connection.executeQuery(CompiledQuery.raw('rollback to savepoint pc_group_member'));
      await connection.executeQuery(CompiledQuery.raw('release savepoint pc_group_member'));
    }
    this.#noticeLostGroup();
  }

  override async releaseConnection(): Promise<void> {
    try {
      this.#noticeLostGroup();
      const group = this.#group;
      if (group && this.#connection && (group.transactions >= MAX_GROUP_TRANSACTIONS || performance.now() - group.openedAt >= MAX_GROUP_MS)) {
        await this.#commitGroup(this.#connection);
      } else if (group && this.#waiting === 0) {
        this.#scheduleCommit();
      }
    } finally {
      await super.releaseConnection();
    }
  }

  // A transaction runs to its end without giving the event loop a turn (better-sqlite3 is synchronous),
  // so the requests that arrived with it have not reached the connection yet when it ends. The group's
  // COMMIT waits until they have had their turn — the check phase of the same loop iteration — and, while
  // the WAL is being synced for an earlier group, until that fsync ends: a COMMIT now could not be synced
  // any sooner, and every transaction that begins meanwhile joins the group. While API requests wait for
  // their turn (src/http/plugins/turns.ts: one per pass of the loop) it waits for them too, up to
  // MAX_GROUP_MS: under load a group otherwise committed after every second transaction, writing the
  // pages they share (table ends, counters, the newest index leaves) once per two requests.
  #scheduleCommit(): void {
    if (this.#commitScheduled) return;
    this.#commitScheduled = true;
    setImmediate(() => {
      this.#commitScheduled = false;
      if (this.#group && requestsWaitingForTurn.count > 0 && performance.now() - this.#group.openedAt < MAX_GROUP_MS) {
        // Looked at again next pass: a waiting request may never touch the connection.
        this.#scheduleCommit();
        return;
      }
      if (!this.#durability.syncing) void this.#commitWhenIdle();
    });
  }

  async #commitWhenIdle(): Promise<void> {
    if (!this.#group) return;
    const connection = await super.acquireConnection();
    try {
      this.#noticeLostGroup();
      if (this.#group) await this.#commitGroup(connection);
    } finally {
      await super.releaseConnection();
    }
  }

  /** A transaction of its own on the connection (a request transaction): the open group commits first. */
  async beginOwnTransaction(connection: DatabaseConnection, begin: string): Promise<void> {
    this.#noticeLostGroup();
    if (this.#group) await this.#commitGroup(connection);
    await connection.executeQuery(CompiledQuery.raw(begin));
  }

  override async destroy(): Promise<void> {
    // Closing the database would roll an open group back: it commits, its answers may still be waiting.
    if (this.#group) {
      const connection = await super.acquireConnection();
      try {
        this.#noticeLostGroup();
        if (this.#group) await this.#commitGroup(connection);
      } finally {
        await super.releaseConnection();
      }
    }
    await super.destroy();
  }

  async #commitGroup(connection: DatabaseConnection): Promise<void> {
    this.#group = null;
    try {
      await connection.executeQuery(CompiledQuery.raw('commit'));
    } catch (error) {
      if (this.#raw.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      this.#durability.groupEnded(error as Error);
      return;
    }
    this.#durability.groupEnded(null);
  }

  /** SQLite ends the outer transaction itself on some errors (SQLITE_FULL, I/O errors): the group is lost. */
  #noticeLostGroup(): void {
    if (this.#group && !this.#raw.inTransaction) {
      this.#group = null;
      this.#durability.groupEnded(new Error('SQLite rolled back a group of transactions (disk full or I/O error); none of them was answered'));
    }
  }
}

/** SQLite dialect whose write transactions commit in groups (see above). */
export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #database: KyselySqliteDatabase;
  readonly #raw: { inTransaction: boolean };
  readonly #durability: WalDurability;

  constructor(database: KyselySqliteDatabase, raw: { inTransaction: boolean }, durability: WalDurability) {
    super({ database });
    this.#database = database;
    this.#raw = raw;
    this.#durability = durability;
  }

  override createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.#database, this.#raw, this.#durability);
  }
}
