import { readFileSync } from 'node:fs';
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
// PostgreSQL: the LSN is the whole cluster's, and other databases on a shared server write too. With
// pg_walinspect (contrib, PostgreSQL 15+; the bench connects as a superuser and creates it in its
// throwaway database) the window's WAL records are read back and only those of this database count:
// records that change one of its blocks, and every record (the commit too) of a transaction that did.
// Without it, the difference of pg_current_wal_insert_lsn() minus the cluster's rate in an idle second
// just before is reported.

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
  /**
   * PostgreSQL with pg_walinspect: of `bytes`, the whole pages written into the log at their first change
   * after a checkpoint (full-page images), which grow with the number of distinct pages a window touches.
   */
  fullPageImageBytes?: number;
  /**
   * SQLite, when asked for (`sqliteWalMeter(file, { map: true })`): the window's frames by the table or
   * index whose page each one holds, most first. Pages the window allocated (new leaves, overflow pages of
   * large values) belong to no object yet in the snapshot the map is read from: they are named from the
   * database as it is after the window, '<object> (new)', or '(new pages)' when no object holds them now.
   */
  frames?: Array<{ object: string; frames: number; pages: number }>;
}

export function sqliteWalMeter(file: string, options: { map?: boolean } = {}): WalMeter {
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
      // Read while the pin still holds every frame in the log and the database as it was before the window.
      const map = options.map ? mapFrames(file, pageSize, pin, control) : undefined;
      pin.exec('commit');
      return { bytes: (end.log - startFrames) * (pageSize + 24), backgroundPerSecond: null, ...(map ? { frames: map } : {}) };
    },
    async close() {
      if (pin.inTransaction) pin.exec('commit');
      pin.close();
      control.close();
    },
  };
}

/**
 * Which tables and indexes the log's frames belong to: each frame starts with a 24-byte header whose first
 * four bytes are the page number (after the log's 32-byte header); `dbstat` names each page's owner. The
 * log holds only the window's frames (it was emptied before), so this is where the window's WAL went.
 */
function mapFrames(file: string, pageSize: number, pin: Database.Database, current: Database.Database): Array<{ object: string; frames: number; pages: number }> {
  const log = readFileSync(`${file}-wal`);
  const framesByPage = new Map<number, number>();
  for (let at = 32; at + 24 + pageSize <= log.length; at += 24 + pageSize) {
    const page = log.readUInt32BE(at);
    framesByPage.set(page, (framesByPage.get(page) ?? 0) + 1);
  }
  const owner = new Map<number, string>();
  for (const row of pin.prepare('select name, pageno from dbstat').iterate() as Iterable<{ name: string; pageno: number }>) {
    if (framesByPage.has(row.pageno)) owner.set(row.pageno, row.name);
  }
  // Pages the window allocated belong to no object in the pinned snapshot; the database as it is now
  // (read through the log) names them: '<object> (new)'. A page freed and reused since is rare enough.
  if ([...framesByPage.keys()].some((page) => !owner.has(page))) {
    for (const row of current.prepare('select name, pageno from dbstat').iterate() as Iterable<{ name: string; pageno: number }>) {
      if (framesByPage.has(row.pageno) && !owner.has(row.pageno)) owner.set(row.pageno, `${row.name} (new)`);
    }
  }
  const byObject = new Map<string, { frames: number; pages: number }>();
  for (const [page, count] of framesByPage) {
    const object = owner.get(page) ?? '(new pages)';
    const entry = byObject.get(object) ?? { frames: 0, pages: 0 };
    entry.frames += count;
    entry.pages += 1;
    byObject.set(object, entry);
  }
  return [...byObject].map(([object, e]) => ({ object, ...e })).sort((a, b) => b.frames - a.frames);
}

export function postgresWalMeter(url: string): WalMeter {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => {
    await connected;
    const result = await client.query(sql, params);
    return result.rows[0] as T;
  };
  let inspect: boolean | null = null;
  let databaseOid = '';
  let startLsn = '0/0';
  let startedAt = 0;
  let background = 0;
  const lsn = async () => (await one<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')).lsn;
  return {
    async start() {
      if (inspect === null) {
        // pg_walinspect (PostgreSQL 15 contrib) reads the WAL records themselves; it needs a superuser.
        inspect = await one('create extension if not exists pg_walinspect').then(
          () => true,
          () => false,
        );
        databaseOid = (await one<{ oid: string }>('select oid::text as oid from pg_database where datname = current_database()')).oid;
      }
      if (!inspect) {
        const idleFrom = await lsn();
        const idleStarted = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 1000));
        background = Number((await one<{ d: string }>('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::text as d', [idleFrom])).d) / ((performance.now() - idleStarted) / 1000);
      }
      startLsn = await lsn();
      startedAt = performance.now();
    },
    async stop() {
      if (inspect) {
        // Records that touch a block of this database, and every record (commits included) of a
        // transaction that did. Waits until the window's WAL is flushed, as pg_walinspect reads only that.
        let endLsn = await lsn();
        for (let i = 0; i < 100; i++) {
          const { ok } = await one<{ ok: boolean }>('select pg_current_wal_flush_lsn() >= $1::pg_lsn as ok', [endLsn]);
          if (ok) break;
          // Commits that did not wait for the disk (the floor's) leave their last records to the WAL
          // writer; a transaction of our own that waits for its commit flushes everything before it.
          if (i === 10) await one('select txid_current()');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // Never ask past what is flushed (pg_walinspect refuses a future end LSN); the rest is left out.
        endLsn = (await one<{ lsn: string }>('select least(pg_current_wal_flush_lsn(), $1::pg_lsn)::text as lsn', [endLsn])).lsn;
        const pattern = `rel \\d+/${databaseOid}/`;
        const { bytes, fpi } = await one<{ bytes: string; fpi: string }>(
          `with r as (select xid, record_length, fpi_length, block_ref from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)),
                ours as (select distinct xid from r where block_ref ~ $3 and xid <> '0')
           select coalesce(sum(record_length), 0)::text as bytes, coalesce(sum(fpi_length), 0)::text as fpi
             from r where block_ref ~ $3 or xid in (select xid from ours)`,
          [startLsn, endLsn, pattern],
        );
        return { bytes: Number(bytes), backgroundPerSecond: null, fullPageImageBytes: Number(fpi) };
      }
      const seconds = (performance.now() - startedAt) / 1000;
      const raw = Number((await one<{ d: string }>('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::text as d', [startLsn])).d);
      return { bytes: Math.max(0, raw - background * seconds), backgroundPerSecond: background };
    },
    async close() {
      await connected.catch(() => undefined);
      await client.end();
    },
  };
}
