import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, openBrowser, screenshot, type Browser } from '../helpers/browser.ts';
import { addUser } from '../helpers/console.ts';
import { cleanScreenshot, signInThroughPage, startSignedIn } from './console-sign-in.ts';

// Projects in a real browser: the organisation's owner (the first admin) lists every project, creates one
// that joins the header's project switcher at once, switches into it, and deletes another after a
// confirmation that names it (never the server's default project); the API's refusal is shown. An ADMIN who does not
// own the organisation is offered no Projects screen. At desktop width and a phone's.

const PHONE = { width: 390, height: 844 };

describe('console: projects', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    ({ t, browser } = await startSignedIn());
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const live = async () =>
    (await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() })).body.data as Array<{ id: string; name: string; timezone: string; description: string }>;
  const idOf = async (name: string) => (await live()).find((p) => p.name === name)?.id ?? '';
  const switcherOptions = async (page: Page) => {
    await page.getByRole('combobox', { name: 'Project' }).click();
    const listbox = page.getByRole('listbox');
    await listbox.waitFor();
    const options = await listbox.getByRole('option').allTextContents();
    await page.keyboard.press('Escape');
    await listbox.waitFor({ state: 'hidden' });
    return options;
  };

  test('the owner creates a project: its keys are shown once, it joins the switcher, and the owner switches into it as ADMIN', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Projects' }).click();
    const home = page.getByTestId(`project-${t.projectId}`);
    await home.getByTestId('project-role').waitFor();
    assert.equal(await home.getByTestId('project-role').textContent(), 'ADMIN · working here');
    assert.equal(await home.getByRole('button', { name: /Delete/ }).count(), 0, 'the project the session works in offers no delete');

    // A time zone the server refuses is explained beside its field; nothing is created.
    await page.getByRole('textbox', { name: 'Name' }).fill('Harbour shop');
    await page.getByRole('textbox', { name: 'Time zone' }).fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText("must be an IANA time zone name or GMT±HH:MM, got 'Mars/Olympus'").waitFor();
    assert.equal(await idOf('Harbour shop'), '');

    await page.getByRole('textbox', { name: 'Time zone' }).fill('Europe/Lisbon');
    await page.getByRole('textbox', { name: 'Description' }).fill('The shop by the harbour');
    await page.getByRole('button', { name: 'Create project' }).click();
    const keys = page.getByTestId('new-project-keys');
    await keys.waitFor();
    const codes = await keys.locator('code').allTextContents();
    assert.equal(codes.length, 4);
    const created = await t.request('GET', '/v1/customers', { headers: t.serverHeaders({ app_id: codes[0] ?? '', app_token: codes[1] ?? '' }) });
    assert.equal(created.status, 200, 'the server key the page showed works');
    await cleanScreenshot(page, 'projects-new-keys');
    await page.getByRole('button', { name: 'I have copied them' }).click();
    await keys.waitFor({ state: 'detached' });

    const harbour = await idOf('Harbour shop');
    const stored = (await live()).find((p) => p.id === harbour);
    assert.equal(stored?.timezone, 'Europe/Lisbon');
    assert.equal(stored?.description, 'The shop by the harbour');
    const row = page.getByTestId(`project-${harbour}`);
    await row.getByText('ADMIN').waitFor();
    await row.getByText('The shop by the harbour').waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Name' }).inputValue(), '', 'the form is empty again');
    assert.deepEqual(await switcherOptions(page), ['Default project', 'Harbour shop'], 'the new project is in the switcher without reloading');
    await cleanScreenshot(page, 'projects-list');

    await page.getByRole('combobox', { name: 'Project' }).click();
    await page.getByRole('option', { name: 'Harbour shop' }).click();
    await page.waitForURL(/\/dashboard\/?$/);
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByTestId(`project-${harbour}`).getByText('ADMIN · working here').waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Project' }).inputValue(), 'Harbour shop');
    assert.equal(await page.getByTestId('role').textContent(), 'ADMIN');
  });

  test('the owner deletes another project after a confirmation that names it; the default project is kept; a refusal of the API is shown', async () => {
    const { page } = browser;
    const harbour = await idOf('Harbour shop');
    await page.getByRole('textbox', { name: 'Name' }).fill('Pop-up');
    await page.getByRole('textbox', { name: 'Time zone' }).fill('UTC');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('button', { name: 'I have copied them' }).click();
    await page.getByTestId('new-project-keys').waitFor({ state: 'detached' });
    const popUp = await idOf('Pop-up');
    const foreign = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Old kiosk', timezone: 'Europe/Berlin', currency: 'EUR', case_sensitive_codes: false },
    });
    assert.equal(foreign.status, 200, foreign.text);
    await page.reload();
    const kiosk = page.getByTestId(`project-${foreign.body.id}`);
    await kiosk.getByText('Not a member').waitFor();
    assert.deepEqual(await switcherOptions(page), ['Default project', 'Harbour shop', 'Pop-up']);

    // Kept at first: the dialog names the project and says what goes.
    await page.getByRole('button', { name: 'Delete project Old kiosk' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete project Old kiosk?' });
    await dialog.waitFor();
    const told = (await dialog.textContent()) ?? '';
    assert.match(told, new RegExp(`Project Old kiosk \\(${foreign.body.id}\\) is deleted for good`));
    assert.match(told, /API keys and OAuth tokens stop working at once/);
    assert.match(told, /cannot be undone/);
    await cleanScreenshot(page, 'projects-delete-confirm');
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.ok((await live()).some((p) => p.id === foreign.body.id), 'kept');

    await page.getByRole('button', { name: 'Delete project Old kiosk' }).click();
    await dialog.getByRole('button', { name: 'Delete Old kiosk' }).click();
    await page.getByText('Project Old kiosk deleted').waitFor();
    await kiosk.waitFor({ state: 'detached' });
    assert.ok(!(await live()).some((p) => p.id === foreign.body.id), 'gone from the API');

    // A project the owner works in elsewhere leaves the switcher with it.
    await page.getByRole('button', { name: 'Delete project Pop-up' }).click();
    await page.getByRole('dialog', { name: 'Delete project Pop-up?' }).getByRole('button', { name: 'Delete Pop-up' }).click();
    await page.getByTestId(`project-${popUp}`).waitFor({ state: 'detached' });
    assert.deepEqual(await switcherOptions(page), ['Default project', 'Harbour shop']);

    // The server keeps its default project: it is offered no Delete.
    await page.getByTestId(`project-${t.projectId}`).getByText("Kept: the server's default").waitFor();
    assert.equal(await page.getByRole('button', { name: 'Delete project Default project' }).count(), 0, 'the default project is offered no Delete');

    // A project deleted elsewhere while the page was open: the API's refusal is shown.
    const gone = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Gone shop', timezone: 'UTC', currency: 'EUR', case_sensitive_codes: false },
    });
    assert.equal(gone.status, 200, gone.text);
    await page.reload();
    await page.getByRole('button', { name: 'Delete project Gone shop' }).waitFor();
    assert.equal((await t.request('DELETE', `/management/v1/projects/${gone.body.id}`, { headers: t.managementHeaders() })).status, 204);
    await page.getByRole('button', { name: 'Delete project Gone shop' }).click();
    await page.getByRole('dialog', { name: 'Delete project Gone shop?' }).getByRole('button', { name: 'Delete Gone shop' }).click();
    await page.getByText('Project Gone shop not deleted').waitFor();
    await screenshot(page, 'projects-refused');
    assert.ok((await live()).some((p) => p.id === t.projectId));
    assert.ok((await live()).some((p) => p.id === harbour));
  });

  test('at phone width the owner finds Projects in the menu and the list fits the screen', async () => {
    const phone = await openBrowser(PHONE);
    try {
      const { page } = phone;
      await signInThroughPage(page, t.url);
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('link', { name: 'Projects' }).click();
      await page.getByTestId(`project-${t.projectId}`).getByTestId('project-role').waitFor();
      await page.getByRole('button', { name: 'Create project' }).waitFor();
      await cleanScreenshot(page, 'projects-phone');
      const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      assert.ok(width <= PHONE.width, `the page is ${width}px wide`);
      // With the project switcher in the header, the account menu still fits on the screen.
      const account = await page.getByRole('button', { name: 'Account' }).boundingBox();
      assert.ok(account && account.x + account.width <= PHONE.width, `the account menu ends at ${account ? account.x + account.width : '?'}px`);
      assert.ok(await page.getByRole('combobox', { name: 'Project' }).isVisible());
      await page.getByRole('button', { name: 'Delete project Harbour shop' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete project Harbour shop?' });
      await dialog.waitFor();
      await screenshot(page, 'projects-phone-confirm', { fullPage: false });
      await dialog.getByRole('button', { name: 'Keep it' }).click();
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await phone.close();
    }
  });

  test('an ADMIN who does not own the organisation is offered no Projects screen', async () => {
    await addUser(t, 'manager@shop.example.com', 'ADMIN', 'manager-password-1');
    const other = await openBrowser();
    try {
      const { page } = other;
      await signInThroughPage(page, t.url, 'manager@shop.example.com', 'manager-password-1');
      assert.equal(await page.getByTestId('role').textContent(), 'ADMIN');
      await page.getByRole('link', { name: 'Settings' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Projects' }).count(), 0);
      await page.goto(`${t.url}/dashboard/projects`);
      await page.getByTestId('not-permitted').getByText("Only the organisation's owner manages its projects").waitFor();
      assert.equal(await page.getByRole('button', { name: 'Create project' }).count(), 0);
      await cleanScreenshot(page, 'projects-not-owner');
    } finally {
      await other.close();
    }
  });
});
