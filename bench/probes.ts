import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverHeaders } from '../scripts/lib/keys.ts';
import { stackedBody, type Pools } from './scenarios.ts';

// What a person using the API sees while the server is busy with something else (a large job, a burst of
// sign-ins): two probes each keep one request in flight, GET /health on a new connection (what a load
// balancer does) and a stacked redemption on a kept-alive one (what a shop does), each waiting 20 ms
// between answers.

const PROBE_PAUSE_MS = 20;
/** A probe that has not answered by then counts as this long (the attack's clients gave up at 30 s). */
const PROBE_TIMEOUT_MS = 30_000;

export interface ProbeStats {
  count: number;
  /** Answers that were not 2xx, or no answer within the timeout. */
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

export function stats(latencies: number[], failures: number): ProbeStats {
  const sorted = Float64Array.from(latencies).sort();
  const pick = (p: number) => (sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN));
  return { count: sorted.length, failures, p50: pick(50), p99: pick(99), max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN) };
}

/** One request; resolves with its status (0 when it failed or timed out) and how long it took. */
export function timedRequest(url: URL, options: { method: string; path: string; headers?: Record<string, string>; body?: string; agent: http.Agent | false }): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number) => resolve({ status, ms: performance.now() - started });
    const request = http.request(
      { host: url.hostname, port: url.port, method: options.method, path: options.path, headers: options.headers, agent: options.agent, timeout: PROBE_TIMEOUT_MS },
      (response) => {
        response.resume();
        response.on('end', () => done(response.statusCode ?? 0));
        response.on('error', () => done(0));
      },
    );
    request.on('timeout', () => request.destroy(new Error('probe timed out')));
    request.on('error', () => done(0));
    request.end(options.body);
  });
}

/** Sends `next()` one at a time until `stop` says so; a failed or late answer counts as failure. */
async function probe(url: URL, next: () => { method: string; path: string; headers?: Record<string, string>; body?: string }, agent: http.Agent | false, running: () => boolean): Promise<ProbeStats> {
  const latencies: number[] = [];
  let failures = 0;
  while (running()) {
    const { status, ms } = await timedRequest(url, { ...next(), agent });
    latencies.push(ms);
    if (status < 200 || status >= 300) failures++;
    await sleep(PROBE_PAUSE_MS);
  }
  return stats(latencies, failures);
}

export interface LatencyProbes {
  /** Runs both probes until `until()` says stop: [GET /health, redemption]. */
  run(until: () => boolean): Promise<[ProbeStats, ProbeStats]>;
  close(): void;
}

/** The /health and redemption probes against one server; redemptions take unused coupons from the pools. */
export function latencyProbes(url: URL, pools: Pools): LatencyProbes {
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { ...serverHeaders(), 'content-type': 'application/json' };
  return {
    run: (until) =>
      Promise.all([
        probe(url, () => ({ method: 'GET', path: '/health' }), false, until),
        probe(
          url,
          () => {
            const code = pools.redeemCodes.pop();
            if (code === undefined) throw new Error('the pool of unused coupons ran out; seed more vouchers');
            return { method: 'POST', path: '/v1/redemptions', headers, body: stackedBody(pools, code) };
          },
          keepAlive,
          until,
        ),
      ]),
    close: () => keepAlive.destroy(),
  };
}

/** p50/p99/max of a probe, for the log. */
export function describeProbe(s: ProbeStats): string {
  return `p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(0)} ms (${s.count} requests, ${s.failures} failed)`;
}
