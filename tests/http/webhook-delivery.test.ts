import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { retryDelayMs } from '../../src/domain/webhooks/event-kinds.ts';
import { verifyPunchcardSignature } from '../../src/domain/webhooks/signature.ts';
import { inTransaction, makeEvent } from '../../src/services/context.ts';
import { WebhookSender } from '../../src/services/webhooks/delivery.ts';
import { dispatchWebhookEvents } from '../../src/services/webhooks/dispatch.ts';
import { appendEvents } from '../../src/store/events.ts';
import { claimDueDeliveries } from '../../src/store/webhooks.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, testDialect } from '../helpers/database.ts';
import { RECEIVER_NETWORKS, WebhookReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.ts';

// Signed, ordered, at-least-once webhook delivery (ARCHITECTURE "Event log, activities and webhooks";
// DECISIONS 22, 23), against a real HTTP receiver. Time moves with the test clock; the worker runs
// when the test says so.

interface Envelope {
  id: string;
  project_id: string;
  created_at: string;
  type: string;
  data: { customer?: { id: string; source_id: string } };
  source: { id: string; object: string; target_url: string };
  event: { id: string; type: string; created_at: string; entity_id: string; group_id: string; event_source: { channel: string } };
}

const envelope = (r: ReceivedRequest) => JSON.parse(r.body) as Envelope;
/** What a receiver saw, as "type source_id" lines, e.g. "customer.created c1". */
const seen = (requests: readonly ReceivedRequest[]) => requests.map((r) => `${envelope(r).type} ${envelope(r).data.customer?.source_id ?? '?'}`);

/** A promise (`reached`) and the call that settles it (`open`): one side of a test waits for the other. */
function latch(): { reached: Promise<void>; open: () => void } {
  let open!: () => void;
  const reached = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { reached, open };
}

describe('webhook delivery', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let secret: string;

  before(async () => {
    // The receiver listens on loopback, which targets reach only through the allow-list.
    t = await startTestApp({ config: { webhookAllowNetworks: RECEIVER_NETWORKS } });
    receiver = new WebhookReceiver();
    await receiver.start();
    const project = await t.request('GET', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() });
    secret = project.body.webhook_token;
    assert.ok(secret.length >= 20);
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  async function createWebhook(path: string, events: string[], active = true): Promise<string> {
    const res = await t.request('POST', `/management/v1/projects/${t.projectId}/webhooks`, {
      headers: t.managementHeaders(),
      json: { target_url: receiver.url(path), events, active },
    });
    assert.equal(res.status, 200);
    return res.body.id as string;
  }

  async function deleteWebhook(id: string): Promise<void> {
    const res = await t.request('DELETE', `/management/v1/projects/${t.projectId}/webhooks/${id}`, { headers: t.managementHeaders() });
    assert.equal(res.status, 204);
  }

  async function deliveries(webhookId: string, query = 'order=created_at&limit=100') {
    const res = await t.request('GET', `/management/v1/projects/${t.projectId}/webhooks/${webhookId}/deliveries?${query}`, {
      headers: t.managementHeaders(),
    });
    assert.equal(res.status, 200);
    return res.body.data as Array<{
      id: string;
      status: string;
      attempts: number;
      type: string;
      next_attempt_at: string | null;
      last_attempt_at: string | null;
      last_error: string | null;
      event: { id: string };
      attempt_log: Array<{ attempt: number; at: string; response_status: number | null; error: string | null }>;
    }>;
  }

  /** One turn of the worker's periodic work (webhook dispatch and delivery among it). */
  const pump = () => t.worker.runPeriodic();

  test('a delivery is the vendor envelope, signed both ways over the exact body', async () => {
    const hook = await createWebhook('/signed', ['customer.created']);
    const customer = (await t.sdk().customers.create({ source_id: 'sig-1', name: 'Signed' })) as { id: string };
    await pump();
    const [request] = receiver.to('/signed');
    assert.ok(request, 'the receiver got the delivery');
    assert.equal(receiver.to('/signed').length, 1);

    const expected = createHmac('sha256', secret).update(request.body).digest('hex');
    assert.equal(request.headers['x-voucherify-signature'], expected);
    const punchcard = String(request.headers['x-punchcard-signature']);
    const signedAt = Number(/^t=(\d+),/.exec(punchcard)?.[1]);
    assert.ok(verifyPunchcardSignature(secret, request.body, punchcard, signedAt));
    assert.equal(punchcard.split(',v1=')[1], createHmac('sha256', secret).update(`${signedAt}.${request.body}`).digest('hex'));
    assert.ok(Math.abs(signedAt - t.clock.now().getTime() / 1000) < 5, 't is the send time in unix seconds');
    assert.equal(request.headers['content-type'], 'application/json');

    const body = envelope(request);
    assert.match(body.id, /^whs_/);
    assert.equal(body.project_id, t.projectId);
    assert.equal(body.type, 'customer.created');
    assert.equal(body.data.customer?.id, customer.id);
    assert.deepEqual(body.source, { id: hook, object: 'webhook', target_url: receiver.url('/signed') });
    assert.match(body.event.id, /^evcus_/);
    assert.equal(body.event.type, 'customer.created');
    assert.equal(body.event.entity_id, customer.id);
    assert.match(body.event.group_id, /^v-[0-9a-f]{18}$/);
    assert.equal(body.event.event_source.channel, 'API');
    assert.deepEqual(Object.keys(body).sort(), ['created_at', 'data', 'event', 'id', 'project_id', 'source', 'type']);

    const [delivery] = await deliveries(hook);
    assert.equal(delivery?.id, body.id);
    assert.equal(delivery?.status, 'SUCCEEDED');
    assert.equal(delivery?.attempts, 1);
    assert.equal(delivery?.attempt_log[0]?.response_status, 200);
    await deleteWebhook(hook);
  });

  test('a redemption.succeeded delivery carries the record with its snapshots as stored, in a body that is its own serialisation', async () => {
    const hook = await createWebhook('/redeemed', ['redemption.succeeded']);
    const voucher = (await t.sdk().vouchers.create({ code: 'HOOK-SNAP-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 150 } } as never)) as { code: string };
    const customer = (await t.sdk().customers.create({ source_id: 'hook-snap', name: 'Snap "Quoted" Shot', metadata: { note: 'é \\ \u0001' } })) as { id: string };
    const redeemed = (await t.sdk().redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: voucher.code }],
      order: { amount: 2000, items: [{ source_id: 'sku-hook', quantity: 2, price: 1000 }], metadata: { channel: 'shop' } },
      customer: { id: customer.id },
    } as never)) as { redemptions: Array<{ id: string }> };
    await pump();
    const bodies = receiver.to('/redeemed').map((r) => r.body);
    assert.equal(bodies.length, 1, 'one redeemable: one record, no parent');
    for (const body of bodies) assert.equal(body, JSON.stringify(JSON.parse(body)));
    const child = bodies.map((body) => JSON.parse(body)).find((b) => b.data.redemption.id === redeemed.redemptions[0]?.id);
    assert.ok(child, "the child's event was delivered");
    const record = await t.request('GET', `/v1/redemptions/${child.data.redemption.id}`);
    assert.deepEqual(child.data.redemption, record.body);
    assert.deepEqual(child.data.order, record.body.order);
    assert.deepEqual(child.data.customer, record.body.customer);
    assert.deepEqual(child.data.voucher, record.body.voucher);
    assert.equal(child.data.customer.name, 'Snap "Quoted" Shot');
    assert.equal(child.data.order.items[0].source_id, 'sku-hook');
    await deleteWebhook(hook);
  });

  test('a receiver that fails and goes away gets every event, once, in log order, after it comes back', async () => {
    const hook = await createWebhook('/flaky', ['customer.created', 'customer.deleted']);
    const sdk = t.sdk();
    await sdk.customers.create({ source_id: 'c1' });
    await pump();
    assert.deepEqual(seen(receiver.accepted('/flaky')), ['customer.created c1']);

    receiver.answer('/flaky', { status: 500 });
    await sdk.customers.create({ source_id: 'c2' });
    await sdk.customers.create({ source_id: 'c3' });
    await sdk.customers.delete('c1');
    await pump();
    let list = await deliveries(hook, 'status=PENDING&order=created_at');
    assert.deepEqual(
      list.map((d) => [d.type, d.attempts, d.last_error]),
      [
        ['customer.created', 1, 'answered HTTP 500'],
        ['customer.created', 0, null],
        ['customer.deleted', 0, null],
      ],
      'the head failed once; the rest wait behind it',
    );
    const head = list[0];
    assert.ok(head?.next_attempt_at && head.last_attempt_at);
    const wait = Date.parse(head.next_attempt_at) - Date.parse(head.last_attempt_at);
    assert.ok(wait >= 60_000 && wait < 61_000, `first retry after one minute, got ${wait} ms`);
    assert.equal(list[1]?.next_attempt_at, null);

    await pump();
    assert.equal(receiver.to('/flaky').length, 2, 'no retry before it is due, and nothing overtakes the head');

    t.clock.advance(60_000);
    await pump();
    await receiver.stop();
    t.clock.advance(120_000);
    await pump();
    list = await deliveries(hook, 'status=PENDING&order=created_at');
    assert.equal(list[0]?.attempts, 3);
    assert.equal(list[0]?.last_error, 'delivery failed');
    assert.equal(list[0]?.attempt_log[2]?.response_status, null);

    await receiver.start();
    receiver.answer('/flaky', { status: 204 });
    t.clock.advance(240_000);
    await pump();
    assert.deepEqual(seen(receiver.accepted('/flaky')), ['customer.created c1', 'customer.created c2', 'customer.created c3', 'customer.deleted c1']);

    const attempts = receiver.to('/flaky').filter((r) => envelope(r).data.customer?.source_id === 'c2');
    assert.deepEqual(
      attempts.map((r) => [r.status, r.headers['x-punchcard-attempt']]),
      [
        [500, '1'],
        [500, '2'],
        [204, '4'],
      ],
      'attempt 3 found the port closed',
    );
    assert.equal(new Set(attempts.map((r) => r.body)).size, 1, 'every attempt carries the same bytes');
    assert.equal(new Set(attempts.map((r) => envelope(r).id)).size, 1, 'and the same delivery id');

    const all = await deliveries(hook);
    assert.deepEqual(
      all.map((d) => [d.status, d.attempts]),
      [
        ['SUCCEEDED', 1],
        ['SUCCEEDED', 4],
        ['SUCCEEDED', 1],
        ['SUCCEEDED', 1],
      ],
    );
    assert.deepEqual(
      all[1]?.attempt_log.map((a) => a.response_status),
      [500, 500, null, 204],
    );
    await deleteWebhook(hook);
  });

  test('after 12 failed attempts a delivery is FAILED (never dropped) and the next event goes out', async () => {
    receiver.answer('/down', { status: 503 });
    const broken = await createWebhook('/down', ['customer.created']);
    const healthy = await createWebhook('/healthy', ['customer.created']);
    const sdk = t.sdk();
    await sdk.customers.create({ source_id: 'g1' });
    await sdk.customers.create({ source_id: 'g2' });
    await pump();
    assert.deepEqual(seen(receiver.accepted('/healthy')), ['customer.created g1', 'customer.created g2'], 'one broken receiver holds up no other');

    for (let attempt = 1; attempt <= 12; attempt++) {
      const [first] = await deliveries(broken);
      assert.equal(first?.attempts, attempt);
      if (attempt < 12) {
        assert.equal(first?.status, 'PENDING');
        const wait = Date.parse(first?.next_attempt_at ?? '') - Date.parse(first?.last_attempt_at ?? '');
        assert.ok(wait >= retryDelayMs(attempt) && wait < retryDelayMs(attempt) + 1_000, `wait after attempt ${attempt}: ${wait} ms`);
        t.clock.set(first?.next_attempt_at ?? '');
        await pump();
      }
    }
    const [failed, second] = await deliveries(broken);
    assert.equal(failed?.status, 'FAILED');
    assert.equal(failed?.next_attempt_at, null);
    assert.equal(failed?.attempt_log.length, 12);
    assert.ok(failed?.attempt_log.every((a) => a.response_status === 503));
    assert.equal(second?.attempts, 1, 'the event after it was tried once the first was given up');
    const failedOnly = await deliveries(broken, 'status=FAILED');
    assert.deepEqual(
      failedOnly.map((d) => d.id),
      [failed?.id],
    );
    assert.deepEqual(seen(receiver.to('/down')).slice(-2), ['customer.created g1', 'customer.created g2']);

    // Deleting the webhook cancels what it still had to send.
    await deleteWebhook(broken);
    const rows = await t.deps.db.selectFrom('webhook_deliveries').select(['status', 'last_error']).where('webhook_id', '=', broken).orderBy('event_seq').execute();
    assert.deepEqual(
      rows.map((r) => r.status),
      ['FAILED', 'CANCELED'],
    );
    await deleteWebhook(healthy);
  });

  test('a switched-off webhook gets nothing; switched on, it gets what happens from then on', async () => {
    const hook = await createWebhook('/toggle', ['customer.created'], false);
    await t.sdk().customers.create({ source_id: 'off-1' });
    await pump();
    assert.equal(receiver.to('/toggle').length, 0);
    const on = await t.request('PUT', `/management/v1/projects/${t.projectId}/webhooks/${hook}`, {
      headers: t.managementHeaders(),
      json: { target_url: receiver.url('/toggle'), events: ['customer.created'] },
    });
    assert.equal(on.body.active, true);
    await t.sdk().customers.create({ source_id: 'on-1' });
    await pump();
    assert.deepEqual(seen(receiver.accepted('/toggle')), ['customer.created on-1']);
    await deleteWebhook(hook);
  });

  test('a receiver that does not answer in time is a failed attempt', async () => {
    receiver.answer('/slow', { status: 200, delayMs: 400 });
    const hook = await createWebhook('/slow', ['customer.created']);
    await t.sdk().customers.create({ source_id: 'slow-1' });
    const sender = new WebhookSender(t.deps, { timeoutMs: 100 });
    await dispatchWebhookEvents(t.deps);
    assert.equal(await sender.deliverDue(), 1);
    const [delivery] = await deliveries(hook);
    assert.equal(delivery?.status, 'PENDING');
    assert.equal(delivery?.last_error, 'delivery failed');
    await deleteWebhook(hook);
  });

  test('an attempt cut short by a crash is retried once its lease runs out, counted, and delivered once', async () => {
    const hook = await createWebhook('/crash', ['customer.created']);
    await t.sdk().customers.create({ source_id: 'crash-1' });
    await dispatchWebhookEvents(t.deps);
    // A sender claims the delivery and dies before sending or recording anything.
    const now = t.clock.now();
    const claimed = await inTransaction(t.deps, (tx) => claimDueDeliveries(tx, 'dead-sender', now.toISOString(), new Date(now.getTime() + 60_000).toISOString(), 10));
    assert.equal(claimed.length, 1);
    const restarted = new WebhookSender(t.deps);
    assert.equal(await restarted.deliverDue(), 0, 'the lease still holds');
    t.clock.advance(61_000);
    assert.equal(await restarted.deliverDue(), 1);
    assert.equal(receiver.accepted('/crash').length, 1);
    const [delivery] = await deliveries(hook);
    assert.equal(delivery?.status, 'SUCCEEDED');
    assert.equal(delivery?.attempts, 2, 'the interrupted attempt counts');
    await deleteWebhook(hook);
  });

  test('events not yet dispatched survive a restart; a webhook gets nothing from before it existed', async () => {
    await t.sdk().customers.create({ source_id: 'before-hook' });
    const hook = await createWebhook('/restart', ['customer.created']);
    await t.sdk().customers.create({ source_id: 'queued-1' });
    await t.sdk().customers.create({ source_id: 'queued-2' });
    // A new process: nothing in memory carries over; the cursor and deliveries are rows.
    const fresh = new WebhookSender(t.deps);
    while ((await dispatchWebhookEvents(t.deps))?.advanced) {
      /* drain the log */
    }
    while ((await fresh.deliverDue()) > 0) {
      /* drain the deliveries */
    }
    assert.deepEqual(seen(receiver.accepted('/restart')), ['customer.created queued-1', 'customer.created queued-2']);
    await deleteWebhook(hook);
  });

  test('two senders working at once never send one attempt twice, and each webhook keeps log order', async () => {
    const paths = ['/p1', '/p2', '/p3'];
    for (const path of paths) receiver.answer(path, { status: 200, delayMs: 3 });
    const hooks = await Promise.all(paths.map((p) => createWebhook(p, ['customer.created', 'customer.deleted'])));
    const sdk = t.sdk();
    const expected: string[] = [];
    for (let i = 0; i < 12; i++) {
      await sdk.customers.create({ source_id: `par-${i}` });
      expected.push(`customer.created par-${i}`);
      if (i % 4 === 3) {
        await sdk.customers.delete(`par-${i}`);
        expected.push(`customer.deleted par-${i}`);
      }
    }
    const senders = [new WebhookSender(t.deps, { senderId: 'sender-a' }), new WebhookSender(t.deps, { senderId: 'sender-b' })];
    const work = async (sender: WebhookSender) => {
      for (let idle = 0; idle < 3; ) {
        const dispatched = await dispatchWebhookEvents(t.deps);
        const sent = await sender.deliverDue();
        idle = sent === 0 && !dispatched?.advanced ? idle + 1 : 0;
      }
    };
    await Promise.all(senders.map(work));
    for (const path of paths) {
      const got = receiver.to(path);
      assert.deepEqual(seen(got), expected, `${path} in log order`);
      const attemptsSent = got.map((r) => `${envelope(r).id}#${String(r.headers['x-punchcard-attempt'])}`);
      assert.equal(new Set(attemptsSent).size, attemptsSent.length, 'no attempt sent twice');
      assert.ok(got.every((r) => r.headers['x-punchcard-attempt'] === '1'));
    }
    const pending = await t.deps.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'PENDING').execute();
    assert.equal(pending.length, 0);
    for (const hook of hooks) await deleteWebhook(hook);
  });

  test('PostgreSQL: an event that commits after a later one is still delivered, first', { skip: testDialect() !== 'postgres' && 'seq order is commit order on SQLite' }, async () => {
    const hook = await createWebhook('/late', ['customer.created']);
    const actor = { projectId: t.projectId, requestId: 'v-late', source: { channel: 'API' as const } };
    const fakeCustomer = (sourceId: string) => ({ customer: { id: `cust_${sourceId}`, source_id: sourceId, object: 'customer' } });
    const { reached: held, open: release } = latch();
    const { reached: insertedNow, open: inserted } = latch();
    // A transaction draws its seq, then stays open while a later event commits.
    const slow = t.deps.db.transaction().execute(async (tx) => {
      await appendEvents(tx, [makeEvent(t.deps, actor, { type: 'customer.created', customerId: 'cust_late-1', entityId: 'cust_late-1', data: fakeCustomer('late-1') })]);
      inserted();
      await held;
    });
    await insertedNow;
    await inTransaction(t.deps, (tx) =>
      appendEvents(tx, [makeEvent(t.deps, actor, { type: 'customer.created', customerId: 'cust_late-2', entityId: 'cust_late-2', data: fakeCustomer('late-2') })]),
    );
    const outcome = await dispatchWebhookEvents(t.deps);
    assert.equal(outcome?.waiting, true, 'the dispatcher waits at the hole');
    await pump();
    assert.equal(receiver.to('/late').length, 0, 'the later event is not sent before the earlier one');

    release();
    await slow;
    await pump();
    assert.deepEqual(seen(receiver.accepted('/late')), ['customer.created late-1', 'customer.created late-2']);

    // A transaction that draws a seq and rolls back leaves a hole that is passed at once.
    await assert.rejects(
      t.deps.db.transaction().execute(async (tx) => {
        await appendEvents(tx, [makeEvent(t.deps, actor, { type: 'customer.created', customerId: 'cust_gone', data: fakeCustomer('gone') })]);
        throw new Error('roll back');
      }),
    );
    await inTransaction(t.deps, (tx) =>
      appendEvents(tx, [makeEvent(t.deps, actor, { type: 'customer.created', customerId: 'cust_late-3', data: fakeCustomer('late-3') })]),
    );
    await pump();
    assert.deepEqual(seen(receiver.accepted('/late')), ['customer.created late-1', 'customer.created late-2', 'customer.created late-3']);
    await deleteWebhook(hook);
  });

  test('PostgreSQL: a transaction writing events in another database does not hold the dispatcher', { skip: testDialect() !== 'postgres' && 'PostgreSQL only' }, async () => {
    // The test databases are copies of one template, so their events tables share an oid: the case where
    // a lock seen cluster-wide looked like a writer of this log.
    const hook = await createWebhook('/elsewhere', ['customer.created']);
    const actor = { projectId: t.projectId, requestId: 'v-elsewhere', source: { channel: 'API' as const } };
    const event = (sourceId: string) =>
      makeEvent(t.deps, actor, { type: 'customer.created', customerId: `cust_${sourceId}`, data: { customer: { id: `cust_${sourceId}`, source_id: sourceId, object: 'customer' } } });
    const other = await createTestDatabase();
    const { reached: held, open: release } = latch();
    const { reached: insertedNow, open: inserted } = latch();
    const elsewhere = other.db.transaction().execute(async (tx) => {
      await appendEvents(tx, [event('other-database')]);
      inserted();
      await held;
    });
    try {
      await insertedNow;
      // A hole in this log (a rolled-back seq), then an event after it.
      await assert.rejects(
        t.deps.db.transaction().execute(async (tx) => {
          await appendEvents(tx, [event('rolled-back')]);
          throw new Error('roll back');
        }),
      );
      await inTransaction(t.deps, (tx) => appendEvents(tx, [event('after-hole')]));
      const outcome = await dispatchWebhookEvents(t.deps);
      assert.equal(outcome?.waiting, false, 'no writer of this database can fill the hole');
      await pump();
      assert.deepEqual(seen(receiver.accepted('/elsewhere')), ['customer.created after-hole']);
    } finally {
      release();
      await elsewhere;
      await other.close();
    }
    await deleteWebhook(hook);
  });
});
