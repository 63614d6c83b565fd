import { setTimeout as sleep } from 'node:timers/promises';
import { Api, HttpClient } from '../scripts/lib/http-client.ts';
import { at, str } from '../scripts/lib/json.ts';
import { RssSampler, ServerProcess } from '../scripts/lib/server-process.ts';
import type { Bulk } from './bulk.ts';
import type { JobResult } from './jobs.ts';
import { latencyProbes, type ProbeStats } from './probes.ts';
import type { Pools } from './scenarios.ts';
import { customerSourceId } from './seed.ts';

// How requests fare while one large bulk job runs inside the server, as README's default runs it
// (`punchcard start`: SQLite or PostgreSQL, the worker in the same process). By default the job is the
// largest the schema allows: a metadata merge into 100,000 existing customers (`--scale bulk=…`). Two
// probes each keep one request in flight: GET /health on a new connection (what a load balancer does)
// and a stacked redemption on a kept-alive one (what a shop does), each waiting 20 ms between answers.
// They run for BASELINE_SECONDS before the job (what this machine gives without it) and then until the
// job is done (bench/probes.ts); their p99 is what a person using the API during the job sees. The job's
// `customer.updated` events are measured afterwards: how many bytes the job added to the log per item.

export const BULK_JOB_MAX_ITEMS = 100_000;
const BASELINE_SECONDS = 10;

export interface BulkJobLatency extends JobResult {
  health: ProbeStats;
  redeem: ProbeStats;
  /** The same probes for BASELINE_SECONDS before the job was enqueued, on the same server. */
  baseline: { health: ProbeStats; redeem: ProbeStats };
  /** The job's customer.updated events: count, total and largest `data` in bytes. */
  events: { count: number; bytes: number; maxBytes: number };
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
  const probes = latencyProbes(new URL(server.url), pools);
  let running = true;
  try {
    const baselineEnds = performance.now() + BASELINE_SECONDS * 1000;
    const [baseHealth, baseRedeem] = await probes.run(() => performance.now() < baselineEnds);
    const started = performance.now();
    const created = await api.ok('POST', '/v1/customers/metadata/async', { source_ids: sourceIds, metadata: { bench_wave: 'spring', bench_score: 7 } });
    const id = str(created, 'async_action_id');
    const during = probes.run(() => running);
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
    probes.close();
    client.close();
    await server.stop();
  }
}
