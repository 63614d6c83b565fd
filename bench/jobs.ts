import { Api, HttpClient } from '../scripts/lib/http-client.ts';
import { at, str } from '../scripts/lib/json.ts';
import { procMemory, RssSampler, ServerProcess } from '../scripts/lib/server-process.ts';
import { until } from '../scripts/lib/until.ts';

// The timed background jobs, each through the real path a client takes: the request that creates the
// work, the job row, a worker that claims and runs it, and polling the public API until it is done.
// The HTTP server runs without a worker and a separate `punchcard worker` process runs the job, so the
// peak RSS reported is that of the process that did the work (its kernel high-water mark, VmHWM, which
// includes start-up) and nothing else.

export interface JobResult {
  name: string;
  seconds: number;
  rows: number;
  peakRss: number;
  detail: string;
}

async function withWorker(databaseUrl: string, work: (api: Api, worker: ServerProcess) => Promise<Omit<JobResult, 'peakRss'>>): Promise<JobResult> {
  const server = await ServerProcess.start({ databaseUrl, worker: false });
  const worker = await ServerProcess.start({ databaseUrl, command: 'worker' });
  const sampler = new RssSampler(worker.pid).start(50);
  const http = new HttpClient(server.url);
  try {
    const result = await work(new Api(http), worker);
    const sampled = sampler.stop();
    const hwm = procMemory(worker.pid, 'VmHWM') ?? 0;
    return { ...result, peakRss: Math.max(sampled, hwm) };
  } finally {
    sampler.stop();
    http.close();
    await worker.stop();
    await server.stop();
  }
}

/** POST /v1/campaigns with vouchers_count N → generation job → campaign DONE. */
export async function generateCodesJob(databaseUrl: string, count: number): Promise<JobResult> {
  return withWorker(databaseUrl, async (api) => {
    const started = performance.now();
    const created = await api.ok('POST', '/v1/campaigns', {
      name: `Bench generated ${count} codes ${Date.now()}`,
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: count,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 }, redemption: { quantity: 1 }, code_config: { length: 10, prefix: 'GEN-' } },
    });
    const id = str(created, 'id');
    const done = await until('code generation', 30 * 60_000, async () => {
      const campaign = await api.ok('GET', `/v1/campaigns/${id}`);
      const status = at(campaign, 'vouchers_generation_status');
      if (status === 'FAILED') throw new Error('code generation failed');
      return status === 'DONE' ? campaign : null;
    });
    const seconds = (performance.now() - started) / 1000;
    return { name: `generate ${count} codes`, seconds, rows: Number(at(done, 'vouchers_count')), detail: `campaign ${id}` };
  });
}

/** POST /v1/exports of all redemptions → export job → export DONE (the CSV stored in the database). */
export async function exportRedemptionsJob(databaseUrl: string): Promise<JobResult> {
  return withWorker(databaseUrl, async (api) => {
    const started = performance.now();
    const created = await api.ok('POST', '/v1/exports', { exported_object: 'redemption' });
    const id = str(created, 'id');
    const done = await until('export', 30 * 60_000, async () => {
      const row = await api.ok('GET', `/v1/exports/${id}`);
      const status = at(row, 'status');
      if (status === 'ERROR') throw new Error(`export failed: ${JSON.stringify(row)}`);
      return status === 'DONE' ? row : null;
    });
    const seconds = (performance.now() - started) / 1000;
    const rows = Number(at(done, 'result', 'row_count') ?? 0);
    return { name: 'export redemptions', seconds, rows, detail: `export ${id}` };
  });
}
