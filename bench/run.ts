import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { Api, HttpClient } from '../scripts/lib/http-client.ts';
import { ServerProcess } from '../scripts/lib/server-process.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../scripts/lib/throwaway-database.ts';
import { openPostgresBulk, openSqliteBulk, type Bulk, type Row } from './bulk.ts';
import { benchOrder, COUPON_CAMPAIGN, createFixtures, type Fixtures } from './fixtures.ts';
import { captureRedemption, describeWrites, runFloor } from './floor.ts';
import { bulkMetadataJobLatency } from './job-latency.ts';
import { describeProbe } from './probes.ts';
import { signInBurstLatency } from './sign-in-burst.ts';
import { exportRedemptionsJob, generateCodesJob } from './jobs.ts';
import { lockWaitShare, sampleLockWaits } from './lock-waits.ts';
import { timeFirstPages, type FirstPageTiming } from './list-pages.ts';
import type { RequestMaker } from './load.ts';
import { measureWindow, settle, sized, walWindow, warmUp, type WarmupPolicy } from './measure.ts';
import { startProbedServer, type ProbedServer } from './probe.ts';
import { checkTargets, formatTable, formatTargets, type JobRow, type PageRow, type ScenarioRow } from './report.ts';
import { SCENARIOS, type Pools } from './scenarios.ts';
import { checkInvariants, seedBulk, TEMPLATE_CUSTOMER, type Scale, type SeedReport } from './seed.ts';
import { postgresWalMeter, sqliteWalMeter } from './wal.ts';

// `npm run bench [-- flags]`: seeds a throwaway database per dialect, starts real server processes,
// drives every scenario with autocannon, runs the timed jobs, prints a table and writes
// bench/results/<timestamp>.json. See README "Benchmarks".
//
//   --quick                 small data and short runs (development, small machines)
//   --db sqlite|postgres|all
//   --scale k=v,…           vouchers, customers, redemptions, members, codes (timed job), bulk (items
//                           of the bulk job, at most the customers), seconds (per scenario), warmup
//                           (most seconds of warm-up per scenario; it ends earlier once the server's
//                           CPU per request has stopped falling), connections
//   --only a,b              only these scenarios and/or jobs (codes, export, bulk, pages: the lists'
//                           first page, one request at a time; floor: the raw write set of a
//                           redemption, which also runs with redeem; signins: /health and redemption
//                           latency while bursts of 120 sign-ins arrive); seeding always runs
//   --no-scale-out          skip the two-process PostgreSQL runs
//   --keep                  keep the databases (their URLs are printed)
//   --profile               a CPU profile of each measured window (main thread of the first server) in
//                           bench/results/profiles/<db>-x<processes>-<scenario>.cpuprofile (warm-up,
//                           start-up and the other windows left out; summarise one with
//                           `npx tsx bench/profile-summary.ts <file>`); on SQLite also the WAL window's
//                           frames per request by table and index

interface Options {
  quick: boolean;
  dbs: Array<'sqlite' | 'postgres'>;
  scale: Scale;
  codes: number;
  /** Items of the bulk metadata job (bench/job-latency.ts). */
  bulk: number;
  seconds: number;
  warmup: number;
  connections: number;
  only: Set<string> | null;
  scaleOut: boolean;
  keep: boolean;
  /** CPU profiles of the measured windows into bench/results/profiles. */
  profile: boolean;
}

const FULL = { vouchers: 1_000_000, customers: 1_000_000, redemptions: 1_000_000, members: 1_000, codes: 1_000_000, bulk: 100_000, seconds: 20, warmup: 60 };
// 150k coupons: the redeem scenario (warm-up, window, WAL window, on PostgreSQL twice) and the floor
// each use up one per redemption.
const QUICK = { vouchers: 150_000, customers: 10_000, redemptions: 30_000, members: 100, codes: 100_000, bulk: 10_000, seconds: 5, warmup: 16 };
const JOBS = ['codes', 'export', 'bulk', 'pages', 'floor', 'signins'];

