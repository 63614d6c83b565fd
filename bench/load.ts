import autocannon, { type RawRequest, type Result } from 'autocannon';
import { RssSampler, type ServerProcess } from '../scripts/lib/server-process.ts';

// Drives servers with autocannon (closed loop: each connection sends its next request when the answer
// to the previous one arrives). With several servers the connections are split evenly and each server
// gets its own autocannon instance in this process; their counts add up.

export type RequestMaker = () => RawRequest;

export interface LoadResult {
  seconds: number;
  /** 2xx answers per second. */
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Latency of 2xx answers in ms, from autocannon's per-response timings (fractional, not its 1 ms histogram). */
  p50: number;
  p99: number;
  /** Peak resident set (bytes) per server process, sampled every 100 ms during the run. */
  peakRss: number[];
  statuses: Record<string, number>;
}

/** When the last answer of a run arrived (performance.now()). */
interface LastAnswer {
  at: number;
}

function runOne(url: string, connections: number, length: { seconds: number } | { amount: number }, make: RequestMaker, latencies: number[], last: LastAnswer): Promise<Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        ...('amount' in length ? { amount: length.amount } : { duration: length.seconds }),
        pipelining: 1,
        timeout: 30,
        requests: [{ setupRequest: (request) => ({ ...request, ...make() }) }],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      last.at = performance.now();
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Runs for `seconds`, or until `amount` requests (split over the servers) are answered. */
export async function runLoad(servers: readonly ServerProcess[], options: { connections: number; seconds: number; amount?: number; make: RequestMaker }): Promise<LoadResult> {
  const samplers = servers.map((s) => new RssSampler(s.pid).start());
  const latencies: number[] = [];
  const per = Math.floor(options.connections / servers.length);
  const started = performance.now();
  const last: LastAnswer = { at: started };
  const results = await Promise.all(
    servers.map((s, i) => {
      const length = options.amount === undefined ? { seconds: options.seconds } : { amount: Math.max(1, Math.round(options.amount / servers.length)) };
      return runOne(s.url, i === servers.length - 1 ? options.connections - per * (servers.length - 1) : per, length, options.make, latencies, last);
    }),
  );
  // A run of a number of requests ends with its last answer. autocannon reports its end only at its next
  // one-second sample, and its `duration` with it: over a 4-second window that undercounted req/s by up
  // to a quarter, in steps (a PostgreSQL redeem window of 1,225 answers came out at 240, 306 or 403/s).
  const seconds = (options.amount === undefined ? performance.now() - started : last.at - started) / 1000;
  const peakRss = samplers.map((s) => s.stop());
  const statuses: Record<string, number> = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  for (const result of results) {
    for (const [code, { count }] of Object.entries(result.statusCodeStats)) {
      statuses[code] = (statuses[code] ?? 0) + Number(count);
      if (code.startsWith('2')) ok += Number(count);
    }
    non2xx += result.non2xx;
    errors += result.errors;
  }
  const sorted = Float64Array.from(latencies).sort();
  const measured = options.amount === undefined ? Math.max(...results.map((r) => r.duration)) : seconds;
  return { seconds, rps: ok / Math.max(measured, 0.001), ok, non2xx, errors, p50: percentile(sorted, 50), p99: percentile(sorted, 99), peakRss, statuses };
}
