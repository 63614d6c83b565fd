import type { BulkJobLatency } from './job-latency.ts';
import type { JobResult } from './jobs.ts';
import type { FirstPageTiming } from './list-pages.ts';
import type { LoadResult } from './load.ts';
import { lockWaitShare, type LockWaits } from './lock-waits.ts';
import type { Cost, WalResult, Warmup } from './measure.ts';

// The printed table and the targets of issues 7 and 18, checked against one run's numbers.

export interface ScenarioRow {
  db: 'sqlite' | 'postgres';
  processes: number;
  scenario: string;
  title: string;
  load: LoadResult;
  /**
   * req/s as a fraction of the empty route's req/s (same database, same processes) in a window of it run
   * right after this scenario's window (bench/run.ts); the empty route's own row is 1.
   */
  ratio: number | null;
  /** The empty route's req/s in that window, which `ratio` divides by. */
  emptyRps: number | null;
  /** What the measured window cost the servers per request (the floor: the bench process per transaction). */
  cost: Cost | null;
  /** Write scenarios: WAL bytes per request, from a window of their own. */
  wal: WalResult | null;
  warmup: Warmup | null;
  /** redeem: req/s as a fraction of the floor's tx/s measured in the same run on the same database. */
  floorRatio: number | null;
  /** PostgreSQL: server connections waiting on locks during the measured window (bench/lock-waits.ts). */
  lockWaits: LockWaits | null;
}

export interface JobRow extends JobResult, Partial<Pick<BulkJobLatency, 'health' | 'redeem' | 'events'>> {
  db: 'sqlite' | 'postgres';
}

export interface PageRow extends FirstPageTiming {
  db: 'sqlite' | 'postgres';
}

export interface TargetCheck {
  target: string;
  measured: string;
  holds: boolean | null;
}

const MB = 1024 * 1024;

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

