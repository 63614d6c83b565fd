import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { after, before, describe, test } from 'node:test';
import { roleAllows } from '../../src/domain/auth/roles.ts';
import { punchcardSignature } from '../../src/domain/webhooks/signature.ts';
import { WebhookSender } from '../../src/services/webhooks/delivery.ts';
import { dispatchWebhookEvents } from '../../src/services/webhooks/dispatch.ts';
import { failureReason, TargetNotAllowedError } from '../../src/services/webhooks/transport.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { RECEIVER_NETWORKS, WebhookReceiver } from '../helpers/webhook-receiver.ts';

// The console's webhook tools (Punchcard extensions): a test event delivered to one webhook through the
// normal queue and sender; the delivery log's record of each attempt (the request without its signatures,
// the answer cut at 4 KB, why an attempt failed); and rotating the secret that signs deliveries.

interface Attempt {
  attempt: number;
  response_status: number | null;
  error: string | null;
  request?: { url: string; headers: Record<string, string>; body: string; body_truncated: boolean };
  response?: { headers: Record<string, string>; body: string; body_truncated: boolean };
}

interface Delivery {
  id: string;
  type: string;
  status: string;
  last_error: string | null;
  attempt_log: Attempt[];
}

describe('webhook test events, attempt records and the signing secret', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    t = await startTestApp({ config: { webhookAllowNetworks: RECEIVER_NETWORKS } });
  });
  after(async () => {
    await t?.close();
    await receiver?.stop();
  });

  const base = () => `/management/v1/projects/${t.projectId}`;
  const mgmt = (method: string, path: string, json?: unknown) => t.request(method, `${base()}${path}`, { headers: t.managementHeaders(), ...(json !== undefined ? { json } : {}) });
  const createWebhook = async (url: string, events = ['customer.created']) => {
    const res = await mgmt('POST', '/webhooks', { target_url: url, events });
    assert.equal(res.status, 200, res.text);
    return res.body.id as string;
  };
  const deliveries = async (hook: string) => (await mgmt('GET', `/webhooks/${hook}/deliveries`)).body.data as Delivery[];
  const pump = async (sender = new WebhookSender(t.deps)) => {
    while ((await dispatchWebhookEvents(t.deps))?.advanced) {
      /* drain the log */
    }
    await sender.deliverDue();
  };

  test('a test event goes to the one webhook asked, marked as a test, and is logged with request and answer', async () => {
    const long = 'x'.repeat(5000);
    receiver.answer('/tested', { status: 422, body: long });
    const tested = await createWebhook(receiver.url('/tested'), ['voucher.published']);
    const other = await createWebhook(receiver.url('/other'), ['customer.created']);
    const res = await mgmt('POST', `/webhooks/${tested}/test`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.object, 'webhook_test');
    assert.equal(res.body.event.type, 'webhook.test');
    await pump();

    assert.equal(receiver.to('/other').length, 0, 'only the webhook asked gets the test');
    const [sent] = receiver.to('/tested');
    assert.ok(sent);
    const envelope = JSON.parse(sent.body);
    assert.equal(envelope.type, 'webhook.test');
    assert.equal(envelope.data.test, true);
    assert.equal(envelope.source.id, tested);

    const [delivery] = await deliveries(tested);
    assert.equal(delivery?.type, 'webhook.test');
    assert.equal(delivery?.status, 'PENDING', 'a 422 is retried like any failed attempt');
    assert.equal(delivery?.last_error, 'answered HTTP 422');
    const attempt = delivery?.attempt_log[0];
    assert.equal(attempt?.response_status, 422);
    assert.equal(attempt?.request?.url, receiver.url('/tested'));
    assert.equal(attempt?.request?.body, sent.body);
    assert.equal(attempt?.request?.body_truncated, false);
    assert.equal(attempt?.request?.headers['x-punchcard-signature'], '(withheld)', 'no signature in the log');
    assert.equal(attempt?.request?.headers['x-voucherify-signature'], '(withheld)');
    assert.equal(attempt?.request?.headers['x-punchcard-delivery'], delivery?.id);
    assert.equal(attempt?.response?.body, long.slice(0, 4096));
    assert.equal(attempt?.response?.body_truncated, true);
    assert.equal(attempt?.response?.headers['content-type'], 'text/plain');
    assert.equal((await deliveries(other)).length, 0);
  });

  test('a switched-off webhook is not tested; an unknown one is not found', async () => {
    const hook = await createWebhook(receiver.url('/off'));
    assert.equal((await mgmt('PUT', `/webhooks/${hook}`, { target_url: receiver.url('/off'), events: ['customer.created'], active: false })).status, 200);
    const off = await mgmt('POST', `/webhooks/${hook}/test`);
    assert.equal(off.status, 400);
    assert.match(off.body.details ?? off.body.message, /switched off/);
    assert.equal((await mgmt('POST', '/webhooks/wh_nothing/test')).status, 404);
  });

  test('an unresolvable host name is logged as a DNS failure', async () => {
    const resolve = async (hostname: string): Promise<LookupAddress[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    const hook = await createWebhook('https://nowhere.invalid/hook');
    await mgmt('POST', `/webhooks/${hook}/test`);
    await pump(new WebhookSender(t.deps, { resolve }));
    const [delivery] = await deliveries(hook);
    assert.equal(delivery?.last_error, 'DNS: the host name did not resolve');
    assert.equal(delivery?.attempt_log[0]?.response, undefined, 'no answer');
    assert.equal(delivery?.attempt_log[0]?.request?.url, 'https://nowhere.invalid/hook');
  });

  test('failure reasons: named for a public address, generic inside allowed networks', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    assert.equal(failureReason(err('ECONNREFUSED'), true, 10_000), 'connection refused');
    assert.equal(failureReason(err('ECONNREFUSED'), false, 10_000), 'delivery failed');
    assert.equal(failureReason(Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' }), true, 10_000), 'timed out after 10000 ms');
    assert.equal(failureReason(err('DEPTH_ZERO_SELF_SIGNED_CERT'), true, 10_000), 'TLS: DEPTH_ZERO_SELF_SIGNED_CERT');
    assert.equal(failureReason(err('ERR_SSL_WRONG_VERSION_NUMBER'), true, 10_000), 'TLS: ERR_SSL_WRONG_VERSION_NUMBER');
    assert.equal(failureReason(err('ECONNRESET'), true, 10_000), 'connection reset');
    assert.equal(failureReason(err('HPE_INVALID_CONSTANT'), true, 10_000), 'not an HTTP answer');
    assert.equal(failureReason(err('ENOTFOUND'), false, 10_000), 'DNS: the host name did not resolve');
    assert.equal(failureReason(new TargetNotAllowedError(), true, 10_000), 'target address not allowed');
  });

  test('rotating the signing secret: the answer and the project carry the new one, which signs what follows', async () => {
    const before = (await mgmt('GET', '')).body.webhook_token as string;
    const res = await mgmt('POST', '/webhook-token/rotate');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.object, 'webhook_token');
    const token = res.body.webhook_token as string;
    assert.equal(token.length, 40);
    assert.notEqual(token, before);
    assert.equal((await mgmt('GET', '')).body.webhook_token, token);

    receiver.answer('/signed', { status: 200 });
    const hook = await createWebhook(receiver.url('/signed'));
    await mgmt('POST', `/webhooks/${hook}/test`);
    await pump();
    const [sent] = receiver.to('/signed');
    assert.ok(sent);
    const header = String(sent.headers['x-punchcard-signature']);
    const unix = Number(/t=(\d+)/.exec(header)?.[1]);
    assert.equal(header, punchcardSignature(token, unix, sent.body));
    assert.equal((await deliveries(hook))[0]?.status, 'SUCCEEDED');

    assert.equal((await t.request('POST', `${base()}/webhook-token/rotate`)).status, 401, 'not without credentials');
    // Console roles: only an ADMIN may rotate it (the check every management route gets).
    const route = '/management/v1/projects/:projectId/webhook-token/rotate';
    assert.deepEqual(
      (['ADMIN', 'USER', 'VIEWER', 'MERCHANT'] as const).map((role) => roleAllows(role, 'POST', route)),
      [true, false, false, false],
    );
  });
});
