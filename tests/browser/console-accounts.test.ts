import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, waitForCondition, type Browser } from '../helpers/browser.ts';
import { ADMIN, addUser, signInRequest } from '../helpers/console.ts';
import { ROOT } from '../helpers/launch.ts';
import { cleanScreenshot, signInThroughPage, startSignedIn } from './console-sign-in.ts';

// Accounts in a real browser: Settings offers an invitation link to invited members and a reset link to
// active ones, never the other; the only admin who forgot the password gets back in with the link the
// operator's `punchcard users reset-password` prints, and signs in with the new password.

describe('console: accounts', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    ({ t, browser } = await startSignedIn());
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('Settings tells invited members from active ones and offers each only the link that works for them', async () => {
    const { page } = browser;
    await addUser(t, 'active@shop.example.com', 'USER');
    const invited = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'invited@shop.example.com', projects: { [t.projectId]: 'VIEWER' } },
    });
    assert.equal(invited.status, 204);
    await page.getByRole('link', { name: 'Settings' }).click();
    const activeRow = page.getByTestId('user-active@shop.example.com');
    const invitedRow = page.getByTestId('user-invited@shop.example.com');
    // The buttons each row does offer are waited for first: count() does not wait, so on a loaded machine
    // it could read a row before its actions were drawn.
    await activeRow.getByRole('button', { name: 'Reset link' }).waitFor();
    await invitedRow.getByRole('button', { name: 'Invitation link' }).waitFor();
    assert.equal(await activeRow.getByTestId('user-status').textContent(), 'Active');
    assert.equal(await invitedRow.getByTestId('user-status').textContent(), 'Invited');
    assert.equal(await activeRow.getByRole('button', { name: 'Invitation link' }).count(), 0);
    assert.equal(await invitedRow.getByRole('button', { name: 'Reset link' }).count(), 0);
    assert.equal(await invitedRow.getByRole('button', { name: 'Invitation link' }).count(), 1);

    await activeRow.getByRole('button', { name: 'Reset link' }).click();
    const dialog = page.getByRole('dialog', { name: 'A password reset link for active@shop.example.com?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const shown = page.getByTestId('reset-link');
    await shown.waitFor();
    assert.match((await shown.locator('code').textContent()) ?? '', /\/dashboard\/password-reset#token=/);
    await cleanScreenshot(page, 'settings-reset-link');
  });

  test('the only admin forgot the password: the link `punchcard users reset-password` prints lets them set a new one and sign in', async () => {
    const { page } = browser;
    const printed = spawnSync(process.execPath, ['bin/punchcard.js', 'users', 'reset-password', ADMIN.email], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: t.deps.config.databaseUrl, PUBLIC_URL: t.url },
      timeout: 120_000,
    });
    assert.equal(printed.status, 0, printed.stderr);
    const url = /^ {2}(\S+)$/m.exec(printed.stdout)?.[1] ?? '';
    assert.ok(url.startsWith(`${t.url}/dashboard/password-reset#token=`), printed.stdout);

    await page.goto(url);
    const account = page.getByTestId('reset-account');
    await account.waitFor();
    assert.match((await account.textContent()) ?? '', new RegExp(`${ADMIN.email.replace(/\./g, '\\.')} at .+\\.`));
    // A password the server refuses is explained beside the field in plain words, not as a JSON path.
    await page.getByRole('textbox', { name: 'New password' }).fill('short');
    await page.getByRole('textbox', { name: 'Repeat it' }).fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByText('Must have at least 10 characters', { exact: true }).waitFor();
    await page.getByRole('textbox', { name: 'New password' }).fill('a-new-admin-password');
    await page.getByRole('textbox', { name: 'Repeat it' }).fill('a-new-admin-password');
    await cleanScreenshot(page, 'password-reset');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByTestId('role').waitFor();
    assert.equal(await page.getByTestId('role').textContent(), 'ADMIN');

    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password)).status, 401, 'the forgotten password no longer works');
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signInThroughPage(page, t.url, ADMIN.email, 'a-new-admin-password');

    await page.goto(url);
    await page.getByRole('alert').getByText('unknown, used').waitFor();
  });

  test('a used setup link says so and leads to sign-in instead of showing the form again', async () => {
    const { page } = browser;
    await page.goto(`${t.url}/dashboard/setup#token=an-old-setup-token`);
    await page.getByRole('alert').getByText('The first admin exists already').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create admin and sign in' }).count(), 0);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard(\/sign-in)?$/);
  });

  test("the project's language and time zone, set in Settings, write the console's dates", async () => {
    const { page } = browser;
    const before = await t.request('GET', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() });
    await page.goto(`${t.url}/dashboard/settings`);
    await page.getByRole('textbox', { name: 'Time zone' }).fill('Asia/Tokyo');
    await page.getByRole('textbox', { name: 'Language of dates and numbers' }).fill('de-de');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Project saved').waitFor();
    const stored = await t.request('GET', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() });
    assert.equal(stored.body.locale, 'de-DE');
    // The server key's creation time, as German writes it ("08.12.2026, 03:04") in Tokyo's time.
    const created = page.getByTestId('api-key-server').getByRole('cell').nth(2);
    await waitForCondition(page, String.raw`/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/.test(document.querySelector('[data-testid="api-key-server"] td:nth-child(3)')?.textContent ?? '')`);
    const keys = await t.request('GET', `/management/v1/projects/${t.projectId}/api-keys`, { headers: t.managementHeaders() });
    const serverKey = (keys.body.data as Array<{ kind: string; created_at: string }>).find((k) => k.kind === 'server');
    const tokyoHour = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'Asia/Tokyo' }).format(new Date(serverKey?.created_at ?? ''));
    assert.ok(((await created.textContent()) ?? '').endsWith(tokyoHour), `${await created.textContent()} ends with ${tokyoHour}`);
    await cleanScreenshot(page, 'settings-locale');
    await t.request('PUT', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders(), json: { locale: null, timezone: before.body.timezone } });
  });
});
