import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { runWebhookTurn } from '../../src/jobs/webhooks.ts';
import { WebhookSender } from '../../src/services/webhooks/delivery.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { RECEIVER_NETWORKS, WebhookReceiver } from '../helpers/webhook-receiver.ts';

// A webhook turn of the worker (src/jobs/webhooks.ts) keeps dispatching and sending while there is a
// backlog: a full batch of the event log, or deliveries just sent. A stretch shorter than a batch is the
// end of the log for now; the turn ends there and what commits later waits for the next turn, so a steady
// stream of requests is not chased one commit at a time.

describe('webhook turn of the worker', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let sender: WebhookSender;
  let created = 0;
  before(async () => {
    t = await startTestApp({ config: { webhookAllowNetworks: RECEIVER_NETWORKS } });
    receiver = new WebhookReceiver();
    await receiver.start();
    sender = new WebhookSender(t.deps, { log: pino({ level: 'silent' }) });
    // Whatever setting up the project logged is dispatched before each test counts.
    await runWebhookTurn(t.deps, sender);
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  /** Writes `count` events (customer.created). */
  async function newCustomers(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const res = await t.request('POST', '/v1/customers', { json: { source_id: `turn-${++created}` } });
      assert.equal(res.status, 200, res.text);
    }
  }

  test('a log with nothing new costs one pass', async () => {
    const turn = await runWebhookTurn(t.deps, sender);
    assert.deepEqual(turn, { dispatchedEvents: 0, attempts: 0, passes: 1 });
  });

  test('a stretch shorter than a batch is dispatched in one pass, and the turn ends there', async () => {
    await newCustomers(3);
    const turn = await runWebhookTurn(t.deps, sender, { batchSize: 10 });
    assert.deepEqual(turn, { dispatchedEvents: 3, attempts: 0, passes: 1 });
  });

  test('a backlog of several batches is drained in one turn', async () => {
    await newCustomers(5);
    const turn = await runWebhookTurn(t.deps, sender, { batchSize: 2 });
    // 2 and 2 are full batches, so the turn goes on; 1 is the end of the log.
    assert.deepEqual(turn, { dispatchedEvents: 5, attempts: 0, passes: 3 });
    assert.deepEqual(await runWebhookTurn(t.deps, sender), { dispatchedEvents: 0, attempts: 0, passes: 1 });
  });

  test('deliveries queued behind each other are all sent in one turn', async () => {
    receiver.answer('/turn', { status: 200 });
    const hook = await t.request('POST', `/management/v1/projects/${t.projectId}/webhooks`, {
      headers: t.managementHeaders(),
      json: { target_url: receiver.url('/turn'), events: ['customer.created'] },
    });
    assert.equal(hook.status, 200, hook.text);
    await runWebhookTurn(t.deps, sender);
    await newCustomers(3);
    // One delivery of a webhook is sent at a time; each one sent lets the next move up, and the turn
    // goes on while it sends.
    const turn = await runWebhookTurn(t.deps, sender, { batchSize: 10 });
    assert.equal(turn.dispatchedEvents, 3);
    assert.equal(turn.attempts, 3);
    assert.equal(receiver.accepted('/turn').length, 3);
  });
});
