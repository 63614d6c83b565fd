import { hostCost, hostSnapshot, type HostCost } from './host-cpu.ts';
import { runLoad, type LoadResult, type RequestMaker } from './load.ts';
import { delta, quietAll, type ProbedServer } from './probe.ts';
import type { WalMeter, WalReading } from './wal.ts';

// One scenario on running servers: a warm-up that lasts until the JIT has settled, the measured window
// with what it cost the servers, and (for writes) a WAL window.
//
// Every window is a number of requests, not a time: a window that ended on a clock would close its
// connections with requests still in the server, whose work would then fall into no window or the next
// one (the server drops queued requests of closed connections). The number is the last round's rate
// times the length wanted, so each window still lasts about that long; its req/s is its answers over
// the time until the last answer.

export interface Warmup {
  seconds: number;
  requests: number;
  /** Server CPU µs per request of each warm-up round, in order. */
  cpuUsPerRound: number[];
  /** Whether the last round stopped getting cheaper; false when the time limit ended the warm-up. */
  settled: boolean;
  /** req/s of the last round: sizes the next window. */
  rate: number;
}

export interface Cost {
  /** Server CPU (every thread of every server process) per answered request, µs. */
  cpuUs: number;
  /** SQLite statements or PostgreSQL round trips per answered request. */
  statements: number;
  /** Requests the servers answered in the window (the divisor above). */
  requests: number;
  /** The whole machine in the window (bench/host-cpu.ts); null where /proc cannot be read. */
  host?: HostCost | null;
}

export interface WalResult {
  bytesPerRequest: number;
  /** 2xx answers in the WAL window. */
  requests: number;
  /** PostgreSQL: the cluster's idle WAL rate, already subtracted (B/s). */
  backgroundPerSecond: number | null;
  /** PostgreSQL with pg_walinspect: full-page images per request, part of bytesPerRequest (bench/wal.ts). */
  fullPageImageBytesPerRequest?: number;
  /** SQLite with --profile: frames per request by table or index, most first (bench/wal.ts). */
  framesPerRequest?: Array<{ object: string; frames: number; pages: number }>;
}

export interface WarmupPolicy {
  connections: number;
  /** One round's length. */
  roundSeconds: number;
  /** The warm-up ends after this long even if CPU per request is still falling. */
  maxSeconds: number;
  /** At least this many requests before the warm-up may end (the JIT compiles by call counts). */
  minRequests: number;
}

/**
 * Waits until freshly started servers are idle: each uses under 5 % of a core for half a second (start-up
 * work such as the JIT compiling the app on its background threads would otherwise be charged to the
 * first scenario's requests). Returns the seconds waited; gives up after 20 s.
 */
export async function settle(servers: readonly ProbedServer[]): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 20_000) {
    const before = await Promise.all(servers.map((s) => s.probe.snapshot()));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await Promise.all(servers.map((s) => s.probe.snapshot()));
    const busiest = Math.max(...after.map((a, i) => a.cpu.user + a.cpu.system - (before[i]?.cpu.user ?? 0) - (before[i]?.cpu.system ?? 0)));
    if (busiest < 0.05 * 500_000) break;
  }
  return (performance.now() - started) / 1000;
}

/**
 * Rounds of load until the server's CPU per request has settled: the warm-up ends with a round whose CPU
 * per request (not req/s, so other processes on the machine matter less) is within 5 % of the round
 * before, after at least four rounds (the first a short one) and `minRequests`. The JIT compiles hot
 * functions after enough calls and recompiles them as types settle; CPU per request falls until it is
 * done, and can rest on a plateau for a round or two before the next tier (hence four rounds). A round
 * that costs more than the one before (another process took the cores meanwhile) does not end it.
 */
export async function warmUp(servers: readonly ProbedServer[], make: RequestMaker, policy: WarmupPolicy): Promise<Warmup> {
  const started = performance.now();
  const rounds: number[] = [];
  let requests = 0;
  let settled = false;
  const plain = servers.map((s) => s.server);
  // The first round is a few requests per connection, to learn the rate.
  let amount = 4 * policy.connections;
  let rate = 0;
  for (;;) {
    const before = await quietAll(servers);
    const load = await runLoad(plain, { connections: policy.connections, seconds: 0, amount, make });
    const cost = delta(before, await quietAll(servers));
    rate = load.ok / Math.max(0.001, load.seconds);
    amount = sized(rate, policy.roundSeconds);
    requests += cost.requests;
    const cpu = cost.cpuUs / Math.max(1, cost.requests);
    const previous = rounds[rounds.length - 1];
    rounds.push(cpu);
    if (previous !== undefined && rounds.length >= 4 && requests >= policy.minRequests && Math.abs(cpu / previous - 1) <= 0.05) {
      settled = true;
      break;
    }
    if ((performance.now() - started) / 1000 + policy.roundSeconds > policy.maxSeconds) break;
  }
  return { seconds: (performance.now() - started) / 1000, requests, cpuUsPerRound: rounds, settled, rate };
}

/** Requests for a window of about `seconds` at `rate`. */
export function sized(rate: number, seconds: number): number {
  return Math.max(50, Math.min(2_000_000, Math.round(rate * seconds)));
}

/** The measured window: load, and the servers' counters from before it started to after its last answer. */
export async function measureWindow(servers: readonly ProbedServer[], make: RequestMaker, connections: number, amount: number): Promise<{ load: LoadResult; cost: Cost }> {
  const before = await quietAll(servers);
  const hostBefore = hostSnapshot();
  const load = await runLoad(
    servers.map((s) => s.server),
    { connections, seconds: 0, amount, make },
  );
  const hostAfter = hostSnapshot();
  const d = delta(before, await quietAll(servers));
  const host = hostCost(hostBefore, hostAfter, d.requests);
  return { load, cost: { cpuUs: d.cpuUs / Math.max(1, d.requests), statements: d.statements / Math.max(1, d.requests), requests: d.requests, host } };
}

/** A WAL window's reading divided by the requests (or floor transactions) it held. */
export function walPerRequest(reading: WalReading, requests: number): WalResult {
  const perRequest = (n: number) => n / Math.max(1, requests);
  return {
    bytesPerRequest: perRequest(reading.bytes),
    requests,
    backgroundPerSecond: reading.backgroundPerSecond,
    ...(reading.fullPageImageBytes === undefined ? {} : { fullPageImageBytesPerRequest: perRequest(reading.fullPageImageBytes) }),
    ...(reading.frames ? { framesPerRequest: reading.frames.map((f) => ({ object: f.object, frames: perRequest(f.frames), pages: perRequest(f.pages) })) } : {}),
  };
}

/** A fixed number of requests at the same concurrency inside a WAL window (bench/wal.ts). */
export async function walWindow(servers: readonly ProbedServer[], make: RequestMaker, connections: number, amount: number, meter: WalMeter): Promise<WalResult> {
  try {
    await quietAll(servers);
    await meter.start();
    const load = await runLoad(
      servers.map((s) => s.server),
      { connections, seconds: 0, amount, make },
    );
    await quietAll(servers);
    return walPerRequest(await meter.stop(), load.ok);
  } finally {
    await meter.close();
  }
}
