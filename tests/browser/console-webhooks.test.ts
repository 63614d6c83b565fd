import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, type Browser } from '../helpers/browser.ts';
import { RECEIVER_NETWORKS, WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// The webhooks screen in a real browser, against a real receiver: a webhook configured from the console;
// its delivery log shows a first attempt answered 503 (PENDING, retried), then SUCCEEDED once the receiver
// recovers; a delivery re-sent from the console reaches the receiver again, and its attempts are counted
// and numbered alike (1, 2, 3, the third marked as a re-send). The API's own log agrees.

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
});
