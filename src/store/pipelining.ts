import { CompiledQuery, PostgresDialect, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import { DelegatingDriver } from './delegating-driver.ts';

// Statements sent without waiting for the answer of the one before (PostgreSQL). A transaction's BEGIN
// and its last writes need no answer before the next statement: BEGIN answers nothing, and the writes a
// transaction holds for its end (src/store/held-writes.ts) are read by nobody. Waiting for each cost a
// round trip: the connection sat idle in its transaction while this process woke, read an empty answer
// and wrote the next statement. The `pg` client sends queries that are not awaited one behind the other
// (its pipeline mode, set on the pool in ./db.ts), PostgreSQL runs them in order, each with its own
// Sync, and answers each; this driver only stops waiting where the answer is not needed.
//
// What stays exact: the answer of a statement sent ahead is still read before the connection answers
// anything else, so its error (a unique violation in a held write, a serialisation failure) is thrown by
// the next statement awaited on that connection — at the latest the COMMIT, which therefore fails
// instead of committing (PostgreSQL turns the COMMIT of a failed transaction into a rollback). A
// statement sent ahead never changes what a later statement sees: they run in the order sent.

const answerNotAwaited = new WeakSet<CompiledQuery>();

/** Whether the statement being handed to the `pg` client right now is sent ahead (read by coalescingWrites). */
let handingAhead = false;

/** What coalescingWrites needs of a `pg` client's socket. */
interface CorkableStream {
  cork(): void;
  uncork(): void;
}

/**
 * Statements sent ahead wait in the client's socket (corked) until the next statement is written, then
 * go out with it in one write: BEGIN with the first statement, the held writes with the COMMIT. Every
 * write over loopback wakes the PostgreSQL backend, and on two cores hands it this process's core; one
 * write per statement cost a redemption two wake-ups more. `submit` writes one statement; `flush` sends
 * whatever still waits (before the client goes back to the pool). A statement sent ahead with nothing
 * written after it is still sent at the next turn of the event loop, so no answer can wait on it forever.
 */
export function coalescingWrites(stream: CorkableStream): { submit<T>(write: () => T): T; flush(): void } {
  let corked = false;
  const flush = () => {
    if (!corked) return;
    corked = false;
    stream.uncork();
  };
  return {
    submit(write) {
      if (!handingAhead) {
        try {
          return write();
        } finally {
          flush();
        }
      }
      if (!corked) {
        corked = true;
        stream.cork();
        setImmediate(flush);
      }
      return write();
    },
    flush,
  };
}

/**
 * `query`, to be sent ahead: its answer is not read, and its error surfaces on the next statement. A copy
 * is marked, so that a query object used again elsewhere (a prepared one) is awaited there as usual.
 */
export function sendAhead(query: CompiledQuery): CompiledQuery {
  const copy: CompiledQuery = { ...query };
  answerNotAwaited.add(copy);
  return copy;
}

const EMPTY_RESULT: QueryResult<never> = Object.freeze({ rows: [] }) as QueryResult<never>;

class PipeliningConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  /** The answers of the statements sent ahead, not yet read (settled: it never rejects unhandled). */
  #ahead: Promise<unknown> | null = null;

  constructor(inner: DatabaseConnection) {
    this.inner = inner;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // The driver writes the statement before its first await, so it is on its way before the answers
    // of the statements sent ahead are read.
    const ahead = answerNotAwaited.has(query);
    handingAhead = ahead;
    let answer: Promise<QueryResult<R>>;
    try {
      answer = this.inner.executeQuery<R>(query);
    } finally {
      handingAhead = false;
    }
    if (ahead) {
      this.#keep(answer);
      return EMPTY_RESULT;
    }
    await this.answersAhead().catch((error: unknown) => {
      answer.catch(() => undefined);
      throw error;
    });
    return answer;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }

  /** Reads the answers of the statements sent ahead; throws the first error among them. */
  async answersAhead(): Promise<void> {
    const ahead = this.#ahead;
    this.#ahead = null;
    if (ahead !== null) await ahead;
  }

  #keep(answer: Promise<unknown>): void {
    const earlier = this.#ahead;
    const all = earlier === null ? answer : earlier.then(() => answer);
    // Read later (answersAhead); until then a rejection is not an unhandled one.
    answer.catch(() => undefined);
    all.catch(() => undefined);
    this.#ahead = all;
  }
}

class PipeliningDriver extends DelegatingDriver {
  override async acquireConnection(): Promise<DatabaseConnection> {
    return new PipeliningConnection(await this.inner.acquireConnection());
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel || settings.accessMode) return this.inner.beginTransaction(connection, settings);
    await connection.executeQuery(sendAhead(CompiledQuery.raw('begin')));
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const pipelining = connection as PipeliningConnection;
    // Every path ends a transaction with an awaited statement; this only keeps a stray answer from
    // reaching the connection's next user.
    await pipelining.answersAhead().catch(() => undefined);
    await this.inner.releaseConnection(pipelining.inner);
  }
}

/** Kysely's PostgreSQL dialect whose connections send BEGIN and the statements marked by sendAhead without waiting. */
export class PipeliningPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new PipeliningDriver(super.createDriver());
  }
}
