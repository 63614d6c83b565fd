import Database from 'better-sqlite3';
import pg from 'pg';
import { serverHeaders } from '../scripts/lib/keys.ts';
import { defaultDatabasePoolSize } from '../src/config.ts';
import { startCheckpointer, WalDurability } from '../src/store/sqlite-durability.ts';
import { benchOrder, type Fixtures } from './fixtures.ts';
import { hostCost, hostSnapshot, type HostCost } from './host-cpu.ts';
import { walPerRequest, type WalResult } from './measure.ts';
import type { Probe } from './probe.ts';
import { customerSourceId } from './seed.ts';
import { IdMaker, RowTemplate } from './template.ts';
import { postgresWalMeter, sqliteWalMeter } from './wal.ts';

// The floor: what the essential writes of one stackable redemption cost with nothing above them, on the
// same database, schema and durability, in the same run, at the same concurrency.
//
// Which writes: the ones the server itself made for one real redemption (coupon + promotion tier, 5-item
// order), recorded by the bench probe (bench/server-probe.mjs) just before: every INSERT, UPDATE and
// DELETE with its parameters (today: the voucher's conditional use, the order, the customer's order
// totals, the redemption records and their snapshots, the sharded counters, the events). Recording them
// keeps the floor equal to the real write set as the schema changes. No reads, no validation, no JSON
// building: each transaction replays those statements, prepared once, with the request's own ids
// replaced by new ones, another unused coupon, a random customer, a random counter shard and timestamps
// moved to now.
//
// Durability as the server has it. SQLite: synchronous = NORMAL and the server's group commit
// (src/store/sqlite-group-commit.ts): transactions that come while a group is open run in savepoints of
// it, the group commits once the event loop has had its turn and no fsync runs, and a transaction counts
// as done once the fsync of the WAL after its group's COMMIT has finished (src/store/sqlite-durability.ts),
// with the server's checkpointer thread. PostgreSQL: one transaction per redemption, BEGIN … COMMIT over a pool as
// large as the server's (PUNCHCARD_DATABASE_POOL_SIZE, or its default: src/config.ts), each statement a named prepared
// statement, BEGIN and the last write sent ahead as the server sends them (src/store/pipelining.ts),
// synchronous_commit as the server runs.

export interface FloorResult {
  seconds: number;
  /** Transactions per second (each one redemption's writes). */
  rps: number;
  transactions: number;
  p50: number;
  p99: number;
  /** CPU of this (the bench) process per transaction, µs: the driver's and the fsync thread's work. */
  cpuUs: number;
  /** Statements (SQLite) or round trips (PostgreSQL) per transaction, BEGIN and COMMIT included. */
  statements: number;
  warmupSeconds: number;
  /** The whole machine in the measured run (bench/host-cpu.ts): cores busy, PostgreSQL's CPU per transaction. */
  host: HostCost | null;
  wal: WalResult | null;
}

interface CompiledParam {
  render(tokens: Map<string, string>, shiftMs: number, shard: number): unknown;
}

interface CompiledWrite {
  sql: string;
  /** Renders the statement's list of values. */
  params: CompiledParam;
}

const ID = /\b([a-z][a-z0-9]*)_([0-9a-f]{12})[0-9a-f]{8}\b/g;
const SHARDS = 16;

/** Sends one real redemption with the probe recording; returns its writes and what they refer to. */
export async function captureRedemption(
  serverUrl: string,
  probe: Probe,
  fixtures: Fixtures,
  code: string,
  customerIndex: number,
): Promise<{ writes: Array<{ sql: string; params: unknown }>; startMs: number; code: string; customerSourceId: string }> {
  const sourceId = customerSourceId(customerIndex);
  const body = JSON.stringify({
    redeemables: [
      { object: 'voucher', id: code },
      { object: 'promotion_tier', id: fixtures.promotion.tierId },
    ],
    customer: { source_id: sourceId },
    order: benchOrder(fixtures.products, 3),
  });
  await probe.startCapture();
  const startMs = Date.now();
  const response = await fetch(`${serverUrl}/v1/redemptions`, { method: 'POST', headers: { ...serverHeaders(), 'content-type': 'application/json' }, body });
  const text = await response.text();
  const writes = await probe.capture();
  if (!response.ok) throw new Error(`floor: the redemption to record failed with ${response.status}: ${text.slice(0, 300)}`);
  if (writes.length === 0) throw new Error('floor: the probe recorded no writes');
  return { writes, startMs, code, customerSourceId: sourceId };
}

