import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { createServer } from 'node:net';
import { BROWSER_MISSING, type Browser } from '../helpers/browser.ts';
import { RECEIVER_NETWORKS, WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// The webhooks screen in a real browser, against a real receiver: a webhook configured from the console;
// its delivery log shows a first attempt answered 503 (PENDING, retried), then SUCCEEDED once the receiver
// recovers; a delivery re-sent from the console reaches the receiver again, and its attempts are counted
// and numbered alike (1, 2, 3, the third marked as a re-send). The API's own log agrees. Then the tools
// around it: the signing secret revealed and rotated, a webhook's events edited, a test event sent from
// the console, and failed deliveries followed to their reason, request and answer.

describe('console: webhooks', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let hookId = '';
  let deliveryId = '';

  before(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    ({ t, browser } = await startSignedIn({ config: { webhookAllowNetworks: RECEIVER_NETWORKS } }));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.stop();
  });

  const base = () => `/management/v1/projects/${t.projectId}/webhooks`;
  const mgmt = (method: string, path: string) => t.request(method, path, { headers: t.managementHeaders() });
  const deliveries = async () => (await mgmt('GET', `${base()}/${hookId}/deliveries`)).body.data as Array<{ id: string; status: string; attempts: number }>;

  test('configure a webhook for customer.created from the console', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('textbox', { name: 'Target URL' }).fill(receiver.url('/hook'));
    await page.getByRole('combobox', { name: 'Events' }).fill('customer.created');
    await page.getByRole('option', { name: 'customer.created', exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('button', { name: `Deliveries of ${receiver.url('/hook')}` }).waitFor();
    const hooks = await mgmt('GET', base());
    assert.equal(hooks.body.data.length, 1);
    assert.deepEqual([hooks.body.data[0].target_url, hooks.body.data[0].events, hooks.body.data[0].active], [receiver.url('/hook'), ['customer.created'], true]);
    hookId = hooks.body.data[0].id;
  });

  test('the delivery log: a 503 keeps the delivery pending, the retry succeeds', async () => {
    const { page } = browser;
    receiver.answer('/hook', { status: 503 });
    assert.equal((await t.request('POST', '/v1/customers', { json: { source_id: 'webhook-alice' } })).status, 200);
    await t.worker.runPeriodic({ force: true });
    const [first] = await deliveries();
    assert.equal(first?.status, 'PENDING');
    deliveryId = first?.id ?? '';
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.getByTestId(`delivery-${deliveryId}`);
    await row.filter({ hasText: 'HTTP 503' }).waitFor();
    assert.equal(await row.getByTestId('delivery-status').textContent(), 'PENDING');
    await cleanScreenshot(page, 'webhooks-pending');

    receiver.answer('/hook', { status: 200 });
    const pending = (await mgmt('GET', `${base()}/${hookId}/deliveries`)).body.data[0];
    t.clock.set(pending.next_attempt_at);
    await t.worker.runPeriodic({ force: true });
    await row.getByTestId('delivery-status').filter({ hasText: 'SUCCEEDED' }).waitFor({ timeout: 10_000 });
    assert.equal((await deliveries())[0]?.status, 'SUCCEEDED');
    assert.equal(receiver.received.filter((r) => r.path === '/hook').length, 2);
  });

  test('re-send a delivery from the console', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: `Re-send ${deliveryId}` }).click();
    await page.getByText(`Delivery ${deliveryId} queued again`).waitFor();
    const [queued] = await deliveries();
    assert.equal(queued?.status, 'PENDING', 'the API queued it again');
    // The table shows the queued delivery before it is sent: until it does, the row still shows the earlier
    // SUCCEEDED, which the wait below would take for the re-send's outcome.
    await page.getByTestId(`delivery-${deliveryId}`).getByTestId('delivery-status').filter({ hasText: 'PENDING' }).waitFor({ timeout: 10_000 });
    await t.worker.runPeriodic({ force: true });
    await page.getByTestId(`delivery-${deliveryId}`).getByTestId('delivery-status').filter({ hasText: 'SUCCEEDED' }).waitFor({ timeout: 10_000 });
    const received = receiver.received.filter((r) => r.path === '/hook');
    assert.equal(received.length, 3);
    assert.equal(received[2]?.status, 200);
    assert.equal(JSON.parse(received[2]?.body ?? '{}').id, deliveryId, 'the same delivery, sent again');
    // One count, one numbering: the table says 3 attempts, the log numbers them 1, 2, 3 and marks the re-send.
    const row = page.getByTestId(`delivery-${deliveryId}`);
    assert.equal(await row.getByRole('cell').nth(2).textContent(), '3');
    assert.equal((await deliveries())[0]?.attempts, 3);
    await page.getByRole('button', { name: `Attempts of ${deliveryId}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('HTTP 503').waitFor();
    assert.deepEqual(await dialog.locator('tbody tr td:first-child').allTextContents(), ['1', '2', '3re-sent']);
    assert.deepEqual(await dialog.locator('tbody tr td:nth-child(3)').allTextContents(), ['HTTP 503', 'HTTP 200', 'HTTP 200']);
    await cleanScreenshot(page, 'webhooks-attempts');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await cleanScreenshot(page, 'webhooks');
  });

  test('the signing secret: revealed, then rotated', async () => {
    const { page } = browser;
    const project = async () => (await t.request('GET', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() })).body.webhook_token as string;
    const before = await project();
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    await page.getByTestId('webhook-token').filter({ hasText: before }).waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('Signing secret rotated').waitFor();
    const after = await project();
    assert.notEqual(after, before);
    await page.getByTestId('webhook-token').filter({ hasText: after }).waitFor();
  });

  test("edit a webhook's events, then send it a test event", async () => {
    const { page } = browser;
    await page.getByRole('button', { name: `Edit webhook ${receiver.url('/hook')}` }).click();
    await page.getByRole('combobox', { name: 'Events' }).fill('voucher.published');
    await page.getByRole('option', { name: 'voucher.published', exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByText('Webhook saved').waitFor();
    const hook = (await mgmt('GET', `${base()}/${hookId}`)).body;
    assert.deepEqual([hook.events, hook.active], [['customer.created', 'voucher.published'], true]);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').waitFor();
    await t.worker.runPeriodic({ force: true });
    const test = (await deliveries()).find((d) => (d as { type?: string }).type === 'webhook.test');
    assert.ok(test, 'the test event is in the log');
    assert.equal(test.status, 'SUCCEEDED');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId(`delivery-${test.id}`).filter({ hasText: 'webhook.test' }).getByTestId('delivery-status').filter({ hasText: 'SUCCEEDED' }).waitFor();
    const sent = receiver.received.filter((r) => r.path === '/hook').at(-1);
    assert.equal(JSON.parse(sent?.body ?? '{}').data.test, true);
  });

  test('failed deliveries followed to their reason: an unresolvable name, a closed port', async () => {
    const { page } = browser;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const targets = { dns: 'http://nowhere.invalid/hook', closed: `http://127.0.0.1:${port}/hook` };
    const reasons = { dns: 'DNS: the host name did not resolve', closed: 'delivery failed' };
    for (const [kind, url] of Object.entries(targets) as Array<[keyof typeof targets, string]>) {
      const created = await t.request('POST', base(), { headers: t.managementHeaders(), json: { target_url: url, events: ['customer.created'] } });
      assert.equal(created.status, 200, created.text);
      await page.reload();
      await page.getByRole('button', { name: `Deliveries of ${url}` }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText('Test event queued').first().waitFor();
      await t.worker.runPeriodic({ force: true });
      const [delivery] = (await mgmt('GET', `${base()}/${created.body.id}/deliveries`)).body.data as Array<{ id: string; last_error: string }>;
      assert.equal(delivery?.last_error, reasons[kind], kind);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByTestId(`delivery-${delivery.id}`).filter({ hasText: reasons[kind] }).waitFor();
      await page.getByRole('button', { name: `Attempts of ${delivery.id}` }).click();
      const details = page.getByRole('dialog').getByTestId('attempt-details');
      await details.getByText(`Attempt 1: ${reasons[kind]}`).waitFor();
      assert.match((await details.getByTestId('attempt-request').textContent()) ?? '', /x-punchcard-signature: \(withheld\)[\s\S]*"type": "webhook.test"/);
      assert.equal(await details.getByTestId('attempt-response').textContent(), `No answer: ${reasons[kind]}`);
      if (kind === 'dns') await cleanScreenshot(page, 'webhooks-attempt-dns');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
  });

  test('a 4xx answer shows its body; the page at phone width', async () => {
    const { page } = browser;
    receiver.answer('/hook', { status: 422, body: JSON.stringify({ error: 'unknown event type' }) });
    await page.getByRole('button', { name: `Deliveries of ${receiver.url('/hook')}` }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').first().waitFor();
    // A webhook sends one delivery at a time: on a loaded machine an earlier one may still be in the
    // queue, so the worker runs until the newest delivery (the test event) has had its attempt.
    let latest: { id: string; attempts: number } | undefined;
    for (let pass = 0; pass < 20 && !(latest && latest.attempts > 0); pass += 1) {
      await t.worker.runPeriodic({ force: true });
      [latest] = await deliveries();
    }
    assert.equal(latest?.attempts, 1);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: `Attempts of ${latest?.id}` }).click();
    const details = page.getByRole('dialog').getByTestId('attempt-details');
    await details.getByText('Attempt 1: answered HTTP 422').waitFor();
    assert.match((await details.getByTestId('attempt-response').textContent()) ?? '', /HTTP 422[\s\S]*"error": "unknown event type"/);
    await cleanScreenshot(page, 'webhooks-attempt-422');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 390, height: 844 });
    await cleanScreenshot(page, 'webhooks-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
