import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api, HttpClient } from '../scripts/lib/http-client.ts';
import { at, str } from '../scripts/lib/json.ts';
import { serverHeaders } from '../scripts/lib/keys.ts';
import { RssSampler, ServerProcess } from '../scripts/lib/server-process.ts';
import type { Bulk } from './bulk.ts';
import type { JobResult } from './jobs.ts';
import { stackedBody, type Pools } from './scenarios.ts';
import { customerSourceId } from './seed.ts';

// How requests fare while one large bulk job runs inside the server, as README's default runs it
// (`punchcard start`: SQLite or PostgreSQL, the worker in the same process). By default the job is the
// largest the schema allows: a metadata merge into 100,000 existing customers (`--scale bulk=…`). Two
// probes each keep one request in flight: GET /health on a new connection (what a load balancer does)
// and a stacked redemption on a kept-alive one (what a shop does), each waiting 20 ms between answers.
// They run for BASELINE_SECONDS before the job (what this machine gives without it) and then until the
// job is done; their p99 is what a person using the API during the job sees. The job's
// `customer.updated` events are measured afterwards: how many bytes the job added to the log per item.

export const BULK_JOB_MAX_ITEMS = 100_000;
const PROBE_PAUSE_MS = 20;
/** A probe that has not answered by then counts as this long (the attack's clients gave up at 30 s). */
const PROBE_TIMEOUT_MS = 30_000;
const BASELINE_SECONDS = 10;

export interface ProbeStats {
  count: number;
  /** Answers that were not 2xx, or no answer within the timeout. */
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

export interface BulkJobLatency extends JobResult {
  health: ProbeStats;
  redeem: ProbeStats;
  /** The same probes for BASELINE_SECONDS before the job was enqueued, on the same server. */
  baseline: { health: ProbeStats; redeem: ProbeStats };
  /** The job's customer.updated events: count, total and largest `data` in bytes. */
  events: { count: number; bytes: number; maxBytes: number };
}

function stats(latencies: number[], failures: number): ProbeStats {
  const sorted = Float64Array.from(latencies).sort();
  const pick = (p: number) => (sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN));
  return { count: sorted.length, failures, p50: pick(50), p99: pick(99), max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN) };
}

/** One request; resolves with its status (0 when it failed or timed out) and how long it took. */
function timedRequest(url: URL, options: { method: string; path: string; headers?: Record<string, string>; body?: string; agent: http.Agent | false }): Promise<{ status: number; ms: number }> {
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

async function jobEvents(bulk: Bulk, projectId: string, afterSeq: number): Promise<BulkJobLatency['events']> {
  const size = bulk.dialect === 'postgres' ? 'octet_length(data)' : 'length(cast(data as blob))';
  const [row] = await bulk.query(
    `select count(*) as n, coalesce(sum(${size}), 0) as bytes, coalesce(max(${size}), 0) as max_bytes from events where project_id = ? and type = 'customer.updated' and seq > ?`,
    [projectId, afterSeq],
  );
  return { count: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0), maxBytes: Number(row?.max_bytes ?? 0) };
}

/** POST /v1/customers/metadata/async over `size` seeded customers, probed until the job is DONE. */
export async function bulkMetadataJobLatency(databaseUrl: string, bulk: Bulk, projectId: string, pools: Pools, size: number): Promise<BulkJobLatency> {
  const items = Math.min(BULK_JOB_MAX_ITEMS, pools.customerCount, size);
  const sourceIds = Array.from({ length: items }, (_, i) => customerSourceId(i));
  const [last] = await bulk.query('select coalesce(max(seq), 0) as seq from events');
  const afterSeq = Number(last?.seq ?? 0);
  const server = await ServerProcess.start({ databaseUrl });
  const sampler = new RssSampler(server.pid).start();
  const client = new HttpClient(server.url);
  const api = new Api(client);
  const url = new URL(server.url);
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  const headers = { ...serverHeaders(), 'content-type': 'application/json' };
  const probes = (until: () => boolean) =>
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
    ]);
  try {
    const baselineEnds = performance.now() + BASELINE_SECONDS * 1000;
    const [baseHealth, baseRedeem] = await probes(() => performance.now() < baselineEnds);
    const started = performance.now();
    const created = await api.ok('POST', '/v1/customers/metadata/async', { source_ids: sourceIds, metadata: { bench_wave: 'spring', bench_score: 7 } });
    const id = str(created, 'async_action_id');
    const during = probes(() => running);
    let action: unknown;
    for (;;) {
      await sleep(500);
      action = await api.ok('GET', `/v1/async-actions/${id}`);
      const status = at(action, 'status');
      if (status === 'FAILED') throw new Error(`the bulk job failed: ${JSON.stringify(action)}`);
      if (status === 'DONE') break;
    }
    const seconds = (performance.now() - started) / 1000;
    running = false;
    const [health, redeem] = await during;
    const done = Number(at(action, 'result', 'done_count'));
    if (done !== items) throw new Error(`the bulk job applied ${done} of ${items} items: ${JSON.stringify(action)}`);
    return {
      name: `bulk metadata ${items} customers`,
      seconds,
      rows: done,
      peakRss: sampler.stop(),
      detail: `async action ${id}`,
      health,
      redeem,
      baseline: { health: baseHealth, redeem: baseRedeem },
      events: await jobEvents(bulk, projectId, afterSeq),
    };
  } finally {
    running = false;
    sampler.stop();
    keepAlive.destroy();
    client.close();
    await server.stop();
  }
}