function compileParam(value: unknown, tokens: string[], startMs: number, shardAt: boolean): CompiledParam {
  if (shardAt && typeof value === 'number') return { render: (_t, _s, shard) => shard };
  if (typeof value === 'string') {
    const template = new RowTemplate({ v: value }, tokens, startMs);
    return { render: (t, shiftMs) => template.render({ tokens: t, shiftMs }).v };
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => compileParam(v, tokens, startMs, false));
    return { render: (t, s, shard) => items.map((i) => i.render(t, s, shard)) };
  }
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const entries = Object.entries(value).map(([k, v]) => [k, compileParam(v, tokens, startMs, false)] as const);
    return { render: (t, s, shard) => Object.fromEntries(entries.map(([k, c]) => [k, c.render(t, s, shard)])) };
  }
  return { render: () => value };
}

/** Which tables the recorded writes change, in order ("update vouchers, insert orders, …"). */
export function describeWrites(writes: ReadonlyArray<{ sql: string }>): string {
  return writes
    .map((w) =>
      [...w.sql.matchAll(/\b(insert\s+into|update|delete\s+from)\s+"?(\w+)"?/gi)]
        .filter((m) => m[2]?.toLowerCase() !== 'set') // ON CONFLICT … DO UPDATE SET
        .map((m) => `${(m[1] ?? '').split(/\s/)[0]?.toLowerCase()} ${m[2]}`)
        .join(' + '),
    )
    .join(', ');
}

/**
 * Positions (0-based) of the parameters that give a `shard` column its value. SQLite: one INSERT with `?`
 * placeholders, tuple after tuple. PostgreSQL: `$n` placeholders, possibly several INSERTs in the parts
 * of one WITH statement (src/store/held-writes.ts); each VALUES tuple is read for its shard entry.
 */
function shardPositions(sql: string, count: number): Set<number> {
  if (/\$1\b/.test(sql)) return numberedShardPositions(sql);
  const match = /^\s*insert\s+into\s+"?\w+"?\s*\(([^)]*)\)\s*values/i.exec(sql);
  if (!match?.[1]) return new Set();
  const columns = match[1].split(',').map((c) => c.trim().replace(/"/g, ''));
  const at = columns.indexOf('shard');
  if (at < 0) return new Set();
  const positions = new Set<number>();
  for (let p = at; p < Math.floor(count / columns.length) * columns.length; p += columns.length) positions.add(p);
  return positions;
}

function numberedShardPositions(sql: string): Set<number> {
  const positions = new Set<number>();
  for (const m of sql.matchAll(/insert\s+into\s+"?\w+"?\s*\(([^)]*)\)\s*values\s*/gi)) {
    const columns = (m[1] ?? '').split(',').map((c) => c.trim().replace(/"/g, ''));
    const at = columns.indexOf('shard');
    if (at < 0) continue;
    let i = (m.index ?? 0) + m[0].length;
    while (sql[i] === '(') {
      // One tuple: split on the commas at depth 1.
      let depth = 0;
      let start = i + 1;
      const items: string[] = [];
      for (; i < sql.length; i++) {
        const c = sql[i];
        if (c === '(') depth++;
        else if (c === ')') {
          depth--;
          if (depth === 0) {
            items.push(sql.slice(start, i));
            i++;
            break;
          }
        } else if (c === ',' && depth === 1) {
          items.push(sql.slice(start, i));
          start = i + 1;
        }
      }
      const placeholder = /^\s*\$(\d+)/.exec(items[at] ?? '');
      if (placeholder?.[1]) positions.add(Number(placeholder[1]) - 1);
      while (sql[i] === ' ' || sql[i] === ',' || sql[i] === '\n') i++;
    }
  }
  return positions;
}

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, out);
  else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) for (const v of Object.values(value)) collectStrings(v, out);
}