export function formatTable(rows: ScenarioRow[], jobs: JobRow[], pages: PageRow[]): string {
  const header = ['db', 'procs', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs', 'stmts', 'WAL KB', 'vs empty', 'vs floor', 'warm-up s', 'peak RSS MB', 'non-2xx'];
  const widths = [8, 5, 17, 9, 8, 8, 7, 6, 7, 8, 8, 9, 11, 8];
  const lines = [header.map((h, i) => pad(h, widths[i] ?? 8, i >= 3)).join('  ')];
  lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) {
    const cells = [
      r.db,
      String(r.processes),
      r.scenario,
      r.load.rps.toFixed(0),
      r.load.p50.toFixed(2),
      r.load.p99.toFixed(2),
      r.cost ? r.cost.cpuUs.toFixed(0) : '-',
      r.cost ? r.cost.statements.toFixed(1) : '-',
      r.wal ? (r.wal.bytesPerRequest / 1024).toFixed(1) : '-',
      r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(1)} %`,
      r.floorRatio === null ? '-' : `${(r.floorRatio * 100).toFixed(1)} %`,
      r.warmup ? `${r.warmup.seconds.toFixed(0)}${r.warmup.settled ? '' : '*'}` : '-',
      r.load.peakRss.length === 0 ? '-' : r.load.peakRss.map((b) => (b / MB).toFixed(0)).join('+'),
      String(r.load.non2xx + r.load.errors),
    ];
    lines.push(cells.map((c, i) => pad(c, widths[i] ?? 8, i >= 3)).join('  '));
  }
  if (jobs.length > 0) {
    lines.push('');
    lines.push(['db', 'job', 'rows', 'seconds', 'peak RSS MB'].map((h, i) => pad(h, [8, 26, 10, 8, 11][i] ?? 8, i >= 2)).join('  '));
    for (const j of jobs) {
      lines.push([j.db, j.name, String(j.rows), j.seconds.toFixed(1), (j.peakRss / MB).toFixed(0)].map((c, i) => pad(c, [8, 26, 10, 8, 11][i] ?? 8, i >= 2)).join('  '));
    }
  }
  if (pages.length > 0) {
    const widths = [8, 26, 10, 8, 8];
    lines.push('');
    lines.push(['db', 'first page (1 at a time)', 'total', 'p50 ms', 'p99 ms'].map((h, i) => pad(h, widths[i] ?? 8, i >= 2)).join('  '));
    for (const p of pages) {
      lines.push([p.db, p.path, String(p.total), p.p50.toFixed(2), p.p99.toFixed(2)].map((c, i) => pad(c, widths[i] ?? 8, i >= 2)).join('  '));
    }
  }
  lines.push('');
  lines.push('CPU µs: server CPU per request (all threads; floor: the bench process per transaction). stmts: SQLite statements,');
  lines.push('PostgreSQL round trips per request. WAL KB: per request, in a window of its own. warm-up s: until CPU per request');
  lines.push('stopped falling (* = time limit reached first). vs floor: redeem req/s over the floor\'s tx/s.');
  return lines.join('\n');
}

export function checkTargets(rows: ScenarioRow[], jobs: JobRow[], pages: PageRow[]): TargetCheck[] {
  const find = (db: string, processes: number, scenario: string) => rows.find((r) => r.db === db && r.processes === processes && r.scenario === scenario);
  const checks: TargetCheck[] = [];
  const ratio = (db: string, scenario: string, min: number, label: string) => {
    const row = find(db, 1, scenario);
    if (!row || row.ratio === null) return;
    checks.push({ target: `${label} ≥ ${Math.round(min * 100)} % of empty route (${db})`, measured: `${(row.ratio * 100).toFixed(1)} %`, holds: row.ratio >= min });
  };
  const redeem = find('sqlite', 1, 'redeem');
  if (redeem) checks.push({ target: 'redeem p99 ≤ 10 ms (sqlite)', measured: `${redeem.load.p99.toFixed(2)} ms`, holds: redeem.load.p99 <= 10 });
  // Issue 18.
  if (redeem) {
    checks.push({ target: 'redeem ≥ 1,000/s and p99 ≤ 50 ms at 32 connections (sqlite)', measured: `${redeem.load.rps.toFixed(0)}/s, p99 ${redeem.load.p99.toFixed(1)} ms`, holds: redeem.load.rps >= 1000 && redeem.load.p99 <= 50 });
    if (redeem.floorRatio !== null) checks.push({ target: 'redeem ≥ 50 % of the floor (sqlite)', measured: `${(redeem.floorRatio * 100).toFixed(1)} %`, holds: redeem.floorRatio >= 0.5 });
    if (redeem.cost) checks.push({ target: 'statements per redemption ≤ 15 (sqlite)', measured: redeem.cost.statements.toFixed(1), holds: redeem.cost.statements <= 15 });
  }
  const pgRedeem = find('postgres', 1, 'redeem');
  if (pgRedeem) {
    checks.push({ target: 'redeem ≥ 400/s, one process (postgres)', measured: `${pgRedeem.load.rps.toFixed(0)}/s`, holds: pgRedeem.load.rps >= 400 });
    if (pgRedeem.lockWaits) {
      const share = lockWaitShare(pgRedeem.lockWaits);
      checks.push({ target: 'sampled lock waits < 5 % of busy connections, one process (postgres)', measured: `${(share * 100).toFixed(1)} %`, holds: share < 0.05 });
    }
    if (pgRedeem.cost) checks.push({ target: 'round trips per redemption ≤ 10 (postgres)', measured: pgRedeem.cost.statements.toFixed(1), holds: pgRedeem.cost.statements <= 10 });
  }
  ratio('sqlite', 'validate', 0.2, 'validate');
  ratio('sqlite', 'get-customer', 0.4, 'GET customer');
  ratio('sqlite', 'get-voucher', 0.4, 'GET voucher');
  // Issue 7.
  ratio('sqlite', 'redeem', 0.3, 'redeem');
  ratio('sqlite', 'validate', 0.5, 'validate');
  ratio('sqlite', 'get-customer', 0.7, 'GET customer');
  ratio('sqlite', 'get-voucher', 0.7, 'GET voucher');
  for (const db of ['sqlite', 'postgres'] as const) {
    const codes = jobs.find((j) => j.db === db && j.name.startsWith('generate'));
    if (codes) {
      const perMillion = codes.seconds * (1_000_000 / Math.max(1, codes.rows));
      checks.push({ target: `1M codes ≤ 20 s (${db})`, measured: `${codes.seconds.toFixed(1)} s for ${codes.rows} (${perMillion.toFixed(1)} s per 1M)`, holds: perMillion <= 20 });
    }
    const exported = jobs.find((j) => j.db === db && j.name.startsWith('export'));
    if (exported) {
      const perMillion = exported.seconds * (1_000_000 / Math.max(1, exported.rows));
      checks.push({
        target: `1M-row export ≤ 30 s at ≤ 250 MB (${db})`,
        measured: `${exported.seconds.toFixed(1)} s for ${exported.rows} rows (${perMillion.toFixed(1)} s per 1M), ${(exported.peakRss / MB).toFixed(0)} MB`,
        holds: perMillion <= 30 && exported.peakRss <= 250 * MB,
      });
    }
  }
  for (const db of ['sqlite', 'postgres'] as const) {
    const bulk = jobs.find((j) => j.db === db && j.name.startsWith('bulk metadata'));
    for (const [probe, stats] of [['GET /health', bulk?.health], ['redemption', bulk?.redeem]] as const) {
      if (!bulk || !stats) continue;
      checks.push({
        target: `${probe} p99 ≤ 100 ms while a ${bulk.rows}-item bulk job runs in the server (${db})`,
        measured: `${stats.p99.toFixed(1)} ms (max ${stats.max.toFixed(0)} ms, ${stats.count} requests, ${stats.failures} failed)`,
        holds: stats.p99 <= 100 && stats.failures === 0,
      });
    }
  }
  // The whole request's time bounds the page's database time from above.
  for (const p of pages) {
    checks.push({ target: `GET ${p.path} first page ≤ 20 ms at ${p.total} rows (${p.db})`, measured: `p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms per request`, holds: p.p50 <= 20 });
  }
  const scenarios = [...new Set(rows.filter((r) => r.db === 'postgres' && r.processes === 2).map((r) => r.scenario))];
  for (const scenario of scenarios) {
    const one = find('postgres', 1, scenario);
    const two = find('postgres', 2, scenario);
    if (!one || !two || scenario === 'empty') continue;
    const factor = two.load.rps / Math.max(1, one.load.rps);
    checks.push({ target: `two PostgreSQL processes ≥ 1.6× one (${scenario})`, measured: `${factor.toFixed(2)}×`, holds: factor >= 1.6 });
  }
  return checks;
}

export function formatTargets(checks: TargetCheck[]): string {
  return checks.map((c) => `${c.holds === null ? '  ?' : c.holds ? ' ok' : ' NO'}  ${c.target}: ${c.measured}`).join('\n');
}
