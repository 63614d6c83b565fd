import { readdirSync, readFileSync } from 'node:fs';

// Where a window's CPU went on the whole machine, next to what the servers report of their own: how busy
// all cores were (/proc/stat), what the PostgreSQL server's processes used (/proc/<pid>/stat of every
// process named postgres) and what this process, the load generator, used. On a machine whose cores the
// database, the servers and the load generator share, a throughput target is out of reach when their
// CPU per request together, times the target, exceeds the cores. Linux only; elsewhere nothing is read.

/** Kernel clock ticks per second of /proc's CPU times (USER_HZ, 100 on every Linux build in use). */
const TICKS_PER_SECOND = 100;

export interface HostSnapshot {
  /** Ticks all cores were busy (not idle, not waiting for I/O) and all ticks, summed over cores. */
  busy: number;
  total: number;
  /** CPU of the PostgreSQL server's processes, µs (0 when none runs here). */
  postgresUs: number;
  /** CPU of this process (the load generator), µs. */
  benchUs: number;
}

export interface HostCost {
  /** Share of all cores' time that was busy during the window, 0..1. */
  busyShare: number;
  /** Per answered request, µs. */
  postgresUs: number;
  loadGeneratorUs: number;
}

function processTicks(pid: string): number {
  // The command name sits in parentheses and may hold spaces; utime and stime are fields 14 and 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const close = stat.lastIndexOf(')');
  if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) return 0;
  const fields = stat.slice(close + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function postgresTicks(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      ticks += processTicks(pid);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks;
}

export function hostSnapshot(): HostSnapshot | null {
  let cpuLine: string | undefined;
  try {
    cpuLine = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return null;
  }
  // cpu user nice system idle iowait irq softirq steal …
  const ticks = (cpuLine ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  const own = process.cpuUsage();
  return { busy: total - idle, total, postgresUs: (postgresTicks() * 1e6) / TICKS_PER_SECOND, benchUs: own.user + own.system };
}

export function hostCost(before: HostSnapshot | null, after: HostSnapshot | null, requests: number): HostCost | null {
  if (!before || !after || after.total <= before.total) return null;
  const per = Math.max(1, requests);
  return {
    busyShare: (after.busy - before.busy) / (after.total - before.total),
    postgresUs: (after.postgresUs - before.postgresUs) / per,
    loadGeneratorUs: (after.benchUs - before.benchUs) / per,
  };
}
