import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createWorker } from '../../src/jobs/registry.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { RECEIVER_NETWORKS, WebhookReceiver } from '../helpers/webhook-receiver.ts';

// README "Webhooks": after a receiver outage, an operator re-sends one delivery or replays every FAILED
// delivery of a webhook since a time (management API, Punchcard extension). The worker logs every attempt
// with its outcome, and /metrics counts deliveries by outcome with their latency.

interface Delivery {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  attempt_log: Array<{ attempt: number; series_attempt: number; response_status: number | null }>;
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('webhook operations: re-send, replay, logs and metrics', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let worker: Worker;
  const logLines: Array<Record<string, unknown>> = [];

  before(async () => {
    t = await startTestApp({ config: { webhookAllowNetworks: RECEIVER_NETWORKS } });
    receiver = new WebhookReceiver();
    await receiver.start();
    const log = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
    worker = createWorker(t.deps, log);
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  const base = () => `/management/v1/projects/${t.projectId}/webhooks`;
  const mgmt = (method: string, path: string, json?: unknown) => t.request(method, path, { headers: t.managementHeaders(), ...(json !== undefined ? { json } : {}) });

  async function deliveries(webhookId: string): Promise<Delivery[]> {
    const res = await mgmt('GET', `${base()}/${webhookId}/deliveries?order=created_at&limit=100`);
    assert.equal(res.status, 200, res.text);
    return res.body.data as Delivery[];
  }

  /** Runs the worker's webhook turns, moving the clock to each retry, until nothing is pending. */
  async function runUntilSettled(webhookId: string): Promise<void> {
    for (let turn = 0; turn < 60; turn++) {
      await worker.runPeriodic();
      const pending = (await deliveries(webhookId)).find((d) => d.status === 'PENDING');
      if (!pending) return;
      if (pending.next_attempt_at && Date.parse(pending.next_attempt_at) > t.clock.now().getTime()) t.clock.set(pending.next_attempt_at);
    }
    throw new Error('deliveries did not settle');
  }

  async function metric(line: RegExp): Promise<number> {
    const res = await t.request('GET', '/metrics', { headers: {} });
    const found = res.text.split('\n').find((l) => line.test(l));
    return found === undefined ? 0 : Number(found.split(' ').pop());
  }

  test('after an outage: re-send one delivery, then replay every failed one since a time', async () => {
    const failedBefore = await metric(/^punchcard_webhook_deliveries_total\{outcome="failed"\}/);
    receiver.answer('/outage', { status: 503 });
    const created = await mgmt('POST', base(), { target_url: receiver.url('/outage'), events: ['customer.created'] });
    assert.equal(created.status, 200, created.text);
    const hook = created.body.id as string;
    for (const source of ['o1', 'o2', 'o3']) await t.sdk().customers.create({ source_id: source });
    await runUntilSettled(hook);
    const failed = await deliveries(hook);
    assert.deepEqual(failed.map((d) => d.status), ['FAILED', 'FAILED', 'FAILED']);
    assert.equal(await metric(/^punchcard_webhook_deliveries_total\{outcome="failed"\}/), failedBefore + 3);
    assert.ok(logLines.some((l) => l.msg === 'webhook delivery failed for good: answered HTTP 503' && l.delivery_id === failed[0]?.id && l.outcome === 'failed' && l.response_status === 503));
    assert.ok(logLines.some((l) => l.outcome === 'retry' && l.level === 40 && typeof l.duration_ms === 'number'));

    // The receiver is back.
    receiver.answer('/outage', { status: 200 });
    const [first, second, third] = failed;
    assert.ok(first && second && third);
    const resent = await mgmt('POST', `${base()}/${hook}/deliveries/${first.id}/resend`);
    assert.equal(resent.status, 200, resent.text);
    assert.equal(resent.body.status, 'PENDING');
    assert.equal(resent.body.attempts, 12, 'the attempts made so far still count');
    assert.equal(resent.body.attempt_log.length, 12, 'the earlier attempts stay in the log');
    await runUntilSettled(hook);
    const afterResend = await deliveries(hook);
    assert.deepEqual(afterResend.map((d) => d.status), ['SUCCEEDED', 'FAILED', 'FAILED']);
    assert.equal(receiver.accepted('/outage').length, 1);
    // One count, one numbering: the delivery says 13 attempts and its log numbers them 1 … 13; the re-send
    // began a fresh series (series_attempt 1), which is what its retry schedule counts.
    assert.equal(afterResend[0]?.attempts, 13);
    assert.deepEqual(afterResend[0]?.attempt_log.map((a) => a.attempt), oneTo(13));
    assert.deepEqual(afterResend[0]?.attempt_log.map((a) => a.series_attempt), [...oneTo(12), 1]);
    assert.equal(receiver.accepted('/outage')[0]?.headers['x-punchcard-attempt'], '13', 'the header numbers it as the log does');

    // A PENDING, SUCCEEDED-then-resent or unknown delivery: PENDING/CANCELED cannot be re-sent; unknown is 404.
    const unknown = await mgmt('POST', `${base()}/${hook}/deliveries/whs_unknown/resend`);
    assert.equal(unknown.status, 404);

    // Replay from just after the first delivery was created: the other two go out, in log order.
    const replay = await mgmt('POST', `${base()}/${hook}/deliveries/replay`, { since: second.created_at });
    assert.equal(replay.status, 200, replay.text);
    assert.deepEqual(replay.body, { object: 'webhook_delivery_replay', webhook_id: hook, since: second.created_at, replayed: 2 });
    const queued = await deliveries(hook);
    assert.equal(queued.filter((d) => d.next_attempt_at !== null).length, 1, 'one delivery of a webhook in flight at a time');
    const again = await mgmt('POST', `${base()}/${hook}/deliveries/${second.id}/resend`);
    assert.equal(again.status, 400, 'already queued');
    assert.equal(again.body.key, 'invalid_payload');
    await runUntilSettled(hook);
    assert.deepEqual((await deliveries(hook)).map((d) => d.status), ['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    const sources = receiver.accepted('/outage').map((r) => (JSON.parse(r.body) as { data: { customer: { source_id: string } } }).data.customer.source_id);
    assert.deepEqual(sources, ['o1', 'o2', 'o3']);
    assert.ok(logLines.some((l) => l.msg === 'webhook delivered' && l.delivery_id === third.id && l.outcome === 'succeeded' && l.response_status === 200));

    // A re-send that fails again gets its own full series of 12 attempts before it is given up.
    receiver.answer('/outage', { status: 503 });
    assert.equal((await mgmt('POST', `${base()}/${hook}/deliveries/${first.id}/resend`)).status, 200);
    await runUntilSettled(hook);
    const failedAgain = (await deliveries(hook))[0];
    assert.equal(failedAgain?.status, 'FAILED');
    assert.equal(failedAgain?.attempts, 25);
    assert.deepEqual(failedAgain?.attempt_log.map((a) => a.attempt), oneTo(25));
    assert.deepEqual(failedAgain?.attempt_log.map((a) => a.series_attempt), [...oneTo(12), 1, ...oneTo(12)]);
    receiver.answer('/outage', { status: 200 });
    assert.equal((await mgmt('POST', `${base()}/${hook}/deliveries/${first.id}/resend`)).status, 200);
    await runUntilSettled(hook);

    // Nothing FAILED is left: a replay queues nothing.
    const none = await mgmt('POST', `${base()}/${hook}/deliveries/replay`, { since: '2000-01-01T00:00:00Z' });
    assert.equal(none.body.replayed, 0);
    const bad = await mgmt('POST', `${base()}/${hook}/deliveries/replay`, { since: 'yesterday' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_payload');

    assert.ok((await metric(/^punchcard_webhook_deliveries_total\{outcome="succeeded"\}/)) >= 3);
    assert.ok((await metric(/^punchcard_webhook_delivery_duration_seconds_count\{outcome="succeeded"\}/)) >= 3);
  });

  test('another project cannot re-send or replay this project\'s deliveries', async () => {
    const created = await mgmt('POST', base(), { target_url: receiver.url('/mine'), events: ['customer.created'] });
    const hook = created.body.id as string;
    const other = await mgmt('POST', '/management/v1/projects', { name: 'Other', case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' });
    const path = `/management/v1/projects/${other.body.id}/webhooks/${hook}/deliveries`;
    assert.equal((await mgmt('POST', `${path}/replay`, { since: '2000-01-01T00:00:00Z' })).status, 404);
    assert.equal((await mgmt('POST', `${path}/whs_x/resend`)).status, 404);
  });
});