function parseOptions(argv: string[]): Options {
  const flag = (name: string) => argv.includes(name);
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const quick = flag('--quick');
  const base: Record<string, number> = { ...(quick ? QUICK : FULL), connections: 32 };
  for (const pair of (value('--scale') ?? '').split(',').filter((p) => p !== '')) {
    const [key, raw] = pair.split('=');
    if (!key || raw === undefined || !(key in base) || !/^\d+$/.test(raw.replace(/_/g, ''))) throw new Error(`--scale: bad entry "${pair}" (keys: ${Object.keys(base).join(', ')})`);
    base[key] = Number(raw.replace(/_/g, ''));
  }
  const db = value('--db') ?? 'all';
  if (!['sqlite', 'postgres', 'all'].includes(db)) throw new Error('--db must be sqlite, postgres or all');
  const onlyRaw = value('--only');
  const only = onlyRaw ? new Set(onlyRaw.split(',')) : null;
  for (const name of only ?? []) {
    if (!SCENARIOS.some((s) => s.name === name) && !JOBS.includes(name)) throw new Error(`--only: unknown scenario or job ${name} (${[...SCENARIOS.map((s) => s.name), ...JOBS].join(', ')})`);
  }
  const n = (key: string) => base[key] ?? 0;
  return {
    quick,
    dbs: db === 'all' ? ['sqlite', 'postgres'] : [db as 'sqlite' | 'postgres'],
    scale: { vouchers: n('vouchers'), customers: n('customers'), redemptions: n('redemptions'), members: n('members') },
    codes: n('codes'),
    bulk: n('bulk'),
    seconds: n('seconds'),
    warmup: n('warmup'),
    connections: n('connections'),
    only,
    scaleOut: !flag('--no-scale-out'),
    keep: flag('--keep'),
    profile: flag('--profile'),
  };
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * A database of its own per run: SQLite under bench/.data, or PostgreSQL next to BENCH_PG_URL, else
 * DATABASE_URL when it is a postgres:// URL, else the local default.
 */
function createBenchDatabase(dialect: 'sqlite' | 'postgres', stamp: string): Promise<ThrowawayDatabase> {
  const name = `punchcard_bench_${stamp.replace(/[^0-9a-z]/gi, '').toLowerCase()}`;
  if (dialect === 'sqlite') return createThrowawayDatabase({ dialect, name, dir: join(import.meta.dirname, '.data') });
  const env = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL ?? '';
  const adminUrl = env.startsWith('postgres://') || env.startsWith('postgresql://') ? env : 'postgres://postgres@127.0.0.1:5432/test';
  return createThrowawayDatabase({ dialect, name, adminUrl });
}

async function openBulk(db: ThrowawayDatabase): Promise<Bulk> {
  return db.dialect === 'sqlite' ? openSqliteBulk(db.file ?? '') : openPostgresBulk(db.url);
}

/** Fixtures through the API, then one real stacked redemption that the seeder clones. */
async function prepare(db: ThrowawayDatabase, options: Options): Promise<{ fixtures: Fixtures; requestStartMs: number }> {
  const server = await ServerProcess.start({ databaseUrl: db.url });
  const http = new HttpClient(server.url);
  try {
    const api = new Api(http);
    const fixtures = await createFixtures(api, { members: options.scale.members });
    await api.ok('POST', '/v1/customers', {
      source_id: TEMPLATE_CUSTOMER.source_id,
      name: TEMPLATE_CUSTOMER.name,
      email: TEMPLATE_CUSTOMER.email,
      metadata: { segment: 'a' },
      address: { city: TEMPLATE_CUSTOMER.city, country: 'DE' },
    });
    const requestStartMs = Date.now();
    await api.ok('POST', '/v1/redemptions', {
      redeemables: [
        { object: 'voucher', id: fixtures.coupon.templateCode },
        { object: 'promotion_tier', id: fixtures.promotion.tierId },
      ],
      customer: { source_id: TEMPLATE_CUSTOMER.source_id },
      order: benchOrder(fixtures.products, 0),
    });
    return { fixtures, requestStartMs };
  } finally {
    http.close();
    await server.stop();
  }
}

async function readPools(bulk: Bulk, fixtures: Fixtures, projectId: string, customerCount: number): Promise<Pools> {
  const text = (rows: Row[], column: string) => rows.map((r) => String(r[column]));
  const customerIds = text(await bulk.query("select id from customers where project_id = ? and source_id like 'bench-cust-%' and source_id <> ?", [projectId, TEMPLATE_CUSTOMER.source_id]), 'id');
  const unused = text(
    await bulk.query('select code from vouchers where project_id = ? and campaign_id = ? and redeemed_quantity = 0 and binned_at is null order by id', [projectId, fixtures.coupon.campaignId]),
    'code',
  );
  const used = text(await bulk.query('select code from vouchers where project_id = ? and campaign_id = ? and redeemed_quantity > 0 order by id limit 20000', [projectId, fixtures.coupon.campaignId]), 'code');
  const half = Math.floor(unused.length / 2);
  const validateCodes = unused.slice(half);
  return {
    fixtures,
    customerIds,
    customerCount,
    redeemCodes: unused.slice(0, half),
    validateCodes,
    voucherCodes: [...used, ...validateCodes.slice(0, 20_000)],
  };
}

function warmupPolicy(options: Options): WarmupPolicy {
  return { connections: options.connections, roundSeconds: options.quick ? 2 : 3, maxSeconds: options.warmup, minRequests: 3000 };
}

function formatCost(row: ScenarioRow): string {
  const parts: string[] = [];
  if (row.cost) parts.push(`${row.cost.cpuUs.toFixed(0)} µs CPU/req`, `${row.cost.statements.toFixed(1)} ${row.db === 'sqlite' ? 'statements' : 'round trips'}/req`);
  const host = row.cost?.host;
  if (host) {
    const postgres = row.db === 'postgres' ? `, PostgreSQL ${host.postgresUs.toFixed(0)} µs/req` : '';
    // The floor has no load generator: the bench process is its driver, whose CPU is the row's own.
    const load = row.scenario === 'floor' ? '' : `, load generator ${host.loadGeneratorUs.toFixed(0)} µs/req`;
    parts.push(`machine ${(host.busyShare * 100).toFixed(0)} % busy${postgres}${load}`);
  }
  if (row.lockWaits && row.lockWaits.busy > 0) parts.push(`waiting on locks ${(lockWaitShare(row.lockWaits) * 100).toFixed(1)} % of busy connections (${row.lockWaits.samples} samples)`);
  if (row.wal) {
    const fpi = row.wal.fullPageImageBytesPerRequest === undefined ? '' : `, of which full-page images ${(row.wal.fullPageImageBytesPerRequest / 1024).toFixed(1)} KB`;
    parts.push(`WAL ${(row.wal.bytesPerRequest / 1024).toFixed(1)} KB/req (${row.wal.requests} req${row.wal.backgroundPerSecond === null ? (row.db === 'postgres' ? ', records of this database by pg_walinspect' : '') : `, cluster idle ${(row.wal.backgroundPerSecond / 1024).toFixed(0)} KB/s subtracted`}${fpi})`);
  }
  if (row.warmup) {
    const rounds = row.warmup.cpuUsPerRound;
    if (rounds.length === 0) parts.push(`warm-up ${row.warmup.seconds.toFixed(1)} s (fixed)`);
    else parts.push(`warm-up ${row.warmup.seconds.toFixed(1)} s/${row.warmup.requests} req${row.warmup.settled ? '' : ' (time limit)'}, CPU µs/req by round ${rounds.map((c) => c.toFixed(0)).join('→')}`);
  }
  return parts.join(', ');
}

async function runScenarios(db: ThrowawayDatabase, servers: ProbedServer[], pools: Pools, options: Options, rows: ScenarioRow[]): Promise<void> {
  let empty: { make: RequestMaker; rps: number } | null = null;
  log(`  ${db.dialect} ×${servers.length}: servers idle after ${(await settle(servers)).toFixed(1)} s`);
  for (const scenario of SCENARIOS) {
    // The empty route always runs: every ratio is against the ceiling of the same run.
    if (options.only && !options.only.has(scenario.name) && scenario.name !== 'empty') continue;
    const make = scenario.maker(pools);
    const warmup = await warmUp(servers, make, warmupPolicy(options));
    const profiled = options.profile ? servers[0] : undefined;
    await profiled?.probe.startProfile();
    const locks = db.dialect === 'postgres' ? await sampleLockWaits(db.url) : null;
    const { load, cost } = await measureWindow(servers, make, options.connections, sized(warmup.rate, options.seconds));
    const lockWaits = locks ? await locks.stop() : null;
    if (profiled) {
      const dir = join(import.meta.dirname, 'results', 'profiles');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${db.dialect}-x${servers.length}-${scenario.name}.cpuprofile`);
      writeFileSync(file, await profiled.probe.stopProfile());
      log(`      profile: ${file}`);
    }
    if (scenario.name === 'empty') empty = { make, rps: load.rps };
    // WAL: a fixed number of requests, about a second's worth (two in the full run), in a window of its own.
    const wal = scenario.writes
      ? await walWindow(
          servers,
          make,
          options.connections,
          Math.min(3000, sized(load.rps, options.quick ? 1 : 2)),
          db.dialect === 'sqlite' ? sqliteWalMeter(db.file ?? '', { map: options.profile }) : postgresWalMeter(db.url),
        )
      : null;
    // The empty route again, right after: this machine's speed drifts by up to 2x within an hour, and a
    // scenario measured minutes after the run's first empty window was being compared with another machine.
    // Warm already (it ran first on these servers); about two seconds of it.
    const emptyRps =
      scenario.name === 'empty' ? load.rps : empty ? (await measureWindow(servers, empty.make, options.connections, sized(empty.rps, Math.min(2, options.seconds)))).load.rps : null;
    const row: ScenarioRow = {
      db: db.dialect,
      processes: servers.length,
      scenario: scenario.name,
      title: scenario.title,
      load,
      ratio: emptyRps ? load.rps / emptyRps : null,
      emptyRps,
      cost,
      wal,
      warmup,
      floorRatio: null,
      lockWaits,
    };
    rows.push(row);
    const statuses = Object.entries(load.statuses).map(([code, n]) => `${code}×${n}`).join(' ');
    log(
      `  ${db.dialect} ×${servers.length} ${scenario.name.padEnd(17)} ${load.rps.toFixed(0).padStart(7)} req/s  p50 ${load.p50.toFixed(2)} ms  p99 ${load.p99.toFixed(2)} ms  ` +
        `${row.ratio === null ? '' : `${(row.ratio * 100).toFixed(1)} % of empty${scenario.name === 'empty' ? '' : ` (${emptyRps?.toFixed(0)}/s just after)`}  `}[${statuses}${load.errors ? ` errors×${load.errors}` : ''}]`,
    );
    log(`      ${formatCost(row)}`);
    if (wal?.framesPerRequest) {
      // Distinct pages next to frames: a page written again (by a later group, or twice in one) counts once in pages.
      const shown = wal.framesPerRequest.filter((f) => f.frames >= 0.5);
      log(`      WAL frames (distinct pages) per request by table/index: ${shown.map((f) => `${f.object} ${f.frames.toFixed(1)} (${f.pages.toFixed(1)})`).join(', ')}`);
    }
    const lastRound = warmup.cpuUsPerRound[warmup.cpuUsPerRound.length - 1];
    if (lastRound !== undefined && cost.cpuUs < 0.9 * lastRound) log(`      note: the window cost ${((1 - cost.cpuUs / lastRound) * 100).toFixed(0)} % less CPU per request than the last warm-up round`);
  }
}

/** The floor (bench/floor.ts): records one real redemption on a running server, then replays its writes. */
async function recordRedemption(server: ProbedServer, pools: Pools) {
  const code = pools.redeemCodes.pop();
  if (code === undefined) throw new Error('the pool of unused coupons ran out; seed more vouchers');
  return captureRedemption(server.server.url, server.probe, pools.fixtures, code, Math.floor(Math.random() * pools.customerCount));
}

async function runFloorScenario(db: ThrowawayDatabase, recorded: Awaited<ReturnType<typeof recordRedemption>>, pools: Pools, projectId: string, options: Options, rows: ScenarioRow[]): Promise<void> {
  const floor = await runFloor(db, recorded, {
    connections: options.connections,
    seconds: options.seconds,
    warmupSeconds: options.quick ? 1 : 3,
    walTransactions: 1000,
    campaignId: pools.fixtures.coupon.campaignId,
    projectId,
    takeCode: () => pools.redeemCodes.pop(),
  });
  const empty = rows.find((r) => r.db === db.dialect && r.processes === 1 && r.scenario === 'empty');
  const row: ScenarioRow = {
    db: db.dialect,
    processes: 1,
    scenario: 'floor',
    title: `raw ${db.dialect === 'sqlite' ? 'better-sqlite3' : 'pg'}: the writes of one redemption per transaction (${floor.statements - 2} statements)`,
    load: { seconds: floor.seconds, rps: floor.rps, ok: floor.transactions, non2xx: 0, errors: 0, p50: floor.p50, p99: floor.p99, peakRss: [], statuses: {} },
    // Against the run's first empty window: the floor has no server to measure the empty route on.
    ratio: empty ? floor.rps / empty.load.rps : null,
    emptyRps: empty?.load.rps ?? null,
    cost: { cpuUs: floor.cpuUs, statements: floor.statements, requests: floor.transactions, host: floor.host },
    wal: floor.wal,
    warmup: { seconds: floor.warmupSeconds, requests: 0, cpuUsPerRound: [], settled: true, rate: floor.rps },
    floorRatio: 1,
    lockWaits: null,
  };
  rows.push(row);
  for (const r of rows) if (r.db === db.dialect && r.scenario === 'redeem') r.floorRatio = r.load.rps / floor.rps;
  log(`  ${db.dialect} ×1 floor             ${floor.rps.toFixed(0).padStart(7)} tx/s   p50 ${floor.p50.toFixed(2)} ms  p99 ${floor.p99.toFixed(2)} ms  (bench process CPU)`);
  log(`      ${formatCost(row)}`);
  log(`      writes: ${describeWrites(recorded.writes)}`);
  if (process.env.BENCH_FLOOR_SQL) for (const w of recorded.writes) log(`      ${w.sql.slice(0, 3000)}`);
  const redeem = rows.find((r) => r.db === db.dialect && r.processes === 1 && r.scenario === 'redeem');
  if (redeem?.floorRatio) log(`      redeem is ${(redeem.floorRatio * 100).toFixed(1)} % of the floor`);
}

async function benchDatabase(
  dialect: 'sqlite' | 'postgres',
  stamp: string,
  options: Options,
  rows: ScenarioRow[],
  jobs: JobRow[],
  pages: PageRow[],
  seeds: Array<SeedReport & { db: string; sizeBytes: number; invariants: string[] }>,
): Promise<void> {
  const db = await createBenchDatabase(dialect, stamp);
  log(`\n== ${dialect}: ${db.url}`);
  try {
    const setupStarted = Date.now();
    const { fixtures, requestStartMs } = await prepare(db, options);
    log(`  fixtures through the API (${options.scale.members} loyalty members): ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`);
    const bulk = await openBulk(db);
    let pools: Pools;
    let projectId: string;
    try {
      const seed = await seedBulk(bulk, fixtures, { customerSourceId: TEMPLATE_CUSTOMER.source_id, requestStartMs }, options.scale, log);
      const invariants = await checkInvariants(bulk, fixtures, seed.projectId);
      if (invariants.length > 0) throw new Error(`seeded data breaks invariants:\n${invariants.join('\n')}`);
      pools = await readPools(bulk, fixtures, seed.projectId, options.scale.customers);
      projectId = seed.projectId;
      seeds.push({ ...seed, db: dialect, sizeBytes: await db.sizeBytes(), invariants });
      log(`  seeded in ${seed.seconds.toFixed(1)} s; database ${(((await db.sizeBytes()) / 1024 ** 3) * 1000).toFixed(0)} MB; invariants hold`);
    } finally {
      await bulk.close();
    }

    const wantFloor = !options.only || options.only.has('floor') || options.only.has('redeem');
    const wantScenarios = !options.only || SCENARIOS.some((s) => options.only?.has(s.name)) || wantFloor;
    if (wantScenarios) {
      const server = await startProbedServer(db.url);
      let recorded: Awaited<ReturnType<typeof recordRedemption>> | null = null;
      try {
        await runScenarios(db, [server], pools, options, rows);
        if (wantFloor) recorded = await recordRedemption(server, pools);
      } finally {
        await server.server.stop();
      }
      // With the server stopped: the floor has the database and the machine to itself.
      if (recorded) await runFloorScenario(db, recorded, pools, projectId, options, rows);
      if (dialect === 'postgres' && options.scaleOut) {
        const servers = await Promise.all([0, 1].map(() => startProbedServer(db.url)));
        try {
          await runScenarios(db, servers, pools, options, rows);
        } finally {
          await Promise.all(servers.map((s) => s.server.stop()));
        }
        const floor = rows.find((r) => r.db === dialect && r.scenario === 'floor');
        for (const r of rows) if (floor && r.db === dialect && r.scenario === 'redeem') r.floorRatio = r.load.rps / floor.load.rps;
      }
    }
    if (!options.only || options.only.has('pages')) {
      const server = await ServerProcess.start({ databaseUrl: db.url });
      let timings: FirstPageTiming[];
      try {
        timings = await timeFirstPages(server);
      } finally {
        await server.stop();
      }
      for (const timing of timings) {
        pages.push({ ...timing, db: dialect });
        log(`  first page ${timing.path} (total ${timing.total}): p50 ${timing.p50.toFixed(2)} ms, p99 ${timing.p99.toFixed(2)} ms, one request at a time`);
      }
    }
    if (!options.only || options.only.has('codes')) {
      const job = await generateCodesJob(db.url, options.codes);
      jobs.push({ ...job, db: dialect });
      log(`  job ${job.name}: ${job.seconds.toFixed(1)} s, peak RSS ${(job.peakRss / 1024 ** 2).toFixed(0)} MB`);
    }
    if (!options.only || options.only.has('export')) {
      const job = await exportRedemptionsJob(db.url);
      jobs.push({ ...job, db: dialect });
      log(`  job ${job.name}: ${job.rows} rows in ${job.seconds.toFixed(1)} s, peak RSS ${(job.peakRss / 1024 ** 2).toFixed(0)} MB`);
    }
    if (!options.only || options.only.has('bulk')) {
      const bulk = await openBulk(db);
      try {
        const job = await bulkMetadataJobLatency(db.url, bulk, projectId, pools, options.bulk);
        jobs.push({ ...job, db: dialect });
        log(`  job ${job.name}: ${job.seconds.toFixed(1)} s (worker inside the server), peak RSS ${(job.peakRss / 1024 ** 2).toFixed(0)} MB`);
        log(`    before the job: GET /health ${describeProbe(job.baseline.health)}`);
        log(`    before the job: redemption  ${describeProbe(job.baseline.redeem)}`);
        log(`    meanwhile GET /health ${describeProbe(job.health)}`);
        log(`    meanwhile redemption  ${describeProbe(job.redeem)}`);
        log(`    customer.updated events: ${job.events.count}, ${(job.events.bytes / 1024 ** 2).toFixed(1)} MB, ${(job.events.bytes / Math.max(1, job.events.count)).toFixed(0)} bytes each on average, largest ${job.events.maxBytes}`);
      } finally {
        await bulk.close();
      }
    }
    if (!options.only || options.only.has('signins')) {
      const job = await signInBurstLatency(db.url, pools);
      jobs.push({ ...job, db: dialect });
      log(`  job ${job.name}: ${job.seconds.toFixed(1)} s; ${job.detail}`);
      log(`    sign-ins: ${describeProbe(job.signIns.latency)}`);
      log(`    before: GET /health ${describeProbe(job.baseline.health)}`);
      log(`    before: redemption  ${describeProbe(job.baseline.redeem)}`);
      log(`    meanwhile GET /health ${describeProbe(job.health)}`);
      log(`    meanwhile redemption  ${describeProbe(job.redeem)}`);
    }
  } finally {
    if (options.keep) log(`  kept ${db.url}`);
    else await db.drop();
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  log(`punchcard bench: ${options.quick ? 'quick' : 'full'} scale ${JSON.stringify(options.scale)}, ${options.seconds} s per scenario, ${options.connections} connections, ${cpus().length} cores`);
  const rows: ScenarioRow[] = [];
  const jobs: JobRow[] = [];
  const pages: PageRow[] = [];
  const seeds: Array<SeedReport & { db: string; sizeBytes: number; invariants: string[] }> = [];
  for (const dialect of options.dbs) await benchDatabase(dialect, stamp, options, rows, jobs, pages, seeds);
  const targets = checkTargets(rows, jobs, pages);
  const finishedAt = new Date();
  process.stdout.write(`\n${formatTable(rows, jobs, pages)}\n\nTargets (issues 7 and 18):\n${formatTargets(targets)}\n`);
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stamp}.json`);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        minutes: (finishedAt.getTime() - startedAt.getTime()) / 60_000,
        machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? '', memoryBytes: totalmem(), node: process.version },
        options: { ...options, only: options.only ? [...options.only] : null },
        couponCampaign: COUPON_CAMPAIGN,
        seeds,
        scenarios: rows.map((r) => ({ ...r, load: { ...r.load } })),
        jobs,
        pages,
        targets,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nResults written to ${file} (${((finishedAt.getTime() - startedAt.getTime()) / 60_000).toFixed(1)} min)\n`);
}

await main();