interface Substitutes {
  voucherId: string;
  code: string;
  customerId: string;
  customerSourceId: string;
}

/** The recorded writes, ready to render with fresh ids. */
class WriteSet {
  readonly writes: CompiledWrite[];
  readonly #newIds: Array<[string, string]>;
  readonly #template: Substitutes;
  readonly #startMs: number;
  readonly #ids = new IdMaker();

  constructor(recorded: Array<{ sql: string; params: unknown }>, startMs: number, template: Substitutes) {
    this.#startMs = startMs;
    this.#template = template;
    // Ids the request made (their time part is the request's) are replaced; older ones (project,
    // campaigns, tier, products) stay.
    const fresh = new Map<string, string>();
    const strings: string[] = [];
    for (const w of recorded) collectStrings(w.params, strings);
    for (const s of strings) {
      for (const m of s.matchAll(ID)) if (parseInt(m[2] ?? '0', 16) >= startMs - 1000 && m[0] !== template.voucherId && m[0] !== template.customerId) fresh.set(m[0], m[1] ?? 'x');
    }
    this.#newIds = [...fresh.entries()];
    const tokens = [...fresh.keys(), template.voucherId, template.code, template.customerId, template.customerSourceId];
    this.writes = recorded.map((w) => {
      const list = Array.isArray(w.params) ? w.params : [w.params];
      const shards = shardPositions(w.sql, list.length);
      const items = list.map((v, i) => compileParam(v, tokens, startMs, shards.has(i)));
      return { sql: w.sql, params: { render: (t, s, shard) => items.map((c) => c.render(t, s, shard)) } };
    });
  }

