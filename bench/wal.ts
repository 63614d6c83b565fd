import Database from 'better-sqlite3';
import pg from 'pg';

// Bytes of write-ahead log a window of work appends, for "WAL bytes per redemption".
//
// SQLite: the size of the -wal file says nothing once a checkpoint has run (the log restarts from its
// beginning and the file keeps its old size), and the server checkpoints every 250 ms. So the window is
// a dedicated one: with the server idle, a TRUNCATE checkpoint empties the log, then a read transaction
// of our own is opened and held. It reads the database file only (the log is empty when it starts), so
// no checkpoint can copy any frame back (that would change pages under it) and the log cannot restart:
// every frame a commit appends stays in the log until the window ends. Frames in the log at the end
// (the `log` column of `PRAGMA wal_checkpoint(PASSIVE)`, which can do nothing meanwhile) times
// (page size + 24-byte frame header) is what the window's commits wrote. Holding checkpoints back does
// not change what a commit appends; it only lets the log grow for the second or two the window lasts.
//
// PostgreSQL: pg_current_wal_lsn() before and after. The LSN is the whole cluster's, and other databases
// on a shared server write too, so the rate measured in an idle second just before the window is
// reported and subtracted.

export interface WalMeter {
  start(): Promise<void>;
  /** WAL bytes appended since start (PostgreSQL: minus the idle rate of the cluster). */
  stop(): Promise<WalReading>;
  close(): Promise<void>;
}

export interface WalReading {
  bytes: number;
  /** PostgreSQL: bytes the cluster wrote per second while this bench was idle, already subtracted. */
  backgroundPerSecond: number | null;
}

export function sqliteWalMeter(file: string): WalMeter {
  const control = new Database(file, { fileMustExist: true });
  control.pragma('busy_timeout = 10000');
  const pin = new Database(file, { fileMustExist: true, readonly: true });
  const pageSize = Number(control.pragma('page_size', { simple: true }));
  const frames = (mode: 'PASSIVE' | 'TRUNCATE') => {
    const [row] = control.pragma(`wal_checkpoint(${mode})`) as Array<{ busy: number; log: number; checkpointed: number }>;
    if (!row) throw new Error('wal_checkpoint returned nothing');
    return row;
  };
  let startFrames = 0;
  return {
    async start() {
      for (let attempt = 0; ; attempt++) {
        const row = frames('TRUNCATE');
        if (row.busy === 0 && row.log === 0) break;
        if (attempt >= 20) throw new Error(`could not empty the WAL before the window (${JSON.stringify(row)})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      pin.exec('begin');
      pin.prepare('select count(*) from sqlite_master').get();
      startFrames = frames('PASSIVE').log;
    },
    async stop() {
      const end = frames('PASSIVE');
      pin.exec('commit');
      return { bytes: (end.log - startFrames) * (pageSize + 24), backgroundPerSecond: null };
    },
    async close() {
      if (pin.inTransaction) pin.exec('commit');
      pin.close();
      control.close();
    },
  };
}

export function postgresWalMeter(url: string): WalMeter {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  const lsn = async (): Promise<string> => {
    await connected;
    const result = await client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
    return result.rows[0]?.lsn ?? '0/0';
  };
  const diff = async (a: string, b: string): Promise<number> => {
    const result = await client.query<{ d: string }>('select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text as d', [b, a]);
    return Number(result.rows[0]?.d ?? 0);
  };
  let startLsn = '0/0';
  let startedAt = 0;
  let background = 0;
  return {
    async start() {
      const idleFrom = await lsn();
      const idleStarted = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idleTo = await lsn();
      background = (await diff(idleFrom, idleTo)) / ((performance.now() - idleStarted) / 1000);
      startLsn = idleTo;
      startedAt = performance.now();
    },
    async stop() {
      const endLsn = await lsn();
      const seconds = (performance.now() - startedAt) / 1000;
      const raw = await diff(startLsn, endLsn);
      return { bytes: Math.max(0, raw - background * seconds), backgroundPerSecond: background };
    },
    async close() {
      await connected.catch(() => undefined);
      await client.end();
    },
  };
}
