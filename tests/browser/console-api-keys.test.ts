import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TEST_ORIGIN, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, type Browser } from '../helpers/browser.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// The API keys in the console's Settings, in a real browser: the keys' ids as the management API lists
// them; rotating asks first, then shows the new secret once; the API agrees: the new secret works and the
// key it replaced gets 401. The default project's keys are generated here (not fixed by the environment),
// as on a fresh `npm start`.

describe('console: API keys', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  const listed = async () =>
    (await t.request('GET', `/management/v1/projects/${t.projectId}/api-keys`, { headers: t.managementHeaders() })).body.data as Array<{ app_id: string; kind: string }>;
  const customers = (keys: KeyPairOut) => t.request('GET', '/v1/customers', { headers: t.serverHeaders(keys) });

  before(async () => {
    ({ t, browser } = await startSignedIn({ config: { defaultProject: { serverKey: null, clientKey: null, clientOrigins: [TEST_ORIGIN] } } }));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const rotateServerKey = async (): Promise<KeyPairOut> => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Rotate server-side key' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText('are refused from now on').waitFor();
    await confirm.getByRole('button', { name: 'Rotate', exact: true }).click();
    const shown = page.getByTestId('new-api-key');
    await shown.waitFor();
    return { app_id: (await shown.getByTestId('new-app-id').textContent()) ?? '', app_token: (await shown.getByTestId('new-app-token').textContent()) ?? '' };
  };

  test('Settings lists the keys the API lists, without secrets', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const keys = await listed();
    assert.deepEqual(keys.map((k) => k.kind), ['server', 'client']);
    for (const key of keys) assert.equal(await page.getByTestId(`api-key-${key.kind}`).getByTestId('app-id').textContent(), key.app_id);
  });

  test('rotate with confirmation: the new secret is shown once and works; the key it replaced gets 401', async () => {
    const { page } = browser;
    const before = (await listed())[0]?.app_id;
    const first = await rotateServerKey();
    assert.notEqual(first.app_id, before);
    assert.ok(first.app_token.length >= 20, 'a secret is shown');
    assert.equal((await customers(first)).status, 200, 'the API takes the secret the page showed');
    await cleanScreenshot(page, 'settings-api-key-rotated');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByTestId('new-api-key').waitFor({ state: 'detached' });
    await page.getByTestId('api-key-server').getByText(first.app_id).waitFor();
    assert.equal(await page.getByText(first.app_token).count(), 0, 'the secret is not shown again');

    const second = await rotateServerKey();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByTestId('new-api-key').waitFor({ state: 'detached' });
    const refused = await customers(first);
    assert.equal(refused.status, 401, 'the replaced key is refused');
    assert.equal((await customers(second)).status, 200);
    assert.deepEqual((await listed()).map((k) => k.app_id)[0], second.app_id);
    await page.getByTestId('api-key-server').getByText(second.app_id).waitFor();
    await cleanScreenshot(page, 'settings-api-keys');
  });
});
