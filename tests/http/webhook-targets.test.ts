import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WebhookSender } from '../../src/services/webhooks/delivery.ts';
import { dispatchWebhookEvents } from '../../src/services/webhooks/dispatch.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { RECEIVER_NETWORKS, WebhookReceiver } from '../helpers/webhook-receiver.ts';

// Webhook targets at delivery time (SSRF guard): the address connected to is the address checked after
// DNS, redirects are not followed, and the delivery log never tells one kind of network failure from
// another. Names are resolved by an injected resolver, so no test needs DNS.

interface Attempt {
  attempt: number;
  response_status: number | null;
  error: string | null;
}

interface Delivery {
  status: string;
  last_error: string | null;
  last_response_status: number | null;
  attempt_log: Attempt[];
}

async function createWebhook(t: TestApp, targetUrl: string): Promise<string> {
  const res = await t.request('POST', `/management/v1/projects/${t.projectId}/webhooks`, {
    headers: t.managementHeaders(),
    json: { target_url: targetUrl, events: ['customer.created'] },
  });
  assert.equal(res.status, 200, `${targetUrl}: ${res.text}`);
  return res.body.id as string;
}

async function deleteWebhook(t: TestApp, id: string): Promise<void> {
  const res = await t.request('DELETE', `/management/v1/projects/${t.projectId}/webhooks/${id}`, { headers: t.managementHeaders() });
  assert.equal(res.status, 204);
}

async function onlyDelivery(t: TestApp, webhookId: string): Promise<Delivery> {
  const res = await t.request('GET', `/management/v1/projects/${t.projectId}/webhooks/${webhookId}/deliveries`, { headers: t.managementHeaders() });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.length, 1);
  return res.body.data[0] as Delivery;
}

/** A resolver that answers `names` from a table and counts its questions. */
function fakeResolver(names: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

/** One event for every webhook of the app, then one sending turn of `sender`. */
async function sendOneEvent(t: TestApp, sender: WebhookSender, sourceId: string): Promise<void> {
  await t.sdk().customers.create({ source_id: sourceId });
  while ((await dispatchWebhookEvents(t.deps))?.advanced) {
    /* drain the log */
  }
  assert.ok((await sender.deliverDue()) > 0, 'something was attempted');
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}

describe('webhook targets at delivery, default policy (public addresses only)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startTestApp();
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  test('a public-looking name that resolves to a loopback address is not delivered to', async () => {
    const port = new URL(receiver.url('/')).port;
    const hook = await createWebhook(t, `http://hooks.partner.test:${port}/rebound`);
    const dns = fakeResolver({ 'hooks.partner.test': ['127.0.0.1'] });
    await sendOneEvent(t, new WebhookSender(t.deps, { resolve: dns.resolve }), 'rebound-1');

    assert.deepEqual(dns.asked, ['hooks.partner.test']);
    assert.equal(receiver.to('/rebound').length, 0, 'nothing reached the receiver');
    const delivery = await onlyDelivery(t, hook);
    assert.equal(delivery.status, 'PENDING');
    assert.equal(delivery.last_error, 'target address not allowed');
    assert.deepEqual(
      delivery.attempt_log.map((a) => [a.attempt, a.response_status, a.error]),
      [[1, null, 'target address not allowed']],
    );
    await deleteWebhook(t, hook);
  });

  test('a name whose every address is refused is not connected to', async () => {
    const hook = await createWebhook(t, 'http://mixed.partner.test/hook');
    const dns = fakeResolver({ 'mixed.partner.test': ['10.0.0.1', '192.0.2.1', '::1'] });
    await sendOneEvent(t, new WebhookSender(t.deps, { resolve: dns.resolve }), 'mixed-1');
    assert.equal((await onlyDelivery(t, hook)).last_error, 'target address not allowed');
    await deleteWebhook(t, hook);
  });

  test('a target stored before the guard existed is refused at delivery, IP literal included', async () => {
    const hook = await createWebhook(t, 'https://legacy.example.com/hook');
    // Rows written by an older version were never checked; the sender must not trust them.
    await t.deps.db.updateTable('webhooks').set({ target_url: receiver.url('/legacy') }).where('id', '=', hook).execute();
    await sendOneEvent(t, new WebhookSender(t.deps), 'legacy-1');
    assert.equal(receiver.to('/legacy').length, 0);
    assert.equal((await onlyDelivery(t, hook)).last_error, 'target address not allowed');
    await deleteWebhook(t, hook);
  });
});

