import { closeSync, fsync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DedicatedThread } from '../lib/dedicated-thread.ts';

// Group commit for SQLite. better-sqlite3 is synchronous: with `synchronous = FULL` every COMMIT waited for
// its own fsync of the WAL on the event loop (about 4 ms on this machine's disk), so one process could
// commit a few hundred transactions a second and did nothing else meanwhile.
//
// Instead the connection runs with `synchronous = NORMAL` — a COMMIT only writes its WAL frames to the
// operating system — and durability is awaited before an answer leaves: `flushed()` resolves once an
// fsync of the WAL file that started after every commit so far has completed. The fsync runs in a thread of
// its own (`threadFsync`), so the event loop keeps serving requests, and every commit that happened while
// one fsync ran shares the next one. Not in libuv's shared pool: request-driven work (password hashing,
// file reads) could fill that pool and make every answer wait behind it for its fsync. The guarantee is the same as FULL for what a client is told: an answer that
// follows a commit is sent only once that commit is on disk, so an acknowledged write survives kill -9
// (the frames are in the OS) and power loss (they are on disk). A commit is visible to other requests
// of this process slightly before it is durable; their answers wait for the same fsync.
//
// Checkpoints (copying the WAL back into the database file, with its own fsyncs) would otherwise run
// inside a COMMIT on the event loop every thousand pages; `startCheckpointer()` moves them to a thread
// with a connection of its own.

interface Waiter {
  upTo: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** fs.fsync's shape; tests substitute their own to watch or hold the disk. */
export type SyncFile = (fd: number, done: (error: Error | null) => void) => void;

const syncThread = new DedicatedThread<number, null>('WAL fsync', `(fd) => { require('node:fs').fsyncSync(fd); return null; }`);

/** fsync in this process's WAL fsync thread, which nothing else uses (file descriptors are shared by all threads). */
export const threadFsync: SyncFile = (fd, done) => {
  syncThread.run(fd).then(
    () => done(null),
    (error: Error) => done(error),
  );
};

export class WalDurability {
  readonly #walPath: string;
  readonly #syncFile: SyncFile;
  #fd: number | null = null;
  /** Counts commits (and writes outside a transaction) on this connection. */
  #committed = 0;
  /** Every commit counted up to this number is on disk. */
  #durable = 0;
  #syncing = false;
  #waiters: Waiter[] = [];
  /** The open group of transactions sharing one COMMIT (src/store/sqlite-group-commit.ts), settled by it. */
  #group: { ended: Promise<void>; resolve: () => void; reject: (error: Error) => void } | null = null;
  /**
   * Set when a group could not commit. Which answers belonged to it is not known once they have left the
   * transaction, so no later answer is acknowledged by this process: it needs a restart (logged).
   */
  #failed: Error | null = null;

  constructor(databasePath: string, syncFile: SyncFile = threadFsync) {
    this.#walPath = `${databasePath}-wal`;
    this.#syncFile = syncFile;
  }

  /** Called after a statement that ended a transaction or wrote outside one. */
  noteCommit(): void {
    this.#committed++;
  }

  /** Called after each fsync (the group commit driver commits its open group then). */
  onSynced: (() => void) | null = null;

  /** Whether an fsync of the WAL is running: a group committed now could not be synced before it ends. */
  get syncing(): boolean {
    return this.#syncing;
  }

  /** A group of transactions began; their answers wait for groupEnded(). */
  groupOpened(): void {
    let resolve!: () => void;
    let reject!: (error: Error) => void;
    const ended = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    ended.catch(() => undefined);
    this.#group = { ended, resolve, reject };
  }

  /** The open group committed (null) or was lost (the error its answers get, now and from then on). */
  groupEnded(error: Error | null): void {
    const group = this.#group;
    this.#group = null;
    if (error) this.#failed = error;
    if (error) group?.reject(error);
    else group?.resolve();
  }

  /** Whether some commit is not known to be on disk yet. */
  get pending(): boolean {
    return this.#group !== null || this.#failed !== null || this.#durable < this.#committed;
  }

  /** Resolves once every commit made before this call (and the group open now) is on disk. */
  flushed(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#group) return this.#group.ended.then(() => this.flushed());
    const upTo = this.#committed;
    if (this.#durable >= upTo) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ upTo, resolve, reject });
      this.#sync();
    });
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #sync(): void {
    if (this.#syncing || this.#waiters.length === 0) return;
    this.#syncing = true;
    // Commits counted so far wrote their frames before this fsync starts, so it covers them all.
    const upTo = this.#committed;
    let fd: number;
    try {
      fd = this.#walFd();
    } catch (error) {
      this.#settle(upTo, error as Error);
      return;
    }
    this.#syncFile(fd, (error) => this.#settle(upTo, error));
  }

  #settle(upTo: number, error: Error | null): void {
    this.#syncing = false;
    if (!error) this.#durable = Math.max(this.#durable, upTo);
    const still: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.upTo > upTo) still.push(waiter);
      else if (error) waiter.reject(error);
      else waiter.resolve();
    }
    this.#waiters = still;
    this.#sync();
    this.onSynced?.();
  }

  #walFd(): number {
    if (this.#fd === null) {
      this.#fd = openSync(this.#walPath, 'r');
      // The WAL file's directory entry must be on disk too, once, for a new file to survive a power cut.
      const dir = openSync(dirname(this.#walPath), 'r');
      // Once per process and awaited by nothing, so libuv's pool may run it.
      fsync(dir, () => closeSync(dir));
    }
    return this.#fd;
  }
}

const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: the next round catches up */ }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  db.close();
  parentPort.close();
});
`;

/**
 * Runs PASSIVE checkpoints of the database at `path` every `everyMs` in a worker thread with its own
 * connection, so the serving thread never copies WAL pages or waits for their fsyncs. Returns a stop
 * function.
 */
export function startCheckpointer(path: string, everyMs = 250): () => Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(CHECKPOINTER_SOURCE, { eval: true, workerData: { driver, path, everyMs } });
  worker.unref();
  worker.on('error', () => undefined);
  return async () => {
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())]);
  };
}