  /** Parameters of every write for one new redemption. */
  render(next: Substitutes): unknown[][] {
    const now = Date.now();
    const tokens = new Map<string, string>();
    for (const [id, prefix] of this.#newIds) tokens.set(id, this.#ids.next(prefix, now));
    tokens.set(this.#template.voucherId, next.voucherId);
    tokens.set(this.#template.code, next.code);
    tokens.set(this.#template.customerId, next.customerId);
    tokens.set(this.#template.customerSourceId, next.customerSourceId);
    const shard = Math.floor(Math.random() * SHARDS);
    return this.writes.map((w) => w.params.render(tokens, now - this.#startMs, shard) as unknown[]);
  }
}

export interface FloorOptions {
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** Transactions in the WAL window. */
  walTransactions: number;
  campaignId: string;
  projectId: string;
  /** Hands out an unused coupon code (the bench's own pool, so no scenario gets one the floor used). */
  takeCode: () => string | undefined;
}

interface Driver {
  /** Runs one transaction of the write set; resolves once it is durable. */
  transaction(params: unknown[][]): Promise<void>;
  query(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>>;
  walMeter(): ReturnType<typeof sqliteWalMeter>;
  close(): Promise<void>;
  /** Statements (SQLite) or round trips (PostgreSQL) of a transaction of `writes` writes, BEGIN and COMMIT included. */
  roundTripsPerTransaction(writes: number): number;
}

function sqliteDriver(file: string, writes: CompiledWrite[]): Driver {
  // The server's connection settings (src/store/db.ts openSqlite).
  const db = new Database(file, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('wal_autocheckpoint = 10000');
  const durability = new WalDurability(file);
  const stopCheckpointer = startCheckpointer(file);
  const begin = db.prepare('begin immediate');
  const commit = db.prepare('commit');
  const rollback = db.prepare('rollback');
  const savepoint = db.prepare('savepoint floor_member');
  const release = db.prepare('release savepoint floor_member');
  const rollbackMember = db.prepare('rollback to savepoint floor_member');
  let statements: Database.Statement[] | null = null;
  // The server's grouping, without its Kysely driver: one open group at most, committed from the
  // event loop's check phase or after an fsync ends.
  let groupOpen = false;
  let commitScheduled = false;
  const commitGroup = () => {
    if (!groupOpen) return;
    groupOpen = false;
    commit.run();
    durability.noteCommit();
    durability.groupEnded(null);
  };
  durability.onSynced = () => {
    if (!commitScheduled) commitGroup();
  };
  return {
    async transaction(params) {
      statements ??= writes.map((w) => db.prepare(w.sql));
      const first = !groupOpen;
      if (first) {
        begin.run();
        groupOpen = true;
        durability.groupOpened();
      } else {
        savepoint.run();
      }
      try {
        statements.forEach((s, i) => s.run(params[i] as unknown[]));
        if (!first) release.run();
      } catch (error) {
        if (first) {
          groupOpen = false;
          if (db.inTransaction) rollback.run();
          durability.groupEnded(null);
        } else {
          rollbackMember.run();
          release.run();
        }
        throw error;
      }
      if (!commitScheduled) {
        commitScheduled = true;
        setImmediate(() => {
          commitScheduled = false;
          if (!durability.syncing) commitGroup();
        });
      }
      await durability.flushed();
    },
    async query(sql, params) {
      return db.prepare(sql).all(params) as Array<Record<string, unknown>>;
    },
    walMeter: () => sqliteWalMeter(file),
    roundTripsPerTransaction: (writes) => writes + 2,
    async close() {
      commitGroup();
      await durability.flushed();
      // The checkpointer's thread and its stop timer do not keep a process alive (a server has its
      // sockets for that); this process may have nothing else left to wait for.
      const keepAlive = setInterval(() => undefined, 1000);
      await stopCheckpointer().finally(() => clearInterval(keepAlive));
      durability.close();
      db.close();
    },
  };
}

function postgresDriver(url: string, writes: CompiledWrite[]): Driver {
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.PUNCHCARD_DATABASE_POOL_SIZE ?? defaultDatabasePoolSize()), pipeline: true });
  pool.on('error', () => undefined);
  return {
    async transaction(params) {
      const texts = writes.map((w) => w.sql);
      const client = await pool.connect();
      try {
        // As the server sends them (src/store/pipelining.ts): BEGIN ahead of the first write, the last
        // write (the server's held writes) ahead of the COMMIT.
        const begin = client.query('begin');
        begin.catch(() => undefined);
        const last = texts.length - 1;
        for (let i = 0; i < last; i++) await client.query({ name: `floor_${i}`, text: texts[i] ?? '', values: params[i] });
        const lastWrite = last >= 0 ? client.query({ name: `floor_${last}`, text: texts[last] ?? '', values: params[last] }) : null;
        lastWrite?.catch(() => undefined);
        const commit = client.query('commit');
        commit.catch(() => undefined);
        await begin;
        await lastWrite;
        await commit;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async query(sql, params) {
      let n = 0;
      return (await pool.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Array<Record<string, unknown>>;
    },
    walMeter: () => postgresWalMeter(url),
    // BEGIN shares the first write's round trip, COMMIT the last one's.
    roundTripsPerTransaction: (writes) => Math.max(1, writes),
    async close() {
      await pool.end();
    },
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** `connections` loops, each running one transaction after another, until `until()` says stop. */
async function drive(driver: Driver, set: WriteSet, pick: () => Substitutes, connections: number, until: (done: number, ms: number) => boolean): Promise<{ done: number; ms: number; latencies: number[] }> {
  const started = performance.now();
  const latencies: number[] = [];
  let done = 0;
  let failure: unknown = null;
  const lanes = Array.from({ length: connections }, async () => {
    while (failure === null && !until(done, performance.now() - started)) {
      const t0 = performance.now();
      try {
        await driver.transaction(set.render(pick()));
      } catch (error) {
        failure = error;
        return;
      }
      latencies.push(performance.now() - t0);
      done++;
    }
  });
  await Promise.all(lanes);
  if (failure !== null) throw failure;
  return { done, ms: performance.now() - started, latencies };
}

export async function runFloor(
  db: { dialect: 'sqlite' | 'postgres'; url: string; file: string | null },
  recorded: Awaited<ReturnType<typeof captureRedemption>>,
  options: FloorOptions,
): Promise<FloorResult> {
  // Filled below; the drivers prepare the statements on their first transaction.
  const writes: CompiledWrite[] = [];
  const driver = db.dialect === 'sqlite' ? sqliteDriver(db.file ?? '', writes) : postgresDriver(db.url, writes);
  try {
    const [voucher] = await driver.query('select id from vouchers where project_id = ? and code = ?', [options.projectId, recorded.code]);
    const [customer] = await driver.query('select id from customers where project_id = ? and source_id = ?', [options.projectId, recorded.customerSourceId]);
    if (!voucher || !customer) throw new Error('floor: the recorded redemption refers to a voucher or customer that is not there');
    const set = new WriteSet(recorded.writes, recorded.startMs, { voucherId: String(voucher.id), code: recorded.code, customerId: String(customer.id), customerSourceId: recorded.customerSourceId });
    writes.push(...set.writes);
    return await measure(driver, set, options);
  } finally {
    await driver.close();
  }
}

async function measure(driver: Driver, set: WriteSet, options: FloorOptions): Promise<FloorResult> {
  const vouchers = new Map<string, string>();
  for (const row of await driver.query('select id, code from vouchers where project_id = ? and campaign_id = ? and redeemed_quantity = 0 and binned_at is null', [options.projectId, options.campaignId])) vouchers.set(String(row.code), String(row.id));
  const customers = (await driver.query("select id, source_id from customers where project_id = ? and source_id like 'bench-cust-%' limit 100000", [options.projectId])) as Array<{ id: string; source_id: string }>;
  if (customers.length === 0) throw new Error('floor: no bench customers');
  const pick = (): Substitutes => {
    const code = options.takeCode();
    const voucherId = code === undefined ? undefined : vouchers.get(code);
    if (code === undefined || voucherId === undefined) throw new Error('floor: ran out of unused coupons; seed more vouchers');
    const customer = customers[Math.floor(Math.random() * customers.length)] ?? customers[0];
    return { voucherId, code, customerId: String(customer?.id), customerSourceId: String(customer?.source_id) };
  };
  await drive(driver, set, pick, options.connections, (_done, ms) => ms >= options.warmupSeconds * 1000);
  const cpu0 = process.cpuUsage();
  const host0 = hostSnapshot();
  const run = await drive(driver, set, pick, options.connections, (_done, ms) => ms >= options.seconds * 1000);
  const host = hostCost(host0, hostSnapshot(), run.done);
  const cpu = process.cpuUsage(cpu0);
  const sorted = Float64Array.from(run.latencies).sort();
  let wal: FloorResult['wal'] = null;
  if (options.walTransactions > 0) {
    const meter = driver.walMeter();
    try {
      await meter.start();
      const window = await drive(driver, set, pick, options.connections, (done) => done + options.connections > options.walTransactions);
      wal = walPerRequest(await meter.stop(), window.done);
    } finally {
      await meter.close();
    }
  }
  return {
    seconds: run.ms / 1000,
    rps: run.done / (run.ms / 1000),
    transactions: run.done,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUs: (cpu.user + cpu.system) / Math.max(1, run.done),
    // PostgreSQL: BEGIN shares the first write's round trip, COMMIT the last one's.
    statements: driver.roundTripsPerTransaction(set.writes.length),
    warmupSeconds: options.warmupSeconds,
    host,
    wal,
  };
}