describe('webhook targets at delivery, with the loopback network allowed', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  before(async () => {
    t = await startTestApp({ config: { webhookAllowNetworks: RECEIVER_NETWORKS } });
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    await receiver.stop();
    await t.close();
  });

  test('a name is resolved once per attempt and the connection goes to the address that was checked', async () => {
    const port = new URL(receiver.url('/')).port;
    const hook = await createWebhook(t, `http://hooks.own.test:${port}/named`);
    const dns = fakeResolver({ 'hooks.own.test': ['127.0.0.1'] });
    await sendOneEvent(t, new WebhookSender(t.deps, { resolve: dns.resolve }), 'named-1');
    assert.deepEqual(dns.asked, ['hooks.own.test'], 'one DNS question, no second lookup before connecting');
    assert.equal(receiver.accepted('/named').length, 1);
    assert.equal(receiver.to('/named')[0]?.headers.host, `hooks.own.test:${port}`, 'the request still names the host');
    const delivery = await onlyDelivery(t, hook);
    assert.equal(delivery.status, 'SUCCEEDED');
    assert.equal(delivery.attempt_log[0]?.response_status, 200);
    await deleteWebhook(t, hook);
  });

  test('a receiver answering 302 is not followed; the attempt failed with that status', async () => {
    receiver.answer('/moved', { status: 302, location: receiver.url('/elsewhere') });
    const hook = await createWebhook(t, receiver.url('/moved'));
    await sendOneEvent(t, new WebhookSender(t.deps), 'moved-1');
    assert.equal(receiver.to('/moved').length, 1);
    assert.equal(receiver.to('/elsewhere').length, 0, 'the redirect was not followed');
    const delivery = await onlyDelivery(t, hook);
    assert.equal(delivery.status, 'PENDING');
    assert.equal(delivery.last_response_status, 302);
    assert.deepEqual(
      delivery.attempt_log.map((a) => [a.response_status, a.error]),
      [[302, 'answered HTTP 302']],
    );
    await deleteWebhook(t, hook);
  });

  test('a closed port, a non-HTTP listener, a reset, a silent listener and a TLS failure read the same in the log', async () => {
    const closed = createServer();
    const closedPort = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const track = (socket: Socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    };
    const banner = createServer((socket) => {
      track(socket);
      socket.end('SSH-2.0-OpenSSH_9.6 garbage\r\n\x00\x01\x02');
    });
    const reset = createServer((socket) => {
      track(socket);
      socket.resetAndDestroy();
    });
    const silent = createServer((socket) => track(socket));
    servers.push(banner, reset, silent);
    const [bannerPort, resetPort, silentPort] = await Promise.all([listen(banner), listen(reset), listen(silent)]);
    const receiverPort = new URL(receiver.url('/')).port;

    const targets = {
      closed: `http://127.0.0.1:${closedPort}/hook`,
      nonHttp: `http://127.0.0.1:${bannerPort}/hook`,
      reset: `http://127.0.0.1:${resetPort}/hook`,
      silent: `http://127.0.0.1:${silentPort}/hook`,
      tls: `https://127.0.0.1:${receiverPort}/tls`,
    };
    const hooks = new Map<string, string>();
    for (const [kind, url] of Object.entries(targets)) hooks.set(kind, await createWebhook(t, url));
    await sendOneEvent(t, new WebhookSender(t.deps, { timeoutMs: 300 }), 'ports-1');

    const logs = new Map<string, unknown>();
    for (const [kind, hook] of hooks) {
      const delivery = await onlyDelivery(t, hook);
      logs.set(kind, {
        status: delivery.status,
        last_error: delivery.last_error,
        last_response_status: delivery.last_response_status,
        attempts: delivery.attempt_log.map((a) => ({ attempt: a.attempt, response_status: a.response_status, error: a.error })),
      });
    }
    const expected = {
      status: 'PENDING',
      last_error: 'delivery failed',
      last_response_status: null,
      attempts: [{ attempt: 1, response_status: null, error: 'delivery failed' }],
    };
    for (const [kind, log] of logs) assert.deepEqual(log, expected, kind);
    for (const hook of hooks.values()) await deleteWebhook(t, hook);
  });
});
